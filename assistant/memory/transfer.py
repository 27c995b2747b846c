"""JSON export and import of a profile's memories.

The export puts one memory per line, so an import error can name the line. Vault values
are included only when asked (`include_sensitive`). An import is validated whole before
anything is written: a bad file leaves the store untouched.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from assistant.clock import iso, parse_iso, to_ts
from assistant.errors import ImportFileError, InputError, StorageError, VaultError
from assistant.memory.service import MemoryService
from assistant.memory.store import MAX_CONTENT_CHARS, NewMemory, clean_content
from assistant.memory.types import Category, Kind, Memory, Source, Status
from assistant.memory.vault import Vault

FORMAT = "mnemo-export"
VERSION = 1
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_RECORDS = 200_000

Progress = Callable[[int, int], None]


def _record(memory: Memory, vault: Vault | None, include_sensitive: bool) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": memory.id,
        "profile_id": memory.profile_id,
        "kind": memory.kind.value,
        "category": memory.category.value,
        "content": memory.content,
        "summary": memory.summary,
        "slot": memory.slot,
        "entities": memory.entities,
        "importance": memory.importance,
        "confidence": memory.confidence,
        "source": memory.source.value,
        "status": memory.status.value,
        "superseded_by": memory.superseded_by,
        "pinned": memory.pinned,
        "created_at": iso(memory.created_at),
        "updated_at": iso(memory.updated_at),
        "last_accessed_at": iso(memory.last_accessed_at),
        "access_count": memory.access_count,
        "expires_at": iso(memory.expires_at),
        "event_at": iso(memory.event_at),
    }
    if memory.vault_ids and vault is not None:
        items = {item.id: item for item in vault.items()}
        record["sensitive"] = []
        for vault_id in memory.vault_ids:
            item = items.get(vault_id)
            if item is None:
                continue
            entry: dict[str, Any] = {"kind": item.kind, "masked": item.masked}
            if include_sensitive:
                entry["value"] = vault.get(vault_id)
            record["sensitive"].append(entry)
    return record


def export_memories(
    service: MemoryService, vault: Vault | None, path: Path, *, include_sensitive: bool = False,
    progress: Progress | None = None, now: datetime | None = None,
) -> int:
    """Write every memory of the profile (all statuses) to `path`; returns the count."""
    store = service.store
    total = store.count(status=None)
    tmp = path.with_name(path.name + ".part")
    written = 0
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            header = {"format": FORMAT, "version": VERSION, "profile": store.profile_id,
                      "exported_at": (now or service.clock.now()).isoformat(timespec="seconds"),
                      "includes_sensitive": include_sensitive}
            handle.write(json.dumps(header, ensure_ascii=False)[:-1] + ', "memories": [\n')
            offset = 0
            while True:
                batch = store.list(status=None, limit=1000, offset=offset, order="id ASC")
                if not batch:
                    break
                for memory in batch:
                    line = json.dumps(_record(memory, vault, include_sensitive), ensure_ascii=False)
                    handle.write(("," if written else "") + line + "\n")
                    written += 1
                offset += len(batch)
                if progress:
                    progress(written, total)
            handle.write("]}\n")
        if include_sensitive:
            os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise StorageError(f"Cannot write {path}: {exc.strerror}", "Choose another folder or free some disk space.") from exc
    return written


@dataclass
class ImportReport:
    imported: int = 0
    skipped_duplicates: int = 0


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _items_with_lines(text: str) -> tuple[dict[str, Any], list[tuple[int, Any]]]:
    """Parse the file; return the header and each memory record with its line number."""
    decoder = json.JSONDecoder()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFileError(f"not valid JSON ({exc.msg})", exc.lineno) from exc
    if not isinstance(data, dict):
        raise ImportFileError("the file is not a Mnemo export (expected a JSON object)", 1)
    if data.get("format") != FORMAT:
        raise ImportFileError(f"the file is not a Mnemo export (format is {data.get('format')!r})", 1)
    if data.get("version") != VERSION:
        raise ImportFileError(f"unsupported export version {data.get('version')!r}", 1, "Export again with this version of Mnemo.")
    memories = data.get("memories")
    if not isinstance(memories, list):
        raise ImportFileError("'memories' must be a list", 1)
    # Find where each record starts, to report errors by line.
    start = text.find("[", text.find('"memories"'))
    pos = start + 1
    located: list[tuple[int, Any]] = []
    for item in memories:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        line = _line_of(text, pos)
        try:
            _, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            end = pos + 1
        located.append((line, item))
        pos = end
    return data, located


def _validate(line: int, item: Any, profile: str, seen: set[int]) -> dict[str, Any]:
    def fail(reason: str) -> ImportFileError:
        return ImportFileError(reason, line)

    if not isinstance(item, dict):
        raise fail("a memory must be a JSON object")
    memory_id = item.get("id")
    if not isinstance(memory_id, int) or isinstance(memory_id, bool) or memory_id <= 0:
        raise fail("'id' must be a positive integer")
    if memory_id in seen:
        raise fail(f"duplicate id {memory_id}")
    seen.add(memory_id)
    if item.get("profile_id", profile) != profile:
        raise fail(f"memory {memory_id} belongs to another profile ({item.get('profile_id')!r}), not {profile!r}")
    content = item.get("content")
    if not isinstance(content, str):
        raise fail("'content' must be text")
    if len(content) > MAX_CONTENT_CHARS:
        raise fail(f"'content' is longer than {MAX_CONTENT_CHARS} characters")
    try:
        clean_content(content)
        Kind(item.get("kind", "semantic"))
        Category(str(item.get("category")))
        Source(item.get("source", "manual"))
        Status(item.get("status", "active"))
    except (ValueError, InputError) as exc:
        raise fail(str(exc).split("\n")[0]) from exc
    importance = item.get("importance", 3)
    if not isinstance(importance, int) or isinstance(importance, bool) or not 1 <= importance <= 5:
        raise fail("'importance' must be an integer from 1 to 5")
    confidence = item.get("confidence", 0.8)
    if not isinstance(confidence, int | float) or isinstance(confidence, bool) or not 0 <= confidence <= 1:
        raise fail("'confidence' must be a number from 0 to 1")
    entities = item.get("entities", [])
    if not isinstance(entities, list) or not all(isinstance(e, str) and len(e) <= 200 for e in entities) or len(entities) > 50:
        raise fail("'entities' must be a list of short strings")
    for key in ("slot", "summary"):
        if item.get(key) is not None and not isinstance(item[key], str):
            raise fail(f"'{key}' must be text or null")
    if not isinstance(item.get("pinned", False), bool):
        raise fail("'pinned' must be true or false")
    for key in ("created_at", "updated_at", "last_accessed_at", "expires_at", "event_at"):
        value = item.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise fail(f"'{key}' must be an ISO 8601 timestamp or null")
        try:
            parse_iso(value)
        except ValueError as exc:
            raise fail(f"'{key}': {exc}") from exc
    sensitive = item.get("sensitive", [])
    if not isinstance(sensitive, list) or not all(
        isinstance(s, dict) and isinstance(s.get("kind"), str) and isinstance(s.get("masked"), str)
        and isinstance(s.get("value", ""), str) for s in sensitive
    ):
        raise fail("'sensitive' must be a list of {kind, masked, value?} objects")
    superseded_by = item.get("superseded_by")
    if superseded_by is not None and (not isinstance(superseded_by, int) or isinstance(superseded_by, bool)):
        raise fail("'superseded_by' must be an id or null")
    return item


def import_memories(service: MemoryService, vault: Vault | None, path: Path, *, progress: Progress | None = None) -> ImportReport:
    """Validate the whole file, then add its memories in one transaction."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"Cannot read {path}: {exc.strerror}", "Check the path.") from exc
    if size > MAX_FILE_BYTES:
        raise ImportFileError(f"the file is {size // 1_048_576} MB; the limit is {MAX_FILE_BYTES // 1_048_576} MB", None)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ImportFileError(f"the file is not UTF-8 text (byte {exc.start})", None) from exc
    data, located = _items_with_lines(text)
    if len(located) > MAX_RECORDS:
        raise ImportFileError(f"{len(located)} memories is more than the limit of {MAX_RECORDS}", None)
    profile = data.get("profile")
    if not isinstance(profile, str):
        raise ImportFileError("'profile' must be text", 1)
    seen: set[int] = set()
    records = [(line, _validate(line, item, profile, seen)) for line, item in located]
    for line, record in records:
        target = record.get("superseded_by")
        if target is not None and target not in seen:
            raise ImportFileError(f"'superseded_by' points at id {target}, which is not in the file", line)

    store = service.store
    report = ImportReport()
    now = service.now()
    id_map: dict[int, int] = {}
    existing = {(m.content, m.category.value) for m in store.list(status=None, limit=1_000_000)}
    with service.db.atomic():
        for done, (_line, record) in enumerate(records, start=1):
            key = (clean_content(record["content"]), record["category"])
            if key in existing:
                report.skipped_duplicates += 1
                continue
            existing.add(key)
            vault_ids = []
            for entry in record.get("sensitive", []):
                if "value" in entry and vault is not None:
                    vault_ids.append(vault.put(entry["kind"], entry["value"], entry["masked"], now))
            memory = store.add(NewMemory(
                content=record["content"], category=Category(str(record["category"])),
                kind=Kind(record.get("kind", "semantic")), slot=record.get("slot"),
                entities=record.get("entities", []), importance=record.get("importance", 3),
                confidence=float(record.get("confidence", 0.8)), source=Source(record.get("source", "manual")),
                pinned=record.get("pinned", False),
                expires_at=to_ts(parse_iso(record["expires_at"])) if record.get("expires_at") else None,
                event_at=to_ts(parse_iso(record["event_at"])) if record.get("event_at") else None,
                summary=record.get("summary"), vault_ids=vault_ids,
            ), now)
            store.log_event(memory.id, "imported", now, None)
            id_map[record["id"]] = memory.id
            status = Status(record.get("status", "active"))
            if status is not Status.ACTIVE:
                store.set_status(memory.id, status, now)
            report.imported += 1
            if progress and done % 200 == 0:
                progress(done, len(records))
        for _line, record in records:
            if record.get("superseded_by") in id_map and record["id"] in id_map:
                store.db.execute(
                    "UPDATE memories SET superseded_by = ? WHERE id = ? AND profile_id = ?",
                    (id_map[record["superseded_by"]], id_map[record["id"]], store.profile_id),
                )
    service.reconcile()
    if progress:
        progress(len(records), len(records))
    return report


def reveal(vault: Vault, vault_id: int) -> str:
    """One vault value, on request (raises VaultError for a damaged value)."""
    try:
        return vault.get(vault_id)
    except VaultError:
        raise

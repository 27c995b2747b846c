"""JSON export and import of a profile's memories.

The export puts one memory per line, so an import error can name the line. Vault values
are included only when asked, and then sealed with the user's passphrase
(memory/transfer_seal.py); the file is owner-only (0600) from its first byte. An import is
read within bounds and checked whole before anything is written (memory/transfer_read.py):
a bad file leaves the store untouched. A memory never comes in pointing at a vault item
that does not exist: a `[vault #N]` reference is renumbered to the item the import stored,
or dropped (the masked stub stays) when the file carries no value for it.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from assistant.clock import iso
from assistant.errors import ImportFileError, InputError, StorageError
from assistant.memory.service import MemoryService
from assistant.memory.store import NewMemory, clean_content
from assistant.memory.transfer_read import (
    FORMAT,
    MAX_FILE_BYTES,
    MAX_RECORDS,
    VAULT_REF,
    Record,
    check_records,
    parse_export,
    read_export_bytes,
)
from assistant.memory.transfer_seal import PassphraseNeeded, Sealer, WrongPassphrase
from assistant.memory.types import Memory, Status
from assistant.memory.vault import Vault, VaultItem

__all__ = [
    "FORMAT", "MAX_FILE_BYTES", "MAX_RECORDS", "ImportReport", "PassphraseNeeded",
    "WrongPassphrase", "export_memories", "import_memories", "sealed_values_in",
]

VERSION = 2
IMPORT_BATCH = 5000  # memories embedded and indexed per step (Chroma's cost per call amortised)

Progress = Callable[[int, int], None]


def _record(memory: Memory, items: dict[int, VaultItem], vault: Vault | None, sealer: Sealer | None) -> dict[str, Any]:
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
    if memory.vault_ids:
        record["sensitive"] = []
        for position, vault_id in enumerate(memory.vault_ids):
            item = items.get(vault_id)
            if item is None:
                continue
            entry: dict[str, Any] = {"vault_id": vault_id, "kind": item.kind, "masked": item.masked}
            if sealer is not None and vault is not None:
                entry["sealed"] = sealer.seal(vault.get(vault_id), memory.id, position)
            record["sensitive"].append(entry)
    return record


def export_memories(
    service: MemoryService, vault: Vault | None, path: Path, *, include_sensitive: bool = False,
    passphrase: str | None = None, progress: Progress | None = None, now: datetime | None = None,
) -> int:
    """Write every memory of the profile (all statuses) to `path`; returns the count.

    Args:
        include_sensitive: seal the vault values into the file with `passphrase`.
        passphrase: required with `include_sensitive` (at least 8 characters).

    The file is written beside `path` under a temporary name created 0600 (no other user can
    read it at any moment), flushed to disk, then renamed over `path`.
    """
    _check_target(path)
    sealer: Sealer | None = None
    if include_sensitive:
        if not passphrase:
            raise InputError("Vault values are exported only with a passphrase.", "Give a passphrase to encrypt them with.")
        sealer = Sealer.new(passphrase)
    store = service.store
    total = store.count(status=None)
    items = {item.id: item for item in vault.items()} if vault is not None else {}
    written = 0
    tmp: Path | None = None
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)  # 0600
        tmp = Path(name)
        with open(fd, "w", encoding="utf-8") as handle:
            header: dict[str, Any] = {
                "format": FORMAT, "version": VERSION, "profile": store.profile_id,
                "exported_at": (now or service.clock.now()).isoformat(timespec="seconds"),
                "includes_sensitive": include_sensitive,
            }
            if sealer is not None:
                header["sensitive_encryption"] = sealer.header
            handle.write(json.dumps(header, ensure_ascii=False)[:-1] + ', "memories": [\n')
            offset = 0
            while True:
                batch = store.list(status=None, limit=1000, offset=offset, order="id ASC")
                if not batch:
                    break
                for memory in batch:
                    line = json.dumps(_record(memory, items, vault, sealer), ensure_ascii=False)
                    handle.write(("," if written else "") + line + "\n")
                    written += 1
                offset += len(batch)
                if progress:
                    progress(written, total)
            handle.write("]}\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise StorageError(f"Cannot write {path}: {exc.strerror}", "Choose another folder or free some disk space.") from exc
    return written


def _check_target(path: Path) -> None:
    """Refuse to write over anything but a regular file: the rename that ends an export would
    replace a device (/dev/zero), a FIFO or a folder's entry with the export."""
    if "\0" in str(path):
        raise InputError("The file name holds a NUL character.", "Choose another file name.")
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StorageError(f"Cannot write {path}: {exc.strerror}", "Choose another file name.") from exc
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path} is not a regular file; the export would replace it.", "Choose another file name.")


@dataclass
class ImportReport:
    imported: int = 0
    skipped_duplicates: int = 0
    vault_values: int = 0  # vault values stored from the file
    dropped_vault_refs: int = 0  # references to vault values the file did not carry
    ids: list[int] = field(default_factory=list)  # the new memories' ids (for the change event)


def sealed_values_in(path: Path) -> bool:
    """Whether an export file carries vault values sealed with a passphrase (ask for it first)."""
    data, _located = parse_export(_decode(read_export_bytes(path)))
    return isinstance(data.get("sensitive_encryption"), dict)


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ImportFileError(f"the file is not UTF-8 text (byte {exc.start})", None) from exc


def _open_values(records: list[Record], data: dict[str, Any], passphrase: str | None, skip_sensitive: bool) -> dict[tuple[int, int], str]:
    """(record id, position) → plain vault value, for every value the file carries."""
    sealed = [(r, i, e) for r in records for i, e in enumerate(r.sensitive) if e["sealed"] is not None]
    values = {(r.id, i): e["value"] for r in records for i, e in enumerate(r.sensitive) if e["value"] is not None}
    if skip_sensitive:
        return {}
    if not sealed:
        return values
    sealer = Sealer.open(data.get("sensitive_encryption"), passphrase)
    for record, position, entry in sealed:
        try:
            values[(record.id, position)] = sealer.unseal(entry["sealed"], record.id, position)
        except InputError as exc:
            raise ImportFileError(exc.message, record.line) from exc
        if len(values[(record.id, position)]) > 1000 or not values[(record.id, position)].strip():
            raise ImportFileError("a sealed vault value is empty or too long", record.line)
    return values


def import_memories(
    service: MemoryService, vault: Vault | None, path: Path, *, passphrase: str | None = None,
    skip_sensitive: bool = False, progress: Progress | None = None,
) -> ImportReport:
    """Check the whole file, then add its memories in one transaction and index them.

    Args:
        passphrase: opens the vault values of an export that sealed them.
        skip_sensitive: import without the vault values (their references are dropped).

    Raises:
        PassphraseNeeded: the file has sealed values and neither a passphrase nor
            `skip_sensitive` was given.
        WrongPassphrase: the passphrase does not open them.
        ImportFileError: the file is not a valid export (the message names the line).
    """
    data, located = parse_export(_decode(read_export_bytes(path)))
    records = check_records(data, located)
    values = _open_values(records, data, passphrase, skip_sensitive or vault is None)

    store = service.store
    report = ImportReport()
    now = service.now()
    existing = {_key(m.content, m.category.value) for m in store.list(status=None, limit=10_000_000)}
    kept: list[Record] = []
    items: list[tuple[NewMemory, float]] = []
    with service.db.atomic():
        for record in records:
            key = _key(record.content, record.category.value)
            if key in existing:
                report.skipped_duplicates += 1
                continue
            existing.add(key)
            content, summary, vault_ids = _with_vault_refs(record, values, vault, now, report)
            kept.append(record)
            items.append((NewMemory(
                content=content, category=record.category, kind=record.kind, slot=record.slot,
                entities=record.entities, importance=record.importance, confidence=record.confidence,
                source=record.source, pinned=record.pinned, expires_at=record.expires_at,
                event_at=record.event_at, summary=summary, vault_ids=vault_ids,
            ), now))
        new_ids = store.add_many(items)  # one pass of inserts; no read-back per memory
        id_map = {record.id: new_id for record, new_id in zip(kept, new_ids, strict=True)}
        for new_id in new_ids:
            store.log_event(new_id, "imported", now, None)
        for record in kept:
            if record.status is not Status.ACTIVE:
                store.set_status(id_map[record.id], record.status, now)
        store.db.executemany(
            "UPDATE memories SET superseded_by = ? WHERE id = ? AND profile_id = ?",
            [(id_map[r.superseded_by], id_map[r.id], store.profile_id)
             for r in kept if r.superseded_by in id_map],
        )
    report.imported = len(new_ids)
    report.ids = list(new_ids)
    if progress:
        progress(len(records), len(records))
    service.reconcile(progress, batch=IMPORT_BATCH)
    return report


def _key(content: str, category: str) -> tuple[str, str]:
    """What makes two memories the same for an import: their text without vault references
    (the same value has another item number in another profile, or none in a plain export)."""
    return clean_content(VAULT_REF.sub("", content)), category


def _with_vault_refs(
    record: Record, values: dict[tuple[int, int], str], vault: Vault | None, now: float, report: ImportReport
) -> tuple[str, str | None, list[int]]:
    """The record's content and summary with `[vault #N]` renumbered to the items stored here,
    or dropped where the file carries no value; and the memory's vault ids."""
    renumbered: dict[int, int] = {}
    linked: list[int] = []
    tagged = list(dict.fromkeys(int(n) for n in VAULT_REF.findall(record.content)))
    for position, entry in enumerate(record.sensitive):
        value = values.get((record.id, position))
        if value is None or vault is None:
            continue
        # older exports name no vault id: the n-th entry is the n-th item the text refers to
        old = entry["vault_id"] or (tagged[position] if position < len(tagged) else None)
        new = vault.put(entry["kind"], value, entry["masked"], now)
        report.vault_values += 1
        linked.append(new)
        if old is not None:
            renumbered[old] = new

    def swap(match: re.Match[str]) -> str:
        new = renumbered.get(int(match.group(1)))
        if new is None:
            report.dropped_vault_refs += 1
            return ""
        return f" [vault #{new}]"

    content = VAULT_REF.sub(swap, record.content)
    summary = VAULT_REF.sub(swap, record.summary) if record.summary else record.summary
    return content, summary, list(dict.fromkeys(linked))

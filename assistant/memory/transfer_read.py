"""Reading an export file for import: bounded, linear, and every field checked.

A file from elsewhere may be anything: a folder, a device such as /dev/zero, a FIFO that
never ends, gigabytes, a million nested brackets, a 5,000-digit number, text with lone
surrogates or NUL characters, a record superseded by itself. Each is refused at once with
the line it is on and what is wrong, before anything is written (memory/transfer.py writes).

Cost: one read of at most `MAX_FILE_BYTES`, one `json.loads`, one scan that finds where each
record starts (so errors name their line), one pass of checks: linear in the file's size.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.clock import parse_iso_ts
from assistant.errors import ImportFileError, InputError
from assistant.memory.store import MAX_CONTENT_CHARS, clean_content
from assistant.memory.types import Category, Kind, Source, Status

FORMAT = "mnemo-export"
VERSIONS = (1, 2)  # 2: vault values sealed with a passphrase (memory/transfer_seal.py)
MAX_FILE_BYTES = 128 * 1024 * 1024
MAX_RECORDS = 200_000
MAX_DIGITS = 18  # ids and counts; a longer integer is refused before Python converts it
MAX_ID = 2**53
MAX_SHORT = 200  # an entity, a masked stub
MAX_SLOT = 120
MAX_NAME = 64  # a profile name, an enum value, a vault kind
MAX_ENTITIES = 50
MAX_SENSITIVE = 20
MAX_VALUE = 1000  # a vault value: a phone, card or passport number, an address, a password
MAX_SEALED = 4000
MAX_TIME = 64

# NUL, other C0 controls but tab/newline/CR, DEL, and lone surrogates (what JSON's "\ud800"
# escape makes, and what SQLite cannot encode)
_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_LONG_NUMBER = re.compile(r"-?\d{" + str(MAX_DIGITS + 1) + ",}")
_WS = " \t\r\n"
VAULT_REF = re.compile(r"\s?\[vault #(\d+)\]")  # how a masked text names its vault item
_TIME_KEYS = ("created_at", "updated_at", "last_accessed_at", "expires_at", "event_at")


def read_export_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; anything else is refused at once.

    The file is opened without blocking (a FIFO would wait for a writer forever), checked on
    its descriptor (no race with a rename), and read no further than `limit` + 1 bytes.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    if "\0" in str(path):
        raise InputError("The file name holds a NUL character.", "Check the path of the export file.")
    try:
        fd = os.open(path, flags)
    except FileNotFoundError as exc:
        raise InputError(f"{path} does not exist.", "Check the path of the export file.") from exc
    except IsADirectoryError as exc:
        raise _not_a_file(path, "a folder") from exc
    except OSError as exc:
        raise InputError(f"Cannot read {path}: {exc.strerror}", "Check the path and its permissions.") from exc
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise _not_a_file(path, "a folder")
        if not stat.S_ISREG(info.st_mode):
            raise _not_a_file(path, "a device, pipe or socket")
        if info.st_size > limit:
            raise _too_big(info.st_size, limit)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            try:
                chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            except OSError as exc:
                raise InputError(f"Cannot read {path}: {exc.strerror}", "Check the disk and try again.") from exc
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew while we read
            raise _too_big(size, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _not_a_file(path: Path, what: str) -> ImportFileError:
    return ImportFileError(
        f"{path} is {what}, not an export file", None,
        "Choose a .json file made by Mnemo's export; nothing was imported.",
    )


def _too_big(size: int, limit: int) -> ImportFileError:
    return ImportFileError(
        f"the file is {size / 1_048_576:.0f} MB; the limit is {limit // 1_048_576} MB", None,
        "Split the export into smaller files; nothing was imported.",
    )


class _LongNumber(ValueError):
    pass


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _LongNumber(text[:40])
    return int(text)


def _parse_constant(name: str) -> Any:
    raise ImportFileError(f"{name} is not a number Mnemo accepts", None)


def _line_at(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def parse_export(text: str) -> tuple[dict[str, Any], list[tuple[int, Any]]]:
    """Parse the file; return its header and each memory record with its line number."""
    try:
        data = json.loads(text, parse_int=_parse_int, parse_constant=_parse_constant)
    except json.JSONDecodeError as exc:
        raise ImportFileError(f"not valid JSON ({exc.msg})", exc.lineno) from exc
    except RecursionError as exc:
        raise ImportFileError("the JSON is nested too deeply to be a Mnemo export", None) from exc
    except _LongNumber as exc:
        found = _LONG_NUMBER.search(text)
        line = _line_at(text, found.start()) if found else None
        raise ImportFileError(f"a number longer than {MAX_DIGITS} digits ({exc}…)", line) from exc
    if not isinstance(data, dict):
        raise ImportFileError("the file is not a Mnemo export (expected a JSON object)", 1)
    if data.get("format") != FORMAT:
        shown = data.get("format") if isinstance(data.get("format"), str | None) else "?"
        raise ImportFileError(f"the file is not a Mnemo export (format is {str(shown)[:40]!r})", 1)
    if data.get("version") not in VERSIONS:
        raise ImportFileError(
            f"unsupported export version {str(data.get('version'))[:20]!r}", 1,
            "Export again with this version of Mnemo, or update Mnemo.",
        )
    memories = data.get("memories")
    if not isinstance(memories, list):
        raise ImportFileError("'memories' must be a list", 1)
    if len(memories) > MAX_RECORDS:
        raise ImportFileError(
            f"{len(memories)} memories is more than the limit of {MAX_RECORDS}", None,
            "Split the export into smaller files; nothing was imported.",
        )
    lines = _record_lines(text, len(memories))
    return data, list(zip(lines, memories, strict=True))


def _record_lines(text: str, count: int) -> list[int]:
    """The line each record of the top-level "memories" list starts on, in one forward scan.

    The text is valid JSON (json.loads accepted it), so a walk with `raw_decode` over the
    top-level object finds the list itself, not a "memories" inside some string.
    """
    decoder = json.JSONDecoder(parse_int=_parse_int)
    positions: list[int] = []
    pos = _skip(text, text.index("{") + 1)
    while pos < len(text) and text[pos] != "}":
        key, pos = decoder.raw_decode(text, pos)
        pos = _skip(text, text.index(":", pos) + 1)
        if key == "memories" and not positions:
            pos = _skip(text, pos + 1)  # past "["
            while text[pos] != "]":
                positions.append(pos)
                _item, pos = decoder.raw_decode(text, pos)
                pos = _skip(text, pos)
                if text[pos] == ",":
                    pos = _skip(text, pos + 1)
            pos += 1
        else:
            _value, pos = decoder.raw_decode(text, pos)
        pos = _skip(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos = _skip(text, pos + 1)
    if len(positions) != count:  # a repeated "memories" key: json.loads kept the last one
        return [0] * count
    lines: list[int] = []
    line, last = 1, 0
    for start in positions:
        line += text.count("\n", last, start)
        last = start
        lines.append(line)
    return lines


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


# -- one record ---------------------------------------------------------------------------


@dataclass
class Record:
    """One memory of the file, checked: every field has its type, bounds and meaning."""

    line: int
    id: int
    content: str
    category: Category
    kind: Kind
    source: Source
    status: Status
    slot: str | None
    summary: str | None
    entities: list[str]
    importance: int
    confidence: float
    pinned: bool
    expires_at: float | None
    event_at: float | None
    superseded_by: int | None
    sensitive: list[dict[str, Any]]


def _text(item: dict[str, Any], key: str, limit: int, fail: Any, *, optional: bool = True) -> str | None:
    value = item.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise fail(f"'{key}' must be text" + (" or null" if optional else ""))
    if len(value) > limit:
        raise fail(f"'{key}' is longer than {limit} characters")
    if _BAD_CHARS.search(value):
        raise fail(f"'{key}' holds a control character or a lone surrogate")
    return value


def _int(item: dict[str, Any], key: str, default: Any, low: int, high: int, fail: Any) -> Any:
    value = item.get(key, default)
    if value is None and default is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise fail(f"'{key}' must be an integer from {low} to {high}")
    return value


def _enum(item: dict[str, Any], key: str, default: str | None, kind: Any, fail: Any) -> Any:
    value = item.get(key, default)
    if not isinstance(value, str) or len(value) > MAX_NAME:
        raise fail(f"'{key}' must be one of: " + ", ".join(v.value for v in kind))
    try:
        return kind(value)
    except ValueError as exc:
        raise fail(f"'{key}' must be one of: " + ", ".join(v.value for v in kind)) from exc


def _time(item: dict[str, Any], key: str, fail: Any) -> float | None:
    value = _text(item, key, MAX_TIME, fail)
    if value is None:
        return None
    try:
        return parse_iso_ts(value)
    except ValueError as exc:
        raise fail(f"'{key}': not an ISO 8601 time with an offset ({str(exc)[:80]})") from exc


def check_record(line: int, item: Any, profile: str) -> Record:
    """Check one record of the file; raises ImportFileError naming the line and the field."""

    def fail(reason: str) -> ImportFileError:
        return ImportFileError(reason, line)

    if not isinstance(item, dict):
        raise fail("a memory must be a JSON object")
    memory_id = _int(item, "id", 0, 1, MAX_ID, fail)
    owner = _text(item, "profile_id", MAX_NAME, fail)
    if owner is not None and owner != profile:
        raise fail(f"memory {memory_id} belongs to another profile ({owner!r}), not {profile!r}")
    content = _text(item, "content", MAX_CONTENT_CHARS, fail, optional=False)
    assert content is not None
    try:
        clean_content(VAULT_REF.sub("", content))
    except InputError as exc:
        raise fail(f"'content': {exc.message}") from exc
    entities = item.get("entities", [])
    if not isinstance(entities, list) or len(entities) > MAX_ENTITIES:
        raise fail(f"'entities' must be a list of at most {MAX_ENTITIES} short strings")
    for entity in entities:
        if not isinstance(entity, str) or len(entity) > MAX_SHORT or _BAD_CHARS.search(entity):
            raise fail(f"'entities' must hold text of at most {MAX_SHORT} characters, without control characters")
    confidence = item.get("confidence", 0.8)
    if not isinstance(confidence, int | float) or isinstance(confidence, bool) or not 0 <= confidence <= 1:
        raise fail("'confidence' must be a number from 0 to 1")
    pinned = item.get("pinned", False)
    if not isinstance(pinned, bool):
        raise fail("'pinned' must be true or false")
    slot = _text(item, "slot", MAX_SLOT, fail)
    if slot is not None and (not slot or any(ch.isspace() for ch in slot)):
        raise fail("'slot' must be a key like user.city, without spaces")
    superseded_by = _int(item, "superseded_by", None, 1, MAX_ID, fail)
    if superseded_by == memory_id:
        raise fail(f"memory {memory_id} is superseded by itself")
    for key in _TIME_KEYS[:3]:
        _time(item, key, fail)  # checked, not kept: an import is a new write
    return Record(
        line=line, id=memory_id, content=content,
        category=_enum(item, "category", None, Category, fail),
        kind=_enum(item, "kind", "semantic", Kind, fail),
        source=_enum(item, "source", "manual", Source, fail),
        status=_enum(item, "status", "active", Status, fail),
        slot=slot, summary=_text(item, "summary", MAX_CONTENT_CHARS, fail),
        entities=list(entities), importance=_int(item, "importance", 3, 1, 5, fail),
        confidence=float(confidence), pinned=pinned,
        expires_at=_time(item, "expires_at", fail), event_at=_time(item, "event_at", fail),
        superseded_by=superseded_by, sensitive=_check_sensitive(item, fail),
    )


def _check_sensitive(item: dict[str, Any], fail: Any) -> list[dict[str, Any]]:
    entries = item.get("sensitive", [])
    if not isinstance(entries, list) or len(entries) > MAX_SENSITIVE:
        raise fail(f"'sensitive' must be a list of at most {MAX_SENSITIVE} {{kind, masked, value?}} objects")
    checked: list[dict[str, Any]] = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise fail("'sensitive' must be a list of {kind, masked, value?} objects")
        kind = _text(entry, "kind", MAX_NAME, fail, optional=False)
        masked = _text(entry, "masked", MAX_SHORT, fail, optional=False)
        value = _text(entry, "value", MAX_VALUE, fail)
        sealed = _text(entry, "sealed", MAX_SEALED, fail)
        vault_id = _int(entry, "vault_id", None, 1, MAX_ID, fail)
        if value is not None and not value.strip():
            raise fail("a sensitive 'value' is empty")
        checked.append({"kind": kind, "masked": masked, "value": value, "sealed": sealed, "vault_id": vault_id})
    return checked


def check_records(data: dict[str, Any], located: list[tuple[int, Any]]) -> list[Record]:
    """Every record checked, ids unique, and `superseded_by` pointing at a record of the file
    without a cycle."""
    profile = data.get("profile")
    if not isinstance(profile, str) or len(profile) > MAX_NAME or _BAD_CHARS.search(profile):
        raise ImportFileError("'profile' must be a profile name", 1)
    records: list[Record] = []
    by_id: dict[int, Record] = {}
    for line, item in located:
        record = check_record(line, item, profile)
        if record.id in by_id:
            raise ImportFileError(f"duplicate id {record.id}", line)
        by_id[record.id] = record
        records.append(record)
    for record in records:
        if record.superseded_by is not None and record.superseded_by not in by_id:
            raise ImportFileError(
                f"'superseded_by' points at id {record.superseded_by}, which is not in the file", record.line
            )
    for record in _in_cycles(by_id):
        raise ImportFileError(f"memory {record.id} is in a cycle of 'superseded_by'", record.line)
    return records


def _in_cycles(by_id: dict[int, Record]) -> Iterator[Record]:
    """Records whose `superseded_by` chain comes back to itself (each record visited once)."""
    state: dict[int, int] = {}  # 1: on the current chain, 2: known to end
    for start in by_id:
        chain: list[int] = []
        current: int | None = start
        while current is not None and state.get(current) is None:
            state[current] = 1
            chain.append(current)
            current = by_id[current].superseded_by
        if current is not None and state.get(current) == 1:
            yield by_id[current]
            return
        for memory_id in chain:
            state[memory_id] = 2

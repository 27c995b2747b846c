"""Read an export's JSON from a file or from inside its `.zip`, refusing hostile archives.

A `.zip` holds `conversations.json`, or (newer ChatGPT exports) its shards
`conversations-000.json`, `conversations-001.json` …, which are read in order and joined.

Nothing is extracted to disk. Before a member is read, its name, declared size and
compression ratio are checked; while it is read, the bytes are counted, so an archive that
lies about its sizes is stopped at the limit, never read whole into memory.
"""

from __future__ import annotations

import json
import re
import stat
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

from assistant.importers.records import ImportRefused

MAX_JSON_BYTES = 512 * 1024 * 1024  # a conversations.json larger than this is refused
MAX_TEXT_BYTES = 5 * 1024 * 1024  # a list of memories
MAX_RATIO = 100  # uncompressed / compressed; JSON compresses about 5–15 times
MAX_MEMBERS = 200_000
_CHUNK = 1024 * 1024


def check_file(path: Path) -> int:
    """The size of the regular file at `path` (a clear refusal otherwise)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ImportRefused(f"There is no file at {path}.", "Check the path and try again.") from None
    except OSError as exc:
        raise ImportRefused(f"{path} cannot be read ({exc.strerror or exc}).", "Check its permissions.") from None
    if not stat.S_ISREG(info.st_mode):
        raise ImportRefused(f"{path} is not a file.", "Choose the export file itself (the .zip or conversations.json).")
    return info.st_size


def read_export_json(path: Path, member: str = "conversations.json") -> Any:
    """The parsed JSON of `path`: a `.zip` (its `member`) or the JSON file itself."""
    size = check_file(path)
    if zipfile.is_zipfile(path):
        return _read_members(path, member)
    if path.suffix.lower() == ".zip":
        raise ImportRefused(f"{path.name} is not a zip archive (or it is damaged).",
                            "Download the export again, or choose its conversations.json.")
    if size > MAX_JSON_BYTES:
        raise ImportRefused(f"{path.name} is {size / 2**20:.0f} MB; at most {MAX_JSON_BYTES // 2**20} MB can be imported.")
    return _parse_json(_read_capped(path, MAX_JSON_BYTES), path.name)


def read_text(path: Path) -> str:
    """A small text file (a list of memories) as text."""
    size = check_file(path)
    if size > MAX_TEXT_BYTES:
        raise ImportRefused(f"{path.name} is {size / 2**20:.1f} MB; a list of memories is at most "
                            f"{MAX_TEXT_BYTES // 2**20} MB.", "Split it, or check that this is the right file.")
    data = _read_capped(path, MAX_TEXT_BYTES)
    if b"\x00" in data[:8192] or zipfile.is_zipfile(path):
        raise ImportRefused(f"{path.name} is not a text file.", "Copy your memories into a plain .txt or .md file.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ImportRefused(f"{path.name} is not UTF-8 text.", "Save it as UTF-8 and try again.") from None


def _read_capped(path: Path, limit: int) -> bytes:
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ImportRefused(f"{path.name} grew past {limit // 2**20} MB while it was read.")
    return data


def _read_members(path: Path, wanted: str) -> Any:
    """The parsed `wanted` member of the archive at `path`; or, as newer ChatGPT exports have
    it, the lists of its shards (conversations-000.json, -001.json …) joined in order."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            _check_names(infos)
            chosen = _find_members(infos, wanted, path.name)
            for info in chosen:
                _check_member(info)
            if sum(i.file_size for i in chosen) > MAX_JSON_BYTES:
                raise ImportRefused(f"The conversations in {path.name} would be more than {MAX_JSON_BYTES // 2**20} MB "
                                    "uncompressed; that is more than can be imported at once.")
            parsed = [_parse_json(_stream(archive, info), info.filename) for info in chosen]
    except zipfile.BadZipFile as exc:
        raise ImportRefused(f"{path.name} is a damaged zip archive ({exc}).", "Download the export again.") from None
    except (NotImplementedError, RuntimeError) as exc:  # an unsupported method, an encrypted member
        raise ImportRefused(f"{path.name} cannot be read: {exc}.", "Export it again without a password.") from None
    if len(parsed) == 1:
        return parsed[0]
    joined: list[Any] = []
    for info, part in zip(chosen, parsed, strict=True):
        if not isinstance(part, list):
            raise ImportRefused(f"{info.filename} should hold a list of conversations, like the other parts of the export.")
        joined += part
    return joined


def _check_names(infos: list[zipfile.ZipInfo]) -> None:
    if len(infos) > MAX_MEMBERS:
        raise ImportRefused(f"The archive has {len(infos)} files; an export has far fewer.")
    for info in infos:
        name = info.filename.replace("\\", "/")
        parts = PurePosixPath(name).parts
        if name.startswith("/") or ".." in parts or (parts and parts[0].endswith(":")):
            raise ImportRefused(f"The archive holds a file named {info.filename[:80]!r}, which points outside it "
                                "(a path-traversal attack).", "Do not open this archive.")


def _find_members(infos: list[zipfile.ZipInfo], wanted: str, archive: str) -> list[zipfile.ZipInfo]:
    files = [i for i in infos if not i.is_dir()]
    found = [i for i in files if PurePosixPath(i.filename).name == wanted]
    if found:
        return [min(found, key=lambda i: i.filename.count("/"))]  # the top-level one
    shard = re.compile(re.escape(PurePosixPath(wanted).stem) + r"-\d{1,6}" + re.escape(PurePosixPath(wanted).suffix))
    shards = [i for i in files if shard.fullmatch(PurePosixPath(i.filename).name)]
    if shards:
        return sorted(shards, key=lambda i: PurePosixPath(i.filename).name)
    raise ImportRefused(f"{archive} has no {wanted}: it is not a ChatGPT or Claude data export.",
                        "Choose the export .zip you downloaded from the assistant's settings.")


def _check_member(info: zipfile.ZipInfo) -> None:
    if info.file_size > MAX_JSON_BYTES:
        raise ImportRefused(f"{info.filename} would be {info.file_size / 2**20:.0f} MB uncompressed; "
                            f"at most {MAX_JSON_BYTES // 2**20} MB can be imported.")
    if info.compress_size and info.file_size / info.compress_size > MAX_RATIO:
        raise ImportRefused(f"{info.filename} expands {info.file_size // info.compress_size} times "
                            "(a zip bomb?).", "Do not open this archive.")


def _stream(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The member's bytes, read in chunks and stopped at its declared size or the limit."""
    limit = min(info.file_size, MAX_JSON_BYTES)
    chunks: list[bytes] = []
    total = 0
    with archive.open(info) as handle:
        while chunk := handle.read(_CHUNK):
            total += len(chunk)
            if total > limit:
                raise ImportRefused(f"{info.filename} is larger than the archive says (a zip bomb?).",
                                    "Do not open this archive.")
            chunks.append(chunk)
    return b"".join(chunks)


def _parse_json(data: bytes, name: str) -> Any:
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise ImportRefused(f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}).",
                            "The file may be cut short: download the export again.") from None
    except UnicodeDecodeError:
        raise ImportRefused(f"{name} is not UTF-8 JSON.", "Download the export again.") from None
    except RecursionError:
        raise ImportRefused(f"{name} is nested too deeply to be an export.") from None

"""Hostile and broken files are refused before anything is read whole: zip bombs, path
traversal, a 2 GB member, lying sizes, broken JSON, files that are not what they say."""

from __future__ import annotations

import json
import struct
import tracemalloc
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assistant.importers import ImportRefused, load
from assistant.importers.archive import MAX_JSON_BYTES

FIXTURES = Path(__file__).parents[2] / "fixtures" / "imports"
NOW = datetime(2026, 12, 1, tzinfo=UTC)
CONVERSATIONS = (FIXTURES / "chatgpt_conversations.json").read_bytes()


def refused(kind: str, path: Path, reason: str) -> str:
    with pytest.raises(ImportRefused) as caught:
        load(kind, path, NOW)
    assert reason in caught.value.message, caught.value.message
    return caught.value.message


def archive(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as out:
        for name, data in members.items():
            out.writestr(zipfile.ZipInfo(name, (2024, 3, 5, 8, 0, 0)), data, compress_type=method)
    return path


def test_the_export_zip_is_read_with_its_json_in_a_folder(tmp_path: Path) -> None:
    path = archive(tmp_path / "export.zip", {"chat.html": b"<html></html>", "export-2024/conversations.json": CONVERSATIONS,
                                              "file-AbC123.png": b"\x89PNG" + b"\x00" * 100})
    assert [c.title for c in load("chatgpt", path, NOW)][:2] == ["Settling in Lisbon", "护照续签"]


def test_a_sharded_export_is_read_in_order(tmp_path: Path) -> None:
    data = json.loads(CONVERSATIONS)
    parts = {f"conversations-00{n}.json": json.dumps(data[n * 2:n * 2 + 2]).encode() for n in (1, 0)}
    path = archive(tmp_path / "sharded.zip", {**parts, "export_manifest.json": b"{}", "user.json": b"{}"})
    assert [c.title for c in load("chatgpt", path, NOW)] == ["Settling in Lisbon", "护照续签", "Breakup", "Python question"]
    bad = archive(tmp_path / "bad.zip", {"conversations-000.json": b"[]", "conversations-001.json": b'{"a": 1}'})
    refused("chatgpt", bad, "conversations-001.json should hold a list of conversations")


def test_a_zip_bomb_is_refused_by_its_ratio(tmp_path: Path) -> None:
    path = archive(tmp_path / "bomb.zip", {"conversations.json": b"[" + b" " * (60 * 2**20) + b"]"})
    tracemalloc.start()
    refused("chatgpt", path, "zip bomb")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10 * 2**20, "the member was not decompressed"


def test_a_member_declaring_2_gb_is_refused_before_reading(tmp_path: Path) -> None:
    path = archive(tmp_path / "huge.zip", {"conversations.json": CONVERSATIONS}, zipfile.ZIP_STORED)
    _set_declared_size(path, 2 * 2**30)
    message = refused("chatgpt", path, "2048 MB uncompressed")
    assert f"at most {MAX_JSON_BYTES // 2**20} MB" in message


def test_a_member_that_lies_about_its_size_is_stopped(tmp_path: Path) -> None:
    path = archive(tmp_path / "liar.zip", {"conversations.json": CONVERSATIONS}, zipfile.ZIP_STORED)
    _set_declared_size(path, 100)  # says 100 bytes, holds 14 KB
    refused("chatgpt", path, "damaged zip")  # zipfile stops at the declared size: the CRC fails


@pytest.mark.parametrize("name", ["../../.bashrc", "/etc/passwd", "export/../../x.json", "C:/Windows/x", "..\\..\\evil"])
def test_path_traversal_names_are_refused(tmp_path: Path, name: str) -> None:
    path = archive(tmp_path / "evil.zip", {"conversations.json": CONVERSATIONS, name: b"x"})
    refused("chatgpt", path, "path-traversal")


def test_broken_and_wrong_files(tmp_path: Path) -> None:
    refused("chatgpt", tmp_path / "missing.zip", "There is no file")
    refused("chatgpt", tmp_path, "is not a file")
    (tmp_path / "fake.zip").write_text("not a zip at all")
    refused("chatgpt", tmp_path / "fake.zip", "not a zip archive")
    (tmp_path / "cut.json").write_bytes(CONVERSATIONS[: len(CONVERSATIONS) // 2])
    refused("chatgpt", tmp_path / "cut.json", "not valid JSON (line")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    refused("chatgpt", tmp_path / "deep.json", "nested too deeply")
    (tmp_path / "latin1.json").write_bytes('[{"title": "caf\xe9"}]'.encode("latin-1"))
    refused("chatgpt", tmp_path / "latin1.json", "not")
    refused("claude", archive(tmp_path / "other.zip", {"readme.txt": b"hi"}), "has no conversations.json")
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(archive(tmp_path / "ok.zip", {"conversations.json": CONVERSATIONS}).read_bytes()[:-30])
    refused("chatgpt", damaged, "zip")
    (tmp_path / "list.md").write_bytes(b"\x00\x01binary")
    refused("text", tmp_path / "list.md", "not a text file")
    (tmp_path / "empty.md").write_text("# Memories\n\n---\n")
    refused("text", tmp_path / "empty.md", "no memories in it")
    (tmp_path / "obj.json").write_text(json.dumps({"title": "x"}))
    refused("chatgpt", tmp_path / "obj.json", "single object")


def test_a_too_big_json_file_is_refused_by_its_size(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_JSON_BYTES + 1)  # sparse: nothing is written
    refused("chatgpt", path, "at most")


def _set_declared_size(path: Path, size: int) -> None:
    """Rewrite the uncompressed size in the local header and the central directory."""
    data = bytearray(path.read_bytes())
    local = data.find(b"PK\x03\x04")
    central = data.find(b"PK\x01\x02")
    struct.pack_into("<I", data, local + 22, size)
    struct.pack_into("<I", data, central + 24, size)
    path.write_bytes(bytes(data))

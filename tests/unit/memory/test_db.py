from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from assistant.errors import StorageError
from assistant.memory.db import Database, classify
from assistant.memory.schema import MIGRATIONS


def test_pragmas_and_migrations(tmp_path: Path) -> None:
    db = Database(tmp_path / "m.db")
    assert db.scalar("PRAGMA journal_mode") == "wal"
    assert db.scalar("PRAGMA secure_delete") == 1
    assert db.scalar("PRAGMA foreign_keys") == 1
    assert db.schema_version() == len(MIGRATIONS)
    db.close()
    again = Database(tmp_path / "m.db")  # reopening applies nothing twice
    assert again.scalar("SELECT COUNT(*) FROM schema_migrations") == len(MIGRATIONS)
    again.close()


def test_atomic_rolls_back_everything_on_error(tmp_path: Path) -> None:
    db = Database(tmp_path / "m.db")
    with pytest.raises(RuntimeError), db.atomic():
        db.execute("INSERT INTO profiles VALUES ('a', 'a', 0)")
        raise RuntimeError("boom")
    assert db.scalar("SELECT COUNT(*) FROM profiles") == 0


def test_nested_atomic_is_a_savepoint(tmp_path: Path) -> None:
    db = Database(tmp_path / "m.db")
    with db.atomic():
        db.execute("INSERT INTO profiles VALUES ('a', 'a', 0)")
        with pytest.raises(ValueError), db.atomic():
            db.execute("INSERT INTO profiles VALUES ('b', 'b', 0)")
            raise ValueError
        with db.atomic():
            db.execute("INSERT INTO profiles VALUES ('c', 'c', 0)")
    assert [r[0] for r in db.query("SELECT id FROM profiles ORDER BY id")] == ["a", "c"]


def test_environment_errors_are_classified() -> None:
    assert isinstance(classify(sqlite3.OperationalError("database or disk is full")), StorageError)
    assert isinstance(classify(sqlite3.OperationalError("attempt to write a readonly database")), StorageError)
    assert classify(sqlite3.OperationalError("no such column: x")) is None


def test_corrupt_file_gives_a_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    path.write_bytes(os.urandom(8192))
    with pytest.raises(StorageError) as info:
        Database(path)
    assert "damaged" in info.value.message


def test_read_only_directory_gives_a_storage_error(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        # root ignores permission bits: use a path under a regular file instead
        blocker = tmp_path / "file"
        blocker.write_text("x")
        with pytest.raises(StorageError):
            Database(blocker / "sub" / "m.db")
        return
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    with pytest.raises(StorageError):
        Database(folder / "m.db")

"""The probe after a crash opens the index folder in a child: an intact folder passes, a
damaged one is refused (and shredded by `drop_if_damaged`, unless a scrub will replace it),
and this process never opens the folder itself."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from assistant.memory.db import Database
from assistant.memory.vectors.child import ChildIndex
from assistant.memory.vectors.probe import drop_if_damaged, probe_index
from assistant.memory.vectors.scrub import PENDING_KEY
from tests.integration.memory.vectors.helpers import opened_here

DIM = 8


def _folder_with_vectors(folder: Path) -> Path:
    """An index folder written by a child: this process has not opened it."""
    index = ChildIndex(folder, "test-model", DIM)
    try:
        rows = np.random.default_rng(0).standard_normal((30, DIM)).astype(np.float32)
        index.upsert(list(range(1, 31)), rows / np.linalg.norm(rows, axis=1, keepdims=True), "p1")
    finally:
        index.close()
    return folder


def _damage(folder: Path) -> None:
    with open(folder / "chroma.sqlite3", "r+b") as handle:  # as a bad sector or a stray write
        handle.seek(8192)
        handle.write(b"\x5a" * 20_000)


def test_an_intact_or_missing_folder_passes(tmp_path: Path) -> None:
    folder = _folder_with_vectors(tmp_path / "index")
    assert probe_index(folder)
    assert not opened_here(folder), "the probe opened the folder in this process"
    assert probe_index(tmp_path / "nothing-here")


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(tmp_path / "mnemo.db")
    yield database
    database.close()


def test_a_damaged_folder_is_refused_and_dropped(tmp_path: Path, db: Database) -> None:
    folder = _folder_with_vectors(tmp_path / "index")
    _damage(folder)
    assert not probe_index(folder)
    assert not opened_here(folder)
    drop_if_damaged(db, folder)
    assert not folder.exists()


def test_a_damaged_folder_a_scrub_will_replace_is_left_to_the_scrub(
    tmp_path: Path, db: Database
) -> None:
    folder = _folder_with_vectors(tmp_path / "index")
    _damage(folder)
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')", (PENDING_KEY,))
    drop_if_damaged(db, folder)
    assert (folder / "chroma.sqlite3").exists()

"""The index scrub: a deleted memory's vector leaves every byte of the index folder.

What each store keeps after a delete, and what we do about it:

- SQLite: `Database.scrub` (memory/db.py) merges the FTS tables and checkpoints after every
  committed deletion, so when a delete call returns the text is in no byte of ``mnemo.db``
  or its WAL.
- Chroma (ids, vectors and the profile id; never text): a deleted vector is unreachable at
  once, but its bytes stay in ``chroma.sqlite3`` free pages and in the HNSW segment files,
  even after ``delete_collection`` or ``chroma vacuum``. Chroma cannot scrub in place, so a
  deletion *schedules* `IndexScrubber.run`: child processes (vectors/child.py) copy the
  active vectors into a fresh index folder and the old folder is overwritten and removed
  after its client is closed. The schedule is recorded in SQLite, so a crash before the
  scrub runs it at the next start, before the old index is opened.

Forget-me, which erases the whole profile folder, is `erase_profile_dir` (memory/shred.py).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from assistant.errors import StorageError
from assistant.memory.db import Database
from assistant.memory.shred import shred_tree
from assistant.memory.vectors.child import ChildIndex
from assistant.memory.vectors.keeper import IndexKeeper, indexed_model

log = logging.getLogger("mnemo.forget")

PENDING_KEY = "forget.index_scrub_pending"
PHASE_KEY = "forget.index_scrub_phase"  # "written": the new index is complete, the old one goes
INDEX_ASIDE_PREFIX = "index.scrub-"
INDEX_ASIDE = INDEX_ASIDE_PREFIX + "old"  # the old index while a scrub copies its vectors

ScrubListener = Callable[[bool], None]  # called with True when a scrub is pending, False when done


def scrub_pending(db: Database) -> bool:
    """A deletion's vectors may still be in the index folder (recorded in SQLite)."""
    return bool(db.scalar("SELECT value FROM meta WHERE key = ?", (PENDING_KEY,)) == "1")


class IndexScrubber:
    """Rebuilds the vector index in a fresh folder so that deleted vectors leave the disk.

    No byte of the rebuilt folder may come from a heap that held a deleted vector. hnswlib
    saves a segment's whole capacity, unused slots included, from uninitialised memory; and
    Chroma saves the graph only every 1000 records, so the next process to open an unsaved
    index rebuilds the graph from Chroma's log in *its* heap and saves that. Hence: a child
    reads the kept vectors from the old folder (its heap sees the deleted ones, it writes
    nothing we keep), another child writes and saves the new index, and this process only
    opens the finished folder, never the old one. At start-up this runs before anything
    here opens the index.

    Args:
        db: the profile's database (records that a scrub is pending).
        keeper: owns the open index; its index is swapped for the rebuilt one.
    """

    def __init__(self, db: Database, keeper: IndexKeeper) -> None:
        self.db = db
        self.keeper = keeper
        self.listeners: list[ScrubListener] = []
        self._lock = threading.Lock()

    @property
    def pending(self) -> bool:
        """A deletion's vectors may still be on disk (the UI shows "finishing deletion …")."""
        return scrub_pending(self.db)

    def schedule(self) -> None:
        """Record that the index must be scrubbed (survives a crash) and tell the listeners."""
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')", (PENDING_KEY,))
        self._notify(True)

    def run(self) -> bool:
        """Scrub now if a scrub is pending (resuming one a crash cut off). Returns whether one ran."""
        with self._lock:
            if not self.pending:
                self._drop_stale_asides()
                return False
            started = time.perf_counter()
            kept, missing = self._rebuild()
            self.db.execute("DELETE FROM meta WHERE key IN (?, ?)", (PENDING_KEY, PHASE_KEY))
            log.info(
                "index scrubbed: %d vectors kept in %.2fs", kept, time.perf_counter() - started
            )
            if missing:
                log.warning(
                    "%d vectors could not be read from the old index; re-indexing them", missing
                )
                self.keeper.reconcile(self.keeper.repair_progress("re-indexing memories"))
        self._notify(False)
        return True

    def _drop_stale_asides(self) -> None:
        """Old index folders no pending scrub needs (an earlier version named them by pid)."""
        for aside in self.keeper.folder.parent.glob(f"{INDEX_ASIDE_PREFIX}*"):
            shred_tree(aside)

    def _rebuild(self) -> tuple[int, int]:
        """Returns (vectors kept, active memories whose vector the old index did not give).

        Steps, each safe to cut off: the old folder is renamed aside; its kept vectors are
        written to a fresh folder; "written" is recorded; the aside is shredded. A scrub
        resumed before "written" drops the partial fresh folder and copies again from the
        aside; one resumed after it only shreds the aside.
        """
        keeper = self.keeper
        folder = keeper.folder
        identity = indexed_model(self.db)
        keeper.release()  # close() must come before the folder moves
        aside = folder.parent / INDEX_ASIDE
        if identity is None:
            shred_tree(folder)  # nothing was ever indexed with a known model: debris
            shred_tree(aside)
            return 0, 0
        model, dim = identity
        if self.db.scalar("SELECT value FROM meta WHERE key = ?", (PHASE_KEY,)) == "written":
            shred_tree(aside)
            index = keeper.factory(folder, model, dim)
            keeper.adopt(index)
            return index.count(), 0
        if aside.exists():
            shred_tree(folder)  # a scrub cut off while writing: its partial rebuild
        elif folder.exists():
            os.replace(folder, aside)
        ids = sorted(keeper.store.active_ids())
        vectors = read_vectors_in_child(aside, model, dim, ids)
        have = [i for i in ids if i in vectors]
        matrix = (
            np.stack([vectors[i] for i in have]) if have else np.zeros((0, dim), dtype=np.float32)
        )
        write_index_in_child(folder, model, dim, keeper.profile_id, have, matrix)
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, 'written')", (PHASE_KEY,))
        keeper.adopt(keeper.factory(folder, model, dim))
        shred_tree(aside)
        return len(have), len(ids) - len(have)

    def _notify(self, pending: bool) -> None:
        for listener in list(self.listeners):
            listener(pending)


def read_vectors_in_child(folder: Path, model: str, dim: int, ids: list[int]) -> dict[int, np.ndarray]:
    """The vectors of `ids` in an index folder, read by a child process.

    The child loads the old segment, deleted vectors included; only the asked-for ones come
    back, and the child ends with the call. A child that crashes (a damaged HNSW file can
    segfault) or fails gives none: the caller re-embeds from SQLite.
    """
    if not ids or not folder.exists():
        return {}
    try:
        index = ChildIndex(folder, model, dim)
        try:
            return index.vectors(ids)
        finally:
            index.close()
    except StorageError as exc:
        log.warning("the old index could not be read (%s); its memories are embedded again", exc.message)
        return {}


def write_index_in_child(
    folder: Path, model: str, dim: int, profile_id: str, ids: list[int], vectors: np.ndarray
) -> None:
    """Write and save a fresh index in a child process whose heap never saw a deleted vector."""
    index = ChildIndex(folder, model, dim)
    try:
        if ids:
            # save the graph now, so the next opener loads it instead of rebuilding it from the log
            with index.persisting_every_write():
                index.upsert(ids, vectors, profile_id)
    finally:
        index.close()

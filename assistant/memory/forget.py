"""Deletion that leaves nothing behind, and the start-up repairs that keep that promise.

What each store keeps after a delete, and what we do about it:

- SQLite: `secure_delete` zeroes freed cells, but FTS5 segments keep deleted tokens until
  merged and the main file keeps old pages until the WAL is checkpointed. `Database.scrub`
  (memory/db.py) merges the FTS tables and checkpoints after every committed deletion, so
  when a delete call returns the text is in no byte of ``mnemo.db`` or its WAL.
- Chroma (ids, vectors and the profile id; never text): a deleted vector is unreachable at
  once, but its bytes stay in ``chroma.sqlite3`` free pages and in the HNSW segment files,
  even after ``delete_collection`` or ``chroma vacuum``. Chroma cannot scrub in place, so a
  deletion *schedules* `IndexScrubber.run`: child processes copy the active vectors into a
  fresh index folder and the old folder is overwritten and removed after its client is
  closed. The schedule is recorded in SQLite, so a crash before the scrub runs it at the
  next start, before the old index is opened.
- Forget-me renames the profile folder to a tombstone first (one atomic step), then
  overwrites and removes it; a crash midway leaves a tombstone that the next start erases.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from assistant.errors import StorageError
from assistant.memory.db import Database
from assistant.memory.index import ChromaIndex
from assistant.memory.service import MemoryService, indexed_model
from assistant.memory.shred import shred_file, shred_tree

__all__ = ["shred_file", "shred_tree"]  # re-exported: where deletion's helpers are looked for

log = logging.getLogger("mnemo.forget")

PENDING_KEY = "forget.index_scrub_pending"
PHASE_KEY = "forget.index_scrub_phase"  # "written": the new index is complete, the old one goes
TOMBSTONE_PREFIX = ".forget-"
INDEX_ASIDE_PREFIX = "index.scrub-"
INDEX_ASIDE = INDEX_ASIDE_PREFIX + "old"  # the old index while a scrub copies its vectors
PROBE_TIMEOUT_S = 120.0

ScrubListener = Callable[[bool], None]  # called with True when a scrub is pending, False when done


def erase_profile_dir(folder: Path, after_rename: Callable[[], None] | None = None) -> int:
    """Rename the folder to a tombstone (atomic), then shred it. Returns the file count."""
    if not folder.exists():
        return 0
    tomb = folder.with_name(f"{TOMBSTONE_PREFIX}{folder.name}-{os.getpid()}-{time.monotonic_ns()}")
    os.replace(folder, tomb)
    if after_rename is not None:
        after_rename()
    return shred_tree(tomb)


def finish_interrupted(profile_folder: Path) -> int:
    """Erase what an interrupted forget-me left (call before opening a profile).

    An interrupted index scrub is not erased here: its old index holds the vectors the scrub
    still copies (`IndexScrubber.run` resumes it), so nothing needs embedding again.
    """
    done = 0
    parent = profile_folder.parent
    if parent.exists():
        for tomb in parent.glob(f"{TOMBSTONE_PREFIX}{profile_folder.name}-*"):
            done += shred_tree(tomb)
    if done:
        log.info("erased %d files left by an interrupted deletion", done)
    return done


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
        service: owns the open index; its index is swapped for the rebuilt one.
    """

    def __init__(self, db: Database, service: MemoryService) -> None:
        self.db = db
        self.service = service
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
                self.service.reconcile(self.service.repair_progress("re-indexing memories"))
        self._notify(False)
        return True

    def _drop_stale_asides(self) -> None:
        """Old index folders no pending scrub needs (an earlier version named them by pid)."""
        for aside in self.service.index_dir.parent.glob(f"{INDEX_ASIDE_PREFIX}*"):
            shred_tree(aside)

    def _rebuild(self) -> tuple[int, int]:
        """Returns (vectors kept, active memories whose vector the old index did not give).

        Steps, each safe to cut off: the old folder is renamed aside; its kept vectors are
        written to a fresh folder; "written" is recorded; the aside is shredded. A scrub
        resumed before "written" drops the partial fresh folder and copies again from the
        aside; one resumed after it only shreds the aside.
        """
        service = self.service
        folder = service.index_dir
        identity = indexed_model(self.db)
        service.release_index()  # close() must come before the folder moves
        aside = folder.parent / INDEX_ASIDE
        if identity is None:
            shred_tree(folder)  # nothing was ever indexed with a known model: debris
            shred_tree(aside)
            return 0, 0
        model, dim = identity
        if self.db.scalar("SELECT value FROM meta WHERE key = ?", (PHASE_KEY,)) == "written":
            shred_tree(aside)
            index = service.index_factory(folder, model, dim)
            service.adopt_index(index)
            return index.count(), 0
        if aside.exists():
            shred_tree(folder)  # a scrub cut off while writing: its partial rebuild
        elif folder.exists():
            os.replace(folder, aside)
        ids = sorted(service.store.active_ids())
        vectors = read_vectors_in_child(aside, model, dim, ids)
        have = [i for i in ids if i in vectors]
        matrix = (
            np.stack([vectors[i] for i in have]) if have else np.zeros((0, dim), dtype=np.float32)
        )
        write_index_in_child(folder, model, dim, service.profile_id, have, matrix)
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, 'written')", (PHASE_KEY,))
        service.adopt_index(service.index_factory(folder, model, dim))
        shred_tree(aside)
        return len(have), len(ids) - len(have)

    def _notify(self, pending: bool) -> None:
        for listener in list(self.listeners):
            listener(pending)


def _run_child(args: list[str], data: bytes, what: str) -> bytes:
    env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
    try:
        result = subprocess.run(
            [sys.executable, "-m", "assistant.memory.forget", *args],
            input=data,
            env=env,
            capture_output=True,
            check=False,
            timeout=600,
        )
    except subprocess.TimeoutExpired as exc:
        raise StorageError(
            f"The vector index {what} timed out.", "The next start tries again."
        ) from exc
    if result.returncode != 0:
        log.error(
            "index %s failed (exit %s): %s",
            what,
            result.returncode,
            result.stderr[-2000:].decode("utf-8", "replace"),
        )
        raise StorageError(
            f"The vector index {what} failed.", "Check disk space; the next start tries again."
        )
    return result.stdout


def _pack(ids: list[int], vectors: np.ndarray | None = None) -> bytes:
    buffer = io.BytesIO()
    arrays: dict[str, np.ndarray] = {"ids": np.asarray(ids, dtype=np.int64)}
    if vectors is not None:
        arrays["vectors"] = np.asarray(vectors, dtype=np.float32)
    np.savez(buffer, **arrays)  # type: ignore[arg-type]  # numpy types savez(file, *args, allow_pickle=..)
    return buffer.getvalue()


def read_vectors_in_child(
    folder: Path, model: str, dim: int, ids: list[int]
) -> dict[int, np.ndarray]:
    """The vectors of `ids` in an index folder, read by a child process.

    The child loads the old segment, deleted vectors included; only the asked-for ones come
    back. A child that crashes (a damaged HNSW file can segfault) gives none: the caller
    re-embeds from SQLite.
    """
    if not ids or not folder.exists():
        return {}
    try:
        out = _run_child(["read", str(folder), model, str(dim)], _pack(ids), "read")
    except StorageError:
        return {}
    data = np.load(io.BytesIO(out))
    return {int(i): v for i, v in zip(data["ids"], data["vectors"], strict=True)}


def write_index_in_child(
    folder: Path, model: str, dim: int, profile_id: str, ids: list[int], vectors: np.ndarray
) -> None:
    """Write and save a fresh index in a child process whose heap never saw a deleted vector."""
    _run_child(["write", str(folder), model, str(dim), profile_id], _pack(ids, vectors), "rebuild")


def _read_child(folder: Path, model: str, dim: int) -> int:
    ids = [int(i) for i in np.load(io.BytesIO(sys.stdin.buffer.read()))["ids"]]
    index = ChromaIndex(folder, model, dim)
    try:
        found = index.vectors(ids)
    finally:
        index.close()
    have = sorted(found)
    matrix = np.stack([found[i] for i in have]) if have else np.zeros((0, dim), dtype=np.float32)
    sys.stdout.buffer.write(_pack(have, matrix))
    sys.stdout.buffer.flush()
    return 0


def _write_child(folder: Path, model: str, dim: int, profile_id: str) -> int:
    data = np.load(io.BytesIO(sys.stdin.buffer.read()))
    index = ChromaIndex(folder, model, dim)
    try:
        ids = [int(i) for i in data["ids"]]
        if ids:
            # save the graph now, so the parent loads it instead of rebuilding it from the log
            with index.persisting_every_write():
                index.upsert(ids, data["vectors"], profile_id)
    finally:
        index.close()
    return 0


def _child_main(argv: list[str]) -> int:
    command, folder, model, dim = argv[0], Path(argv[1]), argv[2], int(argv[3])
    if command == "read":
        return _read_child(folder, model, dim)
    if command == "write":
        return _write_child(folder, model, dim, argv[4])
    raise SystemExit(f"unknown command {command!r}")


def probe_index(folder: Path, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Open the index in a child process: a damaged HNSW file can segfault instead of raising.

    Returns False when the child crashed, hung or reported an error (rebuild from SQLite).
    """
    if not folder.exists():
        return True
    code = (
        "import sys, chromadb\n"
        "from chromadb.config import Settings\n"
        "c = chromadb.PersistentClient(path=sys.argv[1], settings=Settings(anonymized_telemetry=False))\n"
        "for col in c.list_collections():\n"
        "    n = col.count()\n"
        "    if n:\n"
        "        got = col.get(limit=1, include=['embeddings'])\n"
        "        col.query(query_embeddings=[got['embeddings'][0]], n_results=min(n, 3))\n"
        "c.close()\n"
    )
    env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
    try:
        result = subprocess.run(
            [sys.executable, "-c", code, str(folder)],
            env=env,
            timeout=timeout,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        log.warning("index probe timed out")
        return False
    if result.returncode != 0:
        log.warning(
            "index probe failed (exit %s): the index is rebuilt from SQLite", result.returncode
        )
    return result.returncode == 0


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1:]))

"""Deletion that leaves nothing behind, and the start-up repairs that keep that promise.

What each store keeps after a delete, and what we do about it:

- SQLite: `secure_delete` zeroes freed cells, but FTS5 segments keep deleted tokens until
  merged and the main file keeps old pages until the WAL is checkpointed. `Database.scrub`
  (memory/db.py) merges the FTS tables and checkpoints after every committed deletion, so
  when a delete call returns the text is in no byte of ``mnemo.db`` or its WAL.
- Chroma (ids, vectors and the profile id; never text): a deleted vector is unreachable at
  once, but its bytes stay in ``chroma.sqlite3`` free pages and in the HNSW segment files,
  even after ``delete_collection`` or ``chroma vacuum``. Chroma cannot scrub in place, so a
  deletion *schedules* `IndexScrubber.run`: the active vectors are copied into a fresh
  index folder and the old folder is overwritten and removed after its client is closed.
  The schedule is recorded in SQLite, so a crash before the scrub runs it at the next start.
- Forget-me renames the profile folder to a tombstone first (one atomic step), then
  overwrites and removes it; a crash midway leaves a tombstone that the next start erases.
"""

from __future__ import annotations

import io
import logging
import os
import shutil
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
from assistant.memory.service import MemoryService

log = logging.getLogger("mnemo.forget")

PENDING_KEY = "forget.index_scrub_pending"
TOMBSTONE_PREFIX = ".forget-"
INDEX_ASIDE_PREFIX = "index.scrub-"
PROBE_TIMEOUT_S = 120.0

ScrubListener = Callable[[bool], None]  # called with True when a scrub is pending, False when done


def shred_file(path: Path) -> None:
    """Overwrite a file with zeros and flush it before it is unlinked.

    Best effort on journaling file systems and SSDs (the device may keep old blocks); what
    we promise is that no file under the data directory holds the bytes.
    """
    try:
        size = path.stat().st_size
        with open(path, "r+b", buffering=0) as handle:
            block = b"\0" * (1 << 20)
            remaining = size
            while remaining > 0:
                remaining -= handle.write(block[: min(remaining, len(block))])
            os.fsync(handle.fileno())
    except OSError as exc:
        log.warning("could not overwrite a file before removal (%s)", exc.strerror)


def shred_tree(root: Path) -> int:
    """Overwrite every regular file under `root`, then remove the tree. Returns the file count."""
    if not root.exists():
        return 0
    files = [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
    for path in files:
        shred_file(path)
    shutil.rmtree(root, ignore_errors=False)
    return len(files)


def erase_profile_dir(folder: Path) -> int:
    """Rename the folder to a tombstone (atomic), then shred it. Returns the file count."""
    if not folder.exists():
        return 0
    tomb = folder.with_name(f"{TOMBSTONE_PREFIX}{folder.name}-{os.getpid()}-{time.monotonic_ns()}")
    os.replace(folder, tomb)
    return shred_tree(tomb)


def finish_interrupted(profile_folder: Path) -> int:
    """Erase what an interrupted forget-me or index scrub left (call before opening a profile)."""
    done = 0
    parent = profile_folder.parent
    if parent.exists():
        for tomb in parent.glob(f"{TOMBSTONE_PREFIX}{profile_folder.name}-*"):
            done += shred_tree(tomb)
    if profile_folder.exists():
        for aside in profile_folder.glob(f"{INDEX_ASIDE_PREFIX}*"):
            done += shred_tree(aside)
    if done:
        log.info("erased %d files left by an interrupted deletion", done)
    return done


class IndexScrubber:
    """Rebuilds the vector index in a fresh folder so that deleted vectors leave the disk.

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
        return bool(self.db.scalar("SELECT value FROM meta WHERE key = ?", (PENDING_KEY,)) == "1")

    def schedule(self) -> None:
        """Record that the index must be scrubbed (survives a crash) and tell the listeners."""
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')", (PENDING_KEY,))
        self._notify(True)

    def run(self) -> bool:
        """Scrub now if a scrub is pending. Returns whether one ran."""
        with self._lock:
            if not self.pending:
                return False
            started = time.perf_counter()
            kept = self._rebuild()
            self.db.execute("DELETE FROM meta WHERE key = ?", (PENDING_KEY,))
            log.info("index scrubbed: %d vectors kept in %.2fs", kept, time.perf_counter() - started)
        self._notify(False)
        return True

    def _rebuild(self) -> int:
        service = self.service
        folder = service.index_dir
        old = service.open_index_for_removal()
        if old is None:
            # nothing was ever indexed with a known model: whatever is there is debris
            service.release_index()
            shred_tree(folder)
            return 0
        model, dim = old.model_name, old.dimension
        ids = sorted(service.store.active_ids())
        vectors: dict[int, np.ndarray] = {}
        for start in range(0, len(ids), 5000):
            vectors.update(old.vectors(ids[start : start + 5000]))
        service.release_index()  # close() must come before the folder goes
        aside = folder.parent / f"{INDEX_ASIDE_PREFIX}{os.getpid()}"
        os.replace(folder, aside)
        have = [i for i in ids if i in vectors]
        matrix = np.stack([vectors[i] for i in have]) if have else np.zeros((0, dim), dtype=np.float32)
        write_index_in_child(folder, model, dim, service.profile_id, have, matrix)
        service.adopt_index(ChromaIndex(folder, model, dim))
        shred_tree(aside)
        # vectors missing from the old index are embedded by the next reconcile
        return len(have)

    def _notify(self, pending: bool) -> None:
        for listener in list(self.listeners):
            listener(pending)


def write_index_in_child(folder: Path, model: str, dim: int, profile_id: str, ids: list[int], vectors: np.ndarray) -> None:
    """Write a fresh index in a child process.

    hnswlib preallocates the segment file's capacity from uninitialised heap memory and
    writes it to disk whole: in this process that memory may still hold the deleted vectors
    the old index had loaded. A child process's heap never saw them.
    """
    buffer = io.BytesIO()
    np.savez(buffer, ids=np.asarray(ids, dtype=np.int64), vectors=np.asarray(vectors, dtype=np.float32))
    env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
    result = subprocess.run(
        [sys.executable, "-m", "assistant.memory.forget", str(folder), model, str(dim), profile_id],
        input=buffer.getvalue(), env=env, capture_output=True, check=False, timeout=600,
    )
    if result.returncode != 0:
        log.error("index rebuild failed (exit %s): %s", result.returncode, result.stderr[-2000:].decode("utf-8", "replace"))
        raise StorageError("The vector index could not be rebuilt.", "Check disk space; the next start tries again.")


def _child_main(argv: list[str]) -> int:
    folder, model, dim, profile_id = Path(argv[0]), argv[1], int(argv[2]), argv[3]
    data = np.load(io.BytesIO(sys.stdin.buffer.read()))
    index = ChromaIndex(folder, model, dim)
    try:
        ids = [int(i) for i in data["ids"]]
        if ids:
            index.upsert(ids, data["vectors"], profile_id)
    finally:
        index.close()
    return 0


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
            [sys.executable, "-c", code, str(folder)], env=env, timeout=timeout,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
        )
    except subprocess.TimeoutExpired:
        log.warning("index probe timed out")
        return False
    if result.returncode != 0:
        log.warning("index probe failed (exit %s): the index is rebuilt from SQLite", result.returncode)
    return result.returncode == 0


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1:]))

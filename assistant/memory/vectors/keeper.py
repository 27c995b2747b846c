"""IndexKeeper: the profile's vector index for the embedder's model, kept equal to SQLite.

SQLite is the truth: the index holds exactly the active memories, one vector each. The
keeper opens the collection of the current model (recording which one in SQLite, so a
removal can open it without loading the model), replaces damaged files by a rebuilt index
(`HealingIndex`), and repairs what a failed or missing index write left (`reconcile`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from assistant.memory.db import Database
from assistant.memory.embedder import Embedder
from assistant.memory.shred import shred_tree
from assistant.memory.store import MemoryStore
from assistant.memory.types import Status
from assistant.memory.vectors.chroma import (
    ChromaIndex,
    IndexDamagedError,
    IndexFactory,
    VectorIndex,
)
from assistant.memory.vectors.healing import HealingIndex

log = logging.getLogger("mnemo.index")

Progress = Callable[[int, int], None]
RepairProgress = Callable[[str, int, int], None]  # (what is being repaired, done, total)


@dataclass
class ReconcileReport:
    indexed: int = 0  # active in SQLite, missing from the index
    removed: int = 0  # in the index, not active in SQLite
    stale_collections: int = 0  # other models' collections dropped

    def as_dict(self) -> dict[str, int]:
        return {"indexed": self.indexed, "removed": self.removed, "stale_collections": self.stale_collections}


def indexed_model(db: Database) -> tuple[str, int] | None:
    """The model and dimension the index was last opened with (`IndexKeeper` records them)."""
    rows = {
        str(r[0]): str(r[1])
        for r in db.query(
            "SELECT key, value FROM meta WHERE key IN ('index_model', 'index_dimension')"
        )
    }
    if "index_model" not in rows or "index_dimension" not in rows:
        return None
    return rows["index_model"], int(rows["index_dimension"])


class IndexKeeper:
    """Opens, heals, fills and repairs one profile's vector index.

    Args:
        db: the profile's database (records the indexed model).
        store: the memories (the truth the index follows).
        embedder: embeds what the index lacks; `switch` replaces it.
        folder: the profile's index folder.
        factory: opens an index, in this process or served by a child (the app's).
        progress: shows a re-index or the rebuild of a damaged index, as (what, done, total).
        warn: receives the user-visible warning that a damaged index is being rebuilt.
    """

    def __init__(
        self,
        db: Database,
        store: MemoryStore,
        embedder: Embedder,
        folder: Path,
        *,
        factory: IndexFactory = ChromaIndex,
        progress: RepairProgress | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.db = db
        self.store = store
        self.embedder = embedder
        self.folder = folder
        self.factory = factory
        self.progress = progress
        self._warn = warn or (lambda text: log.warning("%s", text))
        self._index: VectorIndex | None = None
        # Opening is one thread's at a time: a second opener would close the index the first
        # is still using (a read on a worker while a chat turn writes: KeyError inside Chroma).
        self._opening = threading.RLock()

    @property
    def profile_id(self) -> str:
        return self.store.profile_id

    @property
    def index(self) -> VectorIndex:
        """The index of the embedder's model (loads the model when not loaded yet)."""
        current = self._index
        name, dim = self.embedder.vector_space, self.embedder.dimension
        if current is not None and (current.model_name, current.dimension) == (name, dim):
            return current
        with self._opening:
            current = self._index  # another thread may have opened it meanwhile
            if current is not None and (current.model_name, current.dimension) == (name, dim):
                return current
            index = self._open()
            if index.count() != self.store.count():
                # A model seen for the first time (the real one arrived after a fallback, or
                # the settings changed) or an index a crash left behind: fill it from SQLite.
                log.info("index for this model is behind the database; re-indexing")
                self.reconcile(self.repair_progress("indexing memories"))
            return index

    def repair_progress(self, what: str) -> Progress | None:
        """A (done, total) callback that reports `what` to the progress reporter, if any."""
        report = self.progress
        if report is None:
            return None
        return lambda done, total: report(what, done, total)

    # -- opening ---------------------------------------------------------------------------

    def _open(self) -> VectorIndex:
        """Open (or create) the collection of the embedder's model, as it is."""
        name, dim = self.embedder.vector_space, self.embedder.dimension
        self.release()
        self._index = self._healing(name, dim)
        self.db.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('index_model', ?), ('index_dimension', ?)",
            (name, str(dim)),
        )
        return self._index

    def _healing(self, name: str, dim: int) -> VectorIndex:
        """The index of (model, dimension); damaged files are replaced by a rebuilt index."""
        try:
            inner = self.factory(self.folder, name, dim)
        except IndexDamagedError:
            inner = self._fresh(name, dim)
        return self._healing_around(inner)

    def _healing_around(self, inner: VectorIndex) -> VectorIndex:
        name, dim = inner.model_name, inner.dimension
        return HealingIndex(inner, lambda: self._fresh(name, dim), self._refill)

    def _fresh(self, name: str, dim: int) -> VectorIndex:
        self._warn(
            "The search index was damaged; it is being rebuilt from your memories (nothing is lost)."
        )
        shred_tree(self.folder)
        return self.factory(self.folder, name, dim)

    def _refill(self) -> None:
        self.reconcile(self.repair_progress("rebuilding the search index"))

    def release(self) -> None:
        """Close the index client (before its folder is moved or removed)."""
        if self._index is not None:
            self._index.close()
            self._index = None

    def adopt(self, index: VectorIndex) -> None:
        """Use a rebuilt index (the scrub's, vectors/scrub.py)."""
        self.release()
        self._index = self._healing_around(index)

    def _opened_or_recorded(self) -> VectorIndex | None:
        """The index for removals, opened without loading the embedding model when possible."""
        if self._index is not None:
            return self._index
        if getattr(self.embedder, "is_loaded", True):
            return self.index
        identity = indexed_model(self.db)
        if identity is None:
            return None  # nothing was ever indexed
        self._index = self._healing(*identity)
        return self._index

    # -- keeping in step -------------------------------------------------------------------

    def add(self, ids: Sequence[int], vectors: np.ndarray | None = None) -> None:
        """Index the active memories of `ids` (`vectors`: their embeddings, one row per id).

        A failed write is logged, not raised: the memories are committed, and `reconcile`
        repairs the index.
        """
        memories = self.store.get_many(ids)
        live = [m for m in memories.values() if m.status is Status.ACTIVE]
        if not live:
            return
        if vectors is None or len(live) != len(ids):
            vectors = self.embedder.embed([m.content for m in live])
        try:
            self.index.upsert([m.id for m in live], vectors, self.profile_id)
        except Exception:  # noqa: BLE001 - any index failure is repaired by reconcile()
            log.exception("index write failed; reconcile() will repair it")

    def remove(self, ids: Iterable[int]) -> None:
        """Take memories out of the index (a stale vector is filtered at read time anyway)."""
        try:
            index = self._opened_or_recorded()
            if index is not None:
                index.delete(list(ids))
        except Exception:  # noqa: BLE001 - a stale vector is filtered at read time and removed by reconcile()
            log.exception("index delete failed; reconcile() will repair it")

    def reconcile(self, progress: Progress | None = None, *, batch: int = 256) -> ReconcileReport:
        """Make the index hold exactly the active memories of SQLite.

        The index is opened as it was last used, without loading the embedding model: the
        model loads only when a memory must be embedded (a repair that finds nothing missing
        costs no model load).
        """
        report = ReconcileReport()
        truth = self.store.active_ids()
        index = self._opened_or_recorded()
        if index is None:
            if not truth:
                return report
            index = self.index
        indexed = index.ids(self.profile_id)
        extra = indexed - truth
        missing = sorted(truth - indexed)
        if extra:
            index.delete(extra)
            report.removed = len(extra)
        for start in range(0, len(missing), batch):
            chunk = missing[start : start + batch]
            self.add(chunk)
            report.indexed += len(chunk)
            if progress:
                progress(min(start + batch, len(missing)), len(missing))
        index = self._index or index
        for name in index.other_collections():
            index.drop_collection(name)
            report.stale_collections += 1
        return report

    def rebuild(self, progress: Progress | None = None) -> ReconcileReport:
        """Drop and rebuild the collection from SQLite (model switch, compaction, forgetting)."""
        self.index.recreate()
        return self.reconcile(progress)

    def switch(self, embedder: Embedder, progress: Progress | None = None) -> ReconcileReport:
        """Re-embed every active memory with another model; the old collection is dropped."""
        self.embedder = embedder
        self._open()  # not through `index`, which would fill it at once, without progress
        return self.reconcile(progress)

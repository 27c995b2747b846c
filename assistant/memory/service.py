"""MemoryService: keeps SQLite (the truth) and the vector index in step.

Writes commit to SQLite first, then index the vector; a failed or missing index write is
repaired by `reconcile()`, never lost. Only active memories are in the index.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from assistant.clock import Clock, to_ts
from assistant.memory.db import Database
from assistant.memory.embedder import Embedder
from assistant.memory.index import (
    ChromaIndex,
    HealingIndex,
    IndexDamagedError,
    IndexFactory,
    VectorIndex,
)
from assistant.memory.shred import shred_tree
from assistant.memory.store import MemoryStore, NewMemory
from assistant.memory.types import Category, Memory, Status

log = logging.getLogger("mnemo.memory")

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
    """The model and dimension the index was last opened with (`MemoryService._open_index` records them)."""
    rows = {
        str(r[0]): str(r[1])
        for r in db.query(
            "SELECT key, value FROM meta WHERE key IN ('index_model', 'index_dimension')"
        )
    }
    if "index_model" not in rows or "index_dimension" not in rows:
        return None
    return rows["index_model"], int(rows["index_dimension"])


class MemoryService:
    """The memory core's write and maintenance surface over store + index + embedder."""

    def __init__(
        self,
        db: Database,
        store: MemoryStore,
        embedder: Embedder,
        index_dir: Path,
        clock: Clock,
        *,
        index_factory: IndexFactory = ChromaIndex,
        progress: RepairProgress | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.db = db
        self.store = store
        self.embedder = embedder
        self.index_dir = index_dir
        self.clock = clock
        self.index_factory = index_factory  # in this process, or in a child (the app's)
        self._index: VectorIndex | None = None
        self.on_deleted: list[Callable[[], None]] = []  # a vector left the index: scrub its bytes
        self.progress = progress  # shows a re-index or a rebuild of a damaged index
        self._warn = warn or (lambda text: log.warning("%s", text))

    @property
    def profile_id(self) -> str:
        return self.store.profile_id

    @property
    def index(self) -> VectorIndex:
        """The index of the embedder's model (loads the model when not loaded yet)."""
        name, dim = self.embedder.model_name, self.embedder.dimension
        if self._index is None or (self._index.model_name, self._index.dimension) != (name, dim):
            index = self._open_index()
            if index.count() != self.store.count():
                # A model seen for the first time (the real one arrived after a fallback, or
                # the settings changed) or an index a crash left behind: fill it from SQLite.
                log.info("index for this model is behind the database; re-indexing")
                self.reconcile(self.repair_progress("indexing memories"))
            return index
        return self._index

    def repair_progress(self, what: str) -> Progress | None:
        """A (done, total) callback that reports `what` to the progress reporter, if any."""
        report = self.progress
        if report is None:
            return None
        return lambda done, total: report(what, done, total)

    def _open_index(self) -> VectorIndex:
        """Open (or create) the collection of the embedder's model, as it is."""
        name, dim = self.embedder.model_name, self.embedder.dimension
        if self._index is not None:
            self._index.close()
            self._index = None
        self._index = self._healing(name, dim)
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('index_model', ?), ('index_dimension', ?)", (name, str(dim)))
        return self._index

    def _healing(self, name: str, dim: int) -> VectorIndex:
        """The index of (model, dimension); damaged files are replaced by a rebuilt index."""
        try:
            inner = self.index_factory(self.index_dir, name, dim)
        except IndexDamagedError:
            inner = self._fresh_index(name, dim)
        return HealingIndex(inner, lambda: self._fresh_index(name, dim), self._refill)

    def _fresh_index(self, name: str, dim: int) -> VectorIndex:
        self._warn(
            "The search index was damaged; it is being rebuilt from your memories (nothing is lost)."
        )
        shred_tree(self.index_dir)
        return self.index_factory(self.index_dir, name, dim)

    def _refill(self) -> None:
        self.reconcile(self.repair_progress("rebuilding the search index"))

    def release_index(self) -> None:
        """Close the index client (before its folder is moved or removed)."""
        if self._index is not None:
            self._index.close()
            self._index = None

    def adopt_index(self, index: VectorIndex) -> None:
        """Use a rebuilt index (see memory/forget.py)."""
        self.release_index()
        name, dim = index.model_name, index.dimension
        self._index = HealingIndex(index, lambda: self._fresh_index(name, dim), self._refill)

    def _index_if_any(self) -> VectorIndex | None:
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

    def now(self) -> float:
        return to_ts(self.clock.now())

    # -- writes that keep the index in step ----------------------------------------------

    def add(
        self, new: NewMemory, *, replacing: Sequence[int] = (), now: float | None = None, vector: np.ndarray | None = None
    ) -> Memory:
        """Store a memory (superseding `replacing` in the same transaction), then index it.

        The index write comes after the commit: if it fails, reconcile() repairs it.

        Args:
            vector: the content's embedding when the caller already has it (else embedded here).
        """
        at = self.now() if now is None else now
        with self.db.atomic():
            memory = self.store.add(new, at)
            for old_id in replacing:
                self.store.set_status(old_id, Status.SUPERSEDED, at, superseded_by=memory.id)
        self._index_ids([memory.id], None if vector is None else vector.reshape(1, -1))
        if replacing:
            self._unindex(replacing)
        return memory

    def add_many(
        self,
        items: Sequence[tuple[NewMemory, float]],
        *,
        vectors: np.ndarray | None = None,
        progress: Progress | None = None,
        batch: int = 5000,
    ) -> list[int]:
        """Store many new memories in one transaction, then index them in large batches.

        For imports and benchmarks: the same rows, FTS entries and audit events as `add` one
        by one; the texts are embedded in large batches (or `vectors` are used as given, one
        row per item, unit length) and written to the index a batch at a time. As with `add`,
        the index write comes after the commit, and reconcile() repairs a failed one.

        Args:
            items: (new memory, time it was said) pairs.
            vectors: precomputed vectors of the items (a benchmark's); None embeds the texts.
            progress: called with (done, total) after each batch is indexed.
            batch: how many texts are embedded and indexed per step.

        Returns:
            The new ids, in the order of `items`.
        """
        if vectors is not None and len(vectors) != len(items):
            raise ValueError(f"{len(vectors)} vectors for {len(items)} memories")
        # Open the index before the rows exist: opening an index that is behind the database
        # re-embeds every missing memory (see `index`).
        index = self.index
        ids = self.store.add_many(items)
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            if vectors is None:
                found = self.store.get_many(chunk)
                block = self.embedder.embed([found[i].content for i in chunk])
            else:
                block = np.asarray(vectors[start : start + batch], dtype=np.float32)
            try:
                index.upsert(chunk, block, self.profile_id)
            except Exception:  # noqa: BLE001 - any index failure is repaired by reconcile()
                log.exception("index write failed; reconcile() will repair it")
            if progress:
                progress(start + len(chunk), len(ids))
        return ids

    def edit(self, memory_id: int, **fields: object) -> Memory:
        memory = self.store.edit(memory_id, self.now(), **fields)  # type: ignore[arg-type]
        if "content" in fields and memory.status is Status.ACTIVE:
            self._index_ids([memory_id])
        return memory

    def set_status(self, memory_id: int, status: Status, *, superseded_by: int | None = None, event: str | None = None) -> None:
        self.store.set_status(memory_id, status, self.now(), superseded_by=superseded_by, event=event)
        if status is Status.ACTIVE:
            self._index_ids([memory_id])
        else:
            self._unindex([memory_id])

    def supersede(self, old_id: int, new_id: int) -> None:
        self.set_status(old_id, Status.SUPERSEDED, superseded_by=new_id)

    def delete(self, memory_id: int, vault_delete: Callable[[int], None] | None = None) -> None:
        vault_ids = self.store.delete(memory_id, self.now())
        if vault_delete is not None:
            # Vault.put keeps one item per value, which several memories may share: an item
            # goes with the last memory (of any status) that refers to it.
            in_use = self.store.vault_ids_in_use(vault_ids)
            for item in vault_ids:
                if item not in in_use:
                    vault_delete(item)
        self._unindex([memory_id])
        for callback in list(self.on_deleted):
            callback()

    def _index_ids(self, ids: Sequence[int], vectors: np.ndarray | None = None) -> None:
        """Index the active memories of `ids` (`vectors`: their embeddings, one row per id)."""
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

    def _unindex(self, ids: Iterable[int]) -> None:
        try:
            index = self._index_if_any()
            if index is not None:
                index.delete(list(ids))
        except Exception:  # noqa: BLE001 - a stale vector is filtered at read time and removed by reconcile()
            log.exception("index delete failed; reconcile() will repair it")

    # -- derived-index repair -------------------------------------------------------------

    def reconcile(self, progress: Progress | None = None, *, batch: int = 256) -> ReconcileReport:
        """Make the index hold exactly the active memories of SQLite.

        The index is opened as it was last used, without loading the embedding model: the
        model loads only when a memory must be embedded (a repair that finds nothing missing
        costs no model load).
        """
        report = ReconcileReport()
        truth = self.store.active_ids()
        index = self._index_if_any()
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
            self._index_ids(chunk)
            report.indexed += len(chunk)
            if progress:
                progress(min(start + batch, len(missing)), len(missing))
        index = self._index or index
        for name in index.other_collections():
            index.drop_collection(name)
            report.stale_collections += 1
        return report

    def rebuild_index(self, progress: Progress | None = None) -> ReconcileReport:
        """Drop and rebuild the collection from SQLite (model switch, compaction, forgetting)."""
        self.index.recreate()
        return self.reconcile(progress)

    def switch_embedder(self, embedder: Embedder, progress: Progress | None = None) -> ReconcileReport:
        """Re-embed every active memory with another model; the old collection is dropped."""
        self.embedder = embedder
        self._open_index()  # not through `index`, which would fill it at once, without progress
        return self.reconcile(progress)

    def close(self) -> None:
        self.store.flush_access()
        self.release_index()

    def memories(self, ids: Sequence[int]) -> list[Memory]:
        found = self.store.get_many(ids)
        return [found[i] for i in ids if i in found]

    def by_category(self, category: Category, limit: int = 100) -> list[Memory]:
        return self.store.list(category=category, limit=limit)

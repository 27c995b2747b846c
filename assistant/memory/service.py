"""MemoryService: keeps SQLite (the truth) and the vector index in step.

Writes commit to SQLite first, then index the vector; a failed or missing index write is
repaired by `reconcile()`, never lost. Only active memories are in the index.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from assistant.clock import Clock, to_ts
from assistant.memory.db import Database
from assistant.memory.embedder import Embedder
from assistant.memory.store import MemoryStore, NewMemory
from assistant.memory.types import Category, Memory, Status
from assistant.memory.vectors.chroma import ChromaIndex, IndexFactory, VectorIndex
from assistant.memory.vectors.keeper import IndexKeeper, Progress, ReconcileReport, RepairProgress

log = logging.getLogger("mnemo.memory")


class MemoryService:
    """The memory core's write and maintenance surface over store + index + embedder.

    The index itself (opening, healing, reconciling, rebuilding) is `vectors`, an
    `IndexKeeper`; this class keeps it in step with each write.
    """

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
        self.clock = clock
        self.vectors = IndexKeeper(
            db, store, embedder, index_dir, factory=index_factory, progress=progress, warn=warn
        )
        self.on_deleted: list[Callable[[], None]] = []  # a vector left the index: scrub its bytes

    @property
    def profile_id(self) -> str:
        return self.store.profile_id

    @property
    def embedder(self) -> Embedder:
        return self.vectors.embedder

    @property
    def index_dir(self) -> Path:
        return self.vectors.folder

    @property
    def index(self) -> VectorIndex:
        """The index of the embedder's model (loads the model when not loaded yet)."""
        return self.vectors.index

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
        self.vectors.add([memory.id], None if vector is None else vector.reshape(1, -1))
        if replacing:
            self.vectors.remove(replacing)
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
            self.vectors.add([memory_id])
        return memory

    def set_status(self, memory_id: int, status: Status, *, superseded_by: int | None = None, event: str | None = None) -> None:
        self.store.set_status(memory_id, status, self.now(), superseded_by=superseded_by, event=event)
        if status is Status.ACTIVE:
            self.vectors.add([memory_id])
        else:
            self.vectors.remove([memory_id])

    def supersede(self, old_id: int, new_id: int) -> None:
        self.set_status(old_id, Status.SUPERSEDED, superseded_by=new_id)

    def delete(self, memory_id: int, vault_delete: Callable[[int], None] | None = None, *, reason: str | None = None) -> None:
        vault_ids = self.store.delete(memory_id, self.now(), reason=reason)
        if vault_delete is not None:
            # Vault.put keeps one item per value, which several memories may share: an item
            # goes with the last memory (of any status) that refers to it.
            in_use = self.store.vault_ids_in_use(vault_ids)
            for item in vault_ids:
                if item not in in_use:
                    vault_delete(item)
        self.vectors.remove([memory_id])
        for callback in list(self.on_deleted):
            callback()

    # -- the index ---------------------------------------------------------------------

    def reconcile(self, progress: Progress | None = None, *, batch: int = 256) -> ReconcileReport:
        """Make the index hold exactly the active memories of SQLite (`IndexKeeper.reconcile`)."""
        return self.vectors.reconcile(progress, batch=batch)

    def rebuild_index(self, progress: Progress | None = None) -> ReconcileReport:
        """Drop and rebuild the collection from SQLite (model switch, compaction, forgetting)."""
        return self.vectors.rebuild(progress)

    def switch_embedder(self, embedder: Embedder, progress: Progress | None = None) -> ReconcileReport:
        """Re-embed every active memory with another model; the old collection is dropped."""
        return self.vectors.switch(embedder, progress)

    def close(self) -> None:
        self.store.flush_access()
        self.vectors.release()

    def memories(self, ids: Sequence[int]) -> list[Memory]:
        found = self.store.get_many(ids)
        return [found[i] for i in ids if i in found]

    def by_category(self, category: Category, limit: int = 100) -> list[Memory]:
        return self.store.list(category=category, limit=limit)

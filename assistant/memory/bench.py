"""`BenchMemory`: a store and vector index in a temporary folder, for `mnemo bench`.

The benchmarks time the layers themselves (the read path beside one bare vector query, a
store write beside one bare index upsert) and fill stores in ways no user can (100k
memories with precomputed vectors, every LoCoMo turn kept). A `Profile` would add a vault,
keys, a scrubber and the write lock to what they measure, so they get this instead: the
same store, service, recaller and writer the app uses, wired once, reachable only through
the methods below (`assistant.memory.api` re-exports the class). No vault: nothing a
benchmark writes is sensitive, and the write path's figure is the rules' cost.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np

from assistant.clock import ManualClock
from assistant.memory.db import Database
from assistant.memory.embedder import Embedder
from assistant.memory.fusion import FusionOptions, context_rank
from assistant.memory.recall import Recaller, RecallOptions
from assistant.memory.service import MemoryService
from assistant.memory.store import MemoryStore, NewMemory
from assistant.memory.text import match_expression, tokens
from assistant.memory.types import Category, Hit, Memory, Turn
from assistant.memory.write import MemoryWriter, WriteResult


class BenchMemory:
    """One benchmark's memories, deleted with their folder at `close`.

    Args:
        embedder: the model every figure shares (loaded by the caller, or on first use).
        now: the store's time (a `ManualClock` that stays there).
        name: the profile id inside the database.
        recall: the read path's options (the app's defaults when None).
        prefix: of the temporary folder's name.
    """

    def __init__(
        self, embedder: Embedder, now: datetime, *, name: str = "bench",
        recall: RecallOptions | None = None, prefix: str = "mnemo-bench-",
    ) -> None:
        self.embedder = embedder
        self._tmp = tempfile.TemporaryDirectory(prefix=prefix)
        folder = Path(self._tmp.name)
        self._db = Database(folder / "mnemo.db")
        self._store = MemoryStore(self._db, name)
        self._store.ensure_profile(now.timestamp())
        self._service = MemoryService(self._db, self._store, embedder, folder / "index", ManualClock(now))
        self._recall_options = recall or RecallOptions()
        self._recaller: Recaller | None = None
        self._writer: MemoryWriter | None = None

    def close(self) -> None:
        try:
            self._service.close()
            self._db.close()
        finally:
            self._tmp.cleanup()

    def __enter__(self) -> BenchMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- filling ------------------------------------------------------------------------

    def load(self, items: Sequence[tuple[NewMemory, float]], vectors: np.ndarray) -> list[int]:
        """Many memories in one transaction with their precomputed vectors
        (`MemoryService.add_many`: the index is opened first, written in batches of 5,000)."""
        return self._service.add_many(items, vectors=vectors)

    def add_each(self, items: Sequence[tuple[NewMemory, float]], vectors: np.ndarray) -> list[int]:
        """Memories written one by one in one transaction, then their vectors in one upsert
        (how the LoCoMo benchmark has always ingested a conversation)."""
        ids: list[int] = []
        with self._db.atomic():
            for new, at in items:
                ids.append(self._store.add(new, at).id)
        self._service.index.upsert(ids, vectors, self._store.profile_id)
        return ids

    def add(self, content: str, category: Category = Category.FACT) -> Memory:
        """One memory as the app stores one: its row, then its embedding into the index."""
        return self._service.add(NewMemory(content=content, category=category))

    def index_only(self, memory_id: int, text: str) -> None:
        """The bare cost of a write: one embedding and one index upsert, no row."""
        self._service.index.upsert([memory_id], self.embedder.embed([text]), self._store.profile_id)

    def remember(self, turns: Sequence[Turn], now: datetime) -> WriteResult:
        """The whole write path over one message (`MemoryWriter.remember`)."""
        if self._writer is None:
            self._writer = MemoryWriter(self._service, None)
        return self._writer.remember(turns, now)

    # -- reading ------------------------------------------------------------------------

    def recall(self, query: str, now: datetime, *, k: int | None = None, threshold: float | None = None) -> list[Hit]:
        """The read path, with the options given at construction."""
        if self._recaller is None:
            self._recaller = Recaller(self._service, self._recall_options)
        return self._recaller.recall(query, now, k=k, threshold=threshold)

    def nearest(self, query: str, n: int) -> list[tuple[int, float]]:
        """The bare cost of a read: one embedding and one vector query, (id, cosine) best first."""
        return self._service.index.query(self.embedder.embed_one(query), n, self._store.profile_id)

    def keyword(self, query: str, n: int) -> list[int]:
        """FTS5's BM25 over the tokens the read path searches with, nothing else."""
        match = match_expression(list(dict.fromkeys(tokens(query, query=True))))
        if match is None:
            return []
        return [memory_id for memory_id, _score in self._store.keyword_search(match, n)]

    def context_rank(self, query: str, n: int, options: FusionOptions | None = None) -> list[int]:
        """The proposed ranking of `memory/fusion.py` (relative fusion + context spread)."""
        return [memory_id for memory_id, _score in context_rank(self._service, query, n, options)]

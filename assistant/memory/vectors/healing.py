"""An index that replaces itself when its files turn out damaged (Chroma raises on them, see
`chroma.classify_index_error`); a file that crashes the process instead is found by the probe."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from assistant.errors import MnemoError
from assistant.memory.vectors.chroma import IndexDamagedError, VectorIndex

log = logging.getLogger("mnemo.index")


class HealingIndex:
    """An index that replaces itself when its files turn out damaged.

    Every call goes to `inner`; when one raises IndexDamagedError, the damaged index is
    closed, `reopen` gives a fresh, empty one in its place, `refill` fills it from SQLite (the
    truth), and the call is repeated once. Callers (the read path, the write path) never
    see the damage, only the time the rebuild takes.
    """

    def __init__(
        self, inner: VectorIndex, reopen: Callable[[], VectorIndex], refill: Callable[[], None]
    ) -> None:
        self.inner = inner
        self._reopen = reopen
        self._refill = refill
        self._healing = False
        # a fresh index has the same folder, model and collection: copied once
        self.path, self.model_name = inner.path, inner.model_name
        self.dimension, self.name = inner.dimension, inner.name

    def _do(self, call: Callable[[VectorIndex], Any]) -> Any:
        try:
            return call(self.inner)
        except IndexDamagedError:
            if self._healing:
                raise
        self._healing = True
        try:
            try:
                self.inner.close()
            except (MnemoError, OSError):
                log.info("closing the damaged index failed; it is replaced anyway")
            self.inner = self._reopen()
            self._refill()
        finally:
            self._healing = False
        return call(self.inner)

    def upsert(self, ids: Sequence[int], vectors: np.ndarray, profile_id: str) -> None:
        self._do(lambda index: index.upsert(ids, vectors, profile_id))

    def delete(self, ids: Iterable[int]) -> None:
        keys = list(ids)
        self._do(lambda index: index.delete(keys))

    def query(self, vector: np.ndarray, n: int, profile_id: str) -> list[tuple[int, float]]:
        result: list[tuple[int, float]] = self._do(lambda index: index.query(vector, n, profile_id))
        return result

    def ids(self, profile_id: str) -> set[int]:
        result: set[int] = self._do(lambda index: index.ids(profile_id))
        return result

    def vectors(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        result: dict[int, np.ndarray] = self._do(lambda index: index.vectors(ids))
        return result

    def count(self) -> int:
        return int(self._do(lambda index: index.count()))

    def persisting_every_write(self) -> AbstractContextManager[None]:
        return self.inner.persisting_every_write()

    def drop(self) -> None:
        self._do(lambda index: index.drop())

    def recreate(self) -> None:
        self._do(lambda index: index.recreate())

    def other_collections(self) -> list[str]:
        result: list[str] = self._do(lambda index: index.other_collections())
        return result

    def drop_collection(self, name: str) -> None:
        self._do(lambda index: index.drop_collection(name))

    def close(self) -> None:
        self.inner.close()

"""The vector index in this process: a Chroma `PersistentClient` collection per embedding model.

Chroma is derived data. It holds ids, vectors and the profile id — never memory text — and
can be rebuilt from SQLite at any time (`IndexKeeper.rebuild`, vectors/keeper.py).
"""

from __future__ import annotations

import errno
import functools
import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

import numpy as np

from assistant.errors import MnemoError, StorageError

log = logging.getLogger("mnemo.index")

# Chroma's product telemetry is off through Settings; this also covers code paths that read env.
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


class IndexDamagedError(StorageError):
    """The index's files are damaged: it is rebuilt from SQLite (the truth), not a bug."""

    def __init__(self, message: str = "The vector index is damaged.", hint: str = "") -> None:
        super().__init__(message, hint or "Mnemo rebuilds it from the database; nothing is lost.")


# What Chroma (its Rust core, SQLite and hnswlib underneath) says about files it cannot use
_DAMAGE_WORDS = (
    "malformed", "not a database", "disk image", "corrupt", "hnsw", "deserializ",
    "unexpected eof", "failed to fill", "error returned from database",
)


def classify_index_error(exc: BaseException) -> StorageError | None:
    """The StorageError a Chroma failure stands for: a full or read-only disk (the
    environment's), damaged files (IndexDamagedError: rebuilt); None for anything else."""
    if isinstance(exc, StorageError):
        return exc
    if isinstance(exc, MnemoError | ValueError | TypeError | KeyError):
        return None  # ours, or a caller's mistake
    text = str(exc).lower()
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC or "disk is full" in text:
        return StorageError("The disk is full.", "Free some disk space and try again; nothing was lost.")
    if "readonly" in text or "read-only" in text:
        return StorageError("The data directory is read-only.", "Make it writable and try again.")
    if isinstance(exc, OSError):
        return None
    internal = type(exc).__name__ == "InternalError" and type(exc).__module__.startswith("chromadb")
    if internal or any(word in text for word in _DAMAGE_WORDS):
        log.warning("the vector index is damaged (%s)", type(exc).__name__)
        return IndexDamagedError()
    return None


F = TypeVar("F", bound=Callable[..., Any])


def _guarded(method: F) -> F:
    """Chroma's failures on damaged files come out as IndexDamagedError."""

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except Exception as exc:
            found = classify_index_error(exc)
            if found is None:
                raise
            raise found from exc

    return cast(F, call)


def _forget_failed_system(path: Path) -> None:
    """Chroma caches one "system" per folder and keeps it even when it failed to start; the
    next client for that folder (after the damaged files are replaced) would reuse the broken
    one. Drop it from the cache."""
    from chromadb.api.shared_system_client import SharedSystemClient

    systems = getattr(SharedSystemClient, "_identifier_to_system", None)
    if isinstance(systems, dict):
        systems.pop(str(path), None)


def collection_name(model_name: str, dimension: int) -> str:
    digest = hashlib.sha1(model_name.encode("utf-8")).hexdigest()[:12]
    return f"mem_{digest}_{dimension}"


class VectorIndex(Protocol):
    """What the memory core needs of a vector index: `ChromaIndex`, or the same served by a
    child process (`vectors.child.ChildIndex`, the desktop app's)."""

    path: Path
    model_name: str
    dimension: int
    name: str

    def upsert(self, ids: Sequence[int], vectors: np.ndarray, profile_id: str) -> None: ...
    def delete(self, ids: Iterable[int]) -> None: ...
    def query(self, vector: np.ndarray, n: int, profile_id: str) -> list[tuple[int, float]]: ...
    def ids(self, profile_id: str) -> set[int]: ...
    def vectors(self, ids: Sequence[int]) -> dict[int, np.ndarray]: ...
    def count(self) -> int: ...
    def persisting_every_write(self) -> AbstractContextManager[None]: ...
    def drop(self) -> None: ...
    def recreate(self) -> None: ...
    def other_collections(self) -> list[str]: ...
    def drop_collection(self, name: str) -> None: ...
    def close(self) -> None: ...


IndexFactory = Callable[[Path, str, int], VectorIndex]  # (folder, model name, dimension)


class ChromaIndex:
    """One profile's vectors for one embedding model.

    Args:
        path: the profile's index folder (one Chroma instance per data directory).
        model_name: the embedding model; recorded in the collection metadata.
        dimension: the model's vector size; recorded too.
    """

    @_guarded
    def __init__(self, path: Path, model_name: str, dimension: int) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        self.path = path
        self.model_name = model_name
        self.dimension = dimension
        try:
            path.mkdir(parents=True, exist_ok=True)
            self._client: Any = chromadb.PersistentClient(
                path=str(path),
                settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False),
            )
            self.name = collection_name(model_name, dimension)
            self._col: Any = self._client.get_or_create_collection(
                self.name,
                embedding_function=None,
                configuration={"hnsw": {"space": "cosine"}},
                metadata={"model": model_name, "dimension": dimension},
            )
        except OSError as exc:
            raise StorageError(f"Cannot open the vector index: {exc.strerror}", "Check disk space and permissions.") from exc
        except Exception:
            _forget_failed_system(path)
            raise

    # -- writes -------------------------------------------------------------------------

    @_guarded
    def upsert(self, ids: Sequence[int], vectors: np.ndarray, profile_id: str) -> None:
        if not len(ids):
            return
        if vectors.shape != (len(ids), self.dimension):
            raise ValueError(f"vectors shape {vectors.shape} != ({len(ids)}, {self.dimension})")
        batch = max(1, min(5000, int(self._client.get_max_batch_size())))
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            self._col.upsert(
                ids=[str(i) for i in chunk],
                embeddings=vectors[start : start + batch],
                metadatas=[{"profile_id": profile_id} for _ in chunk],
            )

    @_guarded
    def delete(self, ids: Iterable[int]) -> None:
        keys = [str(i) for i in ids]
        if keys:
            self._col.delete(ids=keys)

    # -- reads --------------------------------------------------------------------------

    @_guarded
    def query(self, vector: np.ndarray, n: int, profile_id: str) -> list[tuple[int, float]]:
        """The n nearest memory ids in this profile with cosine similarity, best first."""
        if n <= 0:
            return []
        # Chroma answers fewer than n (or none) when it holds fewer; counting first cost a call.
        # No `where` filter: Chroma answers a filtered query by scanning every matching
        # record (764 ms at 100k memories against a few ms unfiltered), and this folder holds
        # one profile only. The profile is still checked on what comes back.
        result = self._col.query(
            query_embeddings=[vector],
            n_results=n,
            include=["distances", "metadatas"],
        )
        ids = result["ids"][0]
        distances = result["distances"][0]
        metadatas = (result.get("metadatas") or [[]])[0] or [None] * len(ids)
        return [
            (int(i), 1.0 - float(d))
            for i, d, meta in zip(ids, distances, metadatas, strict=True)
            if meta is not None and meta.get("profile_id") == profile_id
        ]

    @_guarded
    def ids(self, profile_id: str) -> set[int]:
        out: set[int] = set()
        offset, page = 0, 10000
        while True:
            got = self._col.get(where={"profile_id": profile_id}, include=[], limit=page, offset=offset)
            out.update(int(i) for i in got["ids"])
            if len(got["ids"]) < page:
                return out
            offset += page

    @_guarded
    def vectors(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        if not ids:
            return {}
        got = self._col.get(ids=[str(i) for i in ids], include=["embeddings"])
        return {int(i): np.asarray(v, dtype=np.float32) for i, v in zip(got["ids"], got["embeddings"], strict=True)}

    @_guarded
    def count(self) -> int:
        return int(self._col.count())

    @_guarded
    def sync_threshold(self) -> int:
        """After how many written records Chroma saves the HNSW graph to disk."""
        hnsw = self._col.configuration.get("hnsw") or {}
        return int(hnsw.get("sync_threshold") or 1000)

    @_guarded
    def set_sync_threshold(self, every: int) -> None:
        self._col.modify(configuration={"hnsw": {"sync_threshold": every}})

    @contextmanager
    def persisting_every_write(self) -> Iterator[None]:
        """Write the HNSW graph to disk after every write in the block (vectors/scrub.py).

        Chroma saves the graph only every `sync_threshold` records; until then the vectors
        are in its log, and the next process to open the index rebuilds the graph in its own
        memory and saves it with its unused capacity, i.e. whatever that heap held before.
        """
        every = self.sync_threshold()
        self.set_sync_threshold(1)
        try:
            yield
        finally:
            self.set_sync_threshold(every)

    # -- lifecycle ----------------------------------------------------------------------

    @_guarded
    def drop(self) -> None:
        """Delete this collection (its folder goes when the client closes and we remove it)."""
        self._client.delete_collection(self.name)

    @_guarded
    def recreate(self) -> None:
        self.drop()
        self._col = self._client.get_or_create_collection(
            self.name,
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
            metadata={"model": self.model_name, "dimension": self.dimension},
        )

    @_guarded
    def other_collections(self) -> list[str]:
        return [c.name for c in self._client.list_collections() if c.name != self.name]

    @_guarded
    def drop_collection(self, name: str) -> None:
        self._client.delete_collection(name)

    def close(self) -> None:
        try:
            self._client.close()
        except AttributeError:  # older clients have no close()
            log.debug("chroma client has no close()")


def check_folder(path: str) -> None:
    """Open every collection of an index folder and query it: the probe after a crash, which
    runs this in a child process (vectors/probe.py), as a damaged HNSW file can crash the
    process that loads it instead of raising."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    client: Any = chromadb.PersistentClient(path=path, settings=ChromaSettings(anonymized_telemetry=False))
    try:
        for col in client.list_collections():
            count = col.count()
            if count:
                got = col.get(limit=1, include=["embeddings"])
                col.query(query_embeddings=[got["embeddings"][0]], n_results=min(count, 3))
    finally:
        client.close()

"""Shared pieces of the privacy and reliability tests.

`TinyEmbedder` is a real, light object implementing the `Embedder` protocol (hashed
character trigrams, normalised): the crash, fault and residue tests need vectors in Chroma,
not semantic quality, and must not pay for loading the sentence-transformers model in every
child process.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from assistant.clock import ManualClock
from assistant.memory.db import Database
from assistant.memory.service import MemoryService
from assistant.memory.store import MemoryStore

if TYPE_CHECKING:
    from assistant.app import Profile

DIM = 32


class TinyEmbedder:
    """Deterministic hashed-trigram vectors (a light stand-in for crash and fault tests)."""

    model_name = vector_space = "tiny-hash-32"
    dimension = DIM
    is_loaded = True

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            padded = f"  {text.lower()}  "
            for i in range(len(padded) - 2):
                digest = hashlib.blake2b(
                    padded[i : i + 3].encode("utf-8", "surrogatepass"), digest_size=2
                ).digest()
                out[row, int.from_bytes(digest, "little") % DIM] += 1.0
            out[row, 0] += 1e-3  # never a zero vector
            out[row] /= np.linalg.norm(out[row])
        return out

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


class CountingEmbedder(TinyEmbedder):
    """TinyEmbedder that counts the texts it embeds (a repair should embed only what it must)."""

    def __init__(self) -> None:
        self.embedded = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += len(texts)
        return super().embed(texts)


def encodings(canary: str) -> list[bytes]:
    return [canary.encode("utf-8"), canary.encode("utf-16-le"), canary.encode("utf-16-be")]


def residue(root: Path, canaries: Iterable[str]) -> list[tuple[str, str]]:
    """Every (file, canary) pair where a canary's bytes (UTF-8, UTF-16 LE/BE) are in a file under root."""
    needles = [(c, e) for c in canaries for e in encodings(c)]
    hits: list[tuple[str, str]] = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        for canary, needle in needles:
            if needle in data:
                hits.append((str(path.relative_to(root)), canary))
    return sorted(set(hits))


def vector_residue(root: Path, vectors: Iterable[np.ndarray]) -> list[str]:
    """Files under root holding a vector's float32 bytes (first 8 components, as stored)."""
    needles = [np.asarray(v, dtype=np.float32)[:8].tobytes() for v in vectors]
    hits = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            if any(n in data for n in needles):
                hits.append(str(path.relative_to(root)))
    return hits


@contextmanager
def tiny_service(now: datetime) -> Iterator[MemoryService]:
    """A store + index in a temporary folder with the TinyEmbedder (fast property tests)."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(Path(tmp) / "mnemo.db")
        store = MemoryStore(db, "default")
        store.ensure_profile(0.0)
        service = MemoryService(db, store, TinyEmbedder(), Path(tmp) / "index", ManualClock(now))
        try:
            yield service
        finally:
            service.close()
            db.close()


def crash(profile: Profile) -> None:
    """Drop the profile without close(): only what is on disk remains (as after SIGKILL)."""
    profile.service.vectors.release()
    profile.db._conn.close()
    profile._lock.release()

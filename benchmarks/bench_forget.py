"""Forget-me at 10k memories: `python -m benchmarks.bench_forget [N]` prints the seconds.

Synthetic memories are inserted directly (SQLite rows + FTS) with random unit vectors in
Chroma, so the benchmark measures erasure, not embedding.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from assistant.app import Profile
from assistant.config import Settings
from assistant.memory.store import NewMemory
from assistant.memory.types import Category
from tests.integration.privacy.helpers import TinyEmbedder


def build(base: Path, n: int) -> Profile:
    profile = Profile(base, "default", Settings(), embedder=TinyEmbedder(), warn=lambda _t: None)
    with profile.db.atomic():
        ids = [
            profile.store.add(
                NewMemory(f"synthetic memory {i} about topic {i % 97}", Category.FACT), 1.0
            ).id
            for i in range(n)
        ]
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((n, TinyEmbedder.dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    profile.service.index.upsert(ids, vectors, profile.name)
    profile.db.checkpoint()
    return profile


def main(n: int = 10_000) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        profile = build(Path(tmp), n)
        started = time.perf_counter()
        report = profile.forget_me()
        seconds = time.perf_counter() - started
        profile.close()
    print(f"forget-me: {report.memories} memories, {report.files_removed} files, {seconds:.2f} s")
    return seconds


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)

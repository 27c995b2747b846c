"""Imports at scale: `python -m benchmarks.bench_import [N ...]` prints seconds per phase.

For each size an export file of N synthetic memories is written, then imported into a fresh
profile the way `mnemo memory import` does: read and check the file, write every memory in
one transaction, index them. Random unit vectors stand in for the model, so the figures
are the import's own cost; the embedding model's cost is printed apart (its
throughput on 1,000 texts, times N), because it does not depend on the import code.

Baseline in the same run: the line-number search the importer used before (each record's
line counted from the start of the file), on the smaller sizes only: it is quadratic.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from assistant.app import Profile
from assistant.config import Settings
from assistant.memory.transfer import import_memories
from assistant.memory.transfer_read import check_records, parse_export, read_export_bytes

DIM = 32


class RandomEmbedder:
    """Seeded random unit vectors at numpy speed: the import's cost, not a model's."""

    model_name = vector_space = "bench-random-32"
    dimension = DIM
    is_loaded = True

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = self._rng.standard_normal((len(texts), DIM)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

SIZES = (5_000, 20_000, 40_000, 200_000)
BASELINE_UP_TO = 20_000


def write_export(path: Path, n: int) -> int:
    """An export file of n memories, one per line as Mnemo writes them; returns its size."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write('{"format": "mnemo-export", "version": 2, "profile": "default", "memories": [\n')
        for i in range(1, n + 1):
            record = {
                "id": i, "profile_id": "default", "kind": "semantic", "category": "fact",
                "content": f"synthetic memory {i} about topic {i % 997} and place {i % 89}",
                "summary": None, "slot": None, "entities": [f"Place{i % 89}"], "importance": 3,
                "confidence": 0.8, "source": "manual", "status": "active", "superseded_by": None,
                "pinned": False, "created_at": "2026-03-02T20:00:00+08:00",
                "updated_at": "2026-03-02T20:00:00+08:00", "last_accessed_at": None, "access_count": 0,
                "expires_at": None, "event_at": "2026-03-02T20:00:00+08:00",
            }
            handle.write(("," if i > 1 else "") + json.dumps(record, ensure_ascii=False) + "\n")
        handle.write("]}\n")
    return path.stat().st_size


def old_line_search(text: str, count: int) -> float:
    """Seconds the old importer spent finding each record's line (counted from the start)."""
    decoder = json.JSONDecoder()
    started = time.perf_counter()
    pos = text.find("[", text.find('"memories"')) + 1
    for _ in range(count):
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        text.count("\n", 0, pos)  # the line of this record, from the start
        _, pos = decoder.raw_decode(text, pos)
    return time.perf_counter() - started


def embedding_rate() -> float:
    """Texts per second of the bundled model here (what indexing an import costs per memory)."""
    from assistant.memory.embedder import BUNDLED_MODEL, SentenceTransformerEmbedder

    model = SentenceTransformerEmbedder(BUNDLED_MODEL, allow_fallback=False)
    texts = [f"synthetic memory {i} about topic {i % 997} and place {i % 89}" for i in range(1000)]
    model.embed(texts[:32])  # warm up
    started = time.perf_counter()
    model.embed(texts)
    return len(texts) / (time.perf_counter() - started)


def run(n: int, folder: Path) -> dict[str, float]:
    export = folder / f"export-{n}.json"
    size = write_export(export, n)
    started = time.perf_counter()
    data, located = parse_export(read_export_bytes(export).decode("utf-8"))
    records = check_records(data, located)
    parsed = time.perf_counter() - started
    assert len(records) == n
    profile = Profile(folder / f"data-{n}", "default", Settings(), embedder=RandomEmbedder(), warn=lambda _t: None)
    stored: list[float] = []

    def progress(done: int, total: int) -> None:
        if done == total and not stored:  # the first "all done" comes at the SQLite commit
            stored.append(time.perf_counter() - started)

    try:
        started = time.perf_counter()
        report = import_memories(profile.service, profile.vault, export, progress=progress)
        total = time.perf_counter() - started
        assert report.imported == n and profile.service.index.count() == n
    finally:
        profile.close()
    figures = {"n": n, "mb": size / 1e6, "read_check_s": parsed, "stored_s": stored[0], "import_s": total}
    if n <= BASELINE_UP_TO:
        figures["old_line_search_s"] = old_line_search(export.read_text(encoding="utf-8"), n)
    return figures


def main(sizes: tuple[int, ...] = SIZES) -> list[dict[str, float]]:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            figures = run(n, Path(tmp))
            results.append(figures)
            old = f", old line search alone {figures['old_line_search_s']:.1f} s" if "old_line_search_s" in figures else ""
            print(
                f"import {n:>7,} memories ({figures['mb']:.0f} MB): read + check {figures['read_check_s']:.1f} s; "
                f"import: in SQLite after {figures['stored_s']:.1f} s, indexed (random vectors) after "
                f"{figures['import_s']:.1f} s{old}",
                flush=True,
            )
    rate = embedding_rate()
    for figures in results:
        print(f"  embedding {int(figures['n']):>7,} texts with the bundled model here: ~{figures['n'] / rate:.0f} s ({rate:.0f} texts/s)")
    return results


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)

"""What the index in a child process buys and costs: `python -m benchmarks.bench_index_child`.

For the in-process `ChromaIndex` and the `ChildIndex` (the window's), on the same number of
random unit vectors:

- how long another thread of the process is kept from running while the index writes: the
  main thread wakes every millisecond and the longest gap between two wake-ups is printed
  (with its 99th percentile) while a worker upserts one vector at a time, as extraction does;
- what one call costs: the median of a one-vector upsert and of a 60-result query.

The machine is shared and noisy: both sides run in the same process, one after the other,
and the figures to read are the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from assistant.memory.vectors.child import ChildIndex
from assistant.memory.vectors.chroma import ChromaIndex, VectorIndex

DIM = 384
PROFILE = "bench"


def unit_rows(rng: np.random.Generator, n: int) -> np.ndarray:
    rows = rng.standard_normal((n, DIM)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def gaps_while_writing(index: VectorIndex, seconds: float, first_id: int) -> tuple[list[float], int]:
    """The main thread's wake-up gaps (ms) while a worker upserts; and how many upserts ran."""
    rng = np.random.default_rng(1)
    stop = threading.Event()
    written = [0]

    def write() -> None:
        next_id = first_id
        while not stop.is_set():
            index.upsert([next_id], unit_rows(rng, 1), PROFILE)
            next_id += 1
            written[0] += 1

    worker = threading.Thread(target=write, name="bench-writer")
    worker.start()
    gaps: list[float] = []
    last = time.perf_counter()
    end = last + seconds
    while last < end:
        stop.wait(0.001)  # the one place this benchmark waits on the clock: the ticking thread
        now = time.perf_counter()
        gaps.append((now - last) * 1000)
        last = now
    stop.set()
    worker.join()
    return gaps, written[0]


def call_ms(index: VectorIndex, n: int, repeats: int) -> tuple[float, float]:
    rng = np.random.default_rng(2)
    upserts, queries = [], []
    for i in range(repeats):
        row = unit_rows(rng, 1)
        t0 = time.perf_counter()
        index.upsert([n + 1_000_000 + i], row, PROFILE)
        t1 = time.perf_counter()
        index.query(row[0], 60, PROFILE)
        t2 = time.perf_counter()
        upserts.append((t1 - t0) * 1000)
        queries.append((t2 - t1) * 1000)
    return statistics.median(upserts), statistics.median(queries)


def run(size: int, seconds: float, repeats: int) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(0)
    rows = unit_rows(rng, size)
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, kind in (("in-process", ChromaIndex), ("child", ChildIndex)):
            started = time.perf_counter()
            index: VectorIndex = kind(Path(tmp) / label, "bench-model", DIM)
            opened = time.perf_counter() - started
            try:
                index.upsert(list(range(size)), rows, PROFILE)
                upsert_ms, query_ms = call_ms(index, size, repeats)
                gaps, written = gaps_while_writing(index, seconds, 2_000_000)
            finally:
                index.close()
            gaps.sort()
            results[label] = {
                "open_s": opened,
                "upsert_ms": upsert_ms,
                "query_ms": query_ms,
                "gap_worst_ms": gaps[-1],
                "gap_p99_ms": gaps[int(len(gaps) * 0.99)],
                "upserts": float(written),
            }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000, help="vectors in the index")
    parser.add_argument("--seconds", type=float, default=5.0, help="how long the writer runs")
    parser.add_argument("--repeats", type=int, default=200, help="calls timed for the medians")
    args = parser.parse_args()
    results = run(args.size, args.seconds, args.repeats)
    inline, child = results["in-process"], results["child"]
    print(f"index of {args.size} vectors, {DIM} dimensions; a writer upserting for {args.seconds:.0f} s")
    print(f"{'':12}{'open s':>8}{'upsert ms':>11}{'query ms':>10}{'worst gap ms':>14}{'p99 gap ms':>12}{'upserts':>9}")
    for label, r in results.items():
        print(
            f"{label:12}{r['open_s']:8.2f}{r['upsert_ms']:11.1f}{r['query_ms']:10.1f}"
            f"{r['gap_worst_ms']:14.1f}{r['gap_p99_ms']:12.1f}{r['upserts']:9.0f}"
        )
    print(
        f"child / in-process: worst gap {child['gap_worst_ms'] / inline['gap_worst_ms']:.2f}x,"
        f" p99 gap {child['gap_p99_ms'] / inline['gap_p99_ms']:.2f}x,"
        f" upsert {child['upsert_ms'] / inline['upsert_ms']:.2f}x,"
        f" query {child['query_ms'] / inline['query_ms']:.2f}x"
    )


if __name__ == "__main__":
    main()

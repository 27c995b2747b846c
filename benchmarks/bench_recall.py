"""Recall latency at 1k and 10k memories beside the bare cost of one query embedding plus
one `collection.query`, measured in the same run (these machines are noisy: compare ratios).

    HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.bench_recall [--sizes 1000 10000] [--queries 200]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from datetime import datetime
from functools import partial
from pathlib import Path

from assistant.clock import ManualClock, to_ts
from assistant.memory.embedder import BUNDLED_MODEL, SentenceTransformerEmbedder
from benchmarks.synthetic import bench_profile, fill, paired_ms, percentiles, queries


def run(sizes: list[int], n_queries: int, embed_limit: int | None = None) -> None:
    embedder = SentenceTransformerEmbedder(BUNDLED_MODEL, allow_fallback=False)
    embedder.load()
    clock = ManualClock(datetime.fromisoformat("2026-06-01T12:00:00+08:00"))
    qs = queries(n_queries)
    print(f"model {embedder.model_name}, {n_queries} distinct queries per size")
    print(
        f"{'memories':>9} | {'bare p50':>8} {'bare p95':>8} | {'recall p50':>10} {'recall p95':>10} | p95 ratio"
    )
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            profile = bench_profile(Path(tmp), "bench", embedder, clock)
            fill(profile, size, to_ts(clock.now()), embed_limit=embed_limit)
            for q in qs[:10]:  # warm up both paths
                profile.recaller.recall(q, clock.now())
            bare, full = paired_ms(
                profile, qs, size, partial(profile.recaller.recall, now=clock.now())
            )
            profile.close()
        b50, b95 = percentiles(bare)["p50"], percentiles(bare)["p95"]
        r50, r95 = percentiles(full)["p50"], percentiles(full)["p95"]
        print(
            f"{size:>9} | {b50:7.1f}ms {b95:7.1f}ms | {r50:9.1f}ms {r95:9.1f}ms | {r95 / b95:.2f}× (mean ratio {statistics.mean(full) / statistics.mean(bare):.2f}×)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--embed-limit",
        type=int,
        help="embed at most this many texts; the rest reuse them with noise",
    )
    args = parser.parse_args()
    run(args.sizes, args.queries, args.embed_limit)


if __name__ == "__main__":
    main()

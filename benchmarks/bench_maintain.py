"""How long the nightly maintenance takes at 10k and 100k memories, and how the active count
evolves over the 120-day simulated life (tests/integration/test_lifecycle.py).

Every memory has its own text, but embedding 100k texts with the real model takes 15-50
minutes on a small shared machine (35-100 texts/s measured), so only `--unique` texts are embedded and the other
memories' vectors are copies of those with noise (copies end up about 0.7 apart, below the
merge threshold); 2% of the memories are planted near-duplicates. The output says so. The
store is filled through `MemoryService.add_many` (one transaction, index in large batches).

    python -m benchmarks.bench_maintain --sizes 10000 100000 --unique 3000 --no-life
    python -m benchmarks.bench_maintain --life-only
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from assistant.app import Profile
from assistant.clock import ManualClock, to_ts
from assistant.memory.embedder import BUNDLED_MODEL, SentenceTransformerEmbedder
from assistant.memory.maintain import run_maintenance
from assistant.memory.store import NewMemory
from assistant.memory.types import Category, Kind, Status
from benchmarks.synthetic import bench_profile
from benchmarks.synthetic import memories as synthetic_texts

START = datetime.fromisoformat("2026-03-02T20:00:00+08:00")
DAY = 86400.0
NOISE = 0.035
DUPLICATE_SHARE = 0.02
CATEGORIES = [
    Category.FACT,
    Category.PREFERENCE,
    Category.GOAL,
    Category.PROJECT,
    Category.CONCLUSION,
    Category.EMOTION,
]
PEOPLE = ["Anna", "Tom", "Priya", "Leo", "Dr. Wu", "Alice", "Marco", "Yuki"]


def fill(profile: Profile, n: int, unique: int, now: float, seed: int = 5) -> str:
    """Write n synthetic memories said over the last 200 days in one bulk write (store + index);
    5% were retired long ago (work for purge). Returns a line saying what was embedded and how fast."""
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    texts = synthetic_texts(unique)
    t0 = time.perf_counter()
    base = profile.embedder.embed(texts)
    embed_s = time.perf_counter() - t0
    items: list[tuple[NewMemory, float]] = []
    vectors = np.empty((n, base.shape[1]), dtype=np.float32)
    retired: list[int] = []  # positions in items
    for i in range(n):
        k = i % unique
        duplicate = i >= unique and rng.random() < DUPLICATE_SHARE
        sigma = 0.004 if duplicate else NOISE
        created = now - rng.uniform(0, 200) * DAY
        episodic = rng.random() < 0.3
        items.append(
            (
                NewMemory(
                    content=f"{texts[k]} (#{i})" if not duplicate else texts[k] + ".",
                    category=rng.choice(CATEGORIES),
                    kind=Kind.EPISODIC if episodic else Kind.SEMANTIC,
                    entities=[rng.choice(PEOPLE)] if episodic else [],
                    importance=rng.choice([1, 1, 2, 2, 3, 3, 3, 4, 5]),
                    expires_at=created + rng.uniform(1, 30) * DAY if rng.random() < 0.05 else None,
                    event_at=created,
                ),
                created,
            )
        )
        v = base[k] + nprng.normal(0, sigma, base.shape[1]).astype(np.float32)
        vectors[i] = v / np.linalg.norm(v)
        if rng.random() < 0.05:
            retired.append(i)
    t1 = time.perf_counter()
    ids = profile.service.add_many(items, vectors=vectors)
    with profile.db.atomic():
        for i in retired:
            profile.store.set_status(ids[i], Status.ARCHIVED, items[i][1] + DAY)
    profile.service.index.delete(ids[i] for i in retired)  # the index holds active memories only
    write_s = time.perf_counter() - t1
    return (
        f"{n} memories, every text distinct but the planted near-duplicates; {unique} texts embedded in {embed_s:.1f}s ({unique / embed_s:.0f}/s), "
        f"the other {n - unique} vectors are copies of those with noise (shared-vector pool); "
        f"store + index bulk write {write_s:.1f}s ({n / write_s:.0f}/s)"
    )


def bench_size(embedder: SentenceTransformerEmbedder, n: int, unique: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        clock = ManualClock(START)
        profile = bench_profile(Path(tmp), "bench", embedder, clock)
        try:
            print(f"{n:>7} memories  setup: {fill(profile, n, unique, to_ts(START))}", flush=True)
            for label in ("first run (full merge scan)", "next night (incremental)"):
                clock.advance(timedelta(days=1))
                before = profile.store.count()
                report = run_maintenance(profile, clock.now())
                steps = "  ".join(f"{name} {report.seconds[name]:.2f}s" for name in report.steps)
                print(
                    f"{n:>7} memories  {label:<28} {report.duration_s:7.2f}s   active {before} -> {profile.store.count()}"
                )
                print(f"{'':>17}{steps}")
                print(f"{'':>17}{ {name: c for name, c in report.steps.items()} }")
        finally:
            profile.close()


def bench_life(embedder: SentenceTransformerEmbedder, days: int) -> None:
    path = Path(__file__).resolve().parents[1] / "tests" / "integration" / "test_lifecycle.py"
    spec = importlib.util.spec_from_file_location("lifecycle_sim", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["lifecycle_sim"] = module
    spec.loader.exec_module(module)
    with tempfile.TemporaryDirectory() as tmp:
        clock = ManualClock(START)
        profile = bench_profile(Path(tmp), "life", embedder, clock)
        try:
            t0 = time.perf_counter()
            life = module.simulate(profile, clock, days)
            total = time.perf_counter() - t0
        finally:
            profile.close()
    print(
        f"120-day life: {life.added} memories added; nightly job mean {np.mean(life.night_seconds):.3f}s, "
        f"max {max(life.night_seconds):.3f}s; simulation {total:.1f}s"
    )
    print(
        "active memories by day: "
        + ", ".join(f"d{d}={life.active_by_day[d]}" for d in range(0, days, 10))
        + f", d{days - 1}={life.active_by_day[-1]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--unique", type=int, default=3000, help="texts actually embedded")
    parser.add_argument("--days", type=int, default=120)
    parser.add_argument("--life-only", action="store_true")
    parser.add_argument("--no-life", action="store_true")
    args = parser.parse_args()
    embedder = SentenceTransformerEmbedder(BUNDLED_MODEL, allow_fallback=False)
    embedder.load()
    if not args.life_only:
        for n in args.sizes:
            bench_size(embedder, n, min(args.unique, n))
    if not args.no_life:
        bench_life(embedder, args.days)


if __name__ == "__main__":
    main()

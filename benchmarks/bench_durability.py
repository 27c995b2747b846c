"""What `synchronous=FULL` costs per acknowledged write: `python -m benchmarks.bench_durability [N] [DIR]`.

Adds N memories one transaction each (as the app does: one per remembered fact), in a
profile under DIR (default: a temporary folder; give a folder on the disk you care about),
with SQLite's `synchronous` at NORMAL (the baseline: a power cut may drop the last commits)
and at FULL (what Mnemo uses: each commit waits for the WAL to reach the disk). The two
runs alternate in rounds, so a busy machine slows both alike. Only SQLite is timed: the
memory rows, FTS entries and audit events, not the embedding or the vector index.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from assistant.memory.db import Database
from assistant.memory.store import MemoryStore, NewMemory
from assistant.memory.types import Category

ROUNDS = 5


def per_write_ms(folder: Path, mode: str, n: int, offset: int) -> float:
    db = Database(folder / f"bench-{mode}.db")
    db.execute(f"PRAGMA synchronous={mode}")
    store = MemoryStore(db, "default")
    store.ensure_profile(0.0)
    started = time.perf_counter()
    for i in range(n):
        store.add(NewMemory(f"memory {offset + i} about the garden and the river", Category.FACT), 1.0)
    seconds = time.perf_counter() - started
    db.close()
    return 1000 * seconds / n


def main(n: int = 200, where: str | None = None) -> dict[str, float]:
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        folder = Path(tmp)
        runs: dict[str, list[float]] = {"NORMAL": [], "FULL": []}
        for round_ in range(ROUNDS):
            for mode in ("NORMAL", "FULL"):
                runs[mode].append(per_write_ms(folder, mode, n, round_ * n))
    normal, full = statistics.median(runs["NORMAL"]), statistics.median(runs["FULL"])
    print(f"per acknowledged write ({n} x {ROUNDS} rounds, {where or tempfile.gettempdir()}): "
          f"NORMAL {normal:.2f} ms, FULL {full:.2f} ms (x{full / normal:.2f}, +{full - normal:.2f} ms)")
    return {"normal_ms": normal, "full_ms": full}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200, sys.argv[2] if len(sys.argv) > 2 else None)

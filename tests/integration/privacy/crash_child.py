"""Child-process workloads for the crash test (run under a forkserver that preloaded Chroma).

`workload` performs writes, deletes and maintenance on a real SQLite + Chroma store with the
light `TinyEmbedder` and acknowledges each completed operation in an fsynced file *after*
the call returned; the parent SIGKILLs it at a random moment. `verify` reopens the store the
way start-up does and reports what it finds.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Any

from assistant.clock import SystemClock, to_ts
from assistant.memory.db import Database
from assistant.memory.service import MemoryService
from assistant.memory.store import MemoryStore, NewMemory
from assistant.memory.types import Category
from tests.integration.privacy.helpers import TinyEmbedder

PROFILE = "default"


def _open(folder: Path) -> tuple[Database, MemoryService]:
    db = Database(folder / "mnemo.db")
    store = MemoryStore(db, PROFILE)
    clock = SystemClock()
    store.ensure_profile(to_ts(clock.now()))
    return db, MemoryService(db, store, TinyEmbedder(), folder / "index", clock)


def content_for(n: int) -> str:
    return f"crash memory {n} " + "abcdefghij" * (n % 7 + 1) + f" end {n}"


def workload(folder: str, acks: str, seed: int, ops: int) -> None:
    rng = random.Random(seed)
    db, service = _open(Path(folder))
    fd = os.open(acks, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def ack(line: str) -> None:
        os.write(fd, line.encode() + b"\n")
        os.fsync(fd)

    live = sorted(service.store.active_ids())
    for step in range(ops):
        roll = rng.random()
        if roll < 0.6 or not live:
            n = rng.randrange(1_000_000_000)
            memory = service.add(NewMemory(content_for(n), Category.FACT))
            live.append(memory.id)
            ack(f"A {memory.id} {n}")
        elif roll < 0.9:
            victim = live.pop(rng.randrange(len(live)))
            ack(f"d {victim}")  # intent: from here the memory may be gone without an acknowledgement
            service.delete(victim)
            ack(f"D {victim}")
        elif roll < 0.98:
            service.reconcile()
            db.checkpoint()
        else:
            db.vacuum()
        if step % 100 == 99:
            service.store.flush_access()
    service.close()
    db.close()
    os.close(fd)


def verify(folder: str, out: Any) -> None:
    """Start-up as the app does it (reconcile), then report the state to the parent."""
    db, service = _open(Path(folder))
    integrity = db.scalar("PRAGMA integrity_check")
    report = service.reconcile()
    rows = {int(r[0]): str(r[1]) for r in db.query("SELECT id, content FROM memories")}
    orphan_fts = int(db.scalar("SELECT COUNT(*) FROM memories_fts WHERE rowid NOT IN (SELECT id FROM memories)"))
    missing_fts = int(db.scalar("SELECT COUNT(*) FROM memories WHERE id NOT IN (SELECT rowid FROM memories_fts)"))
    indexed = service.index.ids(PROFILE)
    active = service.store.active_ids()
    service.close()
    db.close()
    out.put({
        "integrity": integrity, "rows": rows, "orphan_fts": orphan_fts, "missing_fts": missing_fts,
        "index_agrees": indexed == active, "reconciled": report.as_dict(),
    })


if __name__ == "__main__":  # manual runs: python -m tests.integration.privacy.crash_child DIR ACKS SEED OPS
    workload(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))

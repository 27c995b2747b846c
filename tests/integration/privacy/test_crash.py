"""Crashes lose nothing: SIGKILL at random moments during writes, deletes and maintenance.

Children come from a forkserver that imported Chroma once, so each of the 50 runs costs a
fork, not an interpreter start. Each run continues the same store, as a user restarting would.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from pathlib import Path

from tests.integration.privacy.crash_child import content_for, verify, workload

RUNS = 50
OPS = 1000


def _acks(path: Path) -> tuple[dict[int, int], set[int], set[int]]:
    """Acknowledged adds (id → n), acknowledged deletes, and deletes that were started."""
    added: dict[int, int] = {}
    deleted: set[int] = set()
    started: set[int] = set()
    if not path.exists():
        return added, deleted, started
    for line in path.read_text().split("\n"):
        parts = line.split()
        if len(parts) == 3 and parts[0] == "A":
            added[int(parts[1])] = int(parts[2])
        elif len(parts) == 2 and parts[0] == "D":
            deleted.add(int(parts[1]))
        elif len(parts) == 2 and parts[0] == "d":
            started.add(int(parts[1]))
    return added, deleted, started  # a torn last line was never acknowledged


def _lines(path: Path) -> int:
    try:
        with open(path, "rb") as handle:
            return handle.read().count(b"\n")
    except FileNotFoundError:
        return 0


def test_sigkill_at_random_points_loses_no_acknowledged_write(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["chromadb", "tests.integration.privacy.crash_child"])
    rng = random.Random(7)
    folder, acks = tmp_path / "profile", tmp_path / "acks.log"
    folder.mkdir()
    kills = completed = 0
    losses: list[str] = []
    for run in range(RUNS):
        child = ctx.Process(target=workload, args=(str(folder), str(acks), run, OPS))
        child.start()
        # kill after a random number of acknowledged operations, plus a random sliver of time
        target, before = rng.randint(1, 24), _lines(acks)
        deadline = time.monotonic() + 60
        while child.is_alive() and _lines(acks) - before < target and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.03))
        if child.is_alive():
            os.kill(child.pid or 0, signal.SIGKILL)
            child.join()
            kills += 1
        else:
            completed += 1
            assert child.exitcode == 0, f"run {run}: the workload failed on its own (exit {child.exitcode})"

        out = ctx.Queue()
        checker = ctx.Process(target=verify, args=(str(folder), out))
        checker.start()
        state = out.get(timeout=120)
        checker.join(60)
        assert checker.exitcode == 0, f"run {run}: start-up after the crash died (exit {checker.exitcode})"
        assert state["integrity"] == "ok", f"run {run}: {state['integrity']}"
        assert state["orphan_fts"] == 0 and state["missing_fts"] == 0, f"run {run}: half-written FTS {state}"
        assert state["index_agrees"], f"run {run}: index and SQLite disagree after reconcile"
        added, deleted, started = _acks(acks)
        rows = state["rows"]
        for memory_id, n in added.items():
            if memory_id in deleted:
                if memory_id in rows:
                    losses.append(f"run {run}: deleted #{memory_id} came back")
            elif memory_id in started and memory_id not in rows:
                continue  # killed during its deletion: gone is a correct outcome
            elif rows.get(memory_id) != content_for(n):
                losses.append(f"run {run}: acknowledged #{memory_id} lost or altered")
        for memory_id, text in rows.items():
            assert text == content_for(int(text.split()[2])), f"half-written row {memory_id}"
    added, deleted, _started = _acks(acks)
    print(f"\ncrash test: {RUNS} runs ({kills} killed, {completed} finished), {len(added)} acknowledged writes, "
          f"{len(deleted)} acknowledged deletes, {len(losses)} losses")
    assert not losses, losses[:10]
    assert kills >= RUNS // 2, "most runs must be killed mid-work to mean anything"
    assert len(added) + len(deleted) >= 400

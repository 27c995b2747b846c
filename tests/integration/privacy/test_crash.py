"""Crashes lose nothing: SIGKILL at random points of 1,000 writes, deletes and maintenance runs, 50 times.

Each run is one life of the app on the same store (see crash_child.py): it starts up after the
last kill as the app does, reports what it finds, then works through a seeded 1,000-operation
workload, acknowledging each operation on a pipe once its call returned. The parent reads the
acknowledgements with blocking reads and SIGKILLs the child at a point drawn per run: after
the k-th acknowledgement (k in 1..1000, log-uniform: a uniform k would mean ~25,000 Chroma
writes, minutes on a shared machine), or, past k/2 acknowledgements, at an announced point
inside an operation (a write committed to SQLite but not yet indexed, an edit likewise, a vault
value stored but not yet referred to, a vault item of a deleted memory not yet deleted) or
inside a maintenance run after one of its steps. The next life's report must show every acknowledged
write with its text and vault value, nothing half-written, `integrity_check` ok, and the index
holding exactly the active memories, each with the vector of its current text.

The store lives in RAM (/dev/shm) when it can: a SIGKILL loses no page-cache write, so this
is the same test, minus the disk's latency.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.integration.privacy.crash_child import content_for, masked_for, secret_for, session

RUNS = 50
OPS = 1000
KILL_AFTER_STEPS = ("expire", "decay", "merge", "consolidate", "purge")
# announced points inside operations (see crash_child.py); "x-edit" is an "x" inside an edit
INSIDE_OPERATIONS = ("x", "x-edit", "v", "w")
ANNOUNCEMENTS = ("x", "v", "w", "M+", "M", "END")
SEED = 7
SHM = Path("/dev/shm")


@dataclass
class Acks:
    """What the child acknowledged over all runs, and what it started without acknowledging."""

    added: dict[int, str] = field(default_factory=dict)  # id -> current text
    vaulted: dict[int, tuple[int, str]] = field(default_factory=dict)  # id -> (vault item, value)
    superseded: set[int] = field(default_factory=set)
    deleted: set[int] = field(default_factory=set)
    deleting: set[int] = field(default_factory=set)  # this run: started, not acknowledged
    editing: dict[int, str] = field(default_factory=dict)  # this run: id -> text being edited to
    totals: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("acks", "writes", "deletes", "edits", "maintenance", "losses"), 0
        )
    )
    count: int = 0  # acknowledgements in this run

    def take(self, line: str) -> bool:
        """Record one line; returns whether it was an acknowledgement."""
        kind, *rest = line.split()
        if kind in ANNOUNCEMENTS:
            return False
        args = [int(x) for x in rest]
        if kind == "A":
            self.added[args[0]] = content_for(args[1])
        elif kind == "S":
            memory_id, n, item = args
            self.added[memory_id] = f"{content_for(n)} phone {masked_for(n)}"
            self.vaulted[memory_id] = (item, secret_for(n))
        elif kind == "R":
            memory_id, old, n = args
            self.added[memory_id] = content_for(n)
            self.superseded.add(old)
        elif kind == "e":
            self.editing[args[0]] = content_for(args[1])
            return False
        elif kind == "E":
            self.added[args[0]] = self.editing.pop(args[0])
        elif kind == "d":
            self.deleting.add(args[0])
            return False
        elif kind == "D":
            self.deleting.discard(args[0])
            self.deleted.add(args[0])
        key = {
            "A": "writes",
            "S": "writes",
            "R": "writes",
            "E": "edits",
            "D": "deletes",
            "M-": "maintenance",
        }[kind]
        self.totals[key] += 1
        self.count += 1
        return True

    def settle(self, rows: dict[int, tuple[str, str, list[int], int | None]]) -> None:
        """After a restart, an operation the kill cut off either happened or did not: keep what did."""
        for memory_id in self.deleting:
            if memory_id not in rows:
                self.deleted.add(memory_id)
        for memory_id in self.editing:
            if memory_id in rows:
                self.added[memory_id] = rows[memory_id][0]
        self.deleting, self.editing = set(), {}


def _judge(state: dict[str, Any], acks: Acks) -> list[str]:
    """Every way the restarted store breaks a promise, as readable lines."""
    problems: list[str] = []
    rows: dict[int, tuple[str, str, list[int], int | None]] = state["rows"]
    if state["integrity"] != "ok":
        problems.append(f"integrity_check: {state['integrity']}")
    if state["torn_fts"]:
        problems.append(
            f"memories whose keyword index disagrees with their text: {state['torn_fts'][:5]}"
        )
    if not state["index_agrees"]:
        problems.append("the vector index does not hold exactly the active memories after start-up")
    if state["stale_vectors"]:
        problems.append(
            f"active memories whose vector is of another text: {state['stale_vectors'][:5]}"
        )
    for memory_id, text in acks.added.items():
        if memory_id in acks.deleted:
            if memory_id in rows:
                problems.append(f"deleted #{memory_id} came back")
        elif memory_id not in rows:
            # gone is right only when a deletion ran: ours in flight, or maintenance's purge
            if memory_id not in acks.deleting and memory_id not in state["deleted_events"]:
                problems.append(f"acknowledged #{memory_id} lost")
        elif rows[memory_id][0] not in {text, acks.editing.get(memory_id)}:
            problems.append(
                f"acknowledged #{memory_id} altered: {rows[memory_id][0]!r} != {text!r}"
            )
    for old in acks.superseded:
        if old in rows and rows[old][1] == "active":
            problems.append(f"#{old} is active although a memory superseding it was acknowledged")
    referenced: set[int] = set()
    for memory_id, (_content, _status, vault_ids, successor) in rows.items():
        referenced.update(vault_ids)
        if successor is not None and successor not in rows:
            problems.append(f"#{memory_id} is superseded by #{successor}, which does not exist")
        for item in vault_ids:
            if item not in state["secrets"]:
                problems.append(f"#{memory_id} refers to vault item {item}, which does not exist")
        if memory_id in acks.vaulted:
            item, value = acks.vaulted[memory_id]
            if vault_ids != [item] or state["secrets"].get(item) != value:
                problems.append(f"#{memory_id} lost its vault value")
    orphans = sorted(set(state["secrets"]) - referenced)
    if orphans:
        problems.append(
            f"vault items no memory refers to (half-written or half-deleted): {orphans[:5]}"
        )
    return problems


def _life(
    ctx: Any,
    folder: Path,
    run: int,
    ops: int,
    acks: Acks,
    kill: Kill,
    started: Callable[[dict[str, Any]], None],
) -> None:
    """Start a life, hand its start-up report to `started`, read its acknowledgements, SIGKILL it at `kill`."""
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=session, args=(str(folder), send, run, ops), daemon=True)
    child.start()
    send.close()  # the child holds the only write end: its death ends our reads
    try:
        started(receive.recv())
        previous = ""
        while True:
            line = receive.recv_bytes().decode()
            acked = acks.take(line)
            if line == "END" or kill.due(line, acked, acks.count, previous):
                break
            previous = line
        # The child ran on while we decided: what it sent before the kill is in the pipe, and an
        # operation it acknowledged (or announced) there counts like any other.
        os.kill(child.pid or 0, signal.SIGKILL)
        child.join()
        while True:
            try:
                line = receive.recv_bytes().decode()
            except EOFError:
                return
            if line != "END":
                acks.take(line)
    except EOFError:
        child.join()
        raise AssertionError(
            f"run {run}: the child died on its own (exit {child.exitcode})"
        ) from None
    finally:
        if child.is_alive():
            os.kill(child.pid or 0, signal.SIGKILL)
        child.join()
        receive.close()


@dataclass
class Kill:
    """Where one run is killed: after `after` acknowledgements, at the first `at` announcement if given."""

    after: int
    at: str | None = None

    @classmethod
    def draw(cls, rng: random.Random) -> Kill:
        # log-uniform over 1..OPS: each order of magnitude of the workload as likely as the next
        after = min(OPS, max(1, round(math.exp(rng.uniform(0.0, math.log(OPS))))))
        roll = rng.random()
        if roll < 0.2:
            return cls(after // 2, "M " + rng.choice(KILL_AFTER_STEPS))
        if roll < 0.5:
            return cls(after // 2, rng.choice(INSIDE_OPERATIONS))
        return cls(after)

    def due(self, line: str, acked: bool, count: int, previous: str) -> bool:
        if count < self.after:
            return False
        if self.at is None:
            return acked
        if self.at == "x-edit":
            return line == "x" and previous.startswith("e ")
        return line == self.at


@pytest.fixture
def store_dir(tmp_path: Path) -> Iterator[Path]:
    """RAM-backed when the system has /dev/shm: a SIGKILL keeps the page cache either way."""
    if not SHM.is_dir():
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="mnemo-crash-", dir=SHM))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_sigkill_at_random_points_loses_no_acknowledged_write(store_dir: Path) -> None:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["chromadb", "tests.integration.privacy.crash_child"])
    rng = random.Random(SEED)
    folder = store_dir / "profile"
    folder.mkdir()
    started = time.perf_counter()
    acks = Acks()
    kills: list[str] = []
    kill_points: list[int] = []  # acknowledgements before each kill
    cut_maintenance: set[int] = set()  # maintenance runs a kill interrupted
    problems: list[str] = []

    def judge(state: dict[str, Any]) -> None:
        """The start-up report of a life against everything acknowledged before the last kill."""
        if not kills:
            return
        found = _judge(state, acks)
        problems.extend(f"after {kills[-1]}: {p}" for p in found)
        acks.totals["losses"] += sum(" lost" in p for p in found)
        cut_maintenance.update(state["running_jobs"])
        acks.settle(state["rows"])

    for run in range(RUNS + 1):  # the last life only starts up and reports
        kill = Kill.draw(rng)
        _life(ctx, folder, run, OPS if run < RUNS else 0, acks, kill, judge)
        if run < RUNS:
            kill_points.append(acks.count)
            kills.append(
                f"run {run} killed after {acks.count} acks at {kill.at or 'an acknowledgement'} (drawn: {kill})"
            )
            acks.totals["acks"] += acks.count
            acks.count = 0
    summary = {
        "runs": RUNS,
        **acks.totals,
        "killed_in_maintenance": len(cut_maintenance),
        "kill_points": f"{min(kill_points)}..{max(kill_points)}, {sum(k >= OPS // 2 for k in kill_points)} >= {OPS // 2}",
        "seconds": round(time.perf_counter() - started),
    }
    print(f"\ncrash test: {summary}")
    assert not problems, "\n".join(problems[:20])
    assert len(cut_maintenance) >= 3, "some kills must land inside a maintenance run"

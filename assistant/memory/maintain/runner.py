"""`run_maintenance`: the nightly job — every step in order, recorded, one run at a time."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from assistant.clock import to_ts
from assistant.errors import InputError, MnemoError
from assistant.memory.db import Database
from assistant.memory.maintain.compact import reconcile_and_compact
from assistant.memory.maintain.consolidate import consolidate
from assistant.memory.maintain.context import (
    MaintenanceParts,
    ProfileLike,
    StepContext,
    Summarize,
    log,
)
from assistant.memory.maintain.lifecycle import decay, expire, purge
from assistant.memory.maintain.merge import merge

Step = Callable[[StepContext], dict[str, int]]
STEPS: dict[str, Step] = {
    "expire": expire,
    "decay": decay,
    "merge": merge,
    "consolidate": consolidate,
    "purge": purge,
    "reconcile": reconcile_and_compact,
}
JOB_KIND = "maintenance"
DRY_RUN_KIND = "maintenance.dry_run"


class MaintenanceBusyError(MnemoError):
    """Another maintenance run (this process or another) holds the lock."""


class MaintenanceStopped(MnemoError):
    """The run ended between two steps: the profile it maintained was erased (forget-me)."""


@dataclass
class MaintenanceReport:
    """What one run did (or, in a dry run, would do), step by step."""

    job_id: int
    started_at: float
    dry_run: bool
    steps: dict[str, dict[str, int]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    duration_s: float = 0.0
    changed: list[int] = field(default_factory=list)  # memories added, edited, retired or purged

    def as_dict(self) -> dict[str, Any]:
        return {
            "job_id": self.job_id,
            "dry_run": self.dry_run,
            "duration_s": round(self.duration_s, 3),
            "steps": self.steps,
            "seconds": {name: round(s, 3) for name, s in self.seconds.items()},
        }


# Within one process the file lock alone cannot tell two threads apart reliably, so a
# process-wide lock per lock file comes first.
_thread_locks: dict[str, threading.Lock] = {}
_registry_lock = threading.Lock()


@contextmanager
def maintenance_lock(path: Path) -> Iterator[None]:
    """Hold the maintenance lock of one data directory, or raise MaintenanceBusyError at once."""
    key = str(path.resolve())
    with _registry_lock:
        local = _thread_locks.setdefault(key, threading.Lock())
    busy = MaintenanceBusyError(
        "Memory maintenance is already running for this profile.",
        "Wait for it to finish; it runs once at a time.",
    )
    if not local.acquire(blocking=False):
        raise busy
    try:
        lock = FileLock(str(path), thread_local=False)
        try:
            lock.acquire(timeout=0)
        except Timeout as exc:
            raise busy from exc
        try:
            yield
        finally:
            lock.release()
    finally:
        local.release()


def run_maintenance(
    profile_or_parts: ProfileLike | MaintenanceParts,
    now: datetime,
    *,
    dry_run: bool = False,
    llm: Summarize | None = None,
    steps: Sequence[str] | None = None,
    after_step: Callable[[str, dict[str, int]], None] | None = None,
    step_guard: Callable[[], AbstractContextManager[object]] | None = None,
    on_changed: Callable[[Sequence[int]], None] | None = None,
) -> MaintenanceReport:
    """Run the maintenance steps in order and record the run in `jobs`.

    Args:
        profile_or_parts: an open Profile, or its parts (MaintenanceParts).
        now: the time the rules read (an injected clock's now in tests).
        dry_run: count what would change, change nothing (the run is still recorded).
        llm: writes consolidation summaries; None uses the rule-based summary.
        steps: a subset of STEPS to run (in STEPS order); None runs them all.
        after_step: called with each step's name and counts once the step is done (progress).
        step_guard: entered around each step and its record (`Memories` holds its write lock
            there): another thread's write waits for the step, never lands in the middle of
            one (a merge reads, then rewrites), nor waits for the whole run. It may raise
            `MaintenanceStopped` to end the run. None: no guard (a benchmark, a test).
        on_changed: called after each step with the ids of the memories it changed (from the
            audit events it wrote), also for the steps done before one fails.

    Returns:
        The report, also stored as the job's counts.

    Raises:
        MaintenanceBusyError: another run holds the lock.
        MaintenanceStopped: `step_guard` ended the run (the profile was erased under it).
        InputError: an unknown step name.
    """
    names = _step_names(steps)
    parts = MaintenanceParts.of(profile_or_parts)
    now_ts = to_ts(now)
    tz = now.tzinfo
    assert tz is not None  # to_ts refused naive datetimes
    guard = step_guard or nullcontext
    with maintenance_lock(parts.lock_path):
        db, profile_id = parts.db, parts.service.profile_id
        with guard():
            parts.store.flush_access()  # decay must see the latest use
            _close_interrupted(db, profile_id)
            ctx = StepContext(parts, now_ts, tz, dry_run=dry_run, summarize=llm, last_success=last_successes(db, profile_id))
            report = MaintenanceReport(_start_job(db, profile_id, now_ts, dry_run), now_ts, dry_run)
        started = time.perf_counter()
        try:
            for name in names:
                with guard():
                    mark = _last_event(db, profile_id)
                    t0 = time.perf_counter()
                    report.steps[name] = STEPS[name](ctx)
                    report.seconds[name] = time.perf_counter() - t0
                    changed = [] if dry_run else _changed_since(db, profile_id, mark)
                    _record_step(db, profile_id, report, name, now_ts, dry_run, time.perf_counter() - started)
                report.changed += changed
                log.info("maintenance step %s done in %.2fs: %s", name, report.seconds[name], report.steps[name])
                if on_changed is not None and changed:
                    on_changed(changed)
                if after_step is not None:
                    after_step(name, report.steps[name])
        except MaintenanceStopped:
            raise  # the profile was erased: its jobs went with it
        except BaseException as exc:
            _finish(db, report.job_id, report, time.perf_counter() - started, f"failed:{type(exc).__name__}")
            raise
        report.duration_s = time.perf_counter() - started
        with guard():
            _finish(db, report.job_id, report, report.duration_s, "ok")
        return report


def _start_job(db: Database, profile_id: str, now: float, dry_run: bool) -> int:
    return int(db.execute(
        "INSERT INTO jobs(profile_id, kind, started_at, status) VALUES (?, ?, ?, 'running')",
        (profile_id, DRY_RUN_KIND if dry_run else JOB_KIND, now),
    ).lastrowid or 0)


def _step_names(steps: Sequence[str] | None) -> list[str]:
    if steps is None:
        return list(STEPS)
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        raise InputError(f"unknown maintenance step {unknown[0]!r}", "Use some of: " + ", ".join(STEPS))
    return [s for s in STEPS if s in set(steps)]


def _counts_json(report: MaintenanceReport) -> str:
    return json.dumps({"steps": report.steps, "seconds": {k: round(v, 4) for k, v in report.seconds.items()}})


def _record_step(db: Database, profile_id: str, report: MaintenanceReport, name: str, now: float, dry_run: bool, elapsed: float) -> None:
    """Counts so far go to the job row; a real run also stamps the step's last success."""
    with db.atomic():
        db.execute("UPDATE jobs SET counts = ?, duration_s = ? WHERE id = ?", (_counts_json(report), elapsed, report.job_id))
        if not dry_run:
            db.execute(
                "INSERT INTO job_steps(profile_id, step, last_success_at) VALUES (?, ?, ?)"
                " ON CONFLICT(profile_id, step) DO UPDATE SET last_success_at = excluded.last_success_at",
                (profile_id, name, now),
            )


def _finish(db: Database, job_id: int, report: MaintenanceReport, duration: float, status: str) -> None:
    db.execute(
        "UPDATE jobs SET status = ?, finished_at = started_at + ?, duration_s = ?, counts = ? WHERE id = ?",
        (status, duration, duration, _counts_json(report), job_id),
    )


def _last_event(db: Database, profile_id: str) -> int:
    return int(db.scalar("SELECT COALESCE(MAX(id), 0) FROM memory_events WHERE profile_id = ?", (profile_id,)) or 0)


def _changed_since(db: Database, profile_id: str, mark: int) -> list[int]:
    """The memories with an audit event after `mark` (every change writes one), in order."""
    rows = db.query(
        "SELECT memory_id FROM memory_events WHERE profile_id = ? AND id > ? AND memory_id IS NOT NULL ORDER BY id",
        (profile_id, mark),
    )
    return list(dict.fromkeys(int(r[0]) for r in rows))


def _close_interrupted(db: Database, profile_id: str) -> None:
    """Runs still marked running while we hold the lock died mid-way (a crash, a kill)."""
    db.execute(
        "UPDATE jobs SET status = 'interrupted' WHERE profile_id = ? AND kind IN (?, ?) AND status = 'running'",
        (profile_id, JOB_KIND, DRY_RUN_KIND),
    )


def last_successes(db: Database, profile_id: str) -> dict[str, float]:
    """When each step last completed (in a real run), by step name."""
    rows = db.query("SELECT step, last_success_at FROM job_steps WHERE profile_id = ?", (profile_id,))
    return {r[0]: float(r[1]) for r in rows}


def last_success(db: Database, profile_id: str) -> float | None:
    """When the whole maintenance last completed: the oldest of its steps' last successes."""
    done = last_successes(db, profile_id)
    if any(name not in done for name in STEPS):
        return None
    return min(done[name] for name in STEPS)


def recent_jobs(db: Database, profile_id: str, limit: int = 10) -> list[dict[str, Any]]:
    """The latest maintenance runs, newest first (for the panel and `mnemo maintain --history`)."""
    rows = db.query(
        "SELECT id, kind, started_at, finished_at, status, counts, duration_s FROM jobs"
        " WHERE profile_id = ? AND kind IN (?, ?) ORDER BY id DESC LIMIT ?",
        (profile_id, JOB_KIND, DRY_RUN_KIND, limit),
    )
    return [
        {"id": r[0], "kind": r[1], "started_at": r[2], "finished_at": r[3], "status": r[4],
         "counts": json.loads(r[5]), "duration_s": r[6]}
        for r in rows
    ]

"""The maintenance scheduler: options that really took effect, catch-up, run now, clean shutdown."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, timedelta

import pytest

from assistant.app import Profile
from assistant.clock import ManualClock, to_ts
from assistant.memory.api import MaintenanceBusyError, MaintenanceReport, MemoryChange
from assistant.memory.types import Memory
from assistant.scheduler import CATCH_UP_JOB, NIGHTLY_JOB, MaintenanceScheduler

WAIT = 60.0  # seconds: an upper bound for a background run, never a sleep


def _report() -> MaintenanceReport:
    return MaintenanceReport(job_id=1, started_at=0.0, dry_run=False)


@pytest.fixture
def threads_before() -> Iterator[set[threading.Thread]]:
    before = set(threading.enumerate())
    yield before
    leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not leaked, f"threads left running: {leaked}"


def test_job_defaults_take_effect_and_the_night_is_at_three(clock: ManualClock, threads_before: set[threading.Thread]) -> None:
    scheduler = MaintenanceScheduler(_report, lambda: to_ts(clock.now()), clock)
    scheduler.start()
    try:
        # APScheduler 3.x would give 1 s grace unless set through job_defaults
        assert scheduler.job_options(NIGHTLY_JOB) == {"misfire_grace_time": 12 * 3600, "coalesce": True, "max_instances": 1}
        when = scheduler.next_run_time()
        assert when is not None and (when.hour, when.minute) == (3, 0)
        assert when.utcoffset() == clock.now().utcoffset()
    finally:
        scheduler.shutdown()
    assert not scheduler.running


def test_nightly_time_is_configurable(clock: ManualClock, threads_before: set[threading.Thread]) -> None:
    scheduler = MaintenanceScheduler(_report, lambda: None, clock, nightly_time="22:45")
    scheduler.start(catch_up=False)
    try:
        when = scheduler.next_run_time()
        assert when is not None and (when.hour, when.minute) == (22, 45)
    finally:
        scheduler.shutdown()


def test_catch_up_runs_once_when_the_last_success_is_old(clock: ManualClock, threads_before: set[threading.Thread]) -> None:
    done = threading.Event()
    runs: list[str] = []
    last: list[float | None] = [to_ts(clock.now() - timedelta(days=2))]

    def run() -> MaintenanceReport:
        runs.append(threading.current_thread().name)
        last[0] = to_ts(clock.now())
        return _report()

    scheduler = MaintenanceScheduler(run, lambda: last[0], clock, on_finished=lambda _r: done.set(), catch_up_delay=timedelta(0))
    scheduler.start()
    try:
        assert done.wait(WAIT)
        assert runs and runs[0] != threading.current_thread().name  # off the caller's thread
        assert not scheduler.catch_up_if_due()  # it succeeded: nothing owed
        assert not scheduler.is_due(clock.now() + timedelta(hours=23))
        assert scheduler.is_due(clock.now() + timedelta(days=1, minutes=1))
    finally:
        scheduler.shutdown()
    assert len(runs) == 1


def test_no_catch_up_when_a_run_happened_today(clock: ManualClock, threads_before: set[threading.Thread]) -> None:
    scheduler = MaintenanceScheduler(_report, lambda: to_ts(clock.now() - timedelta(hours=5)), clock)
    scheduler.start()
    try:
        assert scheduler.pending(CATCH_UP_JOB) == 0
    finally:
        scheduler.shutdown()


def test_errors_go_to_on_error_and_busy_is_skipped(clock: ManualClock, threads_before: set[threading.Thread]) -> None:
    got: list[BaseException] = []
    finished = threading.Event()
    calls = [0]

    def run() -> MaintenanceReport:
        calls[0] += 1
        if calls[0] == 1:
            raise MaintenanceBusyError("busy")
        raise OSError("disk gone")

    def on_error(exc: BaseException) -> None:
        got.append(exc)
        finished.set()

    scheduler = MaintenanceScheduler(run, lambda: None, clock, on_error=on_error)
    scheduler.start(catch_up=False)
    try:
        scheduler.run_now()  # busy: skipped quietly
        scheduler.run_now()
        assert finished.wait(WAIT)
    finally:
        scheduler.shutdown()
    assert calls[0] == 2 and len(got) == 1 and isinstance(got[0], OSError)


def test_shutdown_waits_for_a_running_job(clock: ManualClock, threads_before: set[threading.Thread]) -> None:
    started, release = threading.Event(), threading.Event()
    finished: list[MaintenanceReport] = []

    def run() -> MaintenanceReport:
        started.set()
        release.wait(WAIT)
        return _report()

    scheduler = MaintenanceScheduler(run, lambda: None, clock, on_finished=finished.append)
    scheduler.start(catch_up=False)
    scheduler.run_now()
    assert started.wait(WAIT)
    release.set()
    scheduler.shutdown(wait=True)
    assert len(finished) == 1


def test_removing_a_one_off_job_after_shutdown_is_not_an_error(threads_before: set[threading.Thread]) -> None:
    """What the scheduler thread does when a shutdown comes between handing a one-off job to
    the executor and removing it from the store (APScheduler 3.11 raised JobLookupError there,
    in its own thread, when a caller shut down as soon as the job had started)."""
    from datetime import datetime

    from apscheduler.jobstores.base import JobLookupError
    from apscheduler.triggers.date import DateTrigger

    from assistant.scheduler import _Scheduler

    scheduler = _Scheduler()
    scheduler.start()
    job = scheduler.add_job(_report, DateTrigger(run_date=datetime(2999, 1, 1, tzinfo=UTC)))
    with pytest.raises(JobLookupError):
        scheduler.remove_job("never-added")  # while running, a lookup error still is one
    scheduler.shutdown(wait=True)
    scheduler.remove_job(job.id)  # the store is empty once stopped: the job is gone, no error


@pytest.fixture
def expired(profile: Profile, clock: ManualClock) -> Memory:
    """A plan whose day is over (stored before `threads_before` looks: embedding starts tqdm's monitor)."""
    return profile.memories.add("Dentist on Monday at nine", expires_at=to_ts(clock.now()) - 60)


def test_for_profile_runs_the_real_maintenance(
    profile: Profile, clock: ManualClock, expired: Memory, threads_before: set[threading.Thread]
) -> None:
    reports: list[MaintenanceReport] = []
    done = threading.Event()
    changes: list[MemoryChange] = []
    profile.memories.subscribe(changes.append)

    def finished(report: MaintenanceReport) -> None:
        reports.append(report)
        done.set()

    scheduler = MaintenanceScheduler.for_profile(profile, on_finished=finished, catch_up_delay=timedelta(0))
    assert scheduler.is_due()
    scheduler.start()  # never ran: a catch-up is owed
    try:
        assert done.wait(WAIT)
    finally:
        scheduler.shutdown()
    assert set(reports[0].steps) == {"expire", "decay", "merge", "consolidate", "purge", "reconcile"}
    assert profile.memories.last_maintenance() == to_ts(clock.now())
    assert not scheduler.is_due(clock.now() + timedelta(hours=1))
    assert changes == [MemoryChange("maintain", (expired.id,))]  # through `Memories`: one event


def test_bad_nightly_time_is_refused(clock: ManualClock) -> None:
    from assistant.errors import InputError

    with pytest.raises(InputError):
        MaintenanceScheduler(_report, lambda: None, clock, nightly_time="25:00")

"""Nightly memory maintenance inside the running app (APScheduler 3.x `BackgroundScheduler`).

Decisions and traps, checked against APScheduler 3.11:

- Job options only apply through `job_defaults` (or per job); the default
  `misfire_grace_time` is 1 s, so a laptop asleep at 03:00 would silently skip the run.
  We set a grace of 12 h with `coalesce` (several missed runs run once) and
  `max_instances=1`.
- No pickled job store: the last success of each step lives in our own database
  (`job_steps`), and `catch_up_if_due` decides at start-up whether a run is owed.
- The scheduler thread waits on a monotonic timeout, which does not advance while the
  machine sleeps; a light wake-up check every `WAKE_CHECK_MINUTES` makes sure a missed
  night is noticed soon after resume.
- `QtScheduler` was reported unable to cancel its wake-up timer after `shutdown()` under
  PySide6 6.12, so the GUI uses this class too: `on_finished(report)` / `on_error(exc)` are
  called on the worker thread, and the GUI's bridge re-emits them as Qt signals.

The core never imports Qt; this module is a plain library object.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta, tzinfo
from typing import Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import STATE_STOPPED
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from assistant.clock import Clock, to_ts
from assistant.errors import InputError
from assistant.memory.api import (
    MaintenanceBusyError,
    MaintenanceReport,
    MaintenanceStopped,
    Summarize,
)
from assistant.priority import yield_cpu_to_foreground

log = logging.getLogger("mnemo.scheduler")

NIGHTLY_JOB = "maintenance.nightly"
CATCH_UP_JOB = "maintenance.catch_up"
RUN_NOW_JOB = "maintenance.run_now"
WAKE_JOB = "maintenance.wake_check"
WAKE_CHECK_MINUTES = 15
DUE_AFTER = timedelta(days=1)
RETRY_AFTER = timedelta(hours=1)  # a failed catch-up is not retried sooner than this
JOB_DEFAULTS: dict[str, Any] = {"misfire_grace_time": 12 * 3600, "coalesce": True, "max_instances": 1}


def parse_time(text: str) -> tuple[int, int]:
    try:
        hour, minute = (int(part) for part in text.split(":"))
    except ValueError as exc:
        raise InputError(f"nightly time {text!r} is not HH:MM", "Write e.g. 03:00.") from exc
    if not (0 <= hour < 24 and 0 <= minute < 60):
        raise InputError(f"nightly time {text!r} is not HH:MM", "Write e.g. 03:00.")
    return hour, minute


class _Scheduler(BackgroundScheduler):  # type: ignore[misc]  # APScheduler 3 ships no types
    """`BackgroundScheduler` without its shutdown race on finished one-off jobs.

    The scheduler thread hands a due one-off job to the executor, then removes it from the
    job store. If `shutdown()` comes in between (the job has started, so a caller waiting
    for it can already be shutting down), `remove_job` finds the scheduler stopped, looks
    only among jobs not yet added, and raises JobLookupError in the scheduler's thread
    (APScheduler 3.11). Once stopped, the job store has been emptied: the job is gone.
    """

    def remove_job(self, job_id: str, jobstore: str | None = None) -> None:
        try:
            super().remove_job(job_id, jobstore)
        except JobLookupError:
            if self.state != STATE_STOPPED:
                raise


class MaintenanceScheduler:
    """Runs maintenance nightly, on demand, and once at start when a run is owed.

    Args:
        run: does one maintenance run and returns its report (a closure over the profile).
        last_success: when the last complete run finished (epoch seconds), or None.
        clock: the injected clock, for the catch-up decision.
        nightly_time: local "HH:MM" of the nightly run.
        on_finished: called with each report, on the worker thread.
        on_error: called with an exception a run raised, on the worker thread.
        timezone: of the nightly time; the clock's zone by default.
        catch_up_delay: how long after start a catch-up run begins (the app settles first).
    """

    def __init__(
        self,
        run: Callable[[], MaintenanceReport],
        last_success: Callable[[], float | None],
        clock: Clock,
        *,
        nightly_time: str = "03:00",
        on_finished: Callable[[MaintenanceReport], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        timezone: tzinfo | None = None,
        catch_up_delay: timedelta = timedelta(seconds=60),
    ) -> None:
        self._run = run
        self._last_success = last_success
        self.clock = clock
        self.hour, self.minute = parse_time(nightly_time)
        self.on_finished = on_finished
        self.on_error = on_error
        self.catch_up_delay = catch_up_delay
        self.timezone = timezone or clock.now().tzinfo
        self._attempted_at: float | None = None
        self._state_lock = threading.Lock()
        self._scheduler = _Scheduler(
            executors={"default": ThreadPoolExecutor(max_workers=1)},
            job_defaults=dict(JOB_DEFAULTS),
            timezone=self.timezone,
            daemon=True,
        )

    @classmethod
    def for_profile(
        cls,
        profile: Any,
        *,
        llm: Summarize | None = None,
        on_finished: Callable[[MaintenanceReport], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        catch_up_delay: timedelta = timedelta(seconds=60),
    ) -> MaintenanceScheduler:
        """A scheduler for an open `assistant.app.Profile`: its clock and settings, and its
        `memories` (each run takes the write lock per step and emits one change event)."""
        return cls(
            lambda: profile.memories.maintain(profile.clock.now(), llm=llm),
            profile.memories.last_maintenance,
            profile.clock,
            nightly_time=profile.settings.nightly_time,
            on_finished=on_finished,
            on_error=on_error,
            catch_up_delay=catch_up_delay,
        )

    # -- lifecycle ------------------------------------------------------------------------

    def start(self, *, catch_up: bool = True) -> None:
        """Start the scheduler thread; schedule the nightly run (and a catch-up when owed)."""
        self._scheduler.add_job(
            self._job, CronTrigger(hour=self.hour, minute=self.minute, timezone=self.timezone),
            id=NIGHTLY_JOB, name=NIGHTLY_JOB, replace_existing=True,
        )
        self._scheduler.add_job(
            self._wake_check, IntervalTrigger(minutes=WAKE_CHECK_MINUTES, timezone=self.timezone),
            id=WAKE_JOB, name=WAKE_JOB, replace_existing=True,
        )
        self._scheduler.start()
        if catch_up:
            self.catch_up_if_due()

    def shutdown(self, wait: bool = True) -> None:
        """Stop the scheduler; with `wait`, a running maintenance finishes first (no thread is left)."""
        if self._scheduler.running:
            self._scheduler.shutdown(wait=wait)

    @property
    def running(self) -> bool:
        return bool(self._scheduler.running)

    # -- what to run when -----------------------------------------------------------------

    def is_due(self, now: datetime | None = None) -> bool:
        """True when the last complete run is older than a day (or there never was one)."""
        now_ts = to_ts(now or self.clock.now())
        done = self._last_success()
        return done is None or now_ts - done >= DUE_AFTER.total_seconds()

    def catch_up_if_due(self, now: datetime | None = None) -> bool:
        """Schedule one background run soon when a run is owed; returns whether it did."""
        now = now or self.clock.now()
        with self._state_lock:
            if not self.is_due(now):
                return False
            if self._attempted_at is not None and to_ts(now) - self._attempted_at < RETRY_AFTER.total_seconds():
                return False
            self._attempted_at = to_ts(now)
        # One-shot jobs get fresh ids: replacing a fixed id races with the scheduler thread
        # removing the finished job (JobLookupError in its thread).
        self._scheduler.add_job(
            self._job, DateTrigger(run_date=datetime.now(self.timezone) + self.catch_up_delay),
            name=CATCH_UP_JOB,
        )
        log.info("maintenance is owed; a catch-up run is scheduled")
        return True

    def run_now(self) -> None:
        """Run maintenance in the background as soon as possible (the panel's "run now")."""
        self._scheduler.add_job(self._job, DateTrigger(run_date=datetime.now(self.timezone)), name=RUN_NOW_JOB)

    def pending(self, name: str) -> int:
        """How many jobs of this name are waiting (CATCH_UP_JOB, RUN_NOW_JOB, NIGHTLY_JOB)."""
        return sum(1 for job in self._scheduler.get_jobs() if job.name == name or job.id == name)

    def next_run_time(self) -> datetime | None:
        job = self._scheduler.get_job(NIGHTLY_JOB)
        return None if job is None else job.next_run_time  # type: ignore[no-any-return]

    def job_options(self, job_id: str = NIGHTLY_JOB) -> dict[str, Any]:
        """The effective APScheduler options of a job (to verify the defaults took effect)."""
        job = self._scheduler.get_job(job_id)
        if job is None:
            return {}
        return {"misfire_grace_time": job.misfire_grace_time, "coalesce": job.coalesce, "max_instances": job.max_instances}

    # -- on the worker thread ---------------------------------------------------------------

    def _wake_check(self) -> None:
        self.catch_up_if_due()

    def _job(self) -> None:
        yield_cpu_to_foreground()  # the executor's one thread runs maintenance only
        try:
            report = self._run()
        except MaintenanceBusyError:
            log.info("maintenance skipped: another run holds the lock")
            return
        except MaintenanceStopped:
            log.info("maintenance stopped: the profile was erased")
            return
        except Exception as exc:  # noqa: BLE001 - handed to the app's one error handler
            log.error("maintenance failed: %s", type(exc).__name__)
            if self.on_error is None:
                raise
            self.on_error(exc)
            return
        if self.on_finished is not None:
            self.on_finished(report)

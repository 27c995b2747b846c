"""The background runner and the timers: no sleeps, no leaked threads."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from assistant.chat.background import BackgroundRunner, ManualTimer, ThreadingIdleTimer
from assistant.errors import StorageError
from assistant.priority import BACKGROUND_NICENESS


def test_jobs_run_in_order_on_one_worker_and_close_joins_it() -> None:
    runner = BackgroundRunner()
    seen: list[tuple[int, str]] = []
    gate = threading.Event()
    runner.submit(gate.wait)
    for i in range(3):
        runner.submit(lambda i=i: seen.append((i, threading.current_thread().name)))
    assert not runner.wait_idle(0)
    gate.set()
    assert runner.wait_idle(10)
    assert [i for i, _ in seen] == [0, 1, 2] and {name for _, name in seen} == {"mnemo-chat-worker"}
    runner.close()
    assert not any(t.name == "mnemo-chat-worker" for t in threading.enumerate())


def test_errors_reach_the_handlers_and_the_worker_survives() -> None:
    runner = BackgroundRunner(synchronous=True)
    errors: list[BaseException] = []
    runner.on_error.append(errors.append)

    def boom() -> None:
        raise StorageError("disk full", "free space")

    def bug() -> None:
        raise KeyError("x")

    runner.submit(boom)
    runner.submit(bug)
    assert [type(e) for e in errors] == [StorageError, KeyError]
    runner.close()


def test_manual_timer_fires_only_when_told() -> None:
    timer = ManualTimer()
    fired: list[int] = []
    timer.restart(90, lambda: fired.append(1))
    assert timer.armed and timer.delay == 90 and not fired
    timer.fire()
    timer.fire()
    assert fired == [1] and not timer.armed


def test_threading_timer_fires_and_cancel_joins() -> None:
    timer = ThreadingIdleTimer()
    done = threading.Event()
    timer.restart(0.01, done.set)
    assert done.wait(10)
    timer.restart(3600, done.clear)
    timer.cancel()
    assert done.is_set()
    assert not any(t.name == "mnemo-idle-timer" and t.is_alive() for t in threading.enumerate())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_the_worker_runs_at_a_lower_cpu_priority_than_the_caller() -> None:
    runner = BackgroundRunner()
    seen: list[int] = []
    runner.submit(lambda: seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
    runner.close()
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert seen == [max(BACKGROUND_NICENESS, mine)]
    assert mine < BACKGROUND_NICENESS  # the caller's own priority did not change

"""Run core calls off the GUI thread and hand the result back on it.

`Runner.run_task(func, on_result, on_error)` runs `func` on a QThreadPool; when it ends,
exactly one of the callbacks runs on the GUI thread (Picard's `run_task` pattern). Tests can
make it synchronous. Every runner is registered so a test can prove none was left busy.
"""

from __future__ import annotations

import itertools
import logging
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

log = logging.getLogger("mnemo.ui.worker")

T = TypeVar("T")
# A task's result crosses the thread in a Qt signal as `object`: the pending callbacks are
# stored untyped, each checked against its task's result type in `run_task`.
ResultCallback = Callable[[Any], None]
ErrorCallback = Callable[[BaseException], None]

RUNNERS: weakref.WeakSet[Runner] = weakref.WeakSet()


class _Task(QRunnable):
    def __init__(self, runner: Runner, task_id: int, func: Callable[[], object]) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._runner = runner
        self._id = task_id
        self._func = func

    def run(self) -> None:
        try:
            result = self._func()
        except BaseException as exc:  # noqa: BLE001 - handed to on_error on the GUI thread
            self._runner._finished.emit(self._id, None, exc)
            return
        self._runner._finished.emit(self._id, result, None)


class Runner(QObject):
    """A pool of worker threads whose results come back by signal.

    Args:
        synchronous: run each task inline (tests that want plain sequential code).
        max_threads: pool size.
        on_unhandled: receives errors of tasks given no `on_error`.
    """

    idle = Signal()
    _finished = Signal(int, object, object)

    def __init__(
        self,
        *,
        synchronous: bool = False,
        max_threads: int = 4,
        on_unhandled: ErrorCallback | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.synchronous = synchronous
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max_threads)
        self.on_unhandled = on_unhandled
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[ResultCallback | None, ErrorCallback | None]] = {}
        self._closed = False
        self._finished.connect(self._deliver)
        RUNNERS.add(self)

    def run_task(
        self,
        func: Callable[[], T],
        on_result: Callable[[T], None] | None = None,
        on_error: ErrorCallback | None = None,
    ) -> None:
        """Run `func` off the GUI thread; then `on_result(value)` or `on_error(exc)` on it."""
        if self._closed:
            log.debug("task dropped: runner is shut down")
            return
        if self.synchronous:
            try:
                result = func()
            except Exception as exc:  # noqa: BLE001 - same contract as the threaded path
                self._call_error(on_error, exc)
                return
            if on_result is not None:
                on_result(result)
            return
        task_id = next(self._ids)
        self._pending[task_id] = (on_result, on_error)
        self.pool.start(_Task(self, task_id, func))

    @property
    def busy(self) -> bool:
        return bool(self._pending) or self.pool.activeThreadCount() > 0

    @Slot(int, object, object)
    def _deliver(self, task_id: int, result: object, error: object) -> None:
        on_result, on_error = self._pending.pop(task_id, (None, None))
        try:
            if self._closed:
                return
            if isinstance(error, BaseException):
                self._call_error(on_error, error)
            elif on_result is not None:
                on_result(result)
        finally:
            if not self._pending:
                self.idle.emit()

    def _call_error(self, on_error: ErrorCallback | None, error: BaseException) -> None:
        if on_error is not None:
            on_error(error)
        elif self.on_unhandled is not None:
            self.on_unhandled(error)
        else:
            raise error

    def shutdown(self, timeout_ms: int = 30000) -> bool:
        """Stop delivering results and wait for running tasks (at window close)."""
        self._closed = True
        done = self.pool.waitForDone(timeout_ms)
        self._pending.clear()
        return done

    def wait_idle(self, timeout_ms: int = 30000) -> bool:
        """Block until every task has ended (results may still be queued for delivery)."""
        return self.pool.waitForDone(timeout_ms)

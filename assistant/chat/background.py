"""Work the chat engine does off the reply path: one worker thread, and an idle timer.

Both can be replaced for tests: `BackgroundRunner(synchronous=True)` runs each job in the
caller's thread, and `ManualTimer` fires only when the test says so (no sleeps).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Protocol

from assistant.errors import MnemoError
from assistant.priority import yield_cpu_to_foreground

log = logging.getLogger("mnemo.chat")

Job = Callable[[], object]
ErrorHandler = Callable[[BaseException], None]


class BackgroundRunner:
    """Runs submitted jobs in order on one worker thread (started on first use).

    Args:
        synchronous: Run every job at once in the submitting thread (tests, scripts).
        name: The worker thread's name.
    """

    def __init__(self, *, synchronous: bool = False, name: str = "mnemo-chat-worker") -> None:
        self.synchronous = synchronous
        self.name = name
        self.on_error: list[ErrorHandler] = []
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0
        self._closed = False

    def submit(self, job: Job) -> None:
        """Queue `job`; it runs after the jobs queued before it."""
        if self._closed:
            raise RuntimeError("BackgroundRunner is closed")
        if self.synchronous:
            self._run(job)
            return
        with self._lock:
            self._pending += 1
            self._idle.clear()
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                self._thread.start()
        self._queue.put(job)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every queued job has finished; False on timeout."""
        return self._idle.wait(timeout)

    def close(self) -> None:
        """Finish the queued jobs and join the worker."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            thread = self._thread
        if thread is not None:
            self._queue.put(None)
            thread.join()

    def _loop(self) -> None:
        yield_cpu_to_foreground()
        while True:
            job = self._queue.get()
            if job is None:
                return
            try:
                self._run(job)
            finally:
                with self._lock:
                    self._pending -= 1
                    if self._pending == 0:
                        self._idle.set()

    def _run(self, job: Job) -> None:
        try:
            job()
        except MnemoError as exc:  # the environment's (Ollama down, disk full): reported, not a crash
            log.warning("background job failed: %s", type(exc).__name__)
            self._report(exc)
        except Exception as exc:  # noqa: BLE001 - a bug in a worker thread goes to the app's one handler
            if not self.on_error:
                log.exception("background job crashed")
            self._report(exc)

    def _report(self, exc: BaseException) -> None:
        for handler in list(self.on_error):
            handler(exc)


class IdleTimer(Protocol):
    """Calls back once after `delay` seconds without a restart."""

    def restart(self, delay: float, callback: Callable[[], None]) -> None: ...

    def cancel(self) -> None: ...


class ThreadingIdleTimer:
    """An `IdleTimer` on `threading.Timer` (daemon, cancelled and joined on `cancel`)."""

    def __init__(self) -> None:
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def restart(self, delay: float, callback: Callable[[], None]) -> None:
        with self._lock:
            old, self._timer = self._timer, threading.Timer(delay, callback)
            self._timer.daemon = True
            self._timer.name = "mnemo-idle-timer"
            self._timer.start()
        if old is not None:
            old.cancel()

    def cancel(self) -> None:
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
            if timer is not threading.current_thread():
                timer.join()


class ManualTimer:
    """An `IdleTimer` that fires only when `fire()` is called (tests)."""

    def __init__(self) -> None:
        self.delay: float | None = None
        self._callback: Callable[[], None] | None = None

    @property
    def armed(self) -> bool:
        return self._callback is not None

    def restart(self, delay: float, callback: Callable[[], None]) -> None:
        self.delay, self._callback = delay, callback

    def cancel(self) -> None:
        self.delay, self._callback = None, None

    def fire(self) -> None:
        callback, self._callback = self._callback, None
        if callback is not None:
            callback()

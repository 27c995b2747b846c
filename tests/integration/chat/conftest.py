"""Fixtures for chat tests: the fake Ollama, a real profile pointed at it, an engine.

The engine runs its background work synchronously and its idle timer by hand, so tests
never sleep; `no_leaked_threads` fails a test that leaves a Mnemo thread running.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from assistant.app import Profile
from assistant.chat.background import BackgroundRunner, ManualTimer
from assistant.chat.engine import ChatEngine
from assistant.config import Settings
from assistant.llm.ollama_backend import OllamaBackend
from assistant.memory.embedder import BUNDLED_MODEL
from tests.fakes.fake_ollama import FakeOllama, fake_ollama  # noqa: F401  (fixture)

MODEL = "qwen2.5:7b"


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    yield
    leaked = [t.name for t in threading.enumerate() if t.name.startswith(("mnemo-", "fake-ollama")) and t.is_alive()]
    assert not leaked, f"threads left running: {leaked}"


@pytest.fixture
def settings(fake_ollama: FakeOllama) -> Settings:  # noqa: F811
    return Settings(
        embedding_model=BUNDLED_MODEL,
        ollama_host=fake_ollama.host,
        chat_model=MODEL,
        request_timeout_s=5.0,
        connect_timeout_s=2.0,
        extraction_every_turns=100,  # tests flush by hand unless they test the schedule
    )


@pytest.fixture
def backend(settings: Settings) -> Iterator[OllamaBackend]:
    with OllamaBackend(settings, sleep=lambda _s: None) as backend:
        yield backend


@pytest.fixture
def timer() -> ManualTimer:
    return ManualTimer()


@pytest.fixture
def engine(profile: Profile, backend: OllamaBackend, timer: ManualTimer) -> Iterator[ChatEngine]:
    engine = ChatEngine(profile, backend, runner=BackgroundRunner(synchronous=True), idle_timer=timer, summarize_with_llm=False)
    try:
        yield engine
    finally:
        engine.close()


def chat_turn_requests(server: FakeOllama) -> list[dict[str, object]]:
    """The /api/chat requests that were conversation turns (not extraction or summaries)."""
    return [r for r in server.chat_requests if not r.get("format") and "Mnemo" in str(r["messages"][0]["content"])]  # type: ignore[index]

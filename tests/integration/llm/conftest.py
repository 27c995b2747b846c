"""Fixtures for the Ollama backend tests: the fake server and a backend pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assistant.config import Settings
from assistant.llm.ollama_backend import OllamaBackend
from tests.fakes.fake_ollama import FakeOllama, fake_ollama  # noqa: F401  (fixture)


@pytest.fixture
def settings(fake_ollama: FakeOllama) -> Settings:  # noqa: F811
    return Settings(ollama_host=fake_ollama.host, request_timeout_s=5.0, connect_timeout_s=2.0)


@pytest.fixture
def sleeps() -> list[float]:
    """What the backend would have slept between retries (it never really sleeps in tests)."""
    return []


@pytest.fixture
def backend(settings: Settings, sleeps: list[float]) -> Iterator[OllamaBackend]:
    with OllamaBackend(settings, sleep=sleeps.append) as backend:
        yield backend

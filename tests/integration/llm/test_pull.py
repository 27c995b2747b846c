"""Pulling a model through the official client's streaming `pull`, against the fake server."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from assistant.config import Settings
from assistant.llm.backend import ModelPullFailed, OllamaUnavailable, PullProgress
from assistant.llm.ollama_backend import OllamaBackend
from assistant.llm.setup import OllamaState, is_chat_model, probe, recommended_model
from tests.fakes.fake_ollama import FakeOllama


@pytest.fixture
def backend(fake_ollama: FakeOllama) -> Iterator[OllamaBackend]:
    settings = Settings(ollama_host=fake_ollama.host, chat_model="qwen2.5:3b", request_timeout_s=10)
    with OllamaBackend(settings, backoff=()) as backend:
        yield backend


def test_a_pull_reports_growing_progress_and_installs_the_model(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    assert not backend.health().ok
    steps: list[PullProgress] = []
    assert backend.pull_model("qwen2.5:3b", steps.append)
    statuses = [s.status for s in steps]
    assert statuses[0] == "pulling manifest" and statuses[-1] == "success"
    fractions = [s.fraction for s in steps if s.fraction is not None]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(set(fractions)) == 8
    assert "qwen2.5:3b" in backend.list_models() and backend.health().ok
    assert fake_ollama.pull_outcomes == ["success"]


def test_a_cancelled_pull_stops_the_download_and_installs_nothing(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    """Cancel while the pull waits for Ollama's next line (a slow or stalled download): its
    connection is shut at once, and Ollama, told, installs nothing."""
    fake_ollama.pull_gate = threading.Event()  # the server holds its third line
    cancel, bytes_came = threading.Event(), threading.Event()
    steps: list[PullProgress] = []
    outcome: list[bool] = []

    def seen(step: PullProgress) -> None:
        steps.append(step)
        if step.fraction:
            bytes_came.set()

    pulling = threading.Thread(
        target=lambda: outcome.append(backend.pull_model("qwen2.5:3b", seen, cancel))
    )
    pulling.start()
    assert bytes_came.wait(10)
    cancel.set()  # the user presses Cancel while the pull is blocked reading
    pulling.join(30)
    assert outcome == [False]
    fake_ollama.pull_gate.set()  # only now may the server go on: it finds the client gone
    assert fake_ollama.pull_finished.wait(10)
    assert fake_ollama.pull_outcomes == ["cancelled"]
    assert "qwen2.5:3b" not in fake_ollama.models
    assert steps[-1].fraction is not None and steps[-1].fraction < 1


def test_an_unknown_model_says_so(backend: OllamaBackend, fake_ollama: FakeOllama) -> None:
    fake_ollama.library = {"qwen2.5:3b": 1_900_000_000}
    with pytest.raises(ModelPullFailed) as raised:
        backend.pull_model("no-such-model:1b", lambda _p: None)
    assert "does not exist" in raised.value.message and "ollama.com/library" in raised.value.hint


def test_a_pull_with_ollama_down_says_ollama_is_down() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = Settings(ollama_host=f"http://127.0.0.1:{port}", connect_timeout_s=1)
    with OllamaBackend(settings, backoff=()) as backend, pytest.raises(OllamaUnavailable):
        backend.pull_model("qwen2.5:3b", lambda _p: None)


def test_the_probe_names_each_state(
    backend: OllamaBackend, fake_ollama: FakeOllama, tmp_path: object
) -> None:
    health = backend.health()
    found = probe(health, backend.list_models(), "qwen2.5:3b", find=lambda: None)
    assert found.state is OllamaState.NO_MODEL and found.installed == ["qwen2.5:7b"]
    fake_ollama.models.append("nomic-embed-text:latest")
    assert probe(health, backend.list_models(), "qwen2.5:3b").installed == ["qwen2.5:7b"]
    assert not is_chat_model("bge-m3:latest") and is_chat_model("llama3.2:3b")
    fake_ollama.models.append("qwen2.5:3b")
    assert probe(backend.health(), backend.list_models(), "qwen2.5:3b").state is OllamaState.READY
    assert recommended_model(8).name == "qwen2.5:3b" and recommended_model(32).name == "qwen2.5:7b"

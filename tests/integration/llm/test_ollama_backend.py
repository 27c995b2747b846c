"""OllamaBackend through the real `ollama` client against a real HTTP fake of Ollama."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from assistant.config import Settings
from assistant.errors import ModelUnavailableError
from assistant.llm.backend import (
    BackendError,
    BackendTimeout,
    ChatMessage,
    ChatResult,
    CloudModelRefused,
    InvalidJSONReply,
    ModelNotInstalled,
    OllamaUnavailable,
    StreamInterrupted,
)
from assistant.llm.ollama_backend import OllamaBackend, is_cloud_model
from tests.fakes.fake_ollama import FakeOllama, ScriptedReply

MODEL = "qwen2.5:7b"
HELLO = [ChatMessage("system", "You are Mnemo."), ChatMessage("user", "Hello")]
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not leaked, f"threads left running: {leaked}"


def never_sleep(seconds: float) -> None:
    pytest.fail(f"unexpected retry (would sleep {seconds} s)")


@pytest.fixture
def closed_port() -> int:
    """A port that was free a moment ago and now refuses connections."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def collect(
    backend: OllamaBackend,
    messages: list[ChatMessage],
    *,
    model: str = MODEL,
    fmt: dict[str, Any] | None = None,
    cancel: threading.Event | None = None,
) -> tuple[list[str], ChatResult]:
    stream = backend.stream_chat(messages, model=model, num_ctx=8192, fmt=fmt, cancel=cancel)
    pieces = list(stream)
    return pieces, stream.result


# -- streaming ------------------------------------------------------------------------


def test_streams_the_reply_in_pieces_and_reports_totals(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(ScriptedReply("Hello, how are you?", chunk_size=5, prompt_eval_count=21))

    pieces, result = collect(backend, HELLO)

    assert pieces == ["Hello", ", how", " are ", "you?"]
    assert result.text == "Hello, how are you?"
    assert result.done_reason == "stop"
    assert result.prompt_eval_count == 21
    assert result.eval_count == 4
    assert not result.partial and not result.truncated_prompt and not result.hit_length_limit


def test_default_fake_reply_echoes_the_last_user_message(backend: OllamaBackend) -> None:
    _, result = collect(backend, HELLO)
    assert result.text == "OK: Hello"


def test_sends_the_exact_prompt_with_num_ctx_reply_cap_and_keep_alive(
    fake_ollama: FakeOllama, sleeps: list[float]
) -> None:
    settings = Settings(ollama_host=fake_ollama.host, max_reply_tokens=333, keep_alive="7m")
    with OllamaBackend(settings, sleep=sleeps.append) as backend:
        stream = backend.stream_chat(HELLO, model=MODEL, num_ctx=4096)
        list(stream)

    body = fake_ollama.last_chat
    assert body["model"] == MODEL
    assert body["messages"] == [
        {"role": "system", "content": "You are Mnemo."},
        {"role": "user", "content": "Hello"},
    ]
    assert body["stream"] is True
    assert body["options"]["num_ctx"] == 4096
    assert body["options"]["num_predict"] == 333
    assert body["keep_alive"] == "7m"
    assert "format" not in body


def test_stream_passes_a_format_schema(backend: OllamaBackend, fake_ollama: FakeOllama) -> None:
    fake_ollama.script('{"city": "Lyon"}')
    _, result = collect(backend, HELLO, fmt=SCHEMA)
    assert fake_ollama.last_chat["format"] == SCHEMA
    assert result.text == '{"city": "Lyon"}'


def test_nothing_is_sent_until_the_stream_is_iterated(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    stream = backend.stream_chat(HELLO, model=MODEL, num_ctx=8192)
    assert fake_ollama.chat_requests == []
    stream.close()
    with pytest.raises(RuntimeError):
        _ = stream.result


def test_length_limit_is_flagged(backend: OllamaBackend, fake_ollama: FakeOllama) -> None:
    fake_ollama.script(ScriptedReply("A long story that goes on", done_reason="length"))
    _, result = collect(backend, HELLO)
    assert result.done_reason == "length"
    assert result.hit_length_limit


# -- cancel ---------------------------------------------------------------------------


def test_cancel_stops_reading_and_returns_a_partial_result(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(ScriptedReply("one two three four five six", chunk_size=4))
    cancel = threading.Event()
    stream = backend.stream_chat(HELLO, model=MODEL, num_ctx=8192, cancel=cancel)

    pieces = []
    for piece in stream:
        pieces.append(piece)
        cancel.set()

    assert pieces == ["one "]
    assert stream.result == ChatResult(text="one ", partial=True)


def test_cancel_before_start_sends_nothing(backend: OllamaBackend, fake_ollama: FakeOllama) -> None:
    cancel = threading.Event()
    cancel.set()
    pieces, result = collect(backend, HELLO, cancel=cancel)
    assert pieces == []
    assert result.partial
    assert fake_ollama.chat_requests == []


def test_backend_is_usable_after_a_cancelled_stream(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(ScriptedReply("x" * 400, chunk_size=1), "second")
    cancel = threading.Event()
    for _ in backend.stream_chat(HELLO, model=MODEL, num_ctx=8192, cancel=cancel):
        cancel.set()
    _, result = collect(backend, HELLO)
    assert result.text == "second"


# -- failures -------------------------------------------------------------------------


def test_missing_model_names_the_pull_command(backend: OllamaBackend) -> None:
    with pytest.raises(ModelNotInstalled) as caught:
        collect(backend, HELLO, model="llama3.1:8b")
    assert "ollama pull llama3.1:8b" in caught.value.hint
    assert caught.value.code == "model_missing"
    assert isinstance(caught.value, ModelUnavailableError)


def test_missing_model_in_complete_json(backend: OllamaBackend) -> None:
    with pytest.raises(ModelNotInstalled):
        backend.complete_json(HELLO, SCHEMA, model="mistral", num_ctx=4096)


def test_error_line_mid_stream_keeps_the_partial_text(
    backend: OllamaBackend, fake_ollama: FakeOllama, sleeps: list[float]
) -> None:
    fake_ollama.script(
        ScriptedReply("abcdefghij", chunk_size=2, error_after=3, error_message="CUDA out of memory")
    )
    stream = backend.stream_chat(HELLO, model=MODEL, num_ctx=8192)
    pieces: list[str] = []

    with pytest.raises(StreamInterrupted) as caught:
        for piece in stream:
            pieces.append(piece)

    assert pieces == ["ab", "cd", "ef"]
    assert caught.value.partial == "abcdef"
    assert "CUDA out of memory" in caught.value.message
    assert caught.value.code == "stream_cut"
    assert len(fake_ollama.chat_requests) == 1 and sleeps == []  # never retried


def test_connection_dropped_mid_stream_keeps_the_partial_text(
    backend: OllamaBackend, fake_ollama: FakeOllama, sleeps: list[float]
) -> None:
    fake_ollama.script(ScriptedReply("Hello there, friend", chunk_size=6, break_after=2))
    with pytest.raises(StreamInterrupted) as caught:
        collect(backend, HELLO)
    assert caught.value.partial == "Hello there,"
    assert len(fake_ollama.chat_requests) == 1 and sleeps == []


def test_stream_that_ends_without_its_final_line_is_interrupted(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(ScriptedReply("Hello there", chunk_size=6, omit_done=True))
    with pytest.raises(StreamInterrupted) as caught:
        collect(backend, HELLO)
    assert caught.value.partial == "Hello there"


def test_http_error_before_streaming_is_a_backend_error(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(
        ScriptedReply(http_status=500, error_message="model requires more system memory")
    )
    with pytest.raises(BackendError) as caught:
        collect(backend, HELLO)
    assert caught.value.status == 500
    assert "more system memory" in caught.value.message


def test_slow_first_token_times_out_with_a_clear_error(fake_ollama: FakeOllama) -> None:
    fake_ollama.script(ScriptedReply("late", gate=threading.Event()))  # released at teardown
    settings = Settings(ollama_host=fake_ollama.host, request_timeout_s=0.2)
    with OllamaBackend(settings, sleep=never_sleep) as backend:
        with pytest.raises(BackendTimeout) as caught:
            collect(backend, HELLO)
    assert caught.value.code == "timeout"
    assert "large model" in caught.value.hint


def test_slow_first_token_arrives_once_the_model_is_loaded(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    loaded = threading.Event()
    fake_ollama.script(ScriptedReply("ready now", gate=loaded))
    results: list[ChatResult] = []
    worker = threading.Thread(target=lambda: results.append(collect(backend, HELLO)[1]))
    worker.start()

    assert fake_ollama.chat_received.wait(5)
    loaded.set()
    worker.join(5)

    assert not worker.is_alive()
    assert [r.text for r in results] == ["ready now"]


def test_no_server_is_reported_after_bounded_retries(closed_port: int) -> None:
    sleeps: list[float] = []
    settings = Settings(ollama_host=f"http://127.0.0.1:{closed_port}")
    with OllamaBackend(settings, sleep=sleeps.append, backoff=(0.1, 0.2)) as backend:
        with pytest.raises(OllamaUnavailable) as caught:
            collect(backend, HELLO)
        with pytest.raises(OllamaUnavailable):
            backend.list_models()
    assert sleeps == [0.1, 0.2, 0.1, 0.2]
    assert "ollama serve" in caught.value.hint
    assert caught.value.code == "ollama_down"


def test_a_server_that_comes_up_during_the_retries_is_used(closed_port: int) -> None:
    server = FakeOllama()
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        if len(sleeps) == 2:
            server.start(port=closed_port)

    settings = Settings(ollama_host=f"http://127.0.0.1:{closed_port}")
    try:
        with OllamaBackend(settings, sleep=sleep) as backend:
            _, result = collect(backend, HELLO)
    finally:
        server.stop()
    assert result.text == "OK: Hello"
    assert len(sleeps) == 2


# -- truncated prompts ----------------------------------------------------------------


def test_prompt_cut_by_ollama_is_detected_and_logged(
    backend: OllamaBackend, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    fake_ollama.script(ScriptedReply("ok", prompt_eval_count=2050))
    with caplog.at_level(logging.WARNING, logger="mnemo.llm"):
        stream = backend.stream_chat(HELLO, model=MODEL, num_ctx=4096, expected_prompt_tokens=6000)
        list(stream)
    assert stream.result.truncated_prompt
    assert "2050" in caplog.text and "6000" in caplog.text


@pytest.mark.parametrize(
    ("evaluated", "expected"),
    [
        (5200, 6000),  # a little fewer: the estimate runs high
        (30, 100),  # far fewer, but a prompt this short cannot have been cut
    ],
)
def test_prompt_not_flagged_without_clear_evidence(
    backend: OllamaBackend, fake_ollama: FakeOllama, evaluated: int, expected: int
) -> None:
    fake_ollama.script(ScriptedReply("ok", prompt_eval_count=evaluated))
    stream = backend.stream_chat(HELLO, model=MODEL, num_ctx=4096, expected_prompt_tokens=expected)
    list(stream)
    assert not stream.result.truncated_prompt


# -- complete_json --------------------------------------------------------------------


def test_complete_json_returns_the_object(backend: OllamaBackend, fake_ollama: FakeOllama) -> None:
    fake_ollama.script('{"city": "Hangzhou"}')

    value = backend.complete_json(HELLO, SCHEMA, model=MODEL, num_ctx=2048)

    assert value == {"city": "Hangzhou"}
    body = fake_ollama.last_chat
    assert body["format"] == SCHEMA
    assert body["stream"] is False
    assert body["options"] == {"num_ctx": 2048, "num_predict": 1024, "temperature": 0}
    assert body["keep_alive"] == "10m"


def test_complete_json_retries_once_after_invalid_json(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script('{"city": "Ha', '{"city": "Hangzhou"}')

    assert backend.complete_json(HELLO, SCHEMA, model=MODEL, num_ctx=2048) == {"city": "Hangzhou"}

    first, second = fake_ollama.chat_requests
    assert first["messages"] == second["messages"][:-1]
    assert second["messages"][-1]["role"] == "user"
    assert second["options"]["num_predict"] == 2 * first["options"]["num_predict"]


def test_complete_json_gives_up_after_two_bad_answers(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script("not json at all", '{"town": "Lyon"}', '{"city": "never asked"}')
    with pytest.raises(InvalidJSONReply) as caught:
        backend.complete_json(HELLO, SCHEMA, model=MODEL, num_ctx=2048)
    assert caught.value.raw == '{"town": "Lyon"}'
    assert "city" in caught.value.reason
    assert caught.value.code == "bad_json"
    assert len(fake_ollama.chat_requests) == 2


def test_complete_json_retries_an_answer_cut_by_the_length_limit(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(
        ScriptedReply('{"city": "Lyon"}', done_reason="length"),
        ScriptedReply('{"city": "Lyon"}', done_reason="length"),
    )
    with pytest.raises(InvalidJSONReply) as caught:
        backend.complete_json(HELLO, SCHEMA, model=MODEL, num_ctx=2048)
    assert "length" in caught.value.reason


# -- cloud models ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["gpt-oss:120b-cloud", "deepseek-v3.1:671b-cloud", "kimi:cloud"])
def test_cloud_model_names(name: str) -> None:
    assert is_cloud_model(name)
    assert not is_cloud_model("qwen2.5:7b")


def test_cloud_models_are_refused_before_anything_is_sent(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    with pytest.raises(CloudModelRefused) as caught:
        backend.stream_chat(HELLO, model="gpt-oss:120b-cloud", num_ctx=8192)
    with pytest.raises(CloudModelRefused):
        backend.complete_json(HELLO, SCHEMA, model="gpt-oss:120b-cloud", num_ctx=2048)
    assert caught.value.code == "cloud_refused"
    assert fake_ollama.requests == []


def test_cloud_models_work_when_allowed(fake_ollama: FakeOllama) -> None:
    fake_ollama.models.append("gpt-oss:120b-cloud")
    settings = Settings(ollama_host=fake_ollama.host, allow_cloud_models=True)
    with OllamaBackend(settings) as backend:
        _, result = collect(backend, HELLO, model="gpt-oss:120b-cloud")
        assert "gpt-oss:120b-cloud" in backend.list_models()
    assert result.text == "OK: Hello"


# -- list_models and health -----------------------------------------------------------


def test_list_models_hides_cloud_models_unless_allowed(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    fake_ollama.models[:] = ["qwen2.5:7b", "llama3.2:latest", "gpt-oss:120b-cloud"]
    assert backend.list_models() == ["qwen2.5:7b", "llama3.2:latest"]


def test_health_ok(backend: OllamaBackend, fake_ollama: FakeOllama) -> None:
    status = backend.health()
    assert status.ok
    assert status.version == "0.12.6"
    assert status.code == ""
    assert ("GET", "/api/version") in fake_ollama.paths


def test_health_accepts_a_model_named_without_its_latest_tag(fake_ollama: FakeOllama) -> None:
    fake_ollama.models[:] = ["llama3.2:latest"]
    with OllamaBackend(Settings(ollama_host=fake_ollama.host, chat_model="llama3.2")) as backend:
        assert backend.health().ok


def test_health_reports_a_missing_chat_model(fake_ollama: FakeOllama) -> None:
    fake_ollama.models[:] = ["llama3.2:latest"]
    with OllamaBackend(Settings(ollama_host=fake_ollama.host)) as backend:
        status = backend.health()
    assert not status.ok
    assert status.version == "0.12.6"
    assert status.code == "model_missing"
    assert "ollama pull qwen2.5:7b" in status.hint


def test_health_refuses_a_cloud_chat_model(fake_ollama: FakeOllama) -> None:
    settings = Settings(ollama_host=fake_ollama.host, chat_model="gpt-oss:20b-cloud")
    with OllamaBackend(settings) as backend:
        status = backend.health()
    assert not status.ok and status.code == "cloud_refused"


def test_health_without_a_server(closed_port: int) -> None:
    settings = Settings(ollama_host=f"http://127.0.0.1:{closed_port}")
    with OllamaBackend(settings, sleep=never_sleep) as backend:
        status = backend.health()
    assert not status.ok
    assert status.version is None
    assert status.code == "ollama_down"
    assert "ollama serve" in status.hint

"""The rolling summary: with the model when it answers, extractive otherwise; always masked."""

from __future__ import annotations

from assistant.chat.summary import Summarizer, extractive_summary
from assistant.chat.types import StoredMessage
from assistant.config import Settings
from assistant.llm.ollama_backend import OllamaBackend
from tests.fakes.fake_ollama import FakeOllama, ScriptedReply

MESSAGES = [
    StoredMessage(1, "s", "user", "I adopted a cat named Miso. She is two years old.", "complete", [], 0.0),
    StoredMessage(2, "s", "assistant", "Congratulations on adopting Miso! Cats are great.", "complete", [], 0.0),
    StoredMessage(3, "s", "assistant", "", "error", [], 0.0),
]


def test_the_model_writes_the_summary_and_its_output_is_masked(backend: OllamaBackend, fake_ollama: FakeOllama) -> None:
    fake_ollama.script(ScriptedReply("User adopted a cat, Miso; phone 13812345678."))
    summary = Summarizer(backend, model="qwen2.5:7b", num_ctx=4096).summarize("", MESSAGES)
    assert "Miso" in summary and "13812345678" not in summary
    request = fake_ollama.last_chat
    assert request["options"]["num_ctx"] == 4096 and "I adopted a cat named Miso" in request["messages"][1]["content"]


def test_no_server_falls_back_to_an_extractive_summary(settings: Settings) -> None:
    with FakeOllama() as dead:
        settings.ollama_host = dead.host
    with OllamaBackend(settings, sleep=lambda _s: None) as backend:
        summary = Summarizer(backend, model="qwen2.5:7b", num_ctx=4096).summarize("user: earlier line", MESSAGES)
    assert summary.splitlines() == [
        "user: earlier line",
        "user: I adopted a cat named Miso.",
        "assistant: Congratulations on adopting Miso!",
    ]


def test_extractive_summary_keeps_the_newest_lines_within_budget() -> None:
    many = [StoredMessage(i, "s", "user", f"Fact number {i} " + "x" * 150, "complete", [], 0.0) for i in range(100)]
    summary = extractive_summary("", many)
    assert "Fact number 99" in summary and "Fact number 0 " not in summary

"""Hostile and broken model answers through the real client and the HTTP fake of Ollama.

The generated cases live in tests/unit/llm/test_extraction_properties.py; these are the
shapes a real server can send, end to end: the extractor never raises, falls back to the
rules with a reason when nothing usable came, and keeps only clean, clamped candidates.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from assistant.llm.extraction import MAX_CONTENT_CHARS, LLMExtractor, SourceMessage
from assistant.llm.ollama_backend import OllamaBackend
from tests.fakes.fake_ollama import FakeOllama, ScriptedReply

MODEL = "qwen2.5:7b"
NOW = datetime.fromisoformat("2026-03-02T20:00:00+08:00")
BATCH = [SourceMessage(1, "s", "I work as a nurse in Lisbon and I love climbing.")]
NURSE = '{"content": "User works as a nurse", "category": "fact", "evidence": "I work as a nurse"'


def _extract(backend: OllamaBackend, fake_ollama: FakeOllama, *replies: str) -> LLMExtractor:
    fake_ollama.script(*(ScriptedReply(r) for r in replies))
    return LLMExtractor(backend, model=MODEL, num_ctx=8192)


@pytest.mark.parametrize(
    "reply",
    [
        '{"memories": [' + NURSE,  # cut off
        '{"memories": ' + "[" * 100_000 + "]" * 100_000 + "}",  # deeper than Python's recursion
        "",
        '["memories"]',
    ],
    ids=["truncated", "nested-100k", "empty", "not-an-object"],
)
def test_unusable_answers_fall_back_to_the_rules_with_a_reason(
    backend: OllamaBackend, fake_ollama: FakeOllama, reply: str
) -> None:
    outcome = _extract(backend, fake_ollama, reply, reply).extract(BATCH, NOW)
    assert (
        outcome.candidates == []
        and outcome.fallback_reason
        and "invalid JSON" in outcome.fallback_reason
    )


def test_wrong_types_non_finite_numbers_huge_strings_and_control_characters(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    huge = "y" * 1_000_000
    items = [
        NURSE
        + ', "importance": Infinity, "entities": ["\\ud800", "Lis\\u0000bon", 7, {"a": []}, "'
        + huge
        + '"]}',
        '{"content": "User works as a nurse '
        + huge
        + '", "category": "fact", "importance": NaN, "slot": {"user": "job"},'
        ' "evidence": "I work as a nurse"}',
        '{"content": ["User works as a nurse"], "category": "fact", "importance": 3, "evidence": "I work as a nurse"}',
        '{"content": "User loves climbing", "category": 5, "importance": -1e400, "evidence": "I love climbing", "expires_at": 12}',
        "null",
    ]
    reply = '{"memories": [' + ", ".join(items) + "]}"
    outcome = _extract(backend, fake_ollama, reply).extract(BATCH, NOW)
    assert outcome.fallback_reason is None and len(outcome.dropped) == 2
    nurse, long_nurse, climbing = (g.candidate for g in outcome.candidates)
    assert (nurse.content, nurse.importance, nurse.entities, nurse.slot) == (
        "User works as a nurse",
        5,
        ["Lis bon"],
        None,
    )
    assert (
        len(long_nurse.content) == MAX_CONTENT_CHARS
        and long_nurse.importance == 3
        and long_nurse.slot is None
    )
    assert (
        climbing.importance == 1
        and climbing.expires_at is None
        and climbing.category.value == "fact"
    )


def test_a_wrong_shape_is_asked_again_and_the_second_answer_used(
    backend: OllamaBackend, fake_ollama: FakeOllama
) -> None:
    good = json.dumps(
        {
            "memories": [
                {
                    "content": "User works as a nurse",
                    "category": "fact",
                    "importance": 9,
                    "evidence": "I work as a nurse",
                }
            ]
        }
    )
    outcome = _extract(backend, fake_ollama, '{"memories": {"content": 1}}', good).extract(
        BATCH, NOW
    )
    assert outcome.calls == 2 and [g.candidate.importance for g in outcome.candidates] == [5]

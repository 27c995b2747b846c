"""The prompt budget: system prompt and memories whole, oldest turns dropped first."""

from __future__ import annotations

import pytest

from assistant.chat.prompt import (
    SYSTEM_PROMPT,
    MessageTooLong,
    build_prompt,
    check_message_fits,
    reply_reserve,
    shorten,
)
from assistant.llm.backend import Role
from assistant.llm.tokens import estimate_messages_tokens, estimate_tokens
from assistant.memory.inject import OPEN
from assistant.memory.types import Category, Kind, Memory, Source, Status


def memory(i: int, content: str) -> Memory:
    return Memory(
        id=i, profile_id="p", kind=Kind.SEMANTIC, category=Category.FACT, content=content, summary=None,
        slot=None, entities=[], importance=3, confidence=0.8, source=Source.USER_EXPLICIT,
        status=Status.ACTIVE, superseded_by=None, pinned=False, created_at=1.7e9, updated_at=1.7e9,
        last_accessed_at=None, access_count=0, expires_at=None, event_at=None, session_id=None,
        source_message_id=None,
    )


def turns(n: int) -> list[tuple[Role, str]]:
    out: list[tuple[Role, str]] = []
    for i in range(n):
        out.append(("user", f"question number {i} " + "about the garden " * 10))
        out.append(("assistant", f"answer number {i} " + "with some detail " * 10))
    return out


def test_everything_fits_in_a_large_window() -> None:
    plan = build_prompt(
        user_text="Where do I live?", history=turns(3), summary="user: said hello", memories=[memory(1, "User lives in Lisbon")],
        lang="en", num_ctx=8192, max_reply_tokens=1024, memory_token_budget=600,
    )
    assert plan.messages[0].role == "system" and plan.messages[0].content.startswith(SYSTEM_PROMPT["en"])
    assert OPEN in plan.messages[0].content and "Lisbon" in plan.messages[0].content
    assert plan.messages[1].content.endswith("user: said hello")
    assert plan.messages[-1].content == "Where do I live?"
    assert plan.dropped_turns == 0 and plan.injected_ids == [1]
    assert len(plan.messages) == 2 + 6 + 1


def test_tiny_window_drops_oldest_turns_but_keeps_system_and_memories() -> None:
    num_ctx = 512
    plan = build_prompt(
        user_text="And what about the roses?", history=turns(20), summary="", memories=[memory(7, "User grows roses")],
        lang="en", num_ctx=num_ctx, max_reply_tokens=1024, memory_token_budget=600,
    )
    assert plan.expected_tokens <= num_ctx - reply_reserve(num_ctx, 1024)
    assert plan.messages[0].content.startswith(SYSTEM_PROMPT["en"]) and "User grows roses" in plan.messages[0].content
    assert plan.dropped_turns > 0
    kept = [m.content for m in plan.messages[1:-1]]
    assert kept and kept[-1].startswith("answer number 19")  # the newest turns are the ones kept
    assert not any("number 0 " in text for text in kept)
    assert plan.expected_tokens == estimate_messages_tokens(m.content for m in plan.messages)


def test_an_overlong_message_is_refused_never_cut() -> None:
    huge = "word " * 5000
    with pytest.raises(MessageTooLong) as raised:
        build_prompt(
            user_text=huge, history=[], summary="", memories=[memory(1, "User likes tea")],
            lang="en", num_ctx=1024, max_reply_tokens=256, memory_token_budget=600,
        )
    error = raised.value
    assert error.tokens == estimate_tokens(huge) and 0 < error.limit < 1024 - 256 and error.num_ctx == 1024
    assert "too long" in error.message and "Nothing was sent" in error.hint
    with pytest.raises(MessageTooLong):
        check_message_fits(huge, lang="en", num_ctx=1024, max_reply_tokens=256)


def test_a_long_message_that_fits_is_sent_whole_and_memories_give_way() -> None:
    """A pasted text that fits beside the system prompt is sent to the last character; the
    memory block shrinks to leave it room, older turns go first."""
    text = "HEAD " + "lorem ipsum dolor " * 300 + " TAIL"
    plan = build_prompt(
        user_text=text, history=turns(5), summary="", memories=[memory(1, "User likes tea " * 40)],
        lang="en", num_ctx=2048, max_reply_tokens=512, memory_token_budget=600,
    )
    assert plan.messages[-1].content == text
    assert plan.messages[0].content.startswith(SYSTEM_PROMPT["en"])
    assert plan.expected_tokens <= 2048 - reply_reserve(2048, 512)
    check_message_fits(text, lang="en", num_ctx=2048, max_reply_tokens=512)


def test_chinese_uses_the_chinese_system_prompt() -> None:
    plan = build_prompt(
        user_text="我住在哪里？", history=[], summary="", memories=[], lang="zh",
        num_ctx=2048, max_reply_tokens=512, memory_token_budget=600,
    )
    assert plan.messages[0].content == SYSTEM_PROMPT["zh"] and plan.injected_ids == []


def test_shorten_keeps_head_and_tail() -> None:
    text = "HEAD " + "x" * 4000 + " TAIL"
    out = shorten(text, 100)
    assert out.startswith("HEAD") and out.endswith("TAIL") and estimate_tokens(out) <= 100
    assert shorten("short", 100) == "short"

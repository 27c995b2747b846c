"""The ChatGPT, Claude and memory-list parsers on fixture exports written to the formats."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from assistant.importers import (
    ImportRefused,
    ImportSource,
    load,
    memory_lines,
    parse_chatgpt,
    parse_claude,
)

FIXTURES = Path(__file__).parents[2] / "fixtures" / "imports"
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def chatgpt() -> list[Any]:
    return json.loads((FIXTURES / "chatgpt_conversations.json").read_text(encoding="utf-8"))


def claude() -> list[Any]:
    return json.loads((FIXTURES / "claude_conversations.json").read_text(encoding="utf-8"))


def said(conversation: Any, role: str = "user") -> list[str]:
    return [t.text for t in conversation.turns if t.role == role]


def test_chatgpt_follows_the_current_branch_and_keeps_only_text() -> None:
    first, passport, breakup, python = parse_chatgpt(chatgpt())
    assert first.title == "Settling in Lisbon" and first.source is ImportSource.CHATGPT
    assert said(first) == [
        "Hi! I just moved to Lisbon last month for a new job as a data engineer.",
        "I'm allergic to peanuts, which restaurants are safe?",  # the edited message, not the first version
        "This is my cat Miso, she is a grey tabby.",  # the image part is dropped, its caption kept
    ]
    everything = " ".join(t.text for t in first.turns)
    assert "shellfish" not in everything, "the abandoned branch is not imported"
    assert "secret agent" not in everything, "custom instructions are not a message"
    assert "Restaurant list" not in everything, "tool output is not a message"
    assert first.turns[0].at == datetime(2024, 3, 5, 8, 0, 10, tzinfo=UTC)
    assert [t.role for t in first.turns] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert said(passport)[0].startswith("我的护照号码是 E12345678")
    assert breakup.provenance == "imported from ChatGPT, conversation “Breakup”, 2024-03-28"
    assert said(python) == ["How do I reverse a list in Python?"], "no current_node: the newest leaf"


def test_chatgpt_without_current_node_takes_the_newest_leaf() -> None:
    data = chatgpt()
    del data[0]["current_node"]
    first = parse_chatgpt(data)[0]
    assert "peanuts" in " ".join(said(first)), "the newest leaf (a4) is on the edited branch"


def test_a_changed_conversation_has_another_key() -> None:
    data = chatgpt()
    before = [c.key for c in parse_chatgpt(data)]
    assert [c.key for c in parse_chatgpt(copy.deepcopy(data))] == before
    data[1]["mapping"]["u22"]["message"]["content"]["parts"] = ["我家狗叫可乐"]
    after = [c.key for c in parse_chatgpt(data)]
    assert after[0] == before[0] and after[1] != before[1]


def test_claude_keeps_text_blocks_of_both_sides() -> None:
    shifts, allergy, empty = parse_claude(claude())
    assert shifts.title == "Night shifts" and shifts.source is ImportSource.CLAUDE
    assert said(shifts)[0].startswith("I work as a nurse at St. Mary's hospital")
    assert said(shifts)[1] == "Thanks! Also I'm vegetarian, so meal prep ideas would help."
    assert "vegan" not in " ".join(t.text for t in shifts.turns), "the edited first version is another branch"
    assert len(shifts.turns) == 4
    assert said(shifts, "assistant")[0] == "Night shifts are hard. Try blackout curtains."
    text = " ".join(t.text for t in shifts.turns)
    assert "pilot" not in text and "Sleep tips" not in text, "thinking and tool results are skipped"
    assert said(allergy) == ["我对青霉素过敏，感冒了能吃什么药？"]
    assert "哈尔滨" not in " ".join(said(allergy)), "an attachment's content is not what the user said"
    assert shifts.started == datetime(2024, 6, 1, 21, 14, 2, 118000, tzinfo=UTC)
    assert empty.turns == () and empty.provenance.endswith("“untitled”, 2024-06-04")


def test_memory_list_strips_bullets_and_skips_headings() -> None:
    text = (FIXTURES / "memories.md").read_text(encoding="utf-8")
    assert memory_lines(text) == [
        "Lives in Lisbon, Portugal", "Is allergic to peanuts", "Has a grey tabby cat named Miso",
        "Works as a data engineer", "Prefers short, direct answers", "喜欢喝乌龙茶", "周末常去爬山",
        "Passport number is E12345678",
    ]
    assert memory_lines("- [x] **Likes jazz**\n\n> quoted\n1、住在成都\n- Likes jazz") == ["Likes jazz", "quoted", "住在成都"]
    items = load("text", FIXTURES / "memories.md", NOW)
    assert {c.provenance for c in items} == {"imported from a memory list"}
    assert items[0].key == load("text", FIXTURES / "memories.md", datetime(2027, 1, 1, tzinfo=UTC))[0].key


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: {"conversations": d}, "single object"),
        (lambda d: [*d, "hello"], "Conversation 5 should be an object, but it is text"),
        (lambda d: d[0].update(create_time="1709625600") or d, "not a number"),
        (lambda d: d[0].update(mapping=[]) or d, "mapping should be an object, but it is a list"),
        (lambda d: d[0]["mapping"]["u1"]["message"]["content"].update(parts="hi") or d, "parts should be a list"),
        (lambda d: d[0]["mapping"]["u1"]["message"].update(author="user") or d, "author should be an object"),
        (lambda d: d[0]["mapping"]["root"].update(parent="a4") or d, "loops back"),
        (lambda d: d[0].update(create_time=1e30) or d, "out of range"),
        (lambda d: [{"name": "x", "chat_messages": []}], "looks like a Claude export"),
    ],
)
def test_chatgpt_wrong_shapes_are_refused_with_where(change: Any, reason: str) -> None:
    with pytest.raises(ImportRefused) as caught:
        parse_chatgpt(change(chatgpt()))
    assert reason in caught.value.message


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: d[0], "single object"),
        (lambda d: d[0].update(chat_messages={"a": 1}) or d, "chat_messages should be a list"),
        (lambda d: d[0]["chat_messages"][0].update(created_at=1717276442) or d, "not text"),
        (lambda d: d[0]["chat_messages"][0].update(created_at="yesterday") or d, "not a date"),
        (lambda d: d[1].update(name=["过敏"]) or d, "name should be text"),
        (lambda d: d[0]["chat_messages"][0].update(parent_message_uuid=d[0]["chat_messages"][-1]["uuid"]) or d, "loop"),
        (lambda d: [{"title": "x", "mapping": {}}], "looks like a ChatGPT export"),
    ],
)
def test_claude_wrong_shapes_are_refused_with_where(change: Any, reason: str) -> None:
    with pytest.raises(ImportRefused) as caught:
        parse_claude(change(claude()))
    assert reason in caught.value.message

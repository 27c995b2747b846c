"""Why a memory was chosen, in words: routes → sentences, what of the question matched, the
numbers against the threshold, the stored form, and where a memory came from."""

from __future__ import annotations

from typing import Any

import pytest

from assistant.memory.explain import (
    ORIGIN_TEXTS,
    TEXTS,
    Origin,
    Why,
    matched_names,
    matched_words,
    origin_of,
    origin_text,
    pinned_hit,
    reasons,
    summary,
    topic_label,
    why_fields,
    why_of,
)
from assistant.memory.types import Category, Hit, Kind, Memory, Source, Status


def memory(content: str, **fields: Any) -> Memory:
    values: dict[str, Any] = {
        "id": 7, "profile_id": "default", "kind": Kind.EPISODIC, "category": Category.FACT,
        "content": content, "summary": None, "slot": None, "entities": [], "importance": 3,
        "confidence": 0.8, "source": Source.USER_EXPLICIT, "status": Status.ACTIVE,
        "superseded_by": None, "pinned": False, "created_at": 0.0, "updated_at": 0.0,
        "last_accessed_at": None, "access_count": 0, "expires_at": None, "event_at": None,
        "session_id": None, "source_message_id": None,
    }
    return Memory(**{**values, **fields})


def test_a_hit_found_by_meaning_and_a_name_says_both_and_its_score_against_the_threshold() -> None:
    hit = Hit(memory(
        "My cat Momo loves tuna", entities=["Momo"]), score=0.8123, routes=["entity", "semantic", "keyword"],
        similarity=0.6234, keyword=0.5, relevance=0.7031, threshold=0.42,
    )
    why = why_of(hit, "What should I feed momo?")
    assert why.routes == ("semantic", "keyword", "entity")  # told in a fixed order
    assert why.names == ("Momo",) and why.words == ("momo",)  # the question's word as typed
    assert reasons(why) == [
        "Found by meaning (similarity 0.62)",
        "Found by the words “momo”",
        "Found by the name “Momo”",
        "Relevance 0.70, threshold 0.42 (rank score 0.81)",
    ]
    assert summary(why).startswith("Found by meaning (similarity 0.62). Found by the words")
    fields = why_fields(why)
    assert fields["routes"] == ["semantic", "keyword", "entity"]
    assert (fields["relevance"], fields["threshold"], fields["score"]) == (0.7031, 0.42, 0.8123)


def test_chinese_words_are_the_longest_runs_the_memory_holds() -> None:
    assert matched_words("我住在北京海淀区的哪里？", "我住在北京海淀区") == ("我住在北京海淀区",)
    assert matched_words("Where do I live?", "I live in Lisbon") == ("live",)
    assert matched_words("的了吗", "的了吗") == ()  # function characters only
    assert matched_names("你知道可乐几岁了吗", ["可乐", "柯"]) == ("可乐",)


def test_topic_and_profile_routes_name_the_part_of_life() -> None:
    hit = Hit(memory("I'm allergic to peanuts", topic="user.allergy"), score=0.5, routes=["cue", "profile"],
              relevance=0.9, threshold=0.42)
    lines = reasons(why_of(hit, "Can I eat satay?"))
    assert lines[:2] == ["Found by the topic of your question: allergies", "Part of who you are: allergies"]
    assert topic_label("user.job.language") == "your work" and topic_label("user.unknown") is None
    plain = reasons(why_of(Hit(memory("x"), 0.1, ["cue"], relevance=0.5, threshold=0.4), "q"))
    assert plain[0] == TEXTS["cue"]


def test_a_route_that_added_nothing_is_not_told() -> None:
    """The vector route brings near candidates whose similarity is under the model's floor
    (an English model on Chinese text): that is not "found by meaning"."""
    hit = Hit(memory("用户喜欢龙井茶", topic="user.likes"), score=0.9, routes=["semantic", "keyword", "cue"],
              similarity=0.0, keyword=0.0, relevance=0.45, threshold=0.42)
    lines = reasons(why_of(hit, "有什么推荐"))
    assert lines == ["Found by the topic of your question: what you like", "Relevance 0.45, threshold 0.42 (rank score 0.90)"]


def test_a_pinned_memory_given_anyway_has_no_score_line() -> None:
    why = why_of(pinned_hit(memory("Always answer in English", pinned=True)), "你好")
    assert why.relevance is None and reasons(why) == [TEXTS["pinned"]]


def test_the_stored_form_round_trips_and_damage_reads_as_nothing() -> None:
    why = Why(("semantic", "entity"), 0.5, 0.42, 0.7, 0.61, 0.0, ("Momo",), (), "user.pet")
    assert Why.from_json(why.to_json()) == why
    for bad in (None, [], "x", {"routes": "semantic"}, {"routes": [1]}, {"routes": [], "score": "high"}):
        assert Why.from_json(bad) is None, bad


def test_reasons_go_through_the_translation() -> None:
    table = {TEXTS["semantic"]: "按意思找到（相似度 {similarity}）"}

    def translate(text: str, **values: object) -> str:
        return table.get(text, text).format(**values)

    why = Why(("semantic",), 0.5, 0.42, 0.7, 0.61)
    assert reasons(why, translate)[0] == "按意思找到（相似度 0.61）"
    assert reasons(None) == [TEXTS["no_why"]]


@pytest.mark.parametrize(
    ("fields", "history", "message", "kind", "who"),
    [
        ({"source_message_id": 5}, [], ("s1", 5, 100.0), "chat", ""),
        ({"source_message_id": 5}, [], None, "chat_deleted", ""),
        ({"source": Source.MANUAL}, [{"event": "added", "detail": {"source": "manual"}}], None, "manual", ""),
        ({"source": Source.ASSISTANT}, [{"event": "added", "detail": {"origin": "MCP: Jan"}}], None, "app", "Jan"),
        ({}, [{"event": "added", "detail": {"origin": "ChatGPT export"}}], None, "other", "ChatGPT export"),
        ({"source": Source.MANUAL}, [{"event": "imported", "detail": None}], None, "imported", ""),
        ({}, [], None, "unknown", ""),
    ],
)
def test_where_a_memory_came_from(
    fields: dict[str, Any], history: list[dict[str, Any]], message: tuple[str, int, float] | None, kind: str, who: str,
) -> None:
    origin = origin_of(memory("x", **fields), history, message, "Trip plans")
    assert (origin.kind, origin.who) == (kind, who)
    assert origin.linked == (kind == "chat")
    text = origin_text(origin, when=lambda _ts: "yesterday")
    if kind == "chat":
        assert text == "From your message in the chat “Trip plans”, yesterday"
    elif kind in ("app", "other"):
        assert who in text
    else:
        assert text == ORIGIN_TEXTS[kind]


def test_an_untitled_chat_still_says_when() -> None:
    origin = Origin("chat", "s", 3, "", 0.0)
    assert origin_text(origin, when=lambda _ts: "today") == "From your message in a chat, today"

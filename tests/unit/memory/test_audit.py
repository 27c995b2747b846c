"""The leak audit of `mnemo eval` (memory/audit.py): what carried each forbidden string."""

from __future__ import annotations

from assistant.memory.audit import asks_to_forget, leaked_from
from assistant.memory.types import Memory
from tests.fakes.records import memory


def test_the_leak_audit_says_what_carried_each_forbidden_string() -> None:
    def mem(memory_id: int, content: str, topic: str | None, at: float) -> Memory:
        return memory(memory_id, content, topic=topic, created_at=at)

    old_city = mem(1, "I live in Boston", "user.city", 1.0)
    new_city = mem(2, "we just got the keys in Denver", "user.city", 2.0)
    sister = mem(3, "my sister is allergic to peanuts", "user.allergy", 1.0)
    chatter = mem(4, "ugh spilled coffee this morning", None, 1.0)
    diet = mem(5, "I'm vegan", "user.diet", 1.0)
    moved = mem(6, "moved from Austin to Denver last week", "user.city", 3.0)
    injected = [old_city, sister, chatter, diet, moved]
    active = [*injected, new_city]
    found = leaked_from(["boston", "peanuts", "coffee", "VEGAN", "2026", "austin"], injected, active)
    assert found == ["older_of_topic", "about_others", "no_topic", "sole_of_topic", "unattributed", "tells_history"]
    # a forget request said after the memory was stored, and it is still there
    assert leaked_from(["vegan", "boston"], injected, active, forgets=[1.5]) == ["after_forget", "after_forget"]
    assert leaked_from(["austin"], injected, active, forgets=[1.5]) == ["tells_history"]



def test_a_forget_request_is_told_from_a_statement() -> None:
    assert asks_to_forget("以后别再提我前男友了，把跟李浩有关的都忘了吧")
    assert asks_to_forget("please forget what I said about my salary")
    assert not asks_to_forget("I forgot my umbrella at the office")
    assert not asks_to_forget("我住在成都")

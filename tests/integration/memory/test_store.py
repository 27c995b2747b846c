"""The store against real SQLite: profile isolation, FTS for Chinese, history, deletion."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.errors import InputError, NotFoundError
from assistant.memory.db import Database
from assistant.memory.store import MemoryStore, NewMemory
from assistant.memory.text import match_expression, tokens
from assistant.memory.types import Category, Status


@pytest.fixture
def db(tmp_path: Path) -> Database:
    return Database(tmp_path / "m.db")


def _store(db: Database, name: str) -> MemoryStore:
    store = MemoryStore(db, name)
    store.ensure_profile(0.0)
    return store


def test_profile_a_never_sees_profile_b(db: Database) -> None:
    a, b = _store(db, "alice"), _store(db, "bob")
    secret = b.add(NewMemory("Bob lives in Oslo", Category.FACT, entities=["Oslo"]), 1.0)
    a.add(NewMemory("Alice lives in Lima", Category.FACT), 1.0)
    assert [m.content for m in a.list()] == ["Alice lives in Lima"]
    assert a.count() == 1 and a.total() == 1
    with pytest.raises(NotFoundError):
        a.get(secret.id)
    assert a.get_many([secret.id]) == {}
    assert a.keyword_search(match_expression(tokens("Oslo", query=True)) or "", 10) == []
    assert a.containing("Oslo") == []
    with pytest.raises(NotFoundError):
        a.delete(secret.id, 2.0)
    with pytest.raises(NotFoundError):
        a.set_status(secret.id, Status.ARCHIVED, 2.0)
    assert b.get(secret.id).status is Status.ACTIVE


def test_chinese_keyword_search_finds_a_word_inside_a_sentence(db: Database) -> None:
    store = _store(db, "p")
    memory = store.add(NewMemory("我住在北京海淀区", Category.FACT), 1.0)
    store.add(NewMemory("我喜欢喝咖啡", Category.PREFERENCE), 1.0)
    hits = store.keyword_search(match_expression(tokens("海淀", query=True)) or "", 10)
    assert [h[0] for h in hits] == [memory.id]


def test_a_memory_is_found_by_the_other_languages_word(db: Database) -> None:
    store = _store(db, "p")
    trip = store.add(NewMemory("十一月想去 Japan 玩两周", Category.GOAL), 1.0)
    hits = store.keyword_search(match_expression(tokens("去日本", query=True)) or "", 10)
    assert [h[0] for h in hits] == [trip.id]


def test_rows_written_before_the_glossary_are_rewritten_once(db: Database) -> None:
    store = _store(db, "p")
    trip = store.add(NewMemory("十一月想去 Japan 玩两周", Category.GOAL), 1.0)
    db.execute("UPDATE memories_fts SET entities = '' WHERE rowid = ?", (trip.id,))  # as an older version wrote it
    db.execute("DELETE FROM meta WHERE key = 'keyword_index:p'")
    assert store.keyword_search('"日本"', 10) == []
    assert store.refresh_keyword_index() == 1
    assert [h[0] for h in store.keyword_search('"日本"', 10)] == [trip.id]
    assert store.refresh_keyword_index() == 0  # once


def test_fts_syntax_in_queries_is_inert(db: Database) -> None:
    store = _store(db, "p")
    store.add(NewMemory("NEAR the station", Category.FACT), 1.0)
    for query in ['"', "*", "NEAR", "-", "a OR", "(((", "x AND NOT y", "col:val"]:
        expression = match_expression(tokens(query, query=True))
        if expression:
            store.keyword_search(expression, 5)


def test_edit_keeps_history_and_delete_scrubs_it(db: Database) -> None:
    store = _store(db, "p")
    memory = store.add(NewMemory("User drinks tea", Category.PREFERENCE), 1.0)
    store.edit(memory.id, 2.0, content="User drinks green tea")
    history = store.history(memory.id)
    assert [h["event"] for h in history] == ["added", "updated"]
    assert history[1]["detail"] == {"before": "User drinks tea"}
    store.delete(memory.id, 3.0)
    rows = db.query("SELECT event, detail FROM memory_events WHERE memory_id = ?", (memory.id,))
    assert [r[0] for r in rows][-1] == "deleted"
    assert all(r[1] is None for r in rows), "a deleted memory's history keeps no content"
    assert db.scalar("SELECT COUNT(*) FROM memories_fts") == 0


@pytest.mark.parametrize("bad", ["", "   ", "\x00\x01\x02", "x" * 5000])
def test_bad_content_is_refused_with_a_clear_error(db: Database, bad: str) -> None:
    store = _store(db, "p")
    with pytest.raises(InputError):
        store.add(NewMemory(bad, Category.FACT), 1.0)
    assert store.total() == 0


def test_control_characters_are_removed_and_mixed_scripts_kept(db: Database) -> None:
    store = _store(db, "p")
    memory = store.add(NewMemory("我用 Notion\x07 记笔记 🙂\u200b", Category.FACT), 1.0)
    assert memory.content.startswith("我用 Notion 记笔记 🙂")


def test_superseded_chain_and_status_filters(db: Database) -> None:
    store = _store(db, "p")
    old = store.add(NewMemory("User lives in Beijing", Category.FACT, slot="user.city"), 1.0)
    new = store.add(NewMemory("User lives in Hangzhou", Category.FACT, slot="user.city"), 2.0)
    store.set_status(old.id, Status.SUPERSEDED, 2.0, superseded_by=new.id)
    assert [m.id for m in store.active_by_slot("user.city")] == [new.id]
    assert [m.id for m in store.chain(new.id)] == [old.id]
    assert [m.id for m in store.list(status=Status.SUPERSEDED)] == [old.id]
    assert store.count(status=None) == 2

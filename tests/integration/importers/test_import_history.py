"""Importing ChatGPT, Claude and memory-list exports into a real profile through
`Memories.import_history`: the write path at the original times, the vault, the review
queue, provenance, re-import, cancel, and that the facts told are recalled afterwards."""

from __future__ import annotations

import threading
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from assistant.importers import load
from assistant.memory.api import MemoryChange
from assistant.memory.types import Status

FIXTURES = Path(__file__).parents[2] / "fixtures" / "imports"
CHATGPT = FIXTURES / "chatgpt_conversations.json"


def conversations(kind: str, name: str, profile: Any) -> list[Any]:
    return load(kind, FIXTURES / name, profile.clock.now())


def everything(profile: Any) -> list[Any]:
    return profile.memories.list(status=None, limit=1000)


def test_chatgpt_history_waits_for_review_with_its_provenance(profile: Any) -> None:
    memories = profile.memories
    events: list[MemoryChange] = []
    memories.subscribe(events.append)
    report = memories.import_history(conversations("chatgpt", "chatgpt_conversations.json", profile))
    assert (report.total, report.conversations, report.skipped) == (4, 4, 0)
    stored = everything(profile)
    assert report.memories == len(stored) >= 5 and report.in_review == report.memories
    assert all(m.review for m in stored), "imported memories wait in the review queue"
    assert [e.kind for e in events] == ["import_history"] and set(events[0].ids) == {m.id for m in stored}
    text = " ".join(m.content for m in stored)
    assert "Lisbon" in text and "peanut" in text and "Miso" in text and "年糕" in text
    assert "shellfish" not in text, "only the current branch is imported"
    assert "Daniel" not in text and report.forget_requests == 1, "a forget request is not stored"
    assert "E12345678" not in text, "the passport number went to the vault"
    assert any(item.kind == "passport" or "E1" in item.masked for item in memories.vault_items())
    lisbon = next(m for m in stored if "Lisbon" in m.content)
    assert lisbon.created_at == datetime(2024, 3, 5, 8, 0, 10, tzinfo=UTC).timestamp(), "the original time"
    origins = [e["detail"]["origin"] for e in memories.details(lisbon.id).history if e["event"] == "imported"]
    assert origins == ["imported from ChatGPT, conversation “Settling in Lisbon”, 2024-03-05"]
    assert memories.search("Which city do I live in?", profile.clock.now()) == [], "not used before it is accepted"


def test_reimporting_adds_nothing_and_forget_me_forgets_what_was_imported(profile: Any, tmp_path: Path) -> None:
    memories = profile.memories
    first = memories.import_history(conversations("chatgpt", "chatgpt_conversations.json", profile))
    count = memories.total()
    again = memories.import_history(conversations("chatgpt", "chatgpt_conversations.json", profile))
    assert (again.conversations, again.skipped, again.memories) == (0, 4, 0) and memories.total() == count
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as out:
        out.write(CHATGPT, "conversations.json")
    zipped = memories.import_history(load("chatgpt", export, profile.clock.now()))
    assert zipped.skipped == 4 and memories.total() == count, "the .zip of the same export is the same"
    memories.forget_me()
    after = memories.import_history(conversations("chatgpt", "chatgpt_conversations.json", profile))
    assert after.conversations == 4 and after.memories == first.memories, "forget-me erased the import record"


def test_recall_finds_the_facts_of_an_imported_chatgpt_history(profile: Any) -> None:
    """The eval-style check: after an import (accepted), the read path answers from it."""
    memories = profile.memories
    memories.import_history(conversations("chatgpt", "chatgpt_conversations.json", profile), review=False)
    now = profile.clock.now()
    for question, expected in [
        ("Which city do I live in?", "Lisbon"),
        ("Is there anything I can't eat?", "peanut"),
        ("What's my cat called?", "Miso"),
        ("我家猫叫什么名字？", "年糕"),
        ("What instrument am I learning?", "cello"),
    ]:
        found = " | ".join(m.content for m in memories.recall(question, now))
        assert expected in found, (question, found)


def test_the_setting_accepts_imported_memories_without_review(profile: Any) -> None:
    profile.settings.accept_imports_without_review = True
    report = profile.memories.import_history(conversations("claude", "claude_conversations.json", profile))
    assert report.conversations == 3 and report.memories >= 2 and report.in_review == 0
    stored = everything(profile)
    assert not any(m.review for m in stored)
    text = " ".join(m.content for m in stored)
    assert "nurse" in text and "青霉素" in text
    assert "pilot" not in text and "哈尔滨" not in text, "thinking and attachments are not the user's words"
    found = " ".join(m.content for m in profile.memories.recall("What do I do for work?", profile.clock.now()))
    assert "nurse" in found


def test_a_memory_list_is_stored_line_by_line_with_values_vaulted(profile: Any) -> None:
    memories = profile.memories
    report = memories.import_history(conversations("text", "memories.md", profile))
    assert report.conversations == report.memories == 8 and report.in_review == 8
    stored = everything(profile)
    assert "Lives in Lisbon, Portugal" in [m.content for m in stored]
    assert "E12345678" not in " ".join(m.content for m in stored) and memories.vault_items()
    history = memories.details(stored[0].id).history
    assert {"event": "imported"} .items() <= history[-1].items() and history[-1]["detail"]["origin"] == "imported from a memory list"
    again = memories.import_history(conversations("text", "memories.md", profile))
    assert again.skipped == 8 and memories.total() == 8
    memories.accept([m.id for m in stored])
    assert all(m.status is Status.ACTIVE and not m.review for m in everything(profile))


def test_cancel_stops_between_conversations_and_the_next_import_goes_on(profile: Any) -> None:
    memories = profile.memories
    items = conversations("chatgpt", "chatgpt_conversations.json", profile)
    seen: list[tuple[int, int]] = []
    free: list[bool] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        # the write lock is not held between conversations: a chat turn can write now
        other = threading.Thread(target=lambda: free.append(_try_lock(memories.lock)))
        other.start()
        other.join()

    report = memories.import_history(items, progress=progress, cancel=lambda: len(seen) >= 2)
    assert report.cancelled and report.conversations == 2 and seen == [(1, 4), (2, 4)]
    assert free == [True, True]
    rest = memories.import_history(items)
    assert (rest.skipped, rest.conversations) == (2, 2)


def _try_lock(lock: Any) -> bool:
    if lock.acquire(timeout=0):
        lock.release()
        return True
    return False


@pytest.mark.parametrize("kind", ["chatgpt", "claude"])
def test_a_refused_file_writes_nothing(profile: Any, tmp_path: Path, kind: str) -> None:
    from assistant.importers import ImportRefused

    broken = tmp_path / "conversations.json"
    broken.write_text(CHATGPT.read_text(encoding="utf-8").replace('"create_time": 1709625600.0', '"create_time": "soon"', 1))
    with pytest.raises(ImportRefused):
        profile.memories.import_history(load(kind, broken, profile.clock.now()))
    assert profile.memories.total() == 0 and profile.memories.vault_items() == []


def test_an_old_statement_does_not_replace_what_the_user_said_since(profile: Any) -> None:
    from assistant.memory.types import Turn

    memories = profile.memories
    memories.remember([Turn("user", "I live in Denver now.")], profile.clock.now())
    denver = {m.id for m in everything(profile) if "Denver" in m.content}
    assert denver
    memories.import_history(conversations("chatgpt", "chatgpt_conversations.json", profile), review=False)
    after = {m.id: m for m in everything(profile)}
    assert all(after[i].status is Status.ACTIVE for i in denver), "the 2024 move to Lisbon is older"
    lisbon = [m for m in after.values() if "Lisbon" in m.content]
    assert lisbon and all(m.status is Status.SUPERSEDED and m.superseded_by in denver for m in lisbon)
    found = memories.recall("Which city do I live in?", profile.clock.now())
    assert "Denver" in found[0].content


def test_a_forget_me_during_an_import_ends_it(profile: Any) -> None:
    memories = profile.memories
    items = conversations("chatgpt", "chatgpt_conversations.json", profile)
    report = memories.import_history(items, progress=lambda done, _total: memories.forget_me() if done == 1 else None)
    assert report.cancelled and report.conversations == 1
    assert memories.total() == 0, "nothing was written into the profile forget-me left"


def test_rejecting_an_imported_memory_brings_back_what_it_replaced(profile: Any) -> None:
    from assistant.memory.types import Turn

    memories = profile.memories
    before = datetime(2024, 1, 2, 9, 0, tzinfo=UTC)  # older than the export's move to Lisbon
    memories.remember([Turn("user", "I live in Boston.", at=before)], before)
    boston = {m.id for m in everything(profile) if "Boston" in m.content}
    memories.import_history(conversations("chatgpt", "chatgpt_conversations.json", profile))
    after = {m.id: m for m in everything(profile)}
    assert all(after[i].status is Status.SUPERSEDED for i in boston), "the newer import replaced it"
    lisbon = [m.id for m in after.values() if m.review and any(m.id == after[i].superseded_by for i in boston)]
    assert lisbon
    memories.reject(lisbon)
    assert all(memories.get(i).status is Status.ACTIVE for i in boston), "the rejected word does not stand"

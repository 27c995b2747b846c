"""The timeline (`Memories.timeline`, memory/timeline.py) on a real profile: supersessions with
both values and their day, deletions without text, undo, expiries, paging, forget-me."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from assistant.app import Profile
from assistant.clock import ManualClock, to_ts
from assistant.errors import InputError
from assistant.memory.api import Memories, MemoryChange
from assistant.memory.types import Category, Status, TimelineEntry, TimelineKind, Turn
from tests.conftest import START


class TickingClock(ManualClock):
    """A manual clock that, once `tick` is set, moves on a little at every reading, as the
    system clock does between the writes of one command."""

    tick = timedelta(0)

    def now(self) -> datetime:
        moment = super().now()
        self.advance(self.tick)
        return moment


@pytest.fixture
def clock() -> TickingClock:
    return TickingClock(START)


def say(memories: Memories, clock: ManualClock, text: str) -> None:
    memories.remember([Turn("user", text, clock.now())], clock.now())


def entries(memories: Memories) -> list[TimelineEntry]:
    return memories.timeline(0, 100).entries


@pytest.fixture
def moved(profile: Profile, clock: ManualClock) -> datetime:
    """Boston, then eight days later Denver; returns when the move was said."""
    say(profile.memories, clock, "I live in Boston.")
    clock.advance(timedelta(days=8))
    say(profile.memories, clock, "I moved to Denver last week.")
    return clock.now()


def test_a_supersession_shows_both_values_and_when(profile: Profile, moved: datetime) -> None:
    [entry] = entries(profile.memories)
    assert entry.kind is TimelineKind.SUPERSEDED
    assert "Boston" in (entry.before or "") and "Denver" in (entry.after or "")
    assert entry.at == to_ts(moved)
    assert entry.undoable
    assert entry.memory_ids[0] == entry.replaced_by  # the link opens the memory that is current
    assert profile.memories.get(entry.memory_ids[0]).status is Status.ACTIVE


def test_undo_of_a_supersession_brings_the_old_value_back(
    profile: Profile, clock: ManualClock, moved: datetime
) -> None:
    memories = profile.memories
    seen: list[MemoryChange] = []
    memories.subscribe(seen.append)
    [entry] = entries(memories)
    clock.advance(timedelta(hours=1))
    memories.undo_timeline(entry)
    active = [m.content for m in memories.list()]
    assert any("Boston" in text for text in active) and not any("Denver" in text for text in active)
    assert [c.kind for c in seen] == ["undo"] and set(entry.memory_ids) <= set(seen[0].ids)
    # the revert is itself on the timeline (and undoable); the old entry is not any more
    newest, old = entries(memories)
    assert newest.kind is TimelineKind.SUPERSEDED and "Denver" in (newest.before or "")
    assert "Boston" in (newest.after or "") and newest.undoable
    assert old.key == entry.key and old.undo_blocked == "changed"
    with pytest.raises(InputError):
        memories.undo_timeline(old)
    assert "Boston" in " ".join(h.memory.content for h in memories.search("where do I live?", clock.now()))
    memories.undo_timeline(newest)  # and back to Denver
    assert any("Denver" in m.content for m in memories.list())


def test_a_deletion_shows_no_text_and_cannot_be_undone(profile: Profile, clock: ManualClock) -> None:
    memories = profile.memories
    secret = memories.add("I secretly collect porcelain frogs", Category.PREFERENCE)
    memories.edit(secret.id, content="I secretly collect porcelain toads")
    clock.advance(timedelta(days=1))
    memories.delete([secret.id])
    forgotten = memories.add("My ex is called Jordan")
    clock.advance(timedelta(days=1))
    memories.confirm_forget(memories.forget_matching("Jordan"))
    timeline = entries(memories)
    assert [e.kind for e in timeline] == [TimelineKind.FORGOTTEN, TimelineKind.DELETED]
    assert forgotten.id not in timeline[0].memory_ids
    for entry in timeline:
        assert (entry.before, entry.after, entry.memory_ids, entry.undo_blocked) == (None, None, (), "gone")
        assert not any(word in repr(entry) for word in ("frog", "toad", "porcelain", "Jordan"))
        with pytest.raises(InputError, match="deleted"):
            memories.undo_timeline(entry)
    texts = [r[0] for r in profile.db.query("SELECT detail FROM memory_events WHERE detail IS NOT NULL")]
    assert not any("frog" in t or "toad" in t or "Jordan" in t for t in texts)


def test_expiries_appear_and_their_undo_restores_for_good(profile: Profile, clock: ManualClock) -> None:
    memories = profile.memories
    plan = memories.add("Dentist appointment on Friday", Category.GOAL,
                        expires_at=to_ts(clock.now() + timedelta(days=2)))
    clock.advance(timedelta(days=3))
    memories.maintain(steps=["expire"])
    [entry] = entries(memories)
    assert (entry.kind, entry.before, entry.memory_ids) == (TimelineKind.EXPIRED, plan.content, (plan.id,))
    memories.undo_timeline(entry)
    assert memories.get(plan.id).status is Status.ACTIVE
    memories.maintain(steps=["expire"])  # the next night does not expire it again
    assert memories.get(plan.id).status is Status.ACTIVE
    restored, expired = entries(memories)
    assert (restored.kind, expired.kind, expired.undo_blocked) == (TimelineKind.RESTORED, TimelineKind.EXPIRED, "changed")


def test_edits_archives_and_merges(profile: Profile, clock: ManualClock) -> None:
    memories = profile.memories
    tea = memories.add("I like green tea", Category.PREFERENCE)
    clock.advance(timedelta(minutes=1))
    memories.edit(tea.id, content="I like jasmine tea")
    clock.advance(timedelta(minutes=1))
    memories.archive([tea.id])
    archived, edited = entries(memories)
    assert (edited.kind, edited.before, edited.after) == (TimelineKind.EDITED, "I like green tea", "I like jasmine tea")
    assert archived.kind is TimelineKind.ARCHIVED and archived.before == "I like jasmine tea"
    memories.undo_timeline(archived)
    memories.undo_timeline(edited)
    assert (memories.get(tea.id).status, memories.get(tea.id).content) == (Status.ACTIVE, "I like green tea")
    kinds = [e.kind for e in entries(memories)]
    assert kinds[:2] == [TimelineKind.EDITED, TimelineKind.RESTORED]


def test_access_and_plain_additions_are_not_changes(profile: Profile, clock: ManualClock) -> None:
    memories = profile.memories
    memories.add("I have a cat named Miso")
    memories.add_protected("The user prefers window seats", clock.now(), review=True, origin="MCP: Jan")
    memories.recall("cat?", clock.now())
    [entry] = entries(memories)
    assert (entry.kind, entry.origin, entry.before) == (TimelineKind.PROPOSED, "MCP: Jan", "The user prefers window seats")


def test_paging_goes_through_a_long_history_newest_first(profile: Profile, clock: ManualClock) -> None:
    memories = profile.memories
    made = [memories.add(f"Fact number {i}") for i in range(25)]
    for memory in made:
        clock.advance(timedelta(hours=7))
        memories.archive([memory.id])
    seen: list[TimelineEntry] = []
    offset = 0
    while True:
        page = memories.timeline(offset, 10)
        seen += page.entries
        offset = page.next_offset
        if not page.more:
            break
    assert [e.memory_ids for e in seen] == [(m.id,) for m in reversed(made)]
    assert [e.at for e in seen] == sorted((e.at for e in seen), reverse=True)
    assert memories.timeline(30, 10).entries == []


def test_forget_me_leaves_an_empty_timeline(profile: Profile, clock: ManualClock, moved: datetime) -> None:
    memories = profile.memories
    assert entries(memories)
    memories.forget_me()
    assert entries(memories) == []
    assert profile.db.scalar("SELECT COUNT(*) FROM memory_events") == 0


def test_one_command_is_one_entry_while_the_clock_runs(profile: Profile, clock: TickingClock) -> None:
    memories = profile.memories
    say(memories, clock, "I live in Boston.")
    clock.advance(timedelta(days=8))
    say(memories, clock, "I moved to Denver last week.")
    clock.tick = timedelta(milliseconds=3)
    [moved] = entries(memories)
    memories.undo_timeline(moved)  # restores two memories, supersedes two, one by one
    revert, old = entries(memories)
    assert (revert.kind, revert.count, old.key) == (TimelineKind.SUPERSEDED, 2, moved.key)
    memories.archive([revert.memory_ids[0]])  # the fact and the episode it came from
    archived = entries(memories)[0]
    assert (archived.kind, archived.count) == (TimelineKind.ARCHIVED, 2)


def test_an_import_is_one_entry(profile: Profile, clock: ManualClock, tmp_path: Path) -> None:
    memories = profile.memories
    for text in ("I have a cat named Miso", "I work as a nurse", "I like jasmine tea"):
        memories.add(text)
    memories.export(tmp_path / "memories.json")
    memories.forget_me()
    memories.import_file(tmp_path / "memories.json")
    [entry] = entries(memories)
    assert (entry.kind, entry.count, entry.undo_blocked) == (TimelineKind.IMPORTED, 3, "none")


def test_a_merge_can_be_undone_and_a_purge_says_only_that(profile: Profile, clock: ManualClock) -> None:
    memories = profile.memories
    first = memories.add("I'm allergic to peanuts", importance=4)
    clock.advance(timedelta(days=1))
    second = memories.add("I am allergic to peanuts and peanut butter")
    memories.maintain(steps=["merge"])
    [merged] = entries(memories)
    assert (merged.kind, merged.before, merged.after) == (TimelineKind.MERGED, first.content, second.content)
    memories.undo_timeline(merged)
    assert {memories.get(first.id).status, memories.get(second.id).status} == {Status.ACTIVE}

    memories.archive([first.id])
    clock.advance(timedelta(days=200))
    memories.maintain(steps=["purge"])
    timeline = entries(memories)
    assert timeline[0].kind is TimelineKind.PURGED and timeline[0].count == 1
    assert TimelineKind.DELETED not in [e.kind for e in timeline]  # the purge's own deletion
    assert not any(first.content in f"{e.before} {e.after}" for e in timeline)  # its events went with it
    assert first.id not in {i for e in timeline for i in e.memory_ids}

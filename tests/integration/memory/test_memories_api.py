"""`Memories`, the one way in to memory: every command emits exactly one change event with the
ids it touched, writes from several threads share one lock and lose nothing, and a reference
taken before forget-me keeps working after it. Real SQLite, Chroma and embeddings."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from assistant.app import Profile
from assistant.chat.background import BackgroundRunner, ManualTimer
from assistant.chat.engine import ChatEngine
from assistant.clock import to_ts
from assistant.config import Settings
from assistant.llm.ollama_backend import OllamaBackend
from assistant.memory.api import (
    BUNDLED_MODEL,
    MAINTENANCE_STEPS,
    MaintenanceStopped,
    Memories,
    MemoryChange,
    MemoryQuery,
    NewMemory,
)
from assistant.memory.types import Action, Candidate, Category, Kind, Memory, Source, Status, Turn
from tests.fakes.fake_ollama import FakeOllama

JOIN_S = 60.0  # a safety net for a broken lock, never a wait for something to happen


class Recorder:
    """The change events one `Memories` emitted, in order."""

    def __init__(self, memories: Memories) -> None:
        self.events: list[MemoryChange] = []
        self.unsubscribe = memories.subscribe(self.events.append)

    def take(self) -> list[MemoryChange]:
        events = list(self.events)
        self.events.clear()
        return events


@pytest.fixture
def settings(fake_ollama: FakeOllama) -> Settings:
    # extraction by the model only when a test flushes it (none does): the rules write
    return Settings(embedding_model=BUNDLED_MODEL, ollama_host=fake_ollama.host, extraction_every_turns=100)


@pytest.fixture
def engine(profile: Profile, settings: Settings) -> Iterator[ChatEngine]:
    with OllamaBackend(settings, sleep=lambda _s: None) as backend:
        chat = ChatEngine(profile, backend, runner=BackgroundRunner(synchronous=True),
                          idle_timer=ManualTimer(), summarize_with_llm=False)
        try:
            yield chat
        finally:
            chat.close()


@pytest.fixture
def memories(profile: Profile) -> Memories:
    return profile.memories


@pytest.fixture
def events(memories: Memories) -> Recorder:
    return Recorder(memories)


def one(events: Recorder, kind: str, ids: tuple[int, ...]) -> None:
    assert events.take() == [MemoryChange(kind, ids)]


def test_add_edit_pin_and_unpin_each_emit_one_event(memories: Memories, events: Recorder) -> None:
    memory = memories.add("I like green tea", Category.PREFERENCE, importance=2)
    one(events, "add", (memory.id,))
    assert memories.get(memory.id).source is Source.MANUAL

    memories.edit(memory.id, content="I like jasmine tea", importance=4)
    one(events, "edit", (memory.id,))
    assert (memories.get(memory.id).content, memories.get(memory.id).importance) == ("I like jasmine tea", 4)
    assert [m.id for m in memories.page(MemoryQuery(search="jasmine"), 0, 10).memories] == [memory.id]

    memories.pin(memory.id)
    one(events, "pin", (memory.id,))
    assert memories.get(memory.id).pinned
    memories.unpin(memory.id)
    one(events, "pin", (memory.id,))
    assert not memories.get(memory.id).pinned


def test_review_archive_restore_and_delete(profile: Profile, memories: Memories, events: Recorder) -> None:
    unsure = [profile.service.add(NewMemory(f"I might like {x}", Category.PREFERENCE, review=True))
              for x in ("tea", "coffee", "cocoa")]
    events.take()
    assert memories.count(review=True) == 3

    memories.accept([unsure[0].id])
    one(events, "accept", (unsure[0].id,))
    assert not memories.get(unsure[0].id).review

    memories.reject([unsure[1].id])
    one(events, "reject", (unsure[1].id,))
    assert memories.get_many([unsure[1].id]) == []

    memories.archive([unsure[2].id])
    one(events, "archive", (unsure[2].id,))
    assert memories.get(unsure[2].id).status is Status.ARCHIVED
    memories.restore([unsure[2].id])
    one(events, "restore", (unsure[2].id,))
    assert memories.get(unsure[2].id).status is Status.ACTIVE

    ids = [unsure[0].id, unsure[2].id]
    changes = memories.delete(ids)
    one(events, "delete", tuple(ids))
    assert [c.action for c in changes] == [Action.DELETE, Action.DELETE]
    assert memories.total() == 0 and memories.pending_scrub  # the index scrub is scheduled


def test_remember_then_forget_matching_and_undo(profile: Profile, memories: Memories, events: Recorder) -> None:
    now = profile.clock.now()
    result = memories.remember([Turn("user", "My phone number is 13812345678. I live in Berlin.", now)], now)
    stored = [c for c in result.changes if c.action is not Action.DROPPED]
    assert stored
    one(events, "remember", tuple(dict.fromkeys(i for c in stored for i in (c.memory_id, c.replaced_id) if i)))
    assert memories.vault_items()  # the number went to the vault

    plan = memories.forget_matching("my phone number")
    assert plan.matches and events.take() == []  # a preview changes nothing
    memories.confirm_forget(plan)
    one(events, "forget_matching", tuple(plan.ids))
    assert memories.get_many(plan.ids) == []
    assert not any(item.kind == "phone" for item in memories.vault_items())  # its vault item went with it

    again = memories.remember([Turn("user", "Remember that I play the cello.", now)], now)
    added = next(c for c in again.changes if c.action is Action.ADD)
    events.take()
    memories.undo(added)
    one(events, "undo", (added.memory_id,))
    assert memories.get_many([added.memory_id]) == []


def test_an_extraction_batch_is_one_event(profile: Profile, memories: Memories, events: Recorder) -> None:
    now = profile.clock.now()
    text = "I started learning Portuguese."
    turn = Turn("user", text)
    locked: list[bool] = []

    def then() -> None:  # runs inside the lock: another thread cannot take it
        def probe() -> None:
            got = memories.lock.acquire(blocking=False)
            if got:
                memories.lock.release()
            locked.append(not got)

        other = threading.Thread(target=probe)
        other.start()
        other.join(JOIN_S)

    candidate = Candidate("User is learning Portuguese", Category.GOAL, evidence="learning Portuguese", extractor="llm")
    changes = memories.extracted([(candidate, text, turn)], [], now, then=then)
    assert locked == [True]
    ids = tuple(c.memory_id for c in changes if c.memory_id is not None)
    assert ids
    one(events, "extract", ids)


def test_import_export_reindex_and_the_vault(profile: Profile, memories: Memories, events: Recorder, tmp_path: Path) -> None:
    first = memories.add("I like green tea", Category.PREFERENCE)
    events.take()
    path = tmp_path / "out.json"
    assert memories.export(path) == 1
    assert events.take() == []  # an export changes no memory
    memories.delete([first.id])
    events.take()

    report = memories.import_file(path)
    assert report.imported == 1
    one(events, "import", tuple(report.ids))
    assert [m.content for m in memories.get_many(report.ids)] == ["I like green tea"]

    assert memories.reindex().indexed == 1
    one(events, "reindex", ())
    memories.switch_embedder(profile.embedder)
    one(events, "reindex", ())

    masked = memories.protect("my card is 4111 1111 1111 1111", profile.clock.now())
    assert "4111 1111 1111 1111" not in masked and events.take() == []
    items = memories.vault_items()
    assert memories.reveal(items[0].id).replace(" ", "") == "4111111111111111"
    memories.delete_vault_items([items[0].id])
    assert memories.vault_items() == [] and events.take() == []
    memories.checkpoint()
    assert events.take() == []


def test_the_prompt_gets_pinned_memories_first(profile: Profile, memories: Memories) -> None:
    now = profile.clock.now()
    tea = memories.add("I like green tea", Category.PREFERENCE)
    pinned = memories.add("I am vegetarian", Category.PREFERENCE, pinned=True)
    recalled = memories.recall("what tea should I buy?", now)
    assert [m.id for m in recalled[:2]] == [pinned.id, tea.id]
    hits, block = memories.injected("what tea should I buy?", now)
    assert [h.memory.id for h in hits] == [tea.id] and "green tea" in block


def test_details_give_history_replaced_memories_and_the_source_message(
    profile: Profile, memories: Memories, engine: ChatEngine, fake_ollama: FakeOllama
) -> None:
    session = engine.new_session()
    engine.send(session.id, "I live in Berlin.")
    engine.send(session.id, "I moved to Lisbon last week.")
    berlin = next(m for m in memories.list(status=Status.SUPERSEDED) if "Berlin" in m.content)
    assert berlin.superseded_by is not None
    details = memories.details(berlin.superseded_by)  # what replaced it
    assert berlin.id in [m.id for m in details.replaced]
    assert details.source is not None and "Lisbon" in details.source.content
    assert details.source.session_id == session.id and details.source.role == "user"
    assert details.history and details.history[0]["event"] == "added"


def test_a_reference_taken_before_forget_me_works_after_it(profile: Profile, memories: Memories, events: Recorder) -> None:
    memories.add("I like green tea", Category.PREFERENCE)
    store_before = profile.store
    events.take()

    report = profile.forget_me()  # the profile's own entry point goes through `Memories` too
    assert report.memories == 1
    one(events, "forget_me", ())
    assert profile.memories is memories and profile.store is not store_before

    after = memories.add("I like black coffee", Category.PREFERENCE)
    one(events, "add", (after.id,))  # the listener survived
    assert [m.content for m in memories.list()] == ["I like black coffee"]
    assert [h.memory.id for h in memories.search("coffee", profile.clock.now())] == [after.id]


def test_a_write_from_another_thread_waits_for_forget_me(profile: Profile, memories: Memories, events: Recorder) -> None:
    """Forget-me holds the write lock from its first step to its last: a panel worker's write
    that comes in the middle (the database closed, the files going) waits, then lands in the
    fresh profile, rather than failing on a closed database or being erased."""
    memories.add("old memory", Category.FACT)
    events.take()
    errors: list[BaseException] = []
    started = threading.Event()

    def write() -> None:
        started.set()
        try:
            memories.add("written during forget-me", Category.FACT)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    worker = threading.Thread(target=write, name="panel-worker")

    def step(name: str) -> None:
        if name == "closed":
            worker.start()
            assert started.wait(JOIN_S)

    profile.on_forget_step = step
    profile.forget_me()
    profile.on_forget_step = None
    worker.join(JOIN_S)
    assert not worker.is_alive() and errors == []
    assert [e.kind for e in events.take()] == ["forget_me", "add"]  # the write came after
    assert [m.content for m in memories.list()] == ["written during forget-me"]


def test_writes_from_a_worker_while_chat_turns_write_lose_nothing(
    profile: Profile, memories: Memories, engine: ChatEngine, events: Recorder
) -> None:
    """The chat engine writes through the same lock as a panel worker: both sets arrive."""
    assert engine.memories is memories
    session = engine.new_session()
    facts = ["I live in Berlin.", "My sister is called Anna.", "I am allergic to peanuts."]
    manual = [f"manual note number {i}" for i in range(12)]
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def panel() -> None:
        try:
            barrier.wait(JOIN_S)
            for text in manual:
                memories.add(text, Category.FACT)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    worker = threading.Thread(target=panel, name="panel-worker")
    worker.start()
    barrier.wait(JOIN_S)
    turns = [engine.send(session.id, text) for text in facts]
    worker.join(JOIN_S)
    assert not worker.is_alive() and errors == []

    contents = [m.content for m in memories.list(limit=1000)]
    assert all(text in contents for text in manual)
    for fact, turn in zip(facts, turns, strict=True):
        assert [c for c in turn.changes if c.action is Action.ADD], fact
    chat_ids = {c.memory_id for t in turns for c in t.changes if c.action is Action.ADD}
    assert chat_ids <= {m.id for m in memories.list(limit=1000)}
    seen = [e for e in events.take()]
    assert sum(e.kind == "add" for e in seen) == len(manual)
    assert chat_ids <= {i for e in seen if e.kind == "remember" for i in e.ids}



@pytest.mark.parametrize("command", ["delete", "archive"])
def test_a_fact_set_aside_takes_its_episode_with_it(profile: Profile, memories: Memories, events: Recorder, command: str) -> None:
    now = profile.clock.now()
    memories.remember([Turn("user", "我对花生过敏", now)], now)
    fact = next(m for m in memories.list() if m.content == "用户对花生过敏。")
    episode = next(m for m in memories.list() if m.id != fact.id and "花生" in m.content)
    assert fact.derived_from == episode.id
    events.take()
    getattr(memories, command)([fact.id])
    one(events, command, (fact.id, episode.id))
    assert not any("花生" in m.content for m in memories.list())  # nothing active says it
    assert "花生" not in str(memories.recall("周末想吃点好的，有什么推荐", profile.clock.now()))


def test_a_rejected_fact_leaves_the_users_words(profile: Profile, memories: Memories, events: Recorder) -> None:
    now = profile.clock.now()
    memories.remember([Turn("user", "我对花生过敏", now)], now)
    fact = next(m for m in memories.list() if m.content == "用户对花生过敏。")
    memories.reject([fact.id])
    assert [m.content for m in memories.list()] == ["我对花生过敏"]


def held_elsewhere(lock: Any) -> bool:
    """Whether some thread holds `lock` (probed from a new thread: the lock is re-entrant)."""
    held: list[bool] = []

    def probe() -> None:
        got = lock.acquire(blocking=False)
        if got:
            lock.release()
        held.append(not got)

    other = threading.Thread(target=probe)
    other.start()
    other.join(JOIN_S)
    return held == [True]


class Watched:
    """The profile as a `Memories` reads it (its parts), noting every part a command reaches
    for while the write lock is free. Each part is the profile's own, not a stand-in."""

    PARTS = frozenset({"store", "service", "writer", "recaller", "vault", "erase_and_reopen"})

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.memories: Memories | None = None
        self.watching = False
        self.unlocked: list[str] = []

    def __getattr__(self, name: str) -> Any:
        if self.watching and name in self.PARTS and self.memories is not None and not held_elsewhere(self.memories.lock):
            self.unlocked.append(name)
        return getattr(self.profile, name)


def test_every_command_holds_the_write_lock_and_emits_one_event(profile: Profile, tmp_path: Path) -> None:
    """Each command, in turn: every part it touches is touched under the lock, and it emits
    exactly one event naming the memories it changed (none for export, protect: no change)."""
    watched = Watched(profile)
    memories = watched.memories = Memories(watched)  # type: ignore[arg-type]  # the profile's parts
    events = Recorder(memories)
    now = profile.clock.now()

    def command(kind: str | None, run: Callable[[], Any], ids: Callable[[Any], Sequence[int | None]] = lambda _r: ()) -> Any:
        watched.watching = True
        try:
            result = run()
        finally:
            watched.watching = False
        assert watched.unlocked == [], f"{kind}: {watched.unlocked} touched without the lock"
        expected = [] if kind is None else [MemoryChange(kind, tuple(dict.fromkeys(i for i in ids(result) if i)))]
        assert events.take() == expected, kind
        return result

    def stored(result: Any) -> list[int | None]:
        return [i for c in result.changes if c.action is not Action.DROPPED for i in (c.memory_id, c.replaced_id)]

    tea = command("add", lambda: memories.add("I like green tea", Category.PREFERENCE), lambda m: [m.id])
    command("edit", lambda: memories.edit(tea.id, content="I like jasmine tea"), lambda _m: [tea.id])
    command("pin", lambda: memories.pin(tea.id), lambda _r: [tea.id])
    command("pin", lambda: memories.unpin(tea.id), lambda _r: [tea.id])
    unsure = [profile.service.add(NewMemory(f"I might like {x}", Category.PREFERENCE, review=True)) for x in ("tea", "cocoa")]
    command("accept", lambda: memories.accept([unsure[0].id]), lambda _r: [unsure[0].id])
    command("reject", lambda: memories.reject([unsure[1].id]), lambda _r: [unsure[1].id])
    command("archive", lambda: memories.archive([unsure[0].id]), lambda _r: [unsure[0].id])
    command("restore", lambda: memories.restore([unsure[0].id]), lambda _r: [unsure[0].id])
    command("delete", lambda: memories.delete([unsure[0].id]), lambda _r: [unsure[0].id])

    said = [Turn("user", "My phone number is 13812345678. I live in Berlin.", now)]
    command("remember", lambda: memories.remember(said, now), stored)
    plan = memories.forget_matching("my phone number")  # a query: no lock, no event
    assert plan.matches and events.take() == []
    command("forget_matching", lambda: memories.confirm_forget(plan), lambda _r: plan.ids)
    cello = command("remember", lambda: memories.remember([Turn("user", "Remember that I play the cello.", now)], now), stored)
    added = next(c for c in cello.changes if c.action is Action.ADD)
    command("undo", lambda: memories.undo(added), lambda _r: [added.memory_id])

    path = tmp_path / "out.json"
    command(None, lambda: memories.export(path))
    command("delete", lambda: memories.delete([tea.id]), lambda _r: [tea.id])
    command("import", lambda: memories.import_file(path), lambda report: report.ids)
    command(None, lambda: memories.protect("my card is 4111 1111 1111 1111", now))
    command("reindex", lambda: memories.reindex())
    command("reindex", lambda: memories.switch_embedder(profile.embedder))
    command("maintain", lambda: memories.maintain(now), lambda report: report.changed)  # its ids: below
    command("forget_me", lambda: memories.forget_me())
    after = command("add", lambda: memories.add("I like black coffee", Category.PREFERENCE), lambda m: [m.id])
    assert [m.id for m in memories.list()] == [after.id]


def test_maintenance_is_one_event_naming_what_it_changed(profile: Profile, memories: Memories, events: Recorder) -> None:
    now = profile.clock.now()
    over = memories.add("Dentist on Monday at nine", Category.FACT, expires_at=to_ts(now) - 60)
    first = memories.add("I like green tea", Category.PREFERENCE)
    second = memories.add("I like green tea", Category.PREFERENCE)  # a duplicate to merge
    kept = memories.add("My sister is called Anna", Category.FACT)
    events.take()

    memories.maintain(now, dry_run=True)
    assert events.take() == []  # a dry run changes nothing
    assert memories.get(over.id).status is Status.ACTIVE

    report = memories.maintain(now)
    one(events, "maintain", tuple(report.changed))
    assert sorted(report.changed) == sorted([over.id, first.id, second.id])  # the survivor was updated
    assert memories.get(over.id).status is Status.ARCHIVED
    assert memories.get(first.id).status is Status.MERGED and memories.get(first.id).superseded_by == second.id
    assert memories.get(kept.id).status is Status.ACTIVE

    again = memories.maintain(now)  # nothing left to do
    one(events, "maintain", ())
    assert again.changed == []


def test_a_write_during_maintenance_waits_for_the_step_and_loses_nothing(
    profile: Profile, memories: Memories, events: Recorder
) -> None:
    """The consolidate step summarises five episodes about Anna, calling `llm` while the step
    holds the write lock: a panel worker's write started there waits for the step, lands,
    and is not counted as maintenance's."""
    now = profile.clock.now()
    said = ["Had lunch with Anna at the noodle bar", "Anna called about her wedding plans",
            "Went hiking with Anna in the hills", "Anna lent me her bicycle", "Helped Anna carry her piano upstairs"]
    episodes = [
        profile.service.add(NewMemory(text, Category.FACT, kind=Kind.EPISODIC, entities=["Anna"],
                                      event_at=to_ts(now) - (10 - 2 * i) * 86400.0))
        for i, text in enumerate(said)
    ]
    written: list[Memory] = []
    errors: list[BaseException] = []

    def write() -> None:
        try:
            written.append(memories.add("written while maintenance ran", Category.FACT))
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    worker = threading.Thread(target=write, name="panel-worker")
    locked: list[bool] = []

    def summarize(_sources: list[str], _lang: str) -> None:
        locked.append(held_elsewhere(memories.lock))
        worker.start()  # its write must wait for this step
        return None  # no model: the rule-based summary

    report = memories.maintain(now, llm=summarize)
    worker.join(JOIN_S)
    assert not worker.is_alive() and errors == [] and locked == [True]
    assert report.steps["consolidate"]["groups"] == 1
    summary = next(m for m in memories.list() if m.slot == "topic.anna")
    assert sorted(report.changed) == sorted([*(e.id for e in episodes), summary.id])
    assert written[0].id not in report.changed and memories.get(written[0].id).status is Status.ACTIVE
    assert sorted(e.kind for e in events.take()) == ["add", "maintain"]


def test_forget_me_between_two_steps_ends_the_maintenance(profile: Profile, memories: Memories, events: Recorder) -> None:
    memories.add("I like green tea", Category.PREFERENCE)
    events.take()

    def erase(name: str, _counts: dict[str, int]) -> None:
        if name == "expire":
            memories.forget_me()  # as from the window, between two steps

    with pytest.raises(MaintenanceStopped):
        memories.maintain(profile.clock.now(), after_step=erase)
    one(events, "forget_me", ())
    assert memories.total() == 0
    report = memories.maintain(profile.clock.now())  # the fresh profile maintains as any other
    assert list(report.steps) == list(MAINTENANCE_STEPS)

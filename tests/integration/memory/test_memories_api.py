"""`Memories`, the one way in to memory: every command emits exactly one change event with the
ids it touched, writes from several threads share one lock and lose nothing, and a reference
taken before forget-me keeps working after it. Real SQLite, Chroma and embeddings."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.app import Profile
from assistant.chat.background import BackgroundRunner, ManualTimer
from assistant.chat.engine import ChatEngine
from assistant.config import Settings
from assistant.llm.ollama_backend import OllamaBackend
from assistant.memory.api import Memories, MemoryChange, MemoryQuery
from assistant.memory.embedder import BUNDLED_MODEL
from assistant.memory.store import NewMemory
from assistant.memory.types import Action, Candidate, Category, Source, Status, Turn
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

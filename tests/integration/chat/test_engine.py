"""ChatEngine end to end: real profile, real `ollama` client, fake Ollama server."""

from __future__ import annotations

import json
import threading

from assistant.app import Profile
from assistant.chat.background import BackgroundRunner, ManualTimer
from assistant.chat.engine import ChatEngine
from assistant.chat.prompt import SYSTEM_PROMPT, reply_reserve
from assistant.config import Settings
from assistant.llm.ollama_backend import OllamaBackend
from assistant.llm.tokens import estimate_messages_tokens
from assistant.memory.inject import OPEN
from assistant.memory.store import NewMemory
from assistant.memory.types import Action, Category, Status
from tests.fakes.fake_ollama import FakeOllama, ScriptedReply
from tests.integration.chat.conftest import MODEL, chat_turn_requests
from tests.integration.chat.helpers import extraction_reply


def test_facts_of_one_chat_reach_the_prompt_of_the_next_and_stale_ones_do_not(
    engine: ChatEngine, fake_ollama: FakeOllama, profile: Profile
) -> None:
    first = engine.new_session()
    engine.send(first.id, "I live in Berlin and I work as a nurse.")
    fake_ollama.script(extraction_reply(
        {"content": "User lives in Berlin", "slot": "user.city", "importance": 4, "evidence": "I live in Berlin"},
        {"content": "User works as a nurse", "slot": "user.job", "evidence": "I work as a nurse"},
    ))
    engine.flush_extraction()
    engine.send(first.id, "Actually I moved to Lisbon last week.")
    fake_ollama.script(extraction_reply(
        {"content": "User lives in Lisbon", "slot": "user.city", "importance": 4, "evidence": "I moved to Lisbon"},
    ))
    second = engine.new_session()  # flushes what the first chat left
    assert not profile.db.scalar("SELECT COUNT(*) FROM messages WHERE extracted = 0 AND role = 'user'")

    result = engine.send(second.id, "Where do I live?")

    request = chat_turn_requests(fake_ollama)[-1]
    assert request["model"] == MODEL and request["options"]["num_ctx"] == 8192
    system = request["messages"][0]["content"]
    assert system.startswith(SYSTEM_PROMPT["en"]) and OPEN in system
    assert "Lisbon" in system
    assert "Berlin" not in json.dumps(request, ensure_ascii=False)  # the superseded fact is absent
    assert [m["content"] for m in request["messages"][1:]] == ["Where do I live?"]
    assert any("Lisbon" in m.content for m in result.injected)
    stored = engine.messages(second.id)[-1]
    assert stored.role == "assistant" and stored.injected_ids == [m.id for m in result.injected]
    assert [m.id for m in engine.injected_for(stored.id)] == stored.injected_ids
    assert any("Berlin" in m.content for m in profile.store.list(status=Status.SUPERSEDED))


def test_num_ctx_is_sent_with_every_call(engine: ChatEngine, fake_ollama: FakeOllama) -> None:
    session = engine.new_session()
    engine.send(session.id, "Hello there")
    fake_ollama.script(extraction_reply())
    engine.flush_extraction()
    assert len(fake_ollama.chat_requests) == 2
    assert all(r["options"]["num_ctx"] == 8192 for r in fake_ollama.chat_requests)


def test_a_tiny_window_keeps_system_prompt_and_memories_and_drops_old_turns(
    profile: Profile, fake_ollama: FakeOllama, settings: Settings, timer: ManualTimer
) -> None:
    settings.num_ctx = 512
    settings.recent_turns = 50  # no summary: the budget alone must cope
    profile.service.add(NewMemory("User grows roses in the garden", Category.FACT, importance=4))
    with OllamaBackend(settings) as backend, ChatEngine(
        profile, backend, runner=BackgroundRunner(synchronous=True), idle_timer=timer, summarize_with_llm=False
    ) as engine:
        session = engine.new_session()
        for i in range(12):
            engine.send(session.id, f"Message {i}: " + "tell me more about the weather and gardening " * 4)
        result = engine.send(session.id, "What do I grow in my garden?")
    assert all(r["options"]["num_ctx"] == 512 for r in fake_ollama.chat_requests)
    request = chat_turn_requests(fake_ollama)[-1]
    contents = [m["content"] for m in request["messages"]]
    assert estimate_messages_tokens(contents) <= 512 - reply_reserve(512, settings.max_reply_tokens)
    assert contents[0].startswith(SYSTEM_PROMPT["en"]) and "User grows roses in the garden" in contents[0]
    assert contents[-1] == "What do I grow in my garden?"
    assert result.dropped_turns > 0
    assert not any(c.startswith("Message 0:") for c in contents)


def test_ollama_down_gives_a_clear_error_and_keeps_the_message(profile: Profile, settings: Settings, timer: ManualTimer) -> None:
    with FakeOllama() as dead:
        settings.ollama_host = dead.host
    sleeps: list[float] = []
    with OllamaBackend(settings, sleep=sleeps.append) as backend, ChatEngine(
        profile, backend, runner=BackgroundRunner(synchronous=True), idle_timer=timer
    ) as engine:
        session = engine.new_session()
        result = engine.send(session.id, "I work as a nurse in Lisbon.")
        assert result.error is not None and result.error.code == "ollama_down"  # type: ignore[attr-defined]
        assert "ollama serve" in result.error.hint
        messages = engine.messages(session.id)
        assert [(m.role, m.status) for m in messages] == [("user", "complete"), ("assistant", "error")]
        assert messages[0].content == "I work as a nurse in Lisbon."
        assert result.assistant_message_id == messages[1].id and result.reply == ""


def test_missing_model_says_which_pull_command(profile: Profile, settings: Settings, timer: ManualTimer) -> None:
    with OllamaBackend(settings) as backend, ChatEngine(
        profile, backend, model="llama3.2:3b", runner=BackgroundRunner(synchronous=True), idle_timer=timer
    ) as engine:
        result = engine.send(engine.new_session().id, "hello")
    assert result.error is not None and "`ollama pull llama3.2:3b`" in result.error.hint


def test_a_stream_cut_mid_reply_keeps_the_partial_reply_marked(engine: ChatEngine, fake_ollama: FakeOllama) -> None:
    fake_ollama.script(ScriptedReply("The capital of Portugal is Lisbon.", chunk_size=5, break_after=3))
    pieces: list[str] = []
    session = engine.new_session()
    result = engine.send(session.id, "What is the capital of Portugal?", on_token=pieces.append)
    assert result.partial and result.reply == "The capital of " == "".join(pieces)
    assert result.error is not None and result.error.code == "stream_cut"  # type: ignore[attr-defined]
    last = engine.messages(session.id)[-1]
    assert (last.role, last.status, last.content) == ("assistant", "partial", "The capital of ")


def test_cancel_keeps_what_arrived(engine: ChatEngine, fake_ollama: FakeOllama) -> None:
    fake_ollama.script(ScriptedReply("one two three four five six", chunk_size=4))
    cancel = threading.Event()
    session = engine.new_session()

    def on_token(piece: str) -> None:
        cancel.set()

    result = engine.send(session.id, "count", on_token=on_token, cancel=cancel)
    assert result.partial and result.error is None and result.reply == "one "
    assert engine.messages(session.id)[-1].status == "partial"


def test_rule_extraction_runs_on_each_message_and_undo_reverts_it(engine: ChatEngine, profile: Profile) -> None:
    changed: list[list[object]] = []
    engine.on_memory_changed.append(changed.append)
    session = engine.new_session()
    result = engine.send(session.id, "Remember that my sister Anna is allergic to peanuts.")
    added = [c for c in result.changes if c.action is Action.ADD]
    assert added and changed
    for change in added:
        engine.undo(change)
    assert profile.store.count() == 0


def test_undo_of_an_update_restores_the_old_memory(engine: ChatEngine, fake_ollama: FakeOllama, profile: Profile) -> None:
    session = engine.new_session()
    engine.send(session.id, "My favourite tea is oolong.")
    fake_ollama.script(extraction_reply({"content": "User's favourite tea is oolong", "slot": "user.favourite_tea", "evidence": "favourite tea is oolong"}))
    engine.flush_extraction()
    sent = engine.send(session.id, "These days my favourite tea is sencha.")
    fake_ollama.script(extraction_reply({"content": "User's favourite tea is sencha", "slot": "user.favourite_tea", "evidence": "favourite tea is sencha"}))
    # the rules may take the update before the model does
    updates = [c for c in sent.changes + engine.flush_extraction() if c.action is Action.UPDATE]
    assert updates and updates[0].replaced_id is not None
    engine.undo(updates[0])
    assert profile.store.get(updates[0].replaced_id).status is Status.ACTIVE
    assert updates[0].memory_id not in profile.store.active_ids()


def test_sessions_rename_delete(engine: ChatEngine, profile: Profile) -> None:
    a = engine.new_session(title="first")
    b = engine.new_session(temporary=True)
    engine.send(a.id, "My phone number is 13812345678.")
    assert {s.id for s in engine.sessions()} == {a.id, b.id}
    engine.rename_session(a.id, "renamed")
    assert engine.session(a.id).title == "renamed"
    vault_before = profile.db.scalar("SELECT COUNT(*) FROM vault")
    engine.delete_session(a.id)
    assert [s.id for s in engine.sessions()] == [b.id]
    assert not profile.db.scalar("SELECT COUNT(*) FROM messages")
    assert not profile.db.scalar("SELECT COUNT(*) FROM messages_fts")
    # The vault keeps one item per value: the memory made from the message still refers to it.
    assert profile.db.scalar("SELECT COUNT(*) FROM vault") == vault_before == 1
    for memory in profile.store.list(status=None, limit=100):
        profile.writer.forget([memory.id])
    assert not profile.db.scalar("SELECT COUNT(*) FROM vault")  # gone with the last one that named it


def test_extraction_is_scheduled_every_n_turns_and_after_idle_on_a_worker(
    profile: Profile, fake_ollama: FakeOllama, settings: Settings
) -> None:
    settings.extraction_every_turns = 2
    timer = ManualTimer()
    threads: list[str] = []

    def user_rows(extracted: int) -> int:
        return int(profile.db.scalar("SELECT COUNT(*) FROM messages WHERE role = 'user' AND extracted = ?", (extracted,)))

    with OllamaBackend(settings) as backend:
        engine = ChatEngine(profile, backend, idle_timer=timer, summarize_with_llm=False)
        try:
            engine.on_memory_changed.append(lambda _changes: threads.append(threading.current_thread().name))
            session = engine.new_session()
            engine.send(session.id, "hello")
            assert user_rows(1) == 0
            # a fact only the LLM extractor understands, so its change is reported from the worker
            fake_ollama.script("fine", extraction_reply({"content": "User's favourite composer is Ravel", "evidence": "Ravel is the one I keep coming back to"}))
            engine.send(session.id, "Ravel is the one I keep coming back to.")  # the second turn queues a batch
            assert engine.wait_idle(10)
            assert user_rows(1) == 2 and user_rows(0) == 0
            assert engine.last_extraction is not None and len(engine.last_extraction.candidates) == 1
            assert "mnemo-chat-worker" in threads
            engine.send(session.id, "I also like jazz.")
            assert timer.armed and timer.delay == settings.extraction_idle_seconds
            fake_ollama.script(extraction_reply())
            timer.fire()  # idle: flush what is pending
            assert engine.wait_idle(10)
            assert user_rows(0) == 0
        finally:
            engine.close()
    assert not any(t.name.startswith("mnemo-") for t in threading.enumerate())


def test_rolling_summary_folds_older_turns(engine: ChatEngine, fake_ollama: FakeOllama, settings: Settings) -> None:
    settings.recent_turns = 2
    session = engine.new_session()
    for i in range(5):
        engine.send(session.id, f"Point {i}. I like topic {i}.")
    summary, upto = engine.history.summary(session.id)
    assert "Point 0." in summary and upto > 0
    engine.send(session.id, "What did I say first?")
    request = chat_turn_requests(fake_ollama)[-1]
    assert any("Point 0." in m["content"] and m["role"] == "system" for m in request["messages"][1:2])
    assert not any(m["role"] == "user" and m["content"].startswith("Point 0.") for m in request["messages"])


def test_the_engine_keeps_working_after_forget_me(engine: ChatEngine, profile: Profile) -> None:
    session = engine.new_session()
    engine.send(session.id, "I work as a nurse.")
    report = profile.forget_me()
    assert report.messages == 2
    assert engine.sessions() == []
    fresh = engine.new_session()
    assert engine.send(fresh.id, "hello again").error is None

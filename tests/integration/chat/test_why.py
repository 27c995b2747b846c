"""Why each memory under a reply was chosen: stored with the reply, read back after the
profile is closed and opened again, and where each memory came from."""

from __future__ import annotations

from pathlib import Path

from assistant.app import Profile
from assistant.chat.background import BackgroundRunner, ManualTimer
from assistant.chat.engine import ChatEngine
from assistant.clock import ManualClock
from assistant.config import Settings
from assistant.llm.ollama_backend import OllamaBackend
from assistant.memory.embedder import SentenceTransformerEmbedder
from assistant.memory.explain import reasons
from assistant.memory.types import Category


def open_engine(profile: Profile, backend: OllamaBackend) -> ChatEngine:
    return ChatEngine(profile, backend, runner=BackgroundRunner(synchronous=True), idle_timer=ManualTimer(),
                      summarize_with_llm=False)


def test_the_why_is_stored_per_reply_and_comes_back_after_reopening(
    profile: Profile, backend: OllamaBackend, data_dir: Path, settings: Settings,
    embedder: SentenceTransformerEmbedder, clock: ManualClock,
) -> None:
    engine = open_engine(profile, backend)
    first = engine.new_session(title="About my cat")
    said = engine.send(first.id, "My cat Momo loves tuna.")
    assert said.changes, "the write path kept the message"
    typed = profile.memories.add("I always take the train to work", Category.FACT, pinned=True)
    second = engine.new_session()
    result = engine.send(second.id, "What should I buy for Momo?")
    momo = next(m for m in result.injected if "Momo" in m.content)
    assert set(result.injected_why) == {m.id for m in result.injected}
    why = result.injected_why[momo.id]
    assert "semantic" in why.routes and why.relevance is not None and why.threshold is not None
    assert why.relevance >= why.threshold
    assert result.injected_why[typed.id].routes[0] == "pinned"
    reply_id = result.assistant_message_id
    assert reply_id is not None
    engine.close()
    profile.close()

    again = Profile(data_dir, "default", settings, embedder=embedder, clock=clock, warn=lambda _t: None)
    try:
        engine = open_engine(again, backend)
        used = {u.memory.id: u for u in engine.memories_used(reply_id)}
        assert used[momo.id].why == why  # the same explanation, read from the database
        assert any(line.startswith("Found by meaning") for line in reasons(used[momo.id].why))
        origin = used[momo.id].origin
        assert origin.kind == "chat" and origin.session_id == first.id and origin.title == "About my cat"
        assert origin.message_id == said.user_message_id
        assert used[typed.id].origin.kind == "manual"

        engine.delete_session(first.id)
        assert engine.memories_used(reply_id)[0].memory.id in used
        assert {u.memory.id: u.origin.kind for u in engine.memories_used(reply_id)}[momo.id] == "chat_deleted"
        engine.close()
    finally:
        again.close()


def test_an_older_reply_or_a_damaged_why_still_opens_without_it(profile: Profile, engine: ChatEngine) -> None:
    profile.memories.add("I live in Lisbon")
    session = engine.new_session()
    result = engine.send(session.id, "Where do I live? Lisbon?")
    assert result.injected and result.assistant_message_id is not None
    for stored in (None, "not json", '{"1": {"routes": 3}}', "[1, 2]"):
        profile.db.execute("UPDATE messages SET injected_why = ? WHERE id = ?", (stored, result.assistant_message_id))
        used = engine.memories_used(result.assistant_message_id)
        assert [u.memory.id for u in used] == [m.id for m in result.injected], stored
        assert all(u.why is None for u in used), stored


def test_a_temporary_chat_keeps_nothing(profile: Profile, engine: ChatEngine) -> None:
    profile.memories.add("I live in Lisbon")
    session = engine.new_session(temporary=True)
    result = engine.send(session.id, "Where do I live? Lisbon?")
    assert result.injected == [] and result.injected_why == {}

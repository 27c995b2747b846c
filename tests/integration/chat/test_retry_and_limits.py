"""Retrying a failed turn sends the message once; a message too long for the model is refused
whole, before anything is stored; chats opened and left empty are cleaned away."""

from __future__ import annotations

import pytest

from assistant.app import Profile
from assistant.chat.engine import ChatEngine
from assistant.chat.prompt import MessageTooLong
from assistant.errors import InputError
from tests.fakes.fake_ollama import FakeOllama, ScriptedReply
from tests.integration.chat.conftest import chat_turn_requests


def user_contents(request: dict[str, object]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]  # type: ignore[index,attr-defined]


def test_retry_after_a_failed_reply_sends_the_message_once(
    engine: ChatEngine, fake_ollama: FakeOllama
) -> None:
    session = engine.new_session()
    fake_ollama.script(ScriptedReply("", http_status=500, error_message="out of memory"))
    failed = engine.send(session.id, "plan my trip to Oslo")
    assert failed.error is not None and failed.reply == ""

    again = engine.retry(session.id, failed.user_message_id)
    assert again.error is None and again.reply == "OK: plan my trip to Oslo"
    assert again.user_message_id == failed.user_message_id
    # the model saw the message once, not the failed try's copy as an earlier turn
    assert user_contents(chat_turn_requests(fake_ollama)[-1]) == ["plan my trip to Oslo"]
    stored = engine.messages(session.id)
    assert [(m.role, m.content, m.status) for m in stored] == [
        ("user", "plan my trip to Oslo", "complete"),
        ("assistant", "OK: plan my trip to Oslo", "complete"),
    ]


def test_retry_replaces_a_cut_reply(engine: ChatEngine, fake_ollama: FakeOllama) -> None:
    session = engine.new_session()
    fake_ollama.script(ScriptedReply("This reply will break in the middle", break_after=2))
    cut = engine.send(session.id, "tell me something")
    assert cut.partial and engine.messages(session.id)[-1].status == "partial"
    fake_ollama.script("A whole answer.")
    again = engine.retry(session.id, cut.user_message_id)
    assert again.reply == "A whole answer."
    request = chat_turn_requests(fake_ollama)[-1]
    assert not [m for m in request["messages"] if m["role"] == "assistant"]  # type: ignore[attr-defined]
    assert [m.content for m in engine.messages(session.id)] == ["tell me something", "A whole answer."]


def test_retry_is_only_for_the_last_unanswered_message(engine: ChatEngine) -> None:
    session = engine.new_session()
    first = engine.send(session.id, "hello")
    with pytest.raises(InputError, match="answered already"):
        engine.retry(session.id, first.user_message_id)
    engine.send(session.id, "and again")
    with pytest.raises(InputError, match="last message"):
        engine.retry(session.id, first.user_message_id)


def test_a_message_too_long_for_the_context_is_refused_before_anything_is_stored(
    engine: ChatEngine, fake_ollama: FakeOllama, profile: Profile
) -> None:
    session = engine.new_session()
    pasted = "All work and no play makes Jack a dull boy. " * 2300  # ~100k characters
    with pytest.raises(MessageTooLong) as raised:
        engine.send(session.id, pasted)
    assert raised.value.tokens > raised.value.limit
    assert engine.messages(session.id) == []
    assert not chat_turn_requests(fake_ollama)
    assert profile.store.total() == 0


def test_a_long_message_that_fits_reaches_the_model_whole(
    profile: Profile, engine: ChatEngine, fake_ollama: FakeOllama
) -> None:
    profile.settings.num_ctx = 32768
    session = engine.new_session()
    pasted = "Summarise this log line by line. " + "ERROR disk full on /var at 03:00\n" * 2800
    assert len(pasted) > 90_000
    result = engine.send(session.id, pasted)
    assert result.error is None
    assert user_contents(chat_turn_requests(fake_ollama)[-1]) == [pasted]


def test_empty_untitled_chats_are_dropped(engine: ChatEngine) -> None:
    left = engine.new_session()
    used = engine.new_session()
    engine.send(used.id, "hello")
    engine.rename_session(used.id, "Greetings")
    named = engine.new_session(title="Kept: it has a name")
    assert engine.drop_empty_sessions() == 1
    assert {s.id for s in engine.sessions()} == {used.id, named.id}
    assert left.id not in {s.id for s in engine.sessions()}

"""Forget requests in chat: matches come back for confirmation; nothing goes until confirmed."""

from __future__ import annotations

import pytest

from assistant.app import Profile
from assistant.chat.engine import ChatEngine
from assistant.memory.store import NewMemory
from assistant.memory.types import Action, Category


@pytest.mark.parametrize(
    ("fact", "request_text"),
    [
        ("User's address is 12 Baker Street, London", "Please forget my address."),
        ("用户的住址是杭州市西湖区文三路100号", "把我的住址忘掉"),
    ],
)
def test_forget_in_chat_asks_before_deleting(engine: ChatEngine, profile: Profile, fact: str, request_text: str) -> None:
    memory = profile.service.add(NewMemory(fact, Category.IDENTIFIER, slot="user.address", importance=4))
    session = engine.new_session()
    result = engine.send(session.id, request_text)
    assert result.forget_request is not None
    assert [m.id for m in result.forget_request.matches] == [memory.id]
    assert memory.id in profile.store.active_ids()  # nothing deleted yet
    changes = engine.confirm_forget([m.id for m in result.forget_request.matches])
    assert [c.action for c in changes] == [Action.DELETE]
    assert memory.id not in profile.store.active_ids()

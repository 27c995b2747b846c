"""What the model sees of a memory: no character of a vaulted value."""

from __future__ import annotations

import pytest

from assistant.memory.inject import prompt_text, render_block
from assistant.memory.types import Category, Kind, Memory, Source, Status


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("cell 617****0148 [vault #1]", "cell [kept in the vault]"),
        ("passport number is ******273 [vault #1], expires 2031", "passport number is [kept in the vault], expires 2031"),
        ("ssn ***-**-9087 [vault #3] and j***@example.com [vault #4]", "ssn [kept in the vault] and [kept in the vault]"),
        ("lives at ***, Springfield [vault #5].", "lives at [kept in the vault]."),
    ],
)
def test_vaulted_values_are_placeholders(content: str, expected: str) -> None:
    assert prompt_text(content) == expected


def test_chinese_text_keeps_its_other_words() -> None:
    text = prompt_text("卡号**** **** **** 4521 [vault #1]，取款密码*** [vault #2]，想开通手机银行", "zh")
    assert text == "卡号[已加密保存]，取款密码[已加密保存]，想开通手机银行"


def _episode(content: str, entities: list[str]) -> Memory:
    return Memory(
        id=1, profile_id="p", kind=Kind.EPISODIC, category=Category.FACT, content=content, summary=None,
        slot=None, entities=entities, importance=3, confidence=0.6, source=Source.USER_IMPLIED,
        status=Status.ACTIVE, superseded_by=None, pinned=False, created_at=1.7e9, updated_at=1.7e9,
        last_accessed_at=None, access_count=0, expires_at=None, event_at=None, session_id=None,
        source_message_id=None,
    )


def test_an_episode_says_whom_it_is_about_when_its_words_do_not() -> None:
    block, _ids = render_block([_episode("但是他对 nuts 过敏", ["raj", "nuts"])], lang="zh")
    assert '"但是他对 nuts 过敏" (关于: "raj")' in block
    block, _ids = render_block([_episode("I love it in Denver", ["denver"])], lang="en")
    assert "(about" not in block  # every name it carries is in its words

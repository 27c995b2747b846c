"""What the model sees of a memory: no character of a vaulted value."""

from __future__ import annotations

import pytest

from assistant.memory.inject import prompt_text


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

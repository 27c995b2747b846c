"""The token estimate: cheap, and never below what a real tokenizer would count."""

from __future__ import annotations

import pytest

from assistant.llm.tokens import MESSAGE_OVERHEAD_TOKENS, estimate_messages_tokens, estimate_tokens


def test_empty_text_costs_nothing() -> None:
    assert estimate_tokens("") == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a", 1),
        ("abcd", 1),
        ("abcde", 2),
        ("The quick brown fox", 5),  # 19 chars → ceil(19/4)
    ],
)
def test_latin_text_is_about_four_chars_per_token_rounded_up(text: str, expected: int) -> None:
    assert estimate_tokens(text) == expected


def test_each_cjk_character_counts_as_one_token() -> None:
    assert estimate_tokens("我住在上海") == 5
    assert estimate_tokens("ひらがなカタカナ") == 8
    assert estimate_tokens("한국어") == 3
    assert estimate_tokens("你好，世界！") == 6  # full-width punctuation too


def test_mixed_text_adds_both_parts() -> None:
    # 5 Han characters + "Python " (7 characters → 2 tokens)
    assert estimate_tokens("我喜欢Python 编程") == 5 + 2


def test_rare_cjk_extension_characters_count() -> None:
    assert estimate_tokens("\U00020000\U0002a700") == 2


def test_messages_add_template_overhead() -> None:
    contents = ["hello", "我住在上海"]
    assert estimate_messages_tokens(contents) == 2 + 5 + 2 * MESSAGE_OVERHEAD_TOKENS
    assert estimate_messages_tokens([]) == 0

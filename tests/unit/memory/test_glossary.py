"""The index's English–Chinese glossary: words for the same everyday thing in the other language."""

from __future__ import annotations

import pytest

from assistant.memory.glossary import glosses


@pytest.mark.parametrize(
    ("text", "has", "lacks"),
    [
        ("十一月想去 Japan 玩两周", ["日本", "november"], ["january"]),  # 十一月 is not 一月
        ("我什么时候去日本来着", ["japan"], []),
        ("just unboxed my new laptop", ["电脑"], []),
        ("但是他对 nuts 过敏", ["坚果", "allergy"], []),
        ("I live in New York", ["纽约"], []),
        ("我十二月生日", ["december", "birthday"], ["february"]),
    ],
)
def test_the_other_language_words_for_what_a_text_names(text: str, has: list[str], lacks: list[str]) -> None:
    found = glosses(text).split()
    assert all(w in found for w in has) and not any(w in found for w in lacks)


@pytest.mark.parametrize("text", ["I may go to the park", "let me watch it first", "book a table for two", "going home now"])
def test_a_word_with_a_second_everyday_sense_gets_no_gloss(text: str) -> None:
    assert glosses(text) == ""

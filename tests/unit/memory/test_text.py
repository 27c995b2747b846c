from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assistant.memory.text import identifiers, index_text, match_expression, tokens


def test_chinese_is_split_into_bigrams() -> None:
    assert "海淀" in tokens("我住在北京海淀区")
    assert tokens("海淀", query=True) == ["海淀"]


@pytest.mark.parametrize(("a", "b"), [("likes", "like"), ("hiking", "hike"), ("allergies", "allergy"), ("dogs", "dog")])
def test_english_stems_match_on_both_sides(a: str, b: str) -> None:
    assert tokens(a) == tokens(b)


def test_query_drops_stopwords() -> None:
    assert tokens("what do I like?", query=True) == []
    assert tokens("Where is my Tokyo trip", query=True) == ["tokyo", "trip"]


def test_identifiers_need_a_digit() -> None:
    assert identifiers("order 4521-8890-12 and INC-20931, not hello-world") == ["4521-8890-12", "INC-20931"]


@given(st.text(max_size=300))
def test_match_expression_is_always_safe_fts(text: str) -> None:
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(t, tokenize='unicode61 remove_diacritics 0')")
    conn.execute("INSERT INTO f VALUES (?)", (index_text("hello 世界 NEAR * - \" x"),))
    expression = match_expression(tokens(text, query=True))
    if expression:
        conn.execute("SELECT rowid FROM f WHERE f MATCH ?", (expression,)).fetchall()


@pytest.mark.parametrize(
    ("text", "han", "cjk"),
    [("我住在成都", True, True), ("こんにちは", False, True), ("한국어", False, True), ("㐀", True, True), ("hello", False, False)],
)
def test_chinese_characters_are_a_part_of_cjk(text: str, han: bool, cjk: bool) -> None:
    from assistant.memory.text import has_cjk, has_han

    assert has_han(text) is han and has_cjk(text) is cjk

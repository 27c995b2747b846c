"""The change classifier (`memory/changes.py`): its examples, and what it makes of messages it
was not fitted on."""

from __future__ import annotations

import pytest

from assistant.memory.changes import change_likelihood, examples
from assistant.memory.update import _CHANGE_LIKELY


def test_the_examples_hold_both_labels_in_both_scripts() -> None:
    pairs = examples()
    assert len(pairs) > 2000
    assert all(text.strip() for text, _ in pairs)
    changes = [t for t, c in pairs if c]
    assert 0.2 < len(changes) / len(pairs) < 0.4
    assert any("\u4e00" <= ch <= "\u9fff" for t in changes for ch in t)
    assert len({t for t, _ in pairs}) == len(pairs)  # each message once


# None of these is among the examples (checked below): they were written for this test. Each
# change beside a plain statement, someone else's change or a hypothetical of the same part of
# life.
PAIRS = [
    ("week two at the new agency and I already miss my old desk", "I work as a dental hygienist in Bristol"),
    ("gave the keys back to the landlord in Leith this morning, so weird", "my brother just moved to Perth"),
    ("新公司食堂比之前那家好太多了", "要是明年去深圳工作的话 房租大概多少"),
    ("医生说那个降压药可以停了", "我每天早上吃一片降压药"),
    ("终于把那台老雅阁卖掉了", "我开一台老雅阁 十几年了"),
]


@pytest.mark.parametrize(("change", "other"), PAIRS)
def test_a_change_scores_above_what_changes_nothing(change: str, other: str) -> None:
    seen = {t for t, _ in examples()}
    assert change not in seen and other not in seen
    assert change_likelihood(change) > change_likelihood(other)
    assert change_likelihood(other) < _CHANGE_LIKELY  # never taken for a change


@pytest.mark.parametrize("message", ["新公司食堂比之前那家好太多了", "医生说那个降压药可以停了", "终于把那台老雅阁卖掉了"])
def test_a_change_told_without_a_word_of_change_is_taken_for_one(message: str) -> None:
    assert change_likelihood(message) >= _CHANGE_LIKELY


def test_nothing_said_is_no_change() -> None:
    assert change_likelihood("   ") == 0.0

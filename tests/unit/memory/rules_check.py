"""The rule extractors' invariants, checked on every call in the extractor tests."""

from __future__ import annotations

from datetime import datetime

from assistant.memory.extract import extract_rules
from assistant.memory.types import Candidate


def extract_checked(text: str, now: datetime) -> list[Candidate]:
    """`extract_rules`, asserting each candidate's evidence is in the text and its importance in 1–5."""
    found = extract_rules(text, now)
    for c in found:
        assert c.evidence and c.evidence in text, c
        assert 1 <= c.importance <= 5
    return found

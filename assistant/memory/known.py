"""Sensitive values the vault already holds, found again wherever they are said.

A value is recognised the first time by its shape or the words around it (`sensitive.py`).
Said again — by the user in another phrasing ("it's X48810273" with no key word), or repeated
by the assistant in its reply ("Got it: X48810273") — the shape or the key word may be
missing. Every text that is stored (a user message, a reply, a chat summary) is therefore also
searched for the values already in the vault: digits with any separators ("617-555-0148",
"6175550148", "617 555 0148"), other values case-insensitively. The plaintexts are decrypted
once and kept in this process only while the vault is unchanged; they are never logged or
written anywhere.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from assistant.errors import KeyUnavailableError, VaultError
from assistant.memory.sensitive import SensitiveSpan
from assistant.memory.vault import Vault

MIN_CHARS = 4  # shorter values ("PIN 12") would match ordinary text


@dataclass(frozen=True)
class _Known:
    item_id: int
    kind: str
    masked: str
    pattern: re.Pattern[str]


def _pattern(value: str) -> re.Pattern[str] | None:
    compact = value.strip()
    if len(re.sub(r"\W", "", compact)) < MIN_CHARS:
        return None
    digits = re.sub(r"\D", "", compact)
    if len(digits) >= 6 and len(digits) >= 0.6 * len(re.sub(r"\W", "", compact)):
        # digits with whatever separators, and the letters around them as they were
        parts = [re.escape(ch) if not ch.isdigit() else ch for ch in compact if ch.isalnum()]
        body = r"[\s\-./]?".join(parts)
        return re.compile(rf"(?<![0-9A-Za-z]){body}(?![0-9A-Za-z])", re.IGNORECASE)
    return re.compile(rf"(?<![\w]){re.escape(compact)}(?![\w])", re.IGNORECASE)


class KnownValues:
    """Finds the vault's values in a text.

    Args:
        vault: the profile's vault.
    """

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._lock = threading.Lock()
        self._version: tuple[int, int] | None = None
        self._known: list[_Known] = []

    def _current(self) -> list[_Known]:
        items = self.vault.items()
        version = (len(items), max((i.id for i in items), default=0))
        with self._lock:
            if version != self._version:
                known: list[_Known] = []
                for item in items:
                    try:
                        value = self.vault.get(item.id)
                    except KeyUnavailableError:
                        raise
                    except VaultError:
                        continue  # a damaged item holds nothing to look for; reveal reports it
                    pattern = _pattern(value)
                    if pattern is not None:
                        known.append(_Known(item.id, item.kind, item.masked, pattern))
                self._known, self._version = known, version
            return self._known

    def spans(self, text: str) -> list[tuple[SensitiveSpan, int]]:
        """Every occurrence of a vault value in `text`, with the id of its item."""
        found: list[tuple[SensitiveSpan, int]] = []
        for known in self._current():
            for m in known.pattern.finditer(text):
                span = SensitiveSpan(known.kind, m.start(), m.end(), m.group(0), known.masked)
                found.append((span, known.item_id))
        return found


def without_overlaps(spans: list[tuple[SensitiveSpan, int]]) -> list[tuple[SensitiveSpan, int]]:
    """The spans in text order, dropping any that overlaps one before it (first found wins)."""
    out: list[tuple[SensitiveSpan, int]] = []
    for span, item in sorted(spans, key=lambda s: (s[0].start, -(s[0].end - s[0].start))):
        if out and span.start < out[-1][0].end:
            continue
        out.append((span, item))
    return out


__all__ = ["KnownValues", "without_overlaps"]

"""A list of memories as people copy it out of ChatGPT's or Claude's memory settings: one
memory per line, with or without Markdown bullets or numbers; blank lines, headings, rules
and code fences are not memories."""

from __future__ import annotations

import re
from datetime import datetime

from assistant.importers.records import (
    ImportedConversation,
    ImportedTurn,
    ImportRefused,
    ImportSource,
)

MAX_LINE = 2000
_BULLET = re.compile(r"^\s*(?:[-*+•·●▪◦‣–—]\s*(?:\[[ xX]\]\s*)?|\(?\d{1,3}[.)、]\s*|（\d{1,3}）\s*|[一二三四五六七八九十]+、\s*)")
_SKIP = re.compile(r"^\s*(?:#{1,6}\s|#{1,6}$|```|~~~|(?:[-*_=]\s*){3,}$|>\s*$)")


def memory_lines(text: str) -> list[str]:
    """The memories of a pasted list, bullets and numbering stripped, in order, each once."""
    found: dict[str, None] = {}
    for line in text.splitlines():
        if _SKIP.match(line):
            continue
        item = _BULLET.sub("", line, count=1).strip().lstrip(">").strip()
        item = re.sub(r"^\*\*(.+)\*\*$", r"\1", item)  # a whole line in bold
        if item:
            found.setdefault(item[:MAX_LINE], None)
    return list(found)


def parse_memory_list(text: str, now: datetime) -> list[ImportedConversation]:
    """Each memory of the list as a one-turn "conversation" (so each is imported once)."""
    lines = memory_lines(text)
    if not lines:
        raise ImportRefused("The file has no memories in it (only blank lines or headings).",
                            "Put one memory per line, e.g. “- Lives in Lisbon”.")
    return [ImportedConversation(ImportSource.MEMORY_LIST, "", now, (ImportedTurn("user", line, now),)) for line in lines]

"""Bringing history over from other assistants (Qt-free, writes nothing itself).

`load(kind, path, now)` reads and checks an export and returns its conversations;
`Memories.import_history` replays them through the write path. A file is checked whole
before anything is written: a hostile or broken one is refused with the reason.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from assistant.importers.archive import read_export_json, read_text
from assistant.importers.chatgpt import parse_chatgpt
from assistant.importers.claude import parse_claude
from assistant.importers.memory_list import memory_lines, parse_memory_list
from assistant.importers.records import (
    SOURCE_NAMES,
    ImportedConversation,
    ImportedTurn,
    ImportRefused,
    ImportSource,
)

KINDS = ("chatgpt", "claude", "text")

__all__ = [
    "KINDS", "SOURCE_NAMES", "ImportRefused", "ImportSource", "ImportedConversation", "ImportedTurn",
    "load", "memory_lines", "parse_chatgpt", "parse_claude", "parse_memory_list",
]


def load(kind: str, path: Path, now: datetime) -> list[ImportedConversation]:
    """The conversations of the export at `path` ("chatgpt", "claude") or the memories of a
    list ("text"); raises `ImportRefused` with the reason, having written nothing."""
    if kind == "chatgpt":
        return parse_chatgpt(read_export_json(path))
    if kind == "claude":
        return parse_claude(read_export_json(path))
    if kind == "text":
        return parse_memory_list(read_text(path), now)
    raise ImportRefused(f"Unknown kind of import {kind!r}.", f"Use one of: {', '.join(KINDS)}.")

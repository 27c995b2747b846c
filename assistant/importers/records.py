"""What an importer hands to `Memories.import_history`: conversations of plain turns."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum

from assistant.errors import InputError


class ImportSource(StrEnum):
    CHATGPT = "chatgpt"
    CLAUDE = "claude"
    MEMORY_LIST = "list"


SOURCE_NAMES = {ImportSource.CHATGPT: "ChatGPT", ImportSource.CLAUDE: "Claude", ImportSource.MEMORY_LIST: "a memory list"}


class ImportRefused(InputError):
    """A file that is not imported, for a reason the message names; nothing was written."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message, "Nothing was imported. " + (hint or "Check that this is the right file, or export it again."))


@dataclass(frozen=True)
class ImportedTurn:
    role: str  # "user" | "assistant"
    text: str
    at: datetime


@dataclass(frozen=True)
class ImportedConversation:
    """One conversation (or, from a memory list, one memory as a single user turn)."""

    source: ImportSource
    title: str
    started: datetime
    turns: tuple[ImportedTurn, ...] = field(default_factory=tuple)

    @property
    def key(self) -> str:
        """A hash of what is imported: the same conversation in a later export is skipped."""
        if self.source is ImportSource.MEMORY_LIST:  # a line is the same memory whenever it is imported
            body: list[object] = [self.source.value, [t.text for t in self.turns]]
        else:
            body = [self.source.value, self.title, self.started.timestamp(),
                    [(t.role, t.text, t.at.timestamp()) for t in self.turns]]
        return hashlib.sha256(json.dumps(body, ensure_ascii=False).encode("utf-8")).hexdigest()

    @property
    def provenance(self) -> str:
        """What the memory's history says of where it came from."""
        if self.source is ImportSource.MEMORY_LIST:
            return "imported from a memory list"
        title = self.title or "untitled"
        return f"imported from {SOURCE_NAMES[self.source]}, conversation “{title}”, {self.started:%Y-%m-%d}"

    @property
    def user_turns(self) -> int:
        return sum(1 for t in self.turns if t.role == "user")


def from_epoch(value: object, where: str) -> datetime | None:
    """A ChatGPT time (seconds since the epoch, a number or null)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ImportRefused(f"{where}: a time is {type(value).__name__}, not a number.")
    if not 0 <= value < 32503680000:  # before the year 3000
        raise ImportRefused(f"{where}: the time {value} is out of range.")
    return datetime.fromtimestamp(value, UTC)


def from_iso(value: object, where: str) -> datetime | None:
    """A Claude time ("2024-05-01T10:22:03.123456Z", or null)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ImportRefused(f"{where}: a time is {type(value).__name__}, not text.")
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ImportRefused(f"{where}: {value[:40]!r} is not a date and time.") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)

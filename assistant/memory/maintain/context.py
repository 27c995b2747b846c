"""What every maintenance step works on: the profile's parts, the time, and the run's options."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import tzinfo
from pathlib import Path
from typing import Any, Protocol, TypeVar

from assistant.config import Settings
from assistant.memory.db import Database
from assistant.memory.service import MemoryService
from assistant.memory.store import MemoryStore

log = logging.getLogger("mnemo.maintain")

LOCK_NAME = ".maintenance.lock"

# An LLM that condenses several memories into one, grounded in them. It receives the source
# texts (oldest first) and the language ("zh" | "en") and answers a dict following
# SUMMARY_SCHEMA, or None when it cannot.
Summarize = Callable[[list[str], str], "dict[str, Any] | None"]

SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "summary": {
            "type": "string",
            "description": "one or two sentences, only what the sources say",
        },
        "category": {
            "type": "string",
            "enum": ["fact", "preference", "goal", "project", "conclusion", "emotion"],
        },
        "importance": {"type": "integer", "minimum": 1, "maximum": 5},
    },
    "required": ["summary"],
}


class VaultLike(Protocol):
    def delete(self, item_id: int) -> None: ...


class ProfileLike(Protocol):
    """What maintenance needs of an open `assistant.app.Profile`."""

    db: Database
    service: MemoryService
    settings: Settings
    dir: Path
    vault: Any


@dataclass
class MaintenanceParts:
    """The collaborators of a maintenance run, for callers without a Profile (benchmarks).

    Args:
        db: the profile's database.
        service: store + index + embedder, kept in step.
        settings: half-life, archive threshold, retention.
        lock_path: the cross-process lock file (in the profile's data directory).
        vault: deletes vault items of purged memories; None leaves them.
    """

    db: Database
    service: MemoryService
    settings: Settings
    lock_path: Path
    vault: VaultLike | None = None

    @property
    def store(self) -> MemoryStore:
        return self.service.store

    @classmethod
    def of(cls, source: ProfileLike | MaintenanceParts) -> MaintenanceParts:
        if isinstance(source, MaintenanceParts):
            return source
        return cls(source.db, source.service, source.settings, source.dir / LOCK_NAME, source.vault)


@dataclass
class StepContext:
    """One run's shared state, handed to each step in turn.

    `gone` collects the ids earlier steps took (or, in a dry run, would take) out of the
    active set, so a dry run's later steps count as if the earlier ones had happened.
    """

    parts: MaintenanceParts
    now: float
    tz: tzinfo
    dry_run: bool = False
    summarize: Summarize | None = None
    last_success: dict[str, float] = field(default_factory=dict)
    gone: set[int] = field(default_factory=set)

    @property
    def store(self) -> MemoryStore:
        return self.parts.service.store

    @property
    def db(self) -> Database:
        return self.parts.db

    @property
    def profile_id(self) -> str:
        return self.parts.service.profile_id

    def unindex(self, ids: Sequence[int]) -> None:
        """Drop vectors of memories that left the active set (after their commit)."""
        if self.dry_run or not ids:
            return
        try:
            for batch in chunks(ids, 5000):  # within Chroma's largest batch (5,461 here)
                self.parts.service.index.delete(batch)
        except Exception:  # noqa: BLE001 - a stale vector is filtered at read time; reconcile removes it
            log.exception("index delete failed; the reconcile step repairs it")


T = TypeVar("T")


def chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def placeholders(values: Iterable[object]) -> str:
    return ",".join("?" for _ in values)


# Status changes commit in batches: a crash loses at most one batch, which the next run redoes,
# and other threads of the app never wait long for the database lock.
BATCH = 200

"""Plain memory records for tests that judge records without a store (the scoring and audit rules)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from assistant.memory.types import Category, Kind, Memory, Source, Status

AT = datetime.fromisoformat("2026-04-10T09:00:00+08:00")


def memory(memory_id: int, content: str, **changes: Any) -> Memory:
    """An active semantic fact made at `AT`, with `changes` applied (``topic=…``, ``created_at=…``)."""
    record = Memory(
        id=memory_id, profile_id="default", kind=Kind.SEMANTIC, category=Category.FACT, content=content,
        summary=None, slot=None, entities=[], importance=3, confidence=0.8, source=Source.USER_EXPLICIT,
        status=Status.ACTIVE, superseded_by=None, pinned=False, created_at=AT.timestamp(), updated_at=AT.timestamp(),
        last_accessed_at=None, access_count=0, expires_at=None, event_at=AT.timestamp(), session_id=None,
        source_message_id=None,
    )
    return dataclasses.replace(record, **changes)

"""Replaying an imported conversation through the write path (`Memories.import_history`).

The user's turns go through `MemoryWriter.remember` at their original times, as a live chat
would: sensitive values go to the vault, forget requests are not stored, every clause is
judged by the same rules. What it stores is marked with where it came from (an "imported"
event whose detail names the conversation) and, unless the user chose otherwise, put in the
review queue. Conversations are replayed oldest first, and an old statement never replaces
what the user said after it. A line of a memory list is stored as said (its values vaulted
first).

`imported_conversations` (migration 7) keeps a hash of each conversation imported, so a
second import of the same export adds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assistant.clock import to_ts
from assistant.importers.records import ImportedConversation, ImportSource
from assistant.memory.db import Database
from assistant.memory.store import NewMemory
from assistant.memory.types import Action, Category, Source, Status, Turn
from assistant.memory.write import MemoryWriter


@dataclass
class HistoryReport:
    """What an import did: conversations imported, skipped (imported before) and empty,
    the memories it stored, how many wait for review, the forget requests it did not act on."""

    total: int = 0
    conversations: int = 0
    skipped: int = 0
    memory_ids: list[int] = field(default_factory=list)
    in_review: int = 0
    forget_requests: int = 0
    cancelled: bool = False

    @property
    def memories(self) -> int:
        return len(self.memory_ids)

    def as_dict(self) -> dict[str, object]:
        return {"conversations": self.conversations, "skipped": self.skipped, "total": self.total,
                "memories": self.memories, "in_review": self.in_review,
                "forget_requests_ignored": self.forget_requests, "cancelled": self.cancelled, "ids": self.memory_ids}


class ImportLedger:
    """The hashes of what was imported into one profile."""

    def __init__(self, db: Database, profile_id: str) -> None:
        self.db = db
        self.profile_id = profile_id

    def seen(self, key: str) -> bool:
        return self.db.one("SELECT 1 FROM imported_conversations WHERE profile_id = ? AND key = ?",
                           (self.profile_id, key)) is not None

    def record(self, key: str, source: str, at: float, memories: int) -> None:
        self.db.execute("INSERT OR IGNORE INTO imported_conversations (profile_id, key, source, imported_at, memories)"
                        " VALUES (?, ?, ?, ?, ?)", (self.profile_id, key, source, at, memories))


def replay(writer: MemoryWriter, conversation: ImportedConversation, report: HistoryReport, *,
           review: bool, now: float) -> None:
    """Import one conversation (the caller holds the write lock), or skip it if it was."""
    service = writer.service
    ledger = ImportLedger(service.db, service.profile_id)
    if ledger.seen(conversation.key):
        report.skipped += 1
        return
    if conversation.source is ImportSource.MEMORY_LIST:
        ids = [_add_line(writer, conversation, review)]
    else:
        turns = [Turn(t.role, t.text, at=t.at) for t in conversation.turns]
        result = writer.remember(turns, conversation.started)
        ids = list(dict.fromkeys(c.memory_id for c in result.stored if c.memory_id is not None))
        report.forget_requests += len(result.forget_requests)
        _keep_newer(writer, [c.memory_id for c in result.changes if c.action is Action.UPDATE and c.memory_id])
    with service.db.atomic():
        for memory_id in ids:
            if review:
                service.store.set_review(memory_id, True, now)
            service.store.log_event(memory_id, "imported", now, {"origin": conversation.provenance})
        ledger.record(conversation.key, conversation.source.value, now, len(ids))
    report.conversations += 1
    report.memory_ids += ids
    report.in_review += len(ids) if review else 0


def _keep_newer(writer: MemoryWriter, memory_ids: list[int]) -> None:
    """What the user said later stays: a memory an imported one superseded that is newer than
    it ("I live in Denver", told Mnemo this year, over "I moved to Lisbon" from a 2024 chat)
    becomes active again, and the imported one, with the fact or episode tied to it, is
    superseded by it (kept in its history)."""
    service = writer.service
    for memory_id in memory_ids:
        imported = service.store.get(memory_id)
        newer = [m for m in service.store.chain(memory_id)
                 if m.status is Status.SUPERSEDED and m.created_at > imported.created_at]
        for memory in newer:
            service.set_status(memory.id, Status.ACTIVE)
        if newer:
            latest = max(newer, key=lambda m: m.created_at).id
            # the fact distilled from it (or the episode it was distilled from) goes with it
            for stale in [memory_id, *(m.id for m in service.store.linked([memory_id]) if m.created_at <= imported.created_at)]:
                service.set_status(stale, Status.SUPERSEDED, superseded_by=latest)


def _add_line(writer: MemoryWriter, conversation: ImportedConversation, review: bool) -> int:
    """One line of a memory list, stored as said (written by the other assistant, kept by the user)."""
    turn = conversation.turns[0]
    protected = writer.protect(turn.text, turn.at)
    vault_ids = list(dict.fromkeys(v for _span, v in protected.spans if v))
    new = NewMemory(content=protected.text, category=Category.IDENTIFIER if vault_ids else Category.FACT,
                    source=Source.ASSISTANT, review=review, vault_ids=vault_ids)
    return writer.service.add(new, now=to_ts(turn.at)).id

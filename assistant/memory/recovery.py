"""Start-up repairs after a crash: what a killed process can leave half-done, put right.

Every write commits to SQLite in one transaction, but some work follows the commit and a
kill can cut it off:

- the vector index write of an add, restore or edit (MemoryService commits, then indexes):
  a missing or extra vector is found by `reconcile()`, but an edit's old vector under the
  same id is not, and would keep the old wording findable. Memories edited since the index
  was last known to agree are re-embedded; `mark_consistent` records that point at a clean
  close and after each recovery (as a `memory_events` id, which only grows).
- a vault value stored before the memory or message that refers to it
  (`MemoryWriter.protect` runs first), or left behind when its memory's deletion committed
  and the vault delete did not: a ciphertext nothing points at, which no "delete" in the
  app could reach. Such items are deleted.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from assistant.memory.db import Database
from assistant.memory.service import MemoryService
from assistant.memory.types import Status
from assistant.memory.vault import Vault
from assistant.memory.vectors.keeper import RepairProgress

log = logging.getLogger("mnemo.recovery")

CONSISTENT_KEY = "index.consistent_event"
# How a masked text points at the vault item holding its value (MemoryWriter.protect).
_VAULT_REF_RE = re.compile(r"\[vault #(\d+)\]")


@dataclass
class RecoveryReport:
    indexed: int = 0  # active memories the index lacked
    removed: int = 0  # vectors of memories no longer active
    reembedded: int = 0  # edited memories whose vector may have been of the old wording
    vault_orphans: int = 0  # vault items nothing referred to

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


def recover_after_crash(
    service: MemoryService, vault: Vault, progress: RepairProgress | None = None
) -> RecoveryReport:
    """Make the derived state agree with SQLite again (call at start-up, before other work).

    Vectors still valid are kept: only memories missing from the index, and those edited
    since the index last agreed, are embedded (the model is not even loaded when there are
    none), with their progress reported as "repairing the search index".
    """
    db = service.db
    what = "repairing the search index"
    reconciled = service.reconcile(_part(progress, what))
    report = RecoveryReport(indexed=reconciled.indexed, removed=reconciled.removed)
    report.reembedded = _reembed_edited(service, _part(progress, what))
    report.vault_orphans = _delete_orphan_vault_items(db, service.profile_id, vault)
    mark_consistent(db)
    if report.reembedded or report.vault_orphans or report.indexed or report.removed:
        log.warning("repaired after a crash: %s", report.as_dict())
    return report


def mark_consistent(db: Database) -> None:
    """Record that the index agrees with every change logged so far (a clean close, a recovery)."""
    last = int(db.scalar("SELECT COALESCE(MAX(id), 0) FROM memory_events") or 0)
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (CONSISTENT_KEY, str(last)))


def _part(progress: RepairProgress | None, what: str) -> Callable[[int, int], None] | None:
    if progress is None:
        return None
    return lambda done, total: progress(what, done, total)


def _reembed_edited(service: MemoryService, progress: Callable[[int, int], None] | None) -> int:
    db = service.db
    since = int(db.scalar("SELECT value FROM meta WHERE key = ?", (CONSISTENT_KEY,)) or 0)
    rows = db.query(
        "SELECT DISTINCT memory_id FROM memory_events WHERE profile_id = ? AND event = 'updated' AND id > ?",
        (service.profile_id, since),
    )
    edited = service.store.get_many([int(r[0]) for r in rows if r[0] is not None])
    live = sorted((m for m in edited.values() if m.status is Status.ACTIVE), key=lambda m: m.id)
    for start in range(0, len(live), 256):
        chunk = live[start : start + 256]
        vectors = service.embedder.embed([m.content for m in chunk])
        service.index.upsert([m.id for m in chunk], vectors, service.profile_id)
        if progress:
            progress(start + len(chunk), len(live))
    return len(live)


def _delete_orphan_vault_items(db: Database, profile_id: str, vault: Vault) -> int:
    referenced: set[int] = set()
    for row in db.query(
        "SELECT vault_ids FROM memories WHERE profile_id = ? AND vault_ids != '[]'", (profile_id,)
    ):
        referenced.update(int(i) for i in json.loads(row[0]))
    for row in db.query(
        "SELECT content FROM messages WHERE profile_id = ? AND content LIKE '%[vault #%'"
        " UNION ALL SELECT summary FROM sessions WHERE profile_id = ? AND summary LIKE '%[vault #%'",
        (profile_id, profile_id),
    ):
        referenced.update(int(i) for i in _VAULT_REF_RE.findall(row[0]))
    orphans = [item.id for item in vault.items() if item.id not in referenced]
    for item_id in orphans:
        vault.delete(item_id)
    return len(orphans)

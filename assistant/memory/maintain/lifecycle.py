"""Expire, decay and purge: the steps that retire memories by time."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from assistant.memory.cues import who_the_user_is
from assistant.memory.maintain.context import BATCH, StepContext, chunks, log
from assistant.memory.types import Status

DAY = 86400.0
# Vectors leave the index in larger batches than the status changes commit in: Chroma's cost
# is mostly per call (measured: ten deletes of 200 ids 1.4 s, one delete of 2,000 ids 0.3 s),
# which made archiving 50k memories at 100k take most of a minute. Until its batch is
# unindexed, an archived memory's vector is filtered out at read time; a crash in between
# leaves strays that the reconcile step removes.
INDEX_BATCH = 5000


def expire(ctx: StepContext) -> dict[str, int]:
    """Archive active memories whose `expires_at` has passed ("next Wednesday" is over)."""
    rows = ctx.db.query(
        "SELECT id FROM memories WHERE profile_id = ? AND status = 'active'"
        " AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY id",
        (ctx.profile_id, ctx.now),
    )
    ids = [r[0] for r in rows if r[0] not in ctx.gone]
    _archive(ctx, ids, event="expired")
    return {"archived": len(ids)}


def retention(importance: int, access_count: int, idle_days: float, half_life_days: float) -> float:
    """How much of a memory is still "alive", 1.0 when just used, halving every half-life.

    The half-life doubles with each importance step above 3 (halves below), and grows with
    the log of how often the memory was used: trivia fades in weeks, a used or important
    fact lasts many months.
    """
    half_life = half_life_days * 2.0 ** (importance - 3) * (1.0 + math.log1p(max(0, access_count)))
    return float(0.5 ** (max(0.0, idle_days) / half_life))


def decay(ctx: StepContext) -> dict[str, int]:
    """Archive unpinned memories whose retention fell below the threshold (kept, restorable).

    Who the user is does not fade with time: the children's names told a year ago, the job,
    the allergy hold until the user says they changed (the update decision supersedes them)
    or deletes them. Decay retires what was of the moment.
    """
    settings = ctx.parts.settings
    rows = ctx.db.query(
        "SELECT id, importance, access_count, created_at, updated_at, last_accessed_at, slot, topic FROM memories"
        # a plan does not fade before its day: "the wedding is on 13 June" said in February
        " WHERE profile_id = ? AND status = 'active' AND pinned = 0 AND (event_at IS NULL OR event_at <= ?) ORDER BY id",
        (ctx.profile_id, ctx.now),
    )
    pinned = int(
        ctx.db.scalar(
            "SELECT COUNT(*) FROM memories WHERE profile_id = ? AND status = 'active' AND pinned = 1",
            (ctx.profile_id,),
        )
    )
    fading: list[int] = []
    scored = 0
    for row in rows:
        if row["id"] in ctx.gone or who_the_user_is(row["slot"], row["topic"]):
            continue
        scored += 1
        touched = max(row["created_at"], row["updated_at"], row["last_accessed_at"] or 0.0)
        score = retention(
            row["importance"],
            row["access_count"],
            (ctx.now - touched) / DAY,
            settings.decay_half_life_days,
        )
        if score < settings.archive_threshold:
            fading.append(row["id"])
    _archive(ctx, fading, event="archived")
    return {"scored": scored, "archived": len(fading), "pinned_exempt": pinned}


def _archive(ctx: StepContext, ids: Sequence[int], *, event: str) -> None:
    ctx.gone.update(ids)
    if ctx.dry_run:
        return
    for block in chunks(ids, INDEX_BATCH):
        for batch in chunks(block, BATCH):
            with ctx.db.atomic():
                for memory_id in batch:
                    ctx.store.set_status(memory_id, Status.ARCHIVED, ctx.now, event=event)
        ctx.unindex(block)


_RETIRED = ("archived", "superseded", "merged")


def purge(ctx: StepContext) -> dict[str, int]:
    """Hard-delete retired memories past their retention; the audit keeps a content-free tombstone.

    Pinned memories are never purged. Vault items go with the last memory that refers to them.
    """
    cutoff = ctx.now - ctx.parts.settings.retention_days * DAY
    rows = ctx.db.query(
        "SELECT id, status, vault_ids FROM memories WHERE profile_id = ? AND pinned = 0"
        f" AND status IN ({','.join('?' * len(_RETIRED))})"
        " AND COALESCE(status_changed_at, updated_at) <= ? ORDER BY id",
        (ctx.profile_id, *_RETIRED, cutoff),
    )
    counts = {"purged": 0, **{status: 0 for status in _RETIRED}, "vault_items": 0}
    for row in rows:
        counts["purged"] += 1
        counts[row["status"]] += 1
    doomed = {r["id"] for r in rows}
    orphans = _orphaned_vault_items(ctx, doomed, rows)
    counts["vault_items"] = len(orphans)
    if ctx.dry_run or not rows:
        return counts
    ids = [r["id"] for r in rows]
    statuses = {r["id"]: r["status"] for r in rows}
    for block in chunks(ids, INDEX_BATCH):
        for batch in chunks(block, BATCH):
            with ctx.db.atomic():
                for memory_id in batch:
                    vault_ids = ctx.store.delete(memory_id, ctx.now)
                    ctx.store.log_event(
                        memory_id, "purged", ctx.now, {"status": statuses[memory_id]}
                    )
                    for item in vault_ids:
                        if item in orphans and ctx.parts.vault is not None:
                            _delete_vault_item(ctx, item)
        ctx.unindex(block)  # retired memories are not indexed; this only catches strays
    ctx.db.checkpoint()  # deleted pages leave the WAL too
    return counts


def _orphaned_vault_items(ctx: StepContext, doomed: set[int], rows: Sequence[object]) -> set[int]:
    """Vault items referred to by purged memories and by no memory that stays."""
    wanted: set[int] = set()
    for row in rows:
        wanted.update(json.loads(row["vault_ids"]))  # type: ignore[index]
    if not wanted:
        return set()
    kept = ctx.db.query(
        "SELECT id, vault_ids FROM memories WHERE profile_id = ? AND vault_ids != '[]'",
        (ctx.profile_id,),
    )
    for row in kept:
        if row["id"] not in doomed:
            wanted.difference_update(json.loads(row["vault_ids"]))
    return wanted


def _delete_vault_item(ctx: StepContext, item: int) -> None:
    from assistant.errors import NotFoundError

    assert ctx.parts.vault is not None
    try:
        ctx.parts.vault.delete(item)
    except NotFoundError:
        log.debug("vault item %d was already gone", item)

"""Reconcile and compact: the vector index holds exactly the active memories, and space is given back.

Chroma marks deleted vectors instead of dropping them, so after many deletions the collection
is rebuilt (vectors copied from the old one, not re-embedded). SQLite is vacuumed when a good
share of its pages are free, and the WAL is checkpointed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from assistant.memory.maintain.context import StepContext, chunks, log

REBUILD_MIN_REMOVALS = 500
REBUILD_SHARE = 0.25  # of the active count
VACUUM_MIN_FREE_PAGES = 256
VACUUM_FREE_SHARE = 0.2
_REMOVAL_EVENTS = ("superseded", "merged", "archived", "expired", "deleted", "purged")
_META_REBUILT = "maintain.index_rebuilt_at"


def reconcile_and_compact(ctx: StepContext) -> dict[str, int]:
    service = ctx.parts.service
    counts = {"indexed": 0, "removed": 0, "stale_collections": 0, "rebuilt": 0, "vacuumed": 0}
    removals = _removals_since_rebuild(ctx)
    active = ctx.store.active_ids() - ctx.gone
    rebuild = removals >= max(REBUILD_MIN_REMOVALS, REBUILD_SHARE * len(active))
    vacuum = _vacuum_worthwhile(ctx)
    if ctx.dry_run:
        indexed = service.index.ids(ctx.profile_id)
        counts.update(indexed=len(active - indexed), removed=len(indexed - active),
                      stale_collections=len(service.index.other_collections()),
                      rebuilt=int(rebuild), vacuumed=int(vacuum))
        return counts
    if rebuild:
        _rebuild(ctx)
        counts["rebuilt"] = 1
    report = service.reconcile()
    counts.update(report.as_dict())
    if vacuum:
        ctx.db.vacuum()
        counts["vacuumed"] = 1
    else:
        ctx.db.checkpoint()
    counts["index_kib"] = _size(service.index_dir) // 1024
    return counts


def _removals_since_rebuild(ctx: StepContext) -> int:
    since = float(ctx.db.scalar("SELECT value FROM meta WHERE key = ?", (_META_REBUILT,)) or 0.0)
    return int(ctx.db.scalar(
        f"SELECT COUNT(*) FROM memory_events WHERE profile_id = ? AND at > ? AND event IN ({','.join('?' * len(_REMOVAL_EVENTS))})",
        (ctx.profile_id, since, *_REMOVAL_EVENTS),
    ))


def _rebuild(ctx: StepContext) -> None:
    """Recreate the collection with the active memories' vectors, copied from the old one.

    A crash in between leaves vectors missing, which the reconcile that follows (this run's or
    the next one's) embeds again: slower, never wrong.
    """
    service = ctx.parts.service
    index = service.index
    ids = sorted(ctx.store.active_ids())
    kept: dict[int, np.ndarray] = {}
    for batch in chunks(ids, 5000):
        kept.update(index.vectors(list(batch)))
    index.recreate()
    have = [i for i in ids if i in kept]
    for batch in chunks(have, 5000):
        index.upsert(list(batch), np.stack([kept[i] for i in batch]), service.profile_id)
    ctx.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (_META_REBUILT, repr(ctx.now)))
    log.info("index rebuilt: %d vectors copied, %d to embed", len(have), len(ids) - len(have))


def _vacuum_worthwhile(ctx: StepContext) -> bool:
    free = int(ctx.db.scalar("PRAGMA freelist_count") or 0)
    pages = int(ctx.db.scalar("PRAGMA page_count") or 1)
    return free >= VACUUM_MIN_FREE_PAGES and free >= VACUUM_FREE_SHARE * pages


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0

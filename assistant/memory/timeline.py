"""The timeline: what changed about the user and when, read from the audit (`memory_events`).

Events that belong together are one entry: the memories a new statement superseded in one
instant ("I moved to Denver" replaced both "I live in Boston" and "User lives in Boston."),
an import, a night's archive, a bulk delete. Access is not a change and is left out, and so are
plain additions (the list shows those); what another app wrote is shown as its proposal.

Deleted memories keep no text (`MemoryStore.delete` nulls their events' detail), so an entry
of a deletion says only that and why. Events of a memory that no longer exists are left out,
except its deletion.

Undo: a supersession is reverted by making the old memories active again and the new one
(with the fact or episode tied to it) superseded by them, so nothing is lost and the revert is
itself on the timeline; an archive, an expiry or a merge by restoring; an edit by writing the
old wording back. What was deleted cannot come back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from assistant.errors import InputError
from assistant.memory.service import MemoryService
from assistant.memory.store import MemoryStore
from assistant.memory.types import (
    Kind,
    Memory,
    Status,
    TimelineEntry,
    TimelineKind,
    TimelinePage,
)

_SHOWN = ("superseded", "merged", "expired", "archived", "restored", "updated", "deleted",
          "purged", "imported", "added")

# One entry per group: a replacement by one memory, or one command's events of a kind (with
# its reason or origin), in one second (a command writes each memory at its own instant); an
# edit is an entry of its own.
_GROUP = (
    "CASE WHEN e.event IN ('superseded', 'merged') AND json_extract(e.detail, '$.by') IS NOT NULL"
    " THEN e.event || ':' || CAST(e.at AS INTEGER) || ':' || json_extract(e.detail, '$.by')"
    " WHEN e.event = 'updated' THEN 'e' || e.id"
    " ELSE e.event || ':' || CAST(e.at AS INTEGER) || ':' || COALESCE(json_extract(e.detail, '$.reason'),"
    " json_extract(e.detail, '$.origin'), '') END"
)

_QUERY = (
    "SELECT grp, event, MAX(at) AS at, MAX(id) AS last, group_concat(memory_id) AS ids, COUNT(*) AS n,"
    " MAX(json_extract(detail, '$.by')) AS by, MAX(json_extract(detail, '$.reason')) AS reason,"
    " MAX(json_extract(detail, '$.origin')) AS origin, MAX(json_extract(detail, '$.before')) AS before"
    f" FROM (SELECT e.*, {_GROUP} AS grp FROM memory_events AS e"
    f" WHERE e.profile_id = ? AND e.event IN ({','.join('?' * len(_SHOWN))})"
    " AND (e.event != 'updated' OR json_extract(e.detail, '$.before') IS NOT NULL)"
    " AND (e.event != 'added' OR json_extract(e.detail, '$.origin') IS NOT NULL)"
    # a memory that is gone shows only its deletion, and a purge once (it deletes, then logs)
    " AND (e.event IN ('deleted', 'purged') OR EXISTS (SELECT 1 FROM memories AS m WHERE m.id = e.memory_id))"
    " AND NOT (e.event = 'deleted' AND EXISTS (SELECT 1 FROM memory_events AS p WHERE"
    " p.profile_id = e.profile_id AND p.memory_id = e.memory_id AND p.event = 'purged' AND p.at = e.at)))"
    " GROUP BY grp ORDER BY at DESC, last DESC LIMIT ? OFFSET ?"
)

_KINDS = {
    "superseded": TimelineKind.SUPERSEDED, "merged": TimelineKind.MERGED, "expired": TimelineKind.EXPIRED,
    "archived": TimelineKind.ARCHIVED, "restored": TimelineKind.RESTORED, "updated": TimelineKind.EDITED,
    "purged": TimelineKind.PURGED, "imported": TimelineKind.IMPORTED, "added": TimelineKind.PROPOSED,
}
_DELETE_REASONS = {"forget_matching": TimelineKind.FORGOTTEN, "reject": TimelineKind.REJECTED}
_GONE = {TimelineKind.FORGOTTEN, TimelineKind.DELETED, TimelineKind.REJECTED, TimelineKind.PURGED}


@dataclass
class _Group:
    """One row of `_QUERY`."""

    key: str
    event: str
    at: float
    ids: list[int]
    count: int
    by: int | None
    reason: str | None
    origin: str | None
    before: str | None
    last_event: int


def timeline_page(store: MemoryStore, offset: int, limit: int) -> TimelinePage:
    """Entries `offset`..`offset + limit` of the timeline, newest first."""
    offset, limit = max(0, int(offset)), max(1, int(limit))
    rows = store.db.query(_QUERY, (store.profile_id, *_SHOWN, limit + 1, offset))
    groups = [_Group(r["grp"], r["event"], float(r["at"]), _ints(r["ids"]), int(r["n"]),
                     int(r["by"]) if r["by"] is not None else None, r["reason"], r["origin"],
                     r["before"], int(r["last"])) for r in rows[:limit]]
    wanted = {i for g in groups for i in g.ids[:50]} | {g.by for g in groups if g.by is not None}
    memories = store.get_many(sorted(wanted))
    entries = [_entry(store, g, memories) for g in groups]
    return TimelinePage(_without_undo_restores(entries), offset + len(groups), len(rows) > limit)


def _ints(joined: str | None) -> list[int]:
    return [int(x) for x in (joined or "").split(",") if x]


def _entry(store: MemoryStore, group: _Group, memories: dict[int, Memory]) -> TimelineEntry:
    kind = _kind(group)
    if kind in _GONE:
        return TimelineEntry(kind, group.at, group.key, count=group.count, undo_blocked="gone")
    if kind in (TimelineKind.SUPERSEDED, TimelineKind.MERGED):
        return _replacement(store, kind, group, memories)
    if kind is TimelineKind.EDITED:
        return _edit(store, group, memories)
    present = [memories[i] for i in group.ids if i in memories]
    text = _pick(present).content if present else None
    entry = TimelineEntry(kind, group.at, group.key, tuple(group.ids), text, count=group.count,
                          origin=group.origin)
    if kind in (TimelineKind.ARCHIVED, TimelineKind.EXPIRED):
        live = any(m.status is Status.ARCHIVED for m in present)
        return _with_block(entry, "" if live else "changed")
    return entry


def _kind(group: _Group) -> TimelineKind:
    if group.event == "deleted":
        return _DELETE_REASONS.get(group.reason or "", TimelineKind.DELETED)
    return _KINDS[group.event]


def _pick(memories: Sequence[Memory]) -> Memory:
    """The memory whose text stands for a group: a distilled fact reads best, else the first."""
    return next((m for m in memories if m.kind is Kind.SEMANTIC), memories[0])


def _with_block(entry: TimelineEntry, blocked: str) -> TimelineEntry:
    return replace(entry, undo_blocked=blocked)


def _replacement(store: MemoryStore, kind: TimelineKind, group: _Group, memories: dict[int, Memory]) -> TimelineEntry:
    """`before` (the replaced memories) → `after` (the one that took their place)."""
    olds = [memories[i] for i in group.ids if i in memories]
    new = memories.get(group.by) if group.by is not None else None
    before = _pick(olds) if olds else None
    after = new
    if new is not None and before is not None and before.kind is Kind.SEMANTIC and new.kind is Kind.EPISODIC:
        # "User lives in Boston." → "User lives in Denver.", not → "I moved to Denver last week"
        fact = store.db.scalar("SELECT id FROM memories WHERE profile_id = ? AND derived_from = ?"
                               " AND kind = 'semantic' ORDER BY id LIMIT 1", (store.profile_id, new.id))
        if fact is not None:
            after = memories.get(fact) or store.get_many([fact]).get(fact, new)
    ids = tuple(([new.id] if new else []) + [m.id for m in olds])
    entry = TimelineEntry(kind, group.at, group.key, ids, before.content if before else None,
                          after.content if after else None, count=group.count, replaced_by=group.by)
    return _with_block(entry, _replacement_block(kind, group.by, olds, new))


def _replacement_block(kind: TimelineKind, by: int | None, olds: Sequence[Memory], new: Memory | None) -> str:
    status = Status.SUPERSEDED if kind is TimelineKind.SUPERSEDED else Status.MERGED
    if new is None and kind is TimelineKind.SUPERSEDED:
        return "gone"
    if not olds:
        return "gone"
    live = [m for m in olds if m.status is status and m.superseded_by == by]
    if not live or (new is not None and new.status is not Status.ACTIVE and kind is TimelineKind.SUPERSEDED):
        return "changed"
    return ""


def _edit(store: MemoryStore, group: _Group, memories: dict[int, Memory]) -> TimelineEntry:
    """`before` → the wording that followed it (the next edit's `before`, or the current one)."""
    memory_id = group.ids[0]
    memory = memories.get(memory_id)
    later = store.db.scalar(
        "SELECT json_extract(detail, '$.before') FROM memory_events WHERE profile_id = ? AND memory_id = ?"
        " AND id > ? AND event = 'updated' AND json_extract(detail, '$.before') IS NOT NULL ORDER BY id LIMIT 1",
        (store.profile_id, memory_id, group.last_event),
    )
    after = later if later is not None else (memory.content if memory else None)
    blocked = "gone" if memory is None else "changed" if later is not None or memory.content == group.before else ""
    return TimelineEntry(TimelineKind.EDITED, group.at, group.key, (memory_id,), group.before, after,
                         undo_blocked=blocked)


def _without_undo_restores(entries: list[TimelineEntry]) -> list[TimelineEntry]:
    """An undone supersession restores the old memories as it supersedes the new ones: the
    supersession entry says it all, the restore of the same second is left out."""
    replacing = {(int(e.at), e.replaced_by) for e in entries if e.kind is TimelineKind.SUPERSEDED}
    return [e for e in entries if not (
        e.kind is TimelineKind.RESTORED and any((int(e.at), i) in replacing for i in e.memory_ids)
    )]


# -- undo -------------------------------------------------------------------------------------


def undo_entry(service: MemoryService, entry: TimelineEntry) -> list[int]:
    """Revert what `entry` says changed, as it stands now; returns the memories touched.

    Raises:
        InputError: it cannot be undone (deleted, or changed again since).
    """
    store = service.store
    if entry.kind is TimelineKind.SUPERSEDED or entry.kind is TimelineKind.MERGED:
        return _undo_replacement(service, entry)
    if entry.kind is TimelineKind.EDITED:
        return _undo_edit(service, entry)
    if entry.kind in (TimelineKind.ARCHIVED, TimelineKind.EXPIRED):
        archived = [m for m in store.get_many(entry.memory_ids).values() if m.status is Status.ARCHIVED]
        if not archived:
            raise _cannot("changed")
        for memory in archived:
            if entry.kind is TimelineKind.EXPIRED and memory.expires_at is not None:
                service.edit(memory.id, expires_at=None)  # else the next night expires it again
            service.set_status(memory.id, Status.ACTIVE)
        return [m.id for m in archived]
    raise _cannot("gone" if entry.kind in _GONE else "none")


def _undo_replacement(service: MemoryService, entry: TimelineEntry) -> list[int]:
    store = service.store
    by = entry.replaced_by
    found = store.get_many([i for i in entry.memory_ids if i != by] + ([by] if by is not None else []))
    new = found.pop(by, None) if by is not None else None
    olds = list(found.values())
    blocked = _replacement_block(entry.kind, by, olds, new)
    if blocked:
        raise _cannot(blocked)
    status = Status.SUPERSEDED if entry.kind is TimelineKind.SUPERSEDED else Status.MERGED
    live = [m for m in olds if m.status is status and m.superseded_by == by]
    for memory in live:
        service.set_status(memory.id, Status.ACTIVE)
    if entry.kind is TimelineKind.MERGED or new is None:
        return [m.id for m in live]
    # the new statement, and the fact or episode tied to it, step back behind the old one
    primary = next((m for m in live if m.kind is new.kind), live[0])
    restored = {m.id for m in live}
    newer = [new.id] + [m.id for m in store.linked([new.id]) if m.id not in restored]
    for memory_id in newer:
        service.set_status(memory_id, Status.SUPERSEDED, superseded_by=primary.id)
    return [m.id for m in live] + newer


def _undo_edit(service: MemoryService, entry: TimelineEntry) -> list[int]:
    page_entry = _current_edit(service.store, entry)
    if page_entry.undo_blocked or page_entry.before is None:
        raise _cannot(page_entry.undo_blocked or "none")
    service.edit(entry.memory_ids[0], content=page_entry.before)
    return [entry.memory_ids[0]]


def _current_edit(store: MemoryStore, entry: TimelineEntry) -> TimelineEntry:
    """`entry` (an edit) as the audit says now."""
    event_id = int(entry.key[1:])
    row = store.db.one(
        "SELECT memory_id, at, json_extract(detail, '$.before') AS before FROM memory_events"
        " WHERE id = ? AND profile_id = ?", (event_id, store.profile_id),
    )
    if row is None or row["before"] is None:
        return _with_block(entry, "gone")
    group = _Group(entry.key, "updated", float(row["at"]), [int(row["memory_id"])], 1, None, None, None,
                   str(row["before"]), event_id)
    return _edit(store, group, store.get_many([int(row["memory_id"])]))


def _cannot(blocked: str) -> InputError:
    if blocked == "gone":
        return InputError("This change cannot be undone: the memory was deleted, and its text with it.")
    if blocked == "changed":
        return InputError("This change cannot be undone any more: the memory changed again since.",
                          "Look at the newer entries of the timeline, or edit the memory in the list.")
    return InputError("There is nothing to undo in this entry.")


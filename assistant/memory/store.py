"""MemoryStore: the memories of one profile in SQLite (rows, FTS, audit events).

Every statement is scoped by ``profile_id``. The vector index is not touched here; the
service (memory/service.py) keeps it in step after each commit.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import EllipsisType
from typing import Any

from assistant.errors import InputError, NotFoundError
from assistant.memory.db import Database
from assistant.memory.glossary import glosses
from assistant.memory.text import index_text
from assistant.memory.types import Category, Kind, Memory, Source, Status

MAX_CONTENT_CHARS = 4000

_COLUMNS = (
    "id, profile_id, kind, category, content, summary, slot, entities, importance, confidence, "
    "source, status, superseded_by, pinned, review, created_at, updated_at, last_accessed_at, "
    "access_count, expires_at, event_at, session_id, source_message_id, vault_ids, topic, derived_from, "
    "(SELECT group_concat(t.topic, ' ') FROM memory_topics AS t WHERE t.memory_id = memories.id) AS topics"
)


def _row_to_memory(row: sqlite3.Row) -> Memory:
    return Memory(
        id=row["id"],
        profile_id=row["profile_id"],
        kind=Kind(row["kind"]),
        category=Category(row["category"]),
        content=row["content"],
        summary=row["summary"],
        slot=row["slot"],
        entities=json.loads(row["entities"]),
        importance=row["importance"],
        confidence=row["confidence"],
        source=Source(row["source"]),
        status=Status(row["status"]),
        superseded_by=row["superseded_by"],
        pinned=bool(row["pinned"]),
        review=bool(row["review"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        last_accessed_at=row["last_accessed_at"],
        access_count=row["access_count"],
        expires_at=row["expires_at"],
        event_at=row["event_at"],
        session_id=row["session_id"],
        source_message_id=row["source_message_id"],
        vault_ids=json.loads(row["vault_ids"]),
        topic=row["topic"],
        derived_from=row["derived_from"],
        topics=_topics(row["topic"], row["topics"]),
    )


def _topics(primary: str | None, joined: str | None) -> list[str]:
    """The memory's topics, its main one first."""
    rest = sorted(set((joined or "").split()) - {primary})
    return ([primary] if primary else []) + rest


def clean_content(text: str) -> str:
    """Content as stored: control characters removed, whitespace folded, length bounded."""
    if not isinstance(text, str):
        raise InputError("memory content must be text")
    # the per-character pass only when some character is not printable (an import checks
    # 200k contents: str.isprintable is C-speed, the generator is not)
    cleaned = text if text.isprintable() else "".join(ch if ch.isprintable() or ch in "\n\t" else " " for ch in text)
    cleaned = " ".join(cleaned.split())
    if not cleaned:
        raise InputError("memory content is empty", "Write what Mnemo should remember.")
    if len(cleaned) > MAX_CONTENT_CHARS:
        raise InputError(
            f"memory content is {len(cleaned)} characters; the limit is {MAX_CONTENT_CHARS}",
            "Keep one memory to one fact; split long text into several memories.",
        )
    return cleaned


_INSERT = (
    "INSERT INTO memories(profile_id, kind, category, content, summary, slot, entities,"
    " importance, confidence, source, status, pinned, review, created_at, updated_at,"
    " expires_at, event_at, session_id, source_message_id, vault_ids, topic, derived_from)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,'active',?,?,?,?,?,?,?,?,?,?,?)"
)


def _clean_entities(entities: Iterable[object]) -> list[str]:
    return [e for e in dict.fromkeys(str(x).strip() for x in entities) if e][:20]


# What the FTS table holds of a memory; a new value rewrites every row once at open
# (`refresh_keyword_index`). 2: the glossary's words in the entities column.
KEYWORD_INDEX = "2"


def _entity_index(content: str, entities: Sequence[str]) -> str:
    """The FTS entities column: the memory's entities and the other language's words for what
    it names ("十一月想去 Japan" is found by "日本", "他对 nuts 过敏" by "坚果"; glossary.py)."""
    return index_text(" ".join([*entities, glosses(" ".join([content, *entities]))]))


@dataclass
class NewMemory:
    content: str
    category: Category
    kind: Kind = Kind.SEMANTIC
    slot: str | None = None
    entities: Sequence[str] = ()
    importance: int = 3
    confidence: float = 0.8
    source: Source = Source.USER_EXPLICIT
    pinned: bool = False
    review: bool = False
    expires_at: float | None = None
    event_at: float | None = None
    session_id: str | None = None
    source_message_id: int | None = None
    summary: str | None = None
    vault_ids: Sequence[int] = ()
    topic: str | None = None  # the slot family the memory is mainly about (topics.py)
    derived_from: int | None = None  # the episode a semantic fact was distilled from
    topics: Sequence[str] = ()  # the other parts of life it touches
    origin: str | None = None  # who else wrote it ("MCP client Claude Desktop"): its history says


def _added_detail(new: NewMemory) -> dict[str, str]:
    """What the "added" event records of a new memory: its source, and who wrote it if not us."""
    return {"source": new.source.value, **({"origin": new.origin} if new.origin else {})}


class MemoryStore:
    """CRUD and queries over one profile's memories."""

    def __init__(self, db: Database, profile_id: str) -> None:
        self.db = db
        self.profile_id = profile_id
        self._pending_access: dict[int, float] = {}
        self._access_lock = threading.Lock()

    def refresh_keyword_index(self) -> int:
        """Rewrite this profile's FTS rows when what the index holds of a memory changed since
        they were written (KEYWORD_INDEX); how many were rewritten."""
        key = f"keyword_index:{self.profile_id}"
        if self.db.scalar("SELECT value FROM meta WHERE key = ?", (key,)) == KEYWORD_INDEX:
            return 0
        done = 0
        with self.db.atomic():
            while page := self.list(status=None, limit=1000, offset=done, order="id ASC"):
                for memory in page:
                    self._index_fts(memory.id, memory.content, memory.entities)
                done += len(page)
            self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, KEYWORD_INDEX))
        return done

    def ensure_profile(self, now: float) -> None:
        self.db.execute(
            "INSERT OR IGNORE INTO profiles(id, name, created_at) VALUES (?, ?, ?)",
            (self.profile_id, self.profile_id, now),
        )

    # -- writes -------------------------------------------------------------------------

    def add(self, new: NewMemory, now: float) -> Memory:
        content = clean_content(new.content)
        entities = _clean_entities(new.entities)
        with self.db.atomic():
            cur = self.db.execute(_INSERT, self._row(new, content, entities, now))
            memory_id = int(cur.lastrowid or 0)
            self._index_fts(memory_id, content, entities)
            self._set_topics(memory_id, new)
            self.log_event(memory_id, "added", now, _added_detail(new))
        return self.get(memory_id)

    def _set_topics(self, memory_id: int, new: NewMemory) -> None:
        topics = {t for t in (new.topic, *new.topics) if t}
        if topics:
            self.db.executemany(
                "INSERT OR IGNORE INTO memory_topics(memory_id, topic) VALUES (?, ?)",
                [(memory_id, t) for t in sorted(topics)],
            )

    def add_many(self, items: Sequence[tuple[NewMemory, float]]) -> builtins.list[int]:
        """Store many memories in one transaction (imports, benchmarks), each at its own time.

        The same rows, FTS entries and audit events as `add` one by one, without reading each
        memory back. Every content is checked before anything is written.

        Args:
            items: (new memory, time it was said) pairs.

        Returns:
            The new ids, in the order of `items`.
        """
        prepared = [
            (new, clean_content(new.content), _clean_entities(new.entities), at)
            for new, at in items
        ]
        ids: builtins.list[int] = []
        fts: builtins.list[tuple[int, str, str]] = []
        events: builtins.list[tuple[str, int, str, float, str]] = []
        with self.db.atomic():
            for new, content, entities, at in prepared:
                cur = self.db.execute(_INSERT, self._row(new, content, entities, at))
                memory_id = int(cur.lastrowid or 0)
                ids.append(memory_id)
                self._set_topics(memory_id, new)
                fts.append((memory_id, index_text(content), _entity_index(content, entities)))
                detail = json.dumps(_added_detail(new), ensure_ascii=False)
                events.append((self.profile_id, memory_id, "added", at, detail))
            # New rowids: nothing to delete from the FTS table first (unlike `_index_fts`).
            self.db.executemany(
                "INSERT INTO memories_fts(rowid, text, entities) VALUES (?, ?, ?)", fts
            )
            self.db.executemany(
                "INSERT INTO memory_events(profile_id, memory_id, event, at, detail)"
                " VALUES (?, ?, ?, ?, ?)",
                events,
            )
        return ids

    def _row(
        self, new: NewMemory, content: str, entities: Sequence[str], now: float
    ) -> tuple[Any, ...]:
        """The values of `_INSERT` for one new memory said at `now`."""
        return (
            self.profile_id,
            new.kind.value,
            new.category.value,
            content,
            new.summary,
            new.slot,
            json.dumps(list(entities), ensure_ascii=False),
            min(5, max(1, int(new.importance))),
            min(1.0, max(0.0, float(new.confidence))),
            new.source.value,
            int(new.pinned),
            int(new.review),
            now,
            now,
            new.expires_at,
            new.event_at if new.event_at is not None else now,
            new.session_id,
            new.source_message_id,
            json.dumps(list(new.vault_ids)),
            new.topic,
            new.derived_from,
        )

    def _index_fts(self, memory_id: int, content: str, entities: Sequence[str]) -> None:
        self.db.execute("DELETE FROM memories_fts WHERE rowid = ?", (memory_id,))
        self.db.execute(
            "INSERT INTO memories_fts(rowid, text, entities) VALUES (?, ?, ?)",
            (memory_id, index_text(content), _entity_index(content, entities)),
        )

    def edit(
        self,
        memory_id: int,
        now: float,
        *,
        content: str | None = None,
        category: Category | None = None,
        importance: int | None = None,
        expires_at: float | None | EllipsisType = ...,
        entities: Sequence[str] | None = None,
    ) -> Memory:
        """Change fields by hand; the old wording is kept in the memory's history."""
        old = self.get(memory_id)
        fields: dict[str, Any] = {}
        if content is not None:
            fields["content"] = clean_content(content)
        if category is not None:
            fields["category"] = Category(category).value
        if importance is not None:
            if not 1 <= int(importance) <= 5:
                raise InputError(f"importance {importance} is out of range", "Use 1 (trivia) to 5 (essential).")
            fields["importance"] = int(importance)
        if expires_at is not ...:
            fields["expires_at"] = expires_at
        if entities is not None:
            fields["entities"] = json.dumps(list(entities), ensure_ascii=False)
        if not fields:
            return old
        fields["updated_at"] = now
        assignments = ", ".join(f"{name} = ?" for name in fields)
        with self.db.atomic():
            self.db.execute(
                f"UPDATE memories SET {assignments} WHERE id = ? AND profile_id = ?",
                (*fields.values(), memory_id, self.profile_id),
            )
            new = self.get(memory_id)
            self._index_fts(memory_id, new.content, new.entities)
            self.log_event(memory_id, "updated", now, {"before": old.content} if "content" in fields else {})
        return new

    def set_status(self, memory_id: int, status: Status, now: float, *, superseded_by: int | None = None, event: str | None = None) -> None:
        with self.db.atomic():
            cur = self.db.execute(
                "UPDATE memories SET status = ?, superseded_by = ?, status_changed_at = ?, updated_at = ?"
                " WHERE id = ? AND profile_id = ?",
                (status.value, superseded_by, now, now, memory_id, self.profile_id),
            )
            if cur.rowcount == 0:
                raise NotFoundError(f"No memory #{memory_id} in this profile.")
            name = event or {"active": "restored", "superseded": "superseded", "merged": "merged", "archived": "archived"}[status.value]
            self.log_event(memory_id, name, now, {"by": superseded_by} if superseded_by else {})

    def set_pinned(self, memory_id: int, pinned: bool, now: float) -> None:
        with self.db.atomic():
            cur = self.db.execute(
                "UPDATE memories SET pinned = ?, updated_at = ? WHERE id = ? AND profile_id = ?",
                (int(pinned), now, memory_id, self.profile_id),
            )
            if cur.rowcount == 0:
                raise NotFoundError(f"No memory #{memory_id} in this profile.")
            self.log_event(memory_id, "pinned" if pinned else "unpinned", now, {})

    def set_review(self, memory_id: int, review: bool, now: float) -> None:
        self.db.execute(
            "UPDATE memories SET review = ?, updated_at = ? WHERE id = ? AND profile_id = ?",
            (int(review), now, memory_id, self.profile_id),
        )

    def bump(self, memory_id: int, now: float, *, importance: int | None = None) -> None:
        """A repeated statement: refresh recency and raise importance a little."""
        self.db.execute(
            "UPDATE memories SET updated_at = ?, event_at = ?, importance = MIN(5, MAX(importance, ?))"
            " WHERE id = ? AND profile_id = ?",
            (now, now, importance or 1, memory_id, self.profile_id),
        )

    def delete(self, memory_id: int, now: float, *, reason: str | None = None) -> list[int]:
        """Hard-delete a memory, its FTS row and any wording kept in its history.

        Args:
            reason: why, kept in the "deleted" event (the command: "delete", "reject",
                "forget_matching"; the timeline says it), never what.

        Returns the vault item ids it referenced (the caller deletes those too).
        """
        memory = self.get(memory_id)
        with self.db.atomic():
            self.db.execute("DELETE FROM memories_fts WHERE rowid = ?", (memory_id,))
            self.db.execute("UPDATE memories SET superseded_by = NULL WHERE superseded_by = ? AND profile_id = ?", (memory_id, self.profile_id))
            self.db.execute("DELETE FROM memories WHERE id = ? AND profile_id = ?", (memory_id, self.profile_id))
            # The audit keeps that something was deleted, never what.
            self.db.execute("UPDATE memory_events SET detail = NULL WHERE memory_id = ? AND profile_id = ?", (memory_id, self.profile_id))
            self.log_event(memory_id, "deleted", now, {"reason": reason} if reason else None)
        return list(memory.vault_ids)

    def vault_ids_in_use(self, vault_ids: Iterable[int]) -> set[int]:
        """Those of `vault_ids` that a memory of the profile (any status) still refers to."""
        wanted = sorted(set(vault_ids))
        if not wanted:
            return set()
        rows = self.db.query(
            "SELECT DISTINCT CAST(j.value AS INTEGER) FROM memories AS m, json_each(m.vault_ids) AS j"
            f" WHERE m.profile_id = ? AND m.vault_ids != '[]' AND j.value IN ({','.join('?' * len(wanted))})",
            (self.profile_id, *wanted),
        )
        return {int(r[0]) for r in rows}

    def log_event(self, memory_id: int | None, event: str, now: float, detail: dict[str, Any] | None) -> None:
        self.db.execute(
            "INSERT INTO memory_events(profile_id, memory_id, event, at, detail) VALUES (?, ?, ?, ?, ?)",
            (self.profile_id, memory_id, event, now, json.dumps(detail, ensure_ascii=False) if detail else None),
        )

    # -- access stats (kept off the read path) ------------------------------------------

    def note_access(self, ids: Iterable[int], now: float) -> None:
        """Remember that these were injected; written later by `flush_access` in one batch."""
        with self._access_lock:
            for memory_id in ids:
                self._pending_access[memory_id] = now

    def flush_access(self) -> int:
        with self._access_lock:
            pending, self._pending_access = self._pending_access, {}
        if pending:
            with self.db.atomic():
                self.db.executemany(
                    "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ?"
                    " WHERE id = ? AND profile_id = ?",
                    [(at, memory_id, self.profile_id) for memory_id, at in pending.items()],
                )
        return len(pending)

    # -- reads --------------------------------------------------------------------------

    def get(self, memory_id: int) -> Memory:
        row = self.db.one(f"SELECT {_COLUMNS} FROM memories WHERE id = ? AND profile_id = ?", (memory_id, self.profile_id))
        if row is None:
            raise NotFoundError(f"No memory #{memory_id} in this profile.", "List memories with `mnemo memory list`.")
        return _row_to_memory(row)

    def get_many(self, ids: Iterable[int]) -> dict[int, Memory]:
        wanted = list(dict.fromkeys(ids))
        out: dict[int, Memory] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.db.query(
                f"SELECT {_COLUMNS} FROM memories WHERE id IN ({marks}) AND +profile_id = ?", (*chunk, self.profile_id)
            ):
                out[row["id"]] = _row_to_memory(row)
        return out

    def list(
        self,
        *,
        status: Status | None = Status.ACTIVE,
        category: Category | None = None,
        review: bool | None = None,
        limit: int = 100,
        offset: int = 0,
        order: str = "updated_at DESC",
    ) -> builtins.list[Memory]:
        allowed_orders = {
            "updated_at DESC", "created_at DESC", "created_at ASC", "importance DESC", "importance ASC",
            "last_accessed_at DESC", "last_accessed_at ASC", "access_count DESC", "access_count ASC", "id ASC", "id DESC",
        }
        if order not in allowed_orders:
            raise InputError(f"cannot sort by {order!r}", "Use one of: " + ", ".join(sorted(allowed_orders)))
        where, params = self._filters(status, category, review)
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories WHERE {where} ORDER BY {order}, id DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [_row_to_memory(r) for r in rows]

    def count(self, *, status: Status | None = Status.ACTIVE, category: Category | None = None, review: bool | None = None) -> int:
        where, params = self._filters(status, category, review)
        return int(self.db.scalar(f"SELECT COUNT(*) FROM memories WHERE {where}", params))

    def _filters(self, status: Status | None, category: Category | None, review: bool | None) -> tuple[str, tuple[Any, ...]]:
        clauses, params = ["profile_id = ?"], [self.profile_id]
        if status is not None:
            clauses.append("status = ?")
            params.append(Status(status).value)
        if category is not None:
            clauses.append("category = ?")
            params.append(Category(category).value)
        if review is not None:
            clauses.append("review = ?")
            params.append(str(int(review)))
        return " AND ".join(clauses), tuple(params)

    def active_by_slot(self, slot: str) -> builtins.list[Memory]:
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories WHERE profile_id = ? AND slot = ? AND status = 'active'",
            (self.profile_id, slot),
        )
        return [_row_to_memory(r) for r in rows]

    def active_by_slot_prefix(self, prefix: str) -> builtins.list[Memory]:
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories WHERE profile_id = ? AND status = 'active' AND (slot = ? OR slot LIKE ? ESCAPE '\\')",
            (self.profile_id, prefix, prefix.replace("%", "\\%").replace("_", "\\_") + ".%"),
        )
        return [_row_to_memory(r) for r in rows]

    def active_by_slot_prefixes(self, prefixes: Sequence[str], limit: int = 30) -> builtins.list[Memory]:
        """Active memories whose slot is one of `prefixes` or below one (`user.family` → `user.family.son`)."""
        if not prefixes:
            return []
        # A range instead of LIKE so the slot index serves it ("a.b." <= slot < "a.b/").
        clauses = " OR ".join(["slot = ? OR (slot >= ? AND slot < ?)"] * len(prefixes))
        params: builtins.list[Any] = [self.profile_id]
        for prefix in prefixes:
            params += [prefix, prefix + ".", prefix + "/"]
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories WHERE profile_id = ? AND slot IS NOT NULL AND ({clauses})"
            " AND +status = 'active'"
            " ORDER BY importance DESC, updated_at DESC LIMIT ?",
            (*params, limit),
        )
        return [_row_to_memory(r) for r in rows]

    def active_by_topics(self, topics: Sequence[str], limit: int = 30, *, main_only: bool = False) -> builtins.list[Memory]:
        """Active memories about one of `topics` (slot families), newest first.

        Args:
            main_only: only those whose main topic it is (the update decision: "I'm a nurse,
                vegetarian for ten years" is about work first; quitting the job does not end
                the diet).
        """
        if not topics:
            return []
        marks = ",".join("?" * len(topics))
        if main_only:
            where = f"profile_id = ? AND topic IN ({marks})"
        else:
            # `+profile_id`: found through the topic table, not by walking the profile's rows in
            # date order (which SQLite picked for the ORDER BY: 0.8 ms a query at 10k)
            where = f"+profile_id = ? AND id IN (SELECT memory_id FROM memory_topics WHERE topic IN ({marks}))"
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories WHERE {where} AND +status = 'active'"
            " ORDER BY event_at DESC, id DESC LIMIT ?",
            (self.profile_id, *topics, limit),
        )
        return [_row_to_memory(r) for r in rows]

    def from_messages(self, message_ids: Sequence[int]) -> builtins.list[Memory]:
        """Active memories made from the messages `message_ids`."""
        if not message_ids:
            return []
        marks = ",".join("?" * len(message_ids))
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories WHERE source_message_id IN ({marks}) AND profile_id = ? AND +status = 'active'",
            (*message_ids, self.profile_id),
        )
        return [_row_to_memory(r) for r in rows]

    def messages_saying(self, words: str, limit: int = 50) -> builtins.list[int]:
        """The ids of the user's chat messages that contain `words` (case-insensitive for
        ASCII), newest first: what a forget request's target was said in."""
        escaped = words.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.db.query(
            "SELECT id FROM messages WHERE profile_id = ? AND role = 'user' AND content LIKE ? ESCAPE '\\' ORDER BY id DESC LIMIT ?",
            (self.profile_id, f"%{escaped}%", limit),
        )
        return [int(r[0]) for r in rows]

    def siblings(self, memories: Iterable[Memory]) -> builtins.list[Memory]:
        """Active memories made from the same messages as `memories`: by message id, or — for
        those written with no message (`mnemo memory remember`) — stored in the same instant."""
        memories = builtins.list(memories)
        found = self.from_messages(sorted({m.source_message_id for m in memories if m.source_message_id is not None}))
        instants = sorted({m.created_at for m in memories if m.source_message_id is None})
        if instants:
            marks = ",".join("?" * len(instants))
            found += [_row_to_memory(r) for r in self.db.query(
                f"SELECT {_COLUMNS} FROM memories WHERE profile_id = ? AND source_message_id IS NULL"
                # one message gives a few memories; an import or a bulk add shares its instant
                # with thousands, and those are no message's siblings
                f" AND created_at IN ({marks}) AND status = 'active' LIMIT 64",
                (self.profile_id, *instants),
            )]
        return found

    def linked(self, ids: Sequence[int]) -> builtins.list[Memory]:
        """Active memories tied to `ids` by `derived_from`: the episodes they were distilled
        from, and the facts distilled from them (not `ids` themselves)."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories WHERE profile_id = ? AND status = 'active' AND id NOT IN ({marks})"
            f" AND (derived_from IN ({marks}) OR id IN (SELECT derived_from FROM memories WHERE id IN ({marks})))",
            (self.profile_id, *ids, *ids, *ids),
        )
        return [_row_to_memory(r) for r in rows]

    def active_ids(self) -> set[int]:
        return {r[0] for r in self.db.query("SELECT id FROM memories WHERE profile_id = ? AND status = 'active'", (self.profile_id,))}

    def keyword_search(self, match: str, limit: int, *, active_only: bool = True) -> builtins.list[tuple[int, float]]:
        """FTS5 hits as (id, bm25 score, higher is better)."""
        status = "AND m.status = 'active'" if active_only else ""
        rows = self.db.query(
            "SELECT m.id, -bm25(memories_fts, 1.0, 0.6) AS score FROM memories_fts"
            " JOIN memories m ON m.id = memories_fts.rowid"
            f" WHERE memories_fts MATCH ? AND m.profile_id = ? {status}"
            " ORDER BY bm25(memories_fts, 1.0, 0.6) LIMIT ?",
            (match, self.profile_id, limit),
        )
        return [(r[0], float(r[1])) for r in rows]

    def term_hits(self, terms: Sequence[str], ids: Sequence[int]) -> dict[str, set[int]]:
        """For each search term, which of `ids` contain it (in text or entities).

        The FTS table stores our own tokens separated by spaces, so one read of the rows and
        a set lookup per term answers this without a MATCH query per term.
        """
        out: dict[str, set[int]] = {t: set() for t in terms}
        if not ids or not terms:
            return out
        wanted = set(terms)
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for rowid, text, entities in self.db.query(
                f"SELECT rowid, text, entities FROM memories_fts WHERE rowid IN ({marks})", chunk
            ):
                for term in wanted.intersection(f"{text} {entities}".split()):
                    out[term].add(rowid)
        return out

    def doc_freq(self, term: str) -> int:
        """How many memories (of any profile in this file: one file is one profile) hold `term`."""
        return int(self.db.scalar("SELECT doc FROM memories_fts_vocab WHERE term = ?", (term,)) or 0)

    def containing(self, needle: str, limit: int = 20) -> builtins.list[int]:
        """Active memories whose content or entities contain `needle` exactly (identifiers)."""
        pattern = "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self.db.query(
            "SELECT id FROM memories WHERE profile_id = ? AND status = 'active'"
            " AND (content LIKE ? ESCAPE '\\' OR entities LIKE ? ESCAPE '\\') ORDER BY updated_at DESC LIMIT ?",
            (self.profile_id, pattern, pattern, limit),
        )
        return [r[0] for r in rows]

    def in_time_range(self, start: float, end: float, limit: int = 30) -> builtins.list[int]:
        rows = self.db.query(
            "SELECT id FROM memories WHERE profile_id = ? AND status = 'active' AND event_at BETWEEN ? AND ?"
            " ORDER BY importance DESC, event_at DESC LIMIT ?",
            (self.profile_id, start, end, limit),
        )
        return [r[0] for r in rows]

    def upcoming(self, start: float, end: float, limit: int = 10) -> builtins.list[Memory]:
        """Active plans (goal memories) whose date falls between `start` and `end`, or whose
        dated period has begun and not ended ("by the end of this month")."""
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories WHERE profile_id = ? AND status = 'active' AND category = 'goal'"
            " AND (event_at BETWEEN ? AND ? OR (expires_at IS NOT NULL AND event_at < ?))"
            " AND (expires_at IS NULL OR expires_at > ?) ORDER BY event_at LIMIT ?",
            (self.profile_id, start, end, start, start, limit),
        )
        return [_row_to_memory(r) for r in rows]

    def pinned_ids(self) -> builtins.list[int]:
        return [r[0] for r in self.db.query(
            "SELECT id FROM memories WHERE profile_id = ? AND pinned = 1 AND +status = 'active' ORDER BY importance DESC",
            (self.profile_id,),
        )]

    def newest_id(self) -> int:
        """The highest memory id ever written here (a cheap sign that rows were added)."""
        return int(self.db.scalar("SELECT COALESCE(MAX(id), 0) FROM memories") or 0)

    def total(self) -> int:
        return int(self.db.scalar("SELECT COUNT(*) FROM memories WHERE profile_id = ?", (self.profile_id,)))

    def history(self, memory_id: int) -> builtins.list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT event, at, detail FROM memory_events WHERE profile_id = ? AND memory_id = ? ORDER BY id",
            (self.profile_id, memory_id),
        )
        return [{"event": r[0], "at": r[1], "detail": json.loads(r[2]) if r[2] else None} for r in rows]

    def source_message(self, message_id: int) -> dict[str, Any] | None:
        """The chat message a memory came from (None once its chat was deleted)."""
        row = self.db.one(
            "SELECT id, session_id, role, content, created_at FROM messages WHERE id = ? AND profile_id = ?",
            (message_id, self.profile_id),
        )
        return dict(row) if row else None

    def chain(self, memory_id: int) -> builtins.list[Memory]:
        """The memories this one replaced (superseded or merged into it), newest first."""
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories WHERE profile_id = ? AND superseded_by = ? ORDER BY updated_at DESC",
            (self.profile_id, memory_id),
        )
        return [_row_to_memory(r) for r in rows]

"""Sessions and messages: SQLite for normal chats, memory only for temporary ones.

Every message is stored masked (its sensitive values went to the vault first, see
`MemoryWriter.protect`); the FTS row is built from that masked text. A temporary session's
messages never reach the database: they live in this object and vanish with it.
"""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
import threading
from dataclasses import dataclass, replace

from assistant.chat.types import MessageStatus, Session, StoredMessage
from assistant.errors import NotFoundError
from assistant.memory.api import Database, Why, index_text, storable

TEMP_ID_BASE = 10**15
"""Ids of temporary messages start here (they never reach the database)."""

VAULT_REF_RE = re.compile(r"\[vault #(\d+)\]")
"""How a masked text points at the vault item holding the value (see MemoryWriter.protect)."""


@dataclass
class _TempSession:
    session: Session
    messages: list[StoredMessage]
    summary: str = ""
    summary_upto: int = 0


class ConversationStore:
    """The conversation history of one profile (short-term memory)."""

    def __init__(self, db: Database, profile_id: str) -> None:
        self.db = db
        self.profile_id = profile_id
        self._temp: dict[str, _TempSession] = {}
        self._temp_ids = itertools.count(TEMP_ID_BASE)  # far above any row id
        self._lock = threading.RLock()

    # -- sessions -----------------------------------------------------------------------

    def create_session(self, session_id: str, title: str, temporary: bool, now: float) -> Session:
        session = Session(session_id, title, temporary, now, now)
        if temporary:
            with self._lock:
                self._temp[session_id] = _TempSession(session, [])
        else:
            self.db.execute(
                "INSERT INTO sessions(id, profile_id, title, temporary, created_at, updated_at)"
                " VALUES (?, ?, ?, 0, ?, ?)",
                (session_id, self.profile_id, title, now, now),
            )
        return session

    def sessions(self) -> list[Session]:
        rows = self.db.query(
            "SELECT id, title, temporary, created_at, updated_at FROM sessions"
            " WHERE profile_id = ? ORDER BY updated_at DESC, created_at DESC",
            (self.profile_id,),
        )
        stored = [Session(r["id"], r["title"], bool(r["temporary"]), r["created_at"], r["updated_at"]) for r in rows]
        with self._lock:
            temps = [t.session for t in self._temp.values()]
        return sorted(temps + stored, key=lambda s: (s.updated_at, s.created_at), reverse=True)

    def session(self, session_id: str) -> Session:
        with self._lock:
            if session_id in self._temp:
                return self._temp[session_id].session
        row = self.db.one(
            "SELECT id, title, temporary, created_at, updated_at FROM sessions WHERE id = ? AND profile_id = ?",
            (session_id, self.profile_id),
        )
        if row is None:
            raise NotFoundError(f"No chat session {session_id!r} in this profile.")
        return Session(row["id"], row["title"], bool(row["temporary"]), row["created_at"], row["updated_at"])

    def rename(self, session_id: str, title: str, now: float) -> None:
        with self._lock:
            if session_id in self._temp:
                temp = self._temp[session_id]
                temp.session = replace(temp.session, title=title, updated_at=now)
                return
        cur = self.db.execute(
            "UPDATE sessions SET title = ?, updated_at = ? WHERE id = ? AND profile_id = ?",
            (title, now, session_id, self.profile_id),
        )
        if cur.rowcount == 0:
            raise NotFoundError(f"No chat session {session_id!r} in this profile.")

    def delete(self, session_id: str) -> list[int]:
        """Delete a session, its messages and their FTS rows; returns the vault ids they held that
        nothing else refers to any more."""
        with self._lock:
            if self._temp.pop(session_id, None) is not None:
                return []
        self.session(session_id)
        rows = self.db.query(
            "SELECT id, content FROM messages WHERE session_id = ? AND profile_id = ?",
            (session_id, self.profile_id),
        )
        vault_ids = {int(m) for r in rows for m in VAULT_REF_RE.findall(r["content"])}
        with self.db.atomic():
            self.db.executemany("DELETE FROM messages_fts WHERE rowid = ?", [(r["id"],) for r in rows])
            self.db.execute("DELETE FROM messages WHERE session_id = ? AND profile_id = ?", (session_id, self.profile_id))
            self.db.execute("DELETE FROM sessions WHERE id = ? AND profile_id = ?", (session_id, self.profile_id))
        return sorted(vault_ids - self._vault_ids_in_use(vault_ids))

    def _vault_ids_in_use(self, vault_ids: set[int]) -> set[int]:
        """Those of `vault_ids` another chat's message, a chat summary or a memory still refers to
        (the vault keeps one item per value, so a value said in two chats is one item)."""
        if not vault_ids:
            return set()
        marks = ",".join("?" * len(vault_ids))
        rows = self.db.query(
            "SELECT content FROM messages WHERE profile_id = ? AND content LIKE '%[vault #%'"
            " UNION ALL SELECT summary FROM sessions WHERE profile_id = ? AND summary LIKE '%[vault #%'"
            " UNION ALL SELECT '[vault #' || CAST(j.value AS INTEGER) || ']' FROM memories AS m, json_each(m.vault_ids) AS j"
            f" WHERE m.profile_id = ? AND m.vault_ids != '[]' AND CAST(j.value AS INTEGER) IN ({marks})",
            (self.profile_id, self.profile_id, self.profile_id, *sorted(vault_ids)),
        )
        return {int(m) for r in rows for m in VAULT_REF_RE.findall(r[0] or "")} & vault_ids

    # -- messages -----------------------------------------------------------------------

    def add_message(
        self,
        session_id: str,
        role: str,
        content: str,
        now: float,
        *,
        status: MessageStatus = "complete",
        injected_ids: list[int] | None = None,
        injected_why: dict[int, Why] | None = None,
    ) -> StoredMessage:
        """Store one message (already masked) and touch its session; `injected_why` says why
        each injected memory was chosen."""
        content = storable(content)
        injected = list(injected_ids or [])
        why = {i: w for i, w in (injected_why or {}).items() if i in injected}
        with self._lock:
            temp = self._temp.get(session_id)
            if temp is not None:
                message = StoredMessage(next(self._temp_ids), session_id, role, content, status, injected, now, why)
                temp.messages.append(message)
                temp.session = replace(temp.session, updated_at=now)
                return message
        with self.db.atomic():
            cur = self.db.execute(
                "INSERT INTO messages(profile_id, session_id, role, content, status, injected_ids, injected_why,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (self.profile_id, session_id, role, content, status, json.dumps(injected), _why_json(why), now),
            )
            message_id = int(cur.lastrowid or 0)
            if content:
                self.db.execute("INSERT INTO messages_fts(rowid, text) VALUES (?, ?)", (message_id, index_text(content)))
            self.db.execute(
                "UPDATE sessions SET updated_at = ? WHERE id = ? AND profile_id = ?",
                (now, session_id, self.profile_id),
            )
        return StoredMessage(message_id, session_id, role, content, status, injected, now, why)

    def delete_message(self, message_id: int) -> None:
        """Delete one message and its search row (a failed reply that is being asked again)."""
        with self._lock:
            for temp in self._temp.values():
                kept = [m for m in temp.messages if m.id != message_id]
                if len(kept) != len(temp.messages):
                    temp.messages = kept
                    return
        with self.db.atomic():
            self.db.execute("DELETE FROM messages_fts WHERE rowid = ?", (message_id,))
            self.db.execute(
                "DELETE FROM messages WHERE id = ? AND profile_id = ?", (message_id, self.profile_id)
            )

    def messages(self, session_id: str) -> list[StoredMessage]:
        with self._lock:
            if session_id in self._temp:
                return list(self._temp[session_id].messages)
        self.session(session_id)
        rows = self.db.query(
            "SELECT * FROM messages WHERE session_id = ? AND profile_id = ? ORDER BY id",
            (session_id, self.profile_id),
        )
        return [_row_to_message(r) for r in rows]

    def message(self, message_id: int) -> StoredMessage:
        if message_id >= TEMP_ID_BASE:
            with self._lock:
                for temp in self._temp.values():
                    for message in temp.messages:
                        if message.id == message_id:
                            return message
        row = self.db.one("SELECT * FROM messages WHERE id = ? AND profile_id = ?", (message_id, self.profile_id))
        if row is None:
            raise NotFoundError(f"No message #{message_id} in this profile.")
        return _row_to_message(row)

    def pending_extraction(self, session_id: str | None = None) -> list[StoredMessage]:
        """User messages of normal sessions that the LLM extractor has not read yet."""
        sql = "SELECT * FROM messages WHERE profile_id = ? AND role = 'user' AND extracted = 0"
        params: list[object] = [self.profile_id]
        if session_id is not None:
            sql += " AND session_id = ?"
            params.append(session_id)
        return [_row_to_message(r) for r in self.db.query(sql + " ORDER BY id", params)]

    def mark_extracted(self, message_ids: list[int]) -> None:
        self.db.executemany(
            "UPDATE messages SET extracted = 1 WHERE id = ? AND profile_id = ?",
            [(i, self.profile_id) for i in message_ids if i < TEMP_ID_BASE],
        )

    # -- rolling summary ----------------------------------------------------------------

    def summary(self, session_id: str) -> tuple[str, int]:
        """The rolling summary and the id of the last message folded into it."""
        with self._lock:
            if session_id in self._temp:
                temp = self._temp[session_id]
                return temp.summary, temp.summary_upto
        row = self.db.one(
            "SELECT summary, summary_upto FROM sessions WHERE id = ? AND profile_id = ?",
            (session_id, self.profile_id),
        )
        return (row["summary"], int(row["summary_upto"])) if row else ("", 0)

    def set_summary(self, session_id: str, summary: str, upto: int) -> None:
        with self._lock:
            if session_id in self._temp:
                temp = self._temp[session_id]
                temp.summary, temp.summary_upto = summary, upto
                return
        self.db.execute(
            "UPDATE sessions SET summary = ?, summary_upto = ? WHERE id = ? AND profile_id = ?",
            (summary, upto, session_id, self.profile_id),
        )

    def drop_temporary(self) -> None:
        with self._lock:
            self._temp.clear()


def _row_to_message(row: sqlite3.Row) -> StoredMessage:
    return StoredMessage(
        id=int(row["id"]),
        session_id=str(row["session_id"]),
        role=str(row["role"]),
        content=str(row["content"]),
        status=row["status"],
        injected_ids=[int(i) for i in json.loads(row["injected_ids"] or "[]")],
        created_at=float(row["created_at"]),
        injected_why=_why_of_row(row["injected_why"]),
    )


def _why_json(why: dict[int, Why]) -> str | None:
    return json.dumps({str(i): w.to_json() for i, w in why.items()}, ensure_ascii=False) if why else None


def _why_of_row(text: str | None) -> dict[int, Why]:
    """What `_why_json` stored; a damaged value reads as no explanation, never as an error
    (the reply and its memories still open)."""
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[int, Why] = {}
    for key, value in data.items():
        why = Why.from_json(value)
        if why is not None and key.isdigit():
            out[int(key)] = why
    return out

"""What each MCP client may do with the memory, and the log of every call it made.

A client is known by the name its host sends in the MCP `initialize` request
(`clientInfo.name`: "claude-ai", "Jan", "LM Studio"…). The first call of a new name records it
as read-only; the user raises it (`mnemo mcp allow`, the window's Connected apps) or revokes it.
A revoked client keeps its row, so it does not come back read-only by reconnecting.

The rows live in the profile's database (schema migration 6): forget-me erases them with
everything else. The log keeps ids, never memory text or the client's query.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from assistant.errors import InputError
from assistant.memory.api import Database

MAX_NAME_CHARS = 100
UNNAMED = "(unnamed client)"  # a host that sent no clientInfo.name


class Permission(StrEnum):
    REVOKED = "revoked"  # nothing at all
    READ = "read"  # search, list, the profile summary
    PROPOSE = "propose"  # and suggest memories: they land in the review queue
    WRITE = "write"  # and store memories directly

    @property
    def rank(self) -> int:
        return list(Permission).index(self)


class Outcome(StrEnum):
    OK = "ok"
    REFUSED = "refused"  # not allowed, or not possible now (no window to confirm)
    DECLINED = "declined"  # the user said no in the window
    FAILED = "failed"  # bad input, or a storage error


@dataclass(frozen=True)
class Client:
    name: str
    permission: Permission
    first_seen: float
    last_seen: float | None


@dataclass(frozen=True)
class Access:
    """One call: who, which tool, when, how it ended, the memory ids shown or written."""

    id: int
    client: str
    tool: str
    at: float
    outcome: Outcome
    memory_ids: tuple[int, ...]


def client_name(raw: object) -> str:
    """A client's name as recorded: printable, folded, bounded; `UNNAMED` for none."""
    if not isinstance(raw, str):
        return UNNAMED
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in raw).split())[:MAX_NAME_CHARS]
    return text or UNNAMED


class ConsentBook:
    """The `mcp_clients` and `mcp_access` tables of one profile.

    Args:
        db: returns the profile's database at each call (forget-me replaces it).
        profile_id: the profile's id.
        now: the current time, epoch seconds (the profile's clock).
    """

    def __init__(self, db: Callable[[], Database], profile_id: str, now: Callable[[], float]) -> None:
        self._db = db
        self.profile_id = profile_id
        self._now = now

    def permission(self, name: str) -> Permission:
        """What `name` may do; a new name is recorded read-only. Marks it seen now."""
        db, now = self._db(), self._now()
        with db.atomic():
            db.execute(
                "INSERT INTO mcp_clients(profile_id, name, permission, first_seen, last_seen) VALUES (?, ?, 'read', ?, ?)"
                " ON CONFLICT(profile_id, name) DO UPDATE SET last_seen = excluded.last_seen",
                (self.profile_id, name, now, now),
            )
            value = db.scalar("SELECT permission FROM mcp_clients WHERE profile_id = ? AND name = ?", (self.profile_id, name))
        return Permission(value)

    def allow(self, name: str, permission: Permission) -> Client:
        """Let `name` do `permission` (a client not seen yet is recorded ahead of its first call)."""
        name = _checked_name(name)
        db = self._db()
        db.execute(
            "INSERT INTO mcp_clients(profile_id, name, permission, first_seen) VALUES (?, ?, ?, ?)"
            " ON CONFLICT(profile_id, name) DO UPDATE SET permission = excluded.permission",
            (self.profile_id, name, Permission(permission).value, self._now()),
        )
        return self.client(name)

    def revoke(self, name: str) -> Client:
        """`name` may do nothing from now on (its next call is refused)."""
        self.client(_checked_name(name))  # only an app that is known
        return self.allow(name, Permission.REVOKED)

    def client(self, name: str) -> Client:
        row = self._db().one(
            "SELECT name, permission, first_seen, last_seen FROM mcp_clients WHERE profile_id = ? AND name = ?",
            (self.profile_id, name),
        )
        if row is None:
            raise InputError(f"No app called {name!r} has connected.", "See the names with `mnemo mcp clients`.")
        return Client(row[0], Permission(row[1]), row[2], row[3])

    def clients(self) -> list[Client]:
        rows = self._db().query(
            "SELECT name, permission, first_seen, last_seen FROM mcp_clients WHERE profile_id = ?"
            " ORDER BY COALESCE(last_seen, first_seen) DESC, name",
            (self.profile_id,),
        )
        return [Client(r[0], Permission(r[1]), r[2], r[3]) for r in rows]

    def record(self, client: str, tool: str, outcome: Outcome, memory_ids: Sequence[int] = ()) -> None:
        self._db().execute(
            "INSERT INTO mcp_access(profile_id, client, tool, at, outcome, memory_ids) VALUES (?, ?, ?, ?, ?, ?)",
            (self.profile_id, client, tool, self._now(), outcome.value, json.dumps(list(dict.fromkeys(memory_ids)))),
        )

    def log(self, *, limit: int = 200, client: str | None = None) -> list[Access]:
        """The latest calls, newest first (all clients, or one)."""
        where, params = "profile_id = ?", [self.profile_id]
        if client is not None:
            where += " AND client = ?"
            params.append(client)
        rows = self._db().query(
            f"SELECT id, client, tool, at, outcome, memory_ids FROM mcp_access WHERE {where} ORDER BY id DESC LIMIT ?",
            (*params, limit),
        )
        return [Access(r[0], r[1], r[2], r[3], Outcome(r[4]), tuple(json.loads(r[5]))) for r in rows]


def _checked_name(name: str) -> str:
    cleaned = client_name(name)
    if cleaned == UNNAMED and name != UNNAMED:
        raise InputError("The app's name is empty.", "Give the name shown by `mnemo mcp clients`.")
    return cleaned

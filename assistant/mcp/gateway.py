"""The MCP tools' logic: consent first, then `Memories`, masked answers, one log row a call.

Qt-free and synchronous: `server.py` calls it from a worker thread for each request. Every
tool checks what the client may do (`consent.py`), goes through `profile.memories` (the one
memory API), returns memory text with each sensitive value masked and its vault reference
dropped, and records the call. Only memories are read: never chats, so never a temporary one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from assistant.clock import Clock, iso, to_ts
from assistant.errors import InputError, MnemoError
from assistant.mcp.consent import ConsentBook, Outcome, Permission
from assistant.memory.api import (
    MAX_CONTENT_CHARS,
    VAULT_REF,
    Database,
    ForgetPlan,
    Memories,
    why_fields,
    why_of,
)
from assistant.memory.types import Category, Kind, Memory, Status

log = logging.getLogger("mnemo.mcp")
_T = TypeVar("_T")

MAX_QUERY_CHARS = 2000
MAX_K = 20
MAX_LIST = 100
SUMMARY_FACTS = 12

ForgetConfirmer = Callable[[str, ForgetPlan], bool]
"""Asks the user in the window whether client `name` may forget the plan's memories; blocks
until answered (False when the user says no or does not answer in time)."""


class Refused(MnemoError):
    """A call the client may not make, or that cannot be done now; the message says why."""


class GatewayParts(Protocol):
    """What the gateway reads from the profile (`assistant.app.Profile`) at each call."""

    name: str
    memories: Memories
    clock: Clock

    @property
    def db(self) -> Database: ...


@dataclass(frozen=True)
class Answer:
    """A tool's result (JSON-ready) and the memory ids it showed or wrote (for the log)."""

    value: dict[str, Any]
    ids: tuple[int, ...] = ()


def _both(en: str, zh: str) -> str:
    return f"{en}\n{zh}"


class MemoryGateway:
    """The tools for one profile.

    Args:
        parts: the open profile.
        confirm_forget: asks the user in the window; None when no window runs (a forget is
            then refused: it needs the user's yes).
    """

    def __init__(self, parts: GatewayParts, confirm_forget: ForgetConfirmer | None = None) -> None:
        self._parts = parts
        self.confirm_forget = confirm_forget
        self.consent = ConsentBook(lambda: parts.db, parts.name, lambda: to_ts(parts.clock.now()))

    @property
    def _memories(self) -> Memories:
        return self._parts.memories

    def _now(self) -> datetime:
        return self._parts.clock.now()

    # -- the tools ---------------------------------------------------------------------

    def search(self, client: str, query: str, k: int = 5) -> dict[str, Any]:
        """What the chat's read path would use for `query` (pinned first, then recalled), each
        with why it was chosen: `why` in words, `routes`, `relevance`, `threshold`, `score`."""

        def run(_permission: Permission) -> Answer:
            text = _bounded_text(query, MAX_QUERY_CHARS, "query")
            hits = self._memories.recall_hits(text, self._now(), k=_bounded(k, 1, MAX_K, "k"))
            answer = self._listing([h.memory for h in hits])
            for shown, hit in zip(answer.value["memories"], hits, strict=True):
                why = why_fields(why_of(hit, text))
                shown.update(why, why=self._memories.mask_known(why["why"]))
            return answer

        return self._call(client, "search_memories", Permission.READ, run)

    def list_memories(self, client: str, category: str | None = None, limit: int = 20) -> dict[str, Any]:
        """Active memories, most recently changed first (of one category, or all)."""

        def run(_permission: Permission) -> Answer:
            chosen = _category(category)
            found = self._memories.list(status=Status.ACTIVE, category=chosen, limit=_bounded(limit, 1, MAX_LIST, "limit"))
            return self._listing(found)

        return self._call(client, "list_memories", Permission.READ, run)

    def remember(self, client: str, text: str) -> dict[str, Any]:
        """Store `text`: into the review queue for a proposing client, directly for a writing one."""

        def run(permission: Permission) -> Answer:
            review = permission is not Permission.WRITE
            memory = self._memories.add_protected(
                _bounded_text(text, MAX_CONTENT_CHARS, "text"), self._now(), review=review, origin=f"MCP: {client}",
            )
            status = "pending review" if review else "stored"
            note = (
                _both("Stored in the review queue: the user accepts or rejects it in Mnemo.",
                      "已放入待审核队列：用户会在 Mnemo 中接受或拒绝。")
                if review else _both("Stored.", "已记住。")
            )
            return Answer({"id": memory.id, "status": status, "message": note}, (memory.id,))

        return self._call(client, "remember", Permission.PROPOSE, run)

    def forget(self, client: str, query: str) -> dict[str, Any]:
        """Delete what "forget `query`" matches, once the user confirmed it in the window."""

        def run(_permission: Permission) -> Answer:
            plan = self._memories.forget_matching(_bounded_text(query, MAX_QUERY_CHARS, "query"))
            if not plan.matches:
                return Answer({"forgotten": 0, "message": _both("Nothing matches that.", "没有与之相符的记忆。")})
            if self.confirm_forget is None:
                raise Refused(_both(
                    "Forgetting needs the user's confirmation in the Mnemo window, and the window is not open. "
                    "Ask the user to open Mnemo and try again, or to forget it in Mnemo's memory panel.",
                    "删除记忆需要用户在 Mnemo 窗口中确认，而窗口没有打开。请让用户打开 Mnemo 后重试，或在 Mnemo 的记忆面板中删除。",
                ))
            if not self.confirm_forget(client, plan):
                raise _Declined(_both("The user did not confirm: nothing was forgotten.", "用户没有确认：没有删除任何记忆。"))
            self._memories.confirm_forget(plan)
            return Answer({"forgotten": len(plan.ids)}, tuple(plan.ids))

        return self._call(client, "forget", Permission.PROPOSE, run)

    def profile_summary(self, client: str) -> dict[str, Any]:
        """A short summary: how many memories, and the most important facts about the user."""

        def run(_permission: Permission) -> Answer:
            memories = self._memories
            facts = [m for m in memories.list(status=Status.ACTIVE, limit=200, order="importance DESC")
                     if m.kind is Kind.SEMANTIC and not m.review][:SUMMARY_FACTS]
            listing = self._listing(facts)
            value = {"memories": memories.count(), "in_review": memories.count(review=True), "facts": listing.value["memories"]}
            return Answer(value, listing.ids)

        return self._call(client, "profile_summary", Permission.READ, run)

    # -- one path for every call ---------------------------------------------------------

    def _call(self, client: str, tool: str, needs: Permission, run: Callable[[Permission], Answer]) -> dict[str, Any]:
        try:
            permission = self._consent(lambda: self.consent.permission(client))
            if permission.rank < needs.rank:
                raise Refused(_refusal(client, tool, permission, needs))
            answer = run(permission)  # not under the lock: a forget waits for the user's answer
        except _Declined:
            self._consent(lambda: self.consent.record(client, tool, Outcome.DECLINED))
            raise
        except Refused:
            self._consent(lambda: self.consent.record(client, tool, Outcome.REFUSED))
            raise
        except MnemoError:
            self._consent(lambda: self.consent.record(client, tool, Outcome.FAILED))
            raise
        self._consent(lambda: self.consent.record(client, tool, Outcome.OK, answer.ids))
        log.info("mcp %s by a client: %d memories", tool, len(answer.ids))
        return answer.value

    def _consent(self, work: Callable[[], _T]) -> _T:
        """`work` on the consent tables under the write lock: forget-me, which closes and
        replaces the database, never runs in the middle of it."""
        with self._memories.lock:
            return work()

    def _listing(self, found: list[Memory]) -> Answer:
        shown = [self.shown(m) for m in found]
        return Answer({"memories": shown}, tuple(m.id for m in found))

    def shown(self, memory: Memory) -> dict[str, Any]:
        """A memory as another app sees it: masked, no vault reference, no internal fields."""
        text = self._memories.mask_known(VAULT_REF.sub("", memory.content))
        return {
            "id": memory.id, "text": text, "category": memory.category.value,
            "when": iso(memory.event_at or memory.updated_at), "pinned": memory.pinned,
            "in_review": memory.review,
        }


class _Declined(Refused):
    """The user answered no in the window."""


def _refusal(client: str, tool: str, permission: Permission, needs: Permission) -> str:
    if permission is Permission.REVOKED:
        return _both(
            f"Mnemo's user revoked the access of {client!r}: nothing can be read or written.",
            f"Mnemo 的用户已撤销 {client!r} 的访问权限：无法读取或写入任何内容。",
        )
    return _both(
        f"{client!r} may only {permission.value} ({tool} needs {needs.value}). The user can allow more in "
        f"Mnemo's settings (Connected apps) or with `mnemo mcp allow {client!r} {needs.value}`.",
        f"{client!r} 只有“{permission.value}”权限（{tool} 需要“{needs.value}”）。用户可以在 Mnemo 设置的“已连接的应用”中，"
        f"或用 `mnemo mcp allow` 授予更多权限。",
    )


def _bounded(value: object, low: int, high: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(_both(f"{name} must be a whole number from {low} to {high}.", f"{name} 必须是 {low} 到 {high} 之间的整数。"))
    return value


def _bounded_text(value: object, limit: int, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(_both(f"{name} must be non-empty text.", f"{name} 不能为空。"))
    if len(value) > limit:
        raise InputError(_both(f"{name} is longer than {limit} characters.", f"{name} 超过 {limit} 个字符。"))
    return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _category(value: str | None) -> Category | None:
    if value is None or value == "":
        return None
    try:
        return Category(value)
    except ValueError:
        names = ", ".join(c.value for c in Category)
        raise InputError(_both(f"Unknown category {value[:40]!r}; use one of: {names}.", f"未知类别；可用：{names}。")) from None

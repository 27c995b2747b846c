"""The Claude data export: `conversations.json`, a list of conversations (`name`,
`created_at`, `chat_messages`), each message with `sender` ("human" or "assistant"), `text`,
`content` blocks, `created_at` (ISO 8601) and, in newer exports, `parent_message_uuid`: an
edited message leaves another branch, and only the newest one is read. Only text blocks are kept: tool calls, tool
results, thinking and the contents of attached files are not what the user said."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from assistant.importers.records import (
    ImportedConversation,
    ImportedTurn,
    ImportRefused,
    ImportSource,
    from_iso,
)
from assistant.importers.shapes import assemble, each_conversation, expect, optional, require

ROLES = {"human": "user", "user": "user", "assistant": "assistant"}


def parse_claude(data: Any) -> list[ImportedConversation]:
    """Every conversation of a Claude export (refuses the whole file on a wrong shape)."""
    return each_conversation(data, "Claude", _conversation)


def _conversation(raw: dict[str, Any], where: str) -> ImportedConversation:
    require(raw, "chat_messages", where, "Claude", ("mapping", "ChatGPT"))
    title = optional(raw.get("name"), str, f"{where}'s name") or ""
    started = from_iso(raw.get("created_at"), f"{where}'s created_at")
    listed = expect(raw["chat_messages"], list, f"{where}'s chat_messages")
    messages = [(f"{where}, message {m}", expect(item, dict, f"{where}, message {m}")) for m, item in enumerate(listed, 1)]
    return assemble(ImportSource.CLAUDE, title, started, _current_branch(messages, where),
                    lambda item, before: _turn(item[1], item[0], before))


def _current_branch(messages: list[tuple[str, dict[str, Any]]], where: str) -> list[tuple[str, dict[str, Any]]]:
    """The messages from the first to the newest leaf, following `parent_message_uuid` (an
    edited message or a regenerated answer left another branch); in list order when the
    export has no parent links (older exports are flat)."""
    by_id = {m.get("uuid"): (w, m) for w, m in messages if isinstance(m.get("uuid"), str)}
    if not any(isinstance(m.get("parent_message_uuid"), str) for _w, m in messages):
        return messages
    parents = {m.get("parent_message_uuid") for _w, m in messages}
    leaf = next((m.get("uuid") for _w, m in reversed(messages) if m.get("uuid") not in parents), None)
    path: list[tuple[str, dict[str, Any]]] = []
    while leaf in by_id:
        if len(path) > len(messages):
            raise ImportRefused(f"{where}'s messages point back at each other in a loop.")
        path.append(by_id[leaf])
        leaf = by_id[leaf][1].get("parent_message_uuid")
    return path[::-1]


def _turn(message: dict[str, Any], where: str, fallback: datetime | None) -> ImportedTurn | None:
    role = ROLES.get(optional(message.get("sender"), str, f"{where}'s sender") or "")
    if role is None:
        return None
    blocks = optional(message.get("content"), list, f"{where}'s content")
    if blocks:
        parts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        text = "\n".join(p for p in parts if isinstance(p, str)).strip()
    else:
        text = (optional(message.get("text"), str, f"{where}'s text") or "").strip()
    at = from_iso(message.get("created_at"), f"{where}'s created_at") or fallback
    if not text:
        return None
    if at is None:
        raise ImportRefused(f"{where} has no time (created_at).")
    return ImportedTurn(role, text, at)

"""The Claude data export: `conversations.json`, a list of conversations (`name`,
`created_at`, `chat_messages`), each message with `sender` ("human" or "assistant"), `text`,
`content` blocks and `created_at` (ISO 8601). Only text blocks are kept: tool calls, tool
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
    messages = expect(raw["chat_messages"], list, f"{where}'s chat_messages")
    return assemble(ImportSource.CLAUDE, title, started, enumerate(messages, 1),
                    lambda item, before: _turn(expect(item[1], dict, f"{where}, message {item[0]}"),
                                               f"{where}, message {item[0]}", before))


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

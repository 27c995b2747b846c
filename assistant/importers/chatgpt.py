"""The ChatGPT data export: `conversations.json`, a list of conversations whose messages are
a tree (`mapping`: node id -> {parent, children, message}); `current_node` is the leaf of the
branch the user last saw. Edited messages and regenerated answers are other branches: only
the current one is imported. Images, files, code runs, browsing, tool and system messages
(custom instructions included) are skipped; what is kept is text the user or ChatGPT wrote.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from assistant.importers.records import (
    ImportedConversation,
    ImportedTurn,
    ImportRefused,
    ImportSource,
    from_epoch,
)
from assistant.importers.shapes import assemble, each_conversation, expect, optional, require

TEXT_TYPES = frozenset({"text", "multimodal_text"})
ROLES = frozenset({"user", "assistant"})


def parse_chatgpt(data: Any) -> list[ImportedConversation]:
    """Every conversation of a ChatGPT export (refuses the whole file on a wrong shape)."""
    return each_conversation(data, "ChatGPT", _conversation)


def _conversation(raw: dict[str, Any], where: str) -> ImportedConversation:
    require(raw, "mapping", where, "ChatGPT", ("chat_messages", "Claude"))
    title = optional(raw.get("title"), str, f"{where}'s title") or ""
    started = from_epoch(raw.get("create_time"), f"{where}'s create_time")
    mapping = expect(raw["mapping"], dict, f"{where}'s mapping")
    current = optional(raw.get("current_node"), str, f"{where}'s current_node") or _last_leaf(mapping, where)
    return assemble(ImportSource.CHATGPT, title, started, _branch(mapping, current, where),
                    lambda node, before: _turn(node, where, before))


def _branch(mapping: dict[str, Any], leaf: str | None, where: str) -> list[dict[str, Any]]:
    """The nodes from the root to `leaf`, following parents (a cycle is refused)."""
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id = leaf
    while node_id is not None:
        if node_id in seen:
            raise ImportRefused(f"{where}'s message tree loops back on itself.")
        seen.add(node_id)
        if node_id not in mapping:
            break  # a parent outside the export: the branch starts here
        node = expect(mapping[node_id], dict, f"{where}'s node {node_id[:40]}")
        path.append(node)
        node_id = optional(node.get("parent"), str, f"{where}'s node {node_id[:40]} parent")
    return path[::-1]


def _last_leaf(mapping: dict[str, Any], where: str) -> str | None:
    """With no `current_node` (older exports): the newest node without children."""
    best: tuple[float, str] | None = None
    for node_id, node in mapping.items():
        node = expect(node, dict, f"{where}'s node")
        if node.get("children"):
            continue
        message = optional(node.get("message"), dict, f"{where}'s message") or {}
        at = from_epoch(message.get("create_time"), f"{where}'s message time")
        key = (at.timestamp() if at else 0.0, str(node_id))
        best = key if best is None or key > best else best
    return best[1] if best else None


def _turn(node: dict[str, Any], where: str, fallback: datetime | None) -> ImportedTurn | None:
    message = optional(node.get("message"), dict, f"{where}'s message")
    if message is None:
        return None
    author = expect(message.get("author"), dict, f"{where}'s message author")
    role = optional(author.get("role"), str, f"{where}'s message role")
    metadata = optional(message.get("metadata"), dict, f"{where}'s message metadata") or {}
    if role not in ROLES or metadata.get("is_visually_hidden_from_conversation") or message.get("recipient", "all") != "all":
        return None
    content = optional(message.get("content"), dict, f"{where}'s message content") or {}
    if content.get("content_type") not in TEXT_TYPES:
        return None
    parts = expect(content.get("parts", []), list, f"{where}'s message parts")
    text = "\n".join(p for p in parts if isinstance(p, str) and p.strip()).strip()
    at = from_epoch(message.get("create_time"), f"{where}'s message create_time") or fallback
    if not text:
        return None
    if at is None:
        raise ImportRefused(f"{where} has a message with no time, in a conversation with none either.")
    return ImportedTurn(str(role), text, at)

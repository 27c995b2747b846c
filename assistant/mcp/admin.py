"""The consent commands (`mnemo mcp clients|allow|revoke|log`), as JSON-ready answers.

The same function answers in the process that holds the profile and, through the local
socket, for a `mnemo mcp …` typed while the window (or another `mnemo mcp`) runs.
"""

from __future__ import annotations

from typing import Any

from assistant.clock import iso
from assistant.errors import InputError
from assistant.mcp.consent import Access, Client, Permission
from assistant.mcp.gateway import MemoryGateway

MAX_LOG = 10_000


def client_dict(client: Client) -> dict[str, Any]:
    return {"name": client.name, "permission": client.permission.value,
            "first_seen": iso(client.first_seen), "last_seen": iso(client.last_seen)}


def access_dict(entry: Access) -> dict[str, Any]:
    return {"id": entry.id, "client": entry.client, "tool": entry.tool, "at": iso(entry.at),
            "outcome": entry.outcome.value, "memory_ids": list(entry.memory_ids)}


def admin(gateway: MemoryGateway, request: dict[str, Any]) -> Any:
    """Answer one consent command: {"command": "clients"|"allow"|"revoke"|"log", …}."""
    consent = gateway.consent
    command = request.get("command")
    name = request.get("name")
    if command == "clients":
        return [client_dict(c) for c in consent.clients()]
    if command in ("allow", "revoke") and isinstance(name, str):
        if command == "revoke":
            return client_dict(consent.revoke(name))
        try:
            permission = Permission(str(request.get("permission")))
        except ValueError:
            permission = Permission.REVOKED
        if permission is Permission.REVOKED:
            raise InputError("Allow one of: read, propose, write.", "e.g. `mnemo mcp allow 'Claude Desktop' propose`")
        return client_dict(consent.allow(name, permission))
    if command == "log":
        limit = request.get("limit", 200)
        if not isinstance(limit, int) or not 1 <= limit <= MAX_LOG:
            raise InputError(f"The log's limit is a number from 1 to {MAX_LOG}.")
        client = request.get("client")
        return [access_dict(a) for a in consent.log(limit=limit, client=client if isinstance(client, str) else None)]
    raise InputError(f"Unknown consent command {str(command)[:40]!r}.")

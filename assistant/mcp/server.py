"""The MCP server: the gateway's tools and the profile summary, with the `mcp` SDK.

Each request runs the gateway on a worker thread (a search embeds the question; a forget
waits for the user's answer in the window), so the connection keeps answering pings. The
client is named by what its host sent in `initialize` (`clientInfo.name`).
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from contextvars import ContextVar
from io import TextIOWrapper
from typing import IO, Any

import anyio
import anyio.to_thread
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.stdio import stdio_server

from assistant import __version__
from assistant.errors import MnemoError
from assistant.mcp.consent import UNNAMED, client_name
from assistant.mcp.gateway import MemoryGateway

log = logging.getLogger("mnemo.mcp")

SUMMARY_URI = "mnemo://profile/summary"
INSTRUCTIONS = (
    "Mnemo holds what the user told their assistants: call search_memories with the user's "
    "question before answering something personal. Sensitive values come back masked. "
    "remember and forget work only as far as the user allowed this app in Mnemo."
)


_CLIENT: ContextVar[str] = ContextVar("mcp_client", default=UNNAMED)


class NameTheClient:
    """Middleware: each request knows its client's name (a static resource gets no Context)."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = ctx.session.client_params
        token = _CLIENT.set(client_name(params.client_info.name if params is not None else None))
        try:
            return await call_next(ctx)
        finally:
            _CLIENT.reset(token)


def _client() -> str:
    return _CLIENT.get()


async def _run(work: Callable[[], dict[str, Any]], error: type[Exception]) -> str:
    try:
        value = await anyio.to_thread.run_sync(work)
    except MnemoError as exc:
        raise error(exc.message + (f"\n{exc.hint}" if exc.hint else "")) from None
    except Exception as exc:  # noqa: BLE001 - a bug: reported once, no traceback on the host's log
        from assistant.cli import crash_report

        where = crash_report(exc)
        log.error("an MCP call hit an internal error (%s); details in %s", type(exc).__name__, where)
        raise error("Mnemo hit an internal error; the details (no personal data) were saved for a bug report.") from None
    return json.dumps(value, ensure_ascii=False)


def build_server(gateway: MemoryGateway) -> MCPServer[Any]:
    """An MCP server whose tools go through `gateway`."""
    server: MCPServer[Any] = MCPServer("mnemo", title="Mnemo memory", version=__version__,
                                       instructions=INSTRUCTIONS, middleware=[NameTheClient()])

    @server.tool(description="Find what Mnemo remembers about the user that bears on `query` (the same "
                 "memories Mnemo's own chat would use: pinned ones, then those relevant enough). "
                 "Returns JSON: memories with id, text, category, when, and why each was chosen "
                 "(why: in words; routes; relevance against threshold; score).")
    async def search_memories(query: str, k: int = 5) -> str:
        return await _run(functools.partial(gateway.search, _client(), query, k), ToolError)

    @server.tool(description="List the user's active memories, most recently changed first. `category` "
                 "is one of fact, preference, goal, project, conclusion, emotion, identifier (or empty for all).")
    async def list_memories(category: str | None = None, limit: int = 20) -> str:
        return await _run(functools.partial(gateway.list_memories, _client(), category, limit), ToolError)

    @server.tool(description="Ask Mnemo to remember `text` about the user (one fact, in plain words). "
                 "Depending on what the user allowed this app, it is stored, put in the review queue "
                 "for the user to accept, or refused.")
    async def remember(text: str) -> str:
        return await _run(functools.partial(gateway.remember, _client(), text), ToolError)

    @server.tool(description="Ask Mnemo to forget what matches `query`. The user must confirm it in the "
                 "Mnemo window; refused when the window is closed or the app may not write.")
    async def forget(query: str) -> str:
        return await _run(functools.partial(gateway.forget, _client(), query), ToolError)

    @server.resource(SUMMARY_URI, name="profile_summary", mime_type="application/json",
                     description="How many memories Mnemo holds and the main facts about the user.")
    async def profile_summary() -> str:
        return await _run(functools.partial(gateway.profile_summary, _client()), ResourceError)

    return server


async def serve_stdio(server: MCPServer[Any]) -> None:
    """Serve one host over this process's standard input and output."""
    await server.run_stdio_async()


async def serve_pipe(server: MCPServer[Any], reader: IO[bytes], writer: IO[bytes]) -> None:
    """Serve one host over a byte stream pair (a local socket's, bridged from `mnemo mcp`)."""
    stdin = anyio.wrap_file(TextIOWrapper(reader, encoding="utf-8", errors="replace"))
    stdout = anyio.wrap_file(TextIOWrapper(writer, encoding="utf-8", write_through=True))
    async with stdio_server(stdin, stdout) as (read_stream, write_stream):
        # MCPServer serves only its own stdio; the low-level server is what serves given streams
        low = server._lowlevel_server
        await low.run(read_stream, write_stream, low.create_initialization_options())

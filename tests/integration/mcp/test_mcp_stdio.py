"""`mnemo mcp` driven by the `mcp` SDK's own stdio client, as a host (Claude Desktop, Jan…) does.

Without the window, `mnemo mcp` opens the profile itself; with the window's process running
(offscreen, the real app), it bridges to the window's local socket. Either way: the tools are
listed, a search finds the memory (a sensitive value masked), a read-only client's `remember`
is refused, a proposing client's lands in the review queue, each call is in the access log,
and no process of ours listens on a TCP port.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import Implementation, TextContent

from assistant.app import Profile
from assistant.config import Settings
from assistant.mcp.gateway import MemoryGateway
from assistant.mcp.server import SUMMARY_URI
from assistant.memory.embedder import SentenceTransformerEmbedder
from assistant.memory.types import Turn
from tests.fakes.fake_ollama import FakeOllama

pytestmark = pytest.mark.slow

HOST = "test-host"
TOOLS = {"search_memories", "list_memories", "remember", "forget"}


def mnemo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))


def seed(profile: Profile) -> None:
    now = profile.clock.now()
    profile.memories.remember([Turn("user", "My passport number is X1234567 and I live in Lisbon.", now)], now)
    profile.close()  # `mnemo mcp` (or the window) takes the profile


async def _text(session: ClientSession, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    result = await session.call_tool(tool, arguments)
    text = "".join(c.text for c in result.content if isinstance(c, TextContent))
    return bool(result.is_error), text


def run_session(
    steps: list[tuple[str, dict[str, Any]]], name: str = HOST, summary: bool = False
) -> tuple[set[str], list[tuple[bool, str]], Any]:
    """Start `mnemo mcp`, run `steps` (tool, arguments) in one session; returns the tool
    names, each step's (is_error, text) and, with `summary`, the profile summary resource.
    Checks that `mnemo mcp` listens on no TCP port."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "assistant", "mcp"], env=dict(os.environ))
    out: dict[str, Any] = {}

    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(
            read, write, client_info=Implementation(name=name, version="1.0")
        ) as session:
            await session.initialize()
            out["tools"] = {t.name for t in (await session.list_tools()).tools}
            out["results"] = [await _text(session, tool, args) for tool, args in steps]
            if summary:
                assert [str(r.uri) for r in (await session.list_resources()).resources] == [SUMMARY_URI]
                read = await session.read_resource(SUMMARY_URI)
                out["summary"] = json.loads("".join(getattr(c, "text", "") for c in read.contents))
            servers = [p for p in children(os.getpid()) if b"mcp" in Path(f"/proc/{p}/cmdline").read_bytes()]
            assert servers
            assert not set().union(*(socket_inodes(p) for p in servers)) & listening_inodes()

    anyio.run(main)
    return out["tools"], out["results"], out.get("summary")


def check_the_whole_flow(*, window: bool) -> int:
    """The done-when flow; returns the id of the proposed memory. Without the window, a
    forget is refused (it needs the user's yes there)."""
    tools, results, summary = run_session([
        ("search_memories", {"query": "what is my passport number?", "k": 5}),
        ("remember", {"text": "The user prefers window seats."}),
    ], summary=True)
    assert TOOLS <= tools
    (search_error, search), (refused, refusal) = results
    assert not search_error, search
    found = json.loads(search)["memories"]
    texts = [m["text"] for m in found]
    assert any("passport" in t for t in texts), texts
    assert "X1234567" not in search and "vault #" not in search, search  # masked, no vault reference
    assert any("*****567" in t for t in texts), texts
    assert all({"why", "routes", "relevance", "threshold", "score"} <= set(m) for m in found), found
    assert refused and "may only read" in refusal and "mnemo mcp allow" in refusal, refusal
    assert summary["memories"] >= 2 and "X1234567" not in json.dumps(summary)
    assert any("Lisbon" in fact["text"] for fact in summary["facts"]), summary

    allowed = mnemo("mcp", "allow", HOST, "propose")
    assert allowed.returncode == 0, allowed.stderr
    forget = [] if window else [("forget", {"query": "window seats"})]
    _tools, results, _summary = run_session([
        ("remember", {"text": "The user prefers window seats."}),
        ("list_memories", {"limit": 50}),
        *forget,
    ])
    (error, stored), (_error, listed), *forgot = results
    if forget:
        assert forgot[0][0] and "window is not open" in forgot[0][1], forgot
    assert not error, stored
    proposed = json.loads(stored)
    assert proposed["status"] == "pending review"
    in_review = [m for m in json.loads(listed)["memories"] if m["in_review"]]
    assert [(m["id"], m["text"]) for m in in_review] == [(proposed["id"], "The user prefers window seats.")]

    done = mnemo("mcp", "log", "--json")
    assert done.returncode == 0, done.stderr
    log = list(reversed(json.loads(done.stdout)))
    assert [(e["client"], e["tool"], e["outcome"]) for e in log] == [
        (HOST, "search_memories", "ok"), (HOST, "remember", "refused"), (HOST, "profile_summary", "ok"),
        (HOST, "remember", "ok"), (HOST, "list_memories", "ok"),
    ] + ([] if window else [(HOST, "forget", "refused")])
    assert set(log[0]["memory_ids"]) == {m["id"] for m in found}
    assert log[1]["memory_ids"] == [] and log[3]["memory_ids"] == [proposed["id"]]
    assert set(log[2]["memory_ids"]) == {fact["id"] for fact in summary["facts"]}
    return proposed["id"]


def test_mnemo_mcp_without_the_window(
    profile: Profile, data_dir: Path, settings: Settings, embedder: SentenceTransformerEmbedder
) -> None:
    seed(profile)
    proposed = check_the_whole_flow(window=False)
    assert not (data_dir / "profiles" / "default" / "mcp.sock").exists()  # gone with the server
    with Profile(data_dir, "default", settings, embedder=embedder) as again:
        history = again.memories.details(proposed).history
        assert history[0]["event"] == "added" and history[0]["detail"]["origin"] == f"MCP: {HOST}"
        assert [c.permission.value for c in MemoryGateway(again).consent.clients()] == ["propose"]
        assert again.memories.get(proposed).review


def listening_inodes() -> set[str]:
    """Inodes of every listening TCP socket on the machine (IPv4 and IPv6)."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as handle:
            next(handle)
            for line in handle:
                fields = line.split()
                if fields[3] == "0A":  # TCP_LISTEN
                    found.add(fields[9])
    return found


def socket_inodes(pid: int) -> set[str]:
    """Inodes of the sockets process `pid` and its children hold."""
    inodes: set[str] = set()
    for proc in [pid, *children(pid)]:
        try:
            for fd in os.listdir(f"/proc/{proc}/fd"):
                try:
                    target = os.readlink(f"/proc/{proc}/fd/{fd}")
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    return inodes


def children(pid: int) -> list[int]:
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found += [int(entry), *children(int(entry))]
            except OSError:
                continue
    return found


@contextmanager
def running_window(fake_ollama: FakeOllama) -> Iterator[subprocess.Popen[str]]:
    """The real app, offscreen, on the test's data directory (the profile must be free)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", OLLAMA_HOST=fake_ollama.host)
    app = subprocess.Popen([sys.executable, "-m", "assistant", "gui"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        yield app
    finally:
        app.terminate()
        try:
            app.communicate(timeout=120)
        finally:
            if app.poll() is None:
                app.kill()
                app.wait()


def test_mnemo_mcp_bridges_to_the_running_window(profile: Profile, data_dir: Path, fake_ollama: FakeOllama) -> None:
    seed(profile)
    sock = data_dir / "profiles" / "default" / "mcp.sock"
    with running_window(fake_ollama) as window:
        anyio.run(_until, sock.exists)  # the window opened the profile and serves its socket
        assert oct(sock.stat().st_mode & 0o777) == "0o600"
        assert oct(sock.parent.stat().st_mode & 0o777) == "0o700"
        check_the_whole_flow(window=True)
        assert window.poll() is None
        assert not socket_inodes(window.pid) & listening_inodes(), "the window listens on a TCP port"
    assert not sock.exists()  # the window closed: the socket went with it


async def _until(condition: Any, timeout: float = 120) -> None:
    with anyio.fail_after(timeout):
        while not condition():
            await anyio.sleep(0.1)

"""`mnemo mcp`: let other apps (Claude Desktop, Jan, LM Studio…) use this memory over MCP.

`mnemo mcp` with no action is the server an MCP host starts (stdio). When the window or
another `mnemo mcp` holds the profile, it bridges to that process's local socket; otherwise
it opens the profile itself (taking its lock: a window started meanwhile says the profile is
in use, with Retry) and serves the socket in turn. `clients`, `allow`, `revoke` and `log`
manage what each app may do, in whichever process holds the profile.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from assistant.cli.common import bounded_int, clean_arg, print_json, profile_from_env
from assistant.errors import MnemoError, ProfileLockedError

WAIT_FOR_PROFILE_S = 30.0  # a window that is starting holds the lock before it serves
RETRY_S = 0.25


def _path() -> Any:
    from assistant.app import profile_dir
    from assistant.config import data_dir, profile_name
    from assistant.mcp.local import socket_path

    return socket_path(profile_dir(data_dir(), profile_name()))


def cmd_serve(_args: argparse.Namespace) -> int:
    from assistant.mcp.local import bridge, connect

    deadline = time.monotonic() + WAIT_FOR_PROFILE_S
    while True:
        sock = connect(_path())
        if sock is not None:
            with sock:
                bridge(sock, sys.stdin.fileno(), sys.stdout.fileno())
            return 0
        try:
            return _serve_here()
        except ProfileLockedError:
            if time.monotonic() > deadline:
                raise
        time.sleep(RETRY_S)  # the holder is starting (or is a short `mnemo memory …`)


def _serve_here() -> int:
    import anyio

    from assistant.mcp.gateway import MemoryGateway
    from assistant.mcp.local import LocalServer, socket_path
    from assistant.mcp.server import build_server, serve_stdio

    with profile_from_env() as profile:
        gateway = MemoryGateway(profile)  # no window: a forget is refused
        local = LocalServer(gateway, socket_path(profile.dir))
        try:
            local.start()
        except MnemoError as exc:
            print(f"warning: {exc.message} Other `mnemo mcp` processes will wait for this one.", file=sys.stderr)
        try:
            anyio.run(serve_stdio, build_server(gateway))
        finally:
            local.close()
    return 0


def _admin(request: dict[str, Any]) -> Any:
    from assistant.mcp.admin import admin
    from assistant.mcp.gateway import MemoryGateway
    from assistant.mcp.local import NotServing, ask

    try:
        return ask(_path(), request)
    except NotServing:
        pass
    with profile_from_env() as profile:
        return admin(MemoryGateway(profile), request)


def cmd_clients(args: argparse.Namespace) -> int:
    clients = _admin({"command": "clients"})
    if args.json:
        print_json(clients)
    elif not clients:
        print("No app has connected yet.")
    else:
        for client in clients:
            print(f"{client['permission']:<8} {client['name']}  (last call {client['last_seen'] or 'never'})")
    return 0


def cmd_allow(args: argparse.Namespace) -> int:
    client = _admin({"command": "allow", "name": clean_arg(args.name), "permission": args.permission})
    print_json(client) if args.json else print(f"{client['name']} may now {client['permission']}.")
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    client = _admin({"command": "revoke", "name": clean_arg(args.name)})
    print_json(client) if args.json else print(f"{client['name']} can no longer use Mnemo's memory.")
    return 0


def cmd_log(args: argparse.Namespace) -> int:
    request: dict[str, Any] = {"command": "log", "limit": args.limit}
    if args.client:
        request["client"] = clean_arg(args.client)
    entries = _admin(request)
    if args.json:
        print_json(entries)
    elif not entries:
        print("No app has used the memory yet.")
    else:
        for entry in entries:
            ids = ",".join(f"#{i}" for i in entry["memory_ids"]) or "-"
            print(f"{entry['at']}  {entry['client']:<20} {entry['tool']:<16} {entry['outcome']:<8} {ids}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    mcp = sub.add_parser("mcp", help="serve this memory to other apps over MCP (stdio), and manage their access")
    mcp.set_defaults(handler=cmd_serve)
    msub = mcp.add_subparsers(dest="mcp_command", metavar="ACTION")

    def add(name: str, handler: Any, help_text: str) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = msub.add_parser(name, help=help_text)
        p.add_argument("--json", action="store_true", help="machine-readable output")
        p.set_defaults(handler=handler)
        return p

    add("clients", cmd_clients, "the apps that connected, and what each may do")
    p = add("allow", cmd_allow, "let an app read, propose (review queue) or write memories")
    p.add_argument("name", help="the app's name, as `mnemo mcp clients` shows it")
    p.add_argument("permission", choices=["read", "propose", "write"])
    p = add("revoke", cmd_revoke, "stop an app from using the memory at all")
    p.add_argument("name")
    p = add("log", cmd_log, "every call an app made: when, which tool, which memory ids")
    p.add_argument("--client", help="only this app's calls")
    p.add_argument("--limit", type=bounded_int(1, 10_000), default=200)

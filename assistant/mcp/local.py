"""The profile's MCP socket: one process serves, every later `mnemo mcp` bridges to it.

Whoever holds the profile (the window, or the first `mnemo mcp` when no window runs) listens
on ``<profile dir>/mcp.sock``: an AF_UNIX socket, mode 0600, in the profile's 0700 folder, so
only its owner can connect; there is no TCP port. A connection starts with one JSON line:

- ``{"mnemo": "mcp"}``: the rest is an MCP session (newline-delimited JSON-RPC), served here
  as if on stdio. `bridge` is the other end: it copies a host's stdio to the socket and back.
- ``{"mnemo": "admin", "command": …}``: one consent command (`mnemo mcp clients|allow|revoke|log`
  while the profile is held), answered with one JSON line.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from assistant.errors import InputError, MnemoError, StorageError
from assistant.mcp.admin import admin
from assistant.mcp.gateway import MemoryGateway
from assistant.mcp.server import build_server, serve_pipe

log = logging.getLogger("mnemo.mcp")

SOCKET_NAME = "mcp.sock"
HELLO_MCP = {"mnemo": "mcp"}
MAX_HELLO = 4096
HELLO_TIMEOUT_S = 10.0
MAX_PATH = 100  # sockaddr_un holds 104–108 bytes, depending on the system


def socket_path(profile_dir: Path) -> Path:
    return profile_dir / SOCKET_NAME


class LocalServer:
    """Serves `gateway` on the profile's socket, a thread per connection.

    Args:
        gateway: the tools, over the open profile.
        path: the socket file (`socket_path`); its folder must be the owner's only.
    """

    def __init__(self, gateway: MemoryGateway, path: Path) -> None:
        self.gateway = gateway
        self.path = path
        self._sock: socket.socket | None = None
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = threading.Event()

    def start(self) -> None:
        """Listen (a socket file left by a crash is replaced: we hold the profile's lock)."""
        if not hasattr(socket, "AF_UNIX") or not hasattr(os, "getuid"):
            raise StorageError("This system has no owner-only local sockets (Unix domain sockets).",
                               "Other apps can use the memory through `mnemo mcp` while the window is closed.")
        where = os.fsencode(self.path)
        if len(where) > MAX_PATH:
            raise StorageError(
                f"The profile folder's path is too long for a local socket ({len(where)} bytes).",
                "Other apps cannot reach Mnemo's memory while the window is open; set MNEMO_DATA_DIR to a shorter path.",
            )
        folder = self.path.parent.stat()
        if stat.S_IMODE(folder.st_mode) & 0o077 or folder.st_uid != os.getuid():
            raise StorageError(f"The profile folder {self.path.parent} can be opened by other users.",
                               "Make it yours only: chmod 700 on it.")
        self.path.unlink(missing_ok=True)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(self.path))
            os.chmod(self.path, 0o600)  # the folder is 0700: nobody else could reach it meanwhile
            sock.listen(8)
        except OSError as exc:
            sock.close()
            raise StorageError(f"Cannot listen on {self.path}: {exc.strerror}", "Check the profile folder's permissions.") from exc
        self._sock = sock
        threading.Thread(target=self._accept, name="mcp-accept", daemon=True).start()

    def close(self) -> None:
        self._closed.set()
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._sock.close()
            self._sock = None
            self.path.unlink(missing_ok=True)
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _accept(self) -> None:
        sock = self._sock
        while sock is not None and not self._closed.is_set():
            try:
                conn, _addr = sock.accept()
            except OSError:
                return  # closed
            with self._lock:
                self._connections.add(conn)
            threading.Thread(target=self._serve, args=(conn,), name="mcp-connection", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn, conn.makefile("rb") as reader, conn.makefile("wb") as writer:
                conn.settimeout(HELLO_TIMEOUT_S)
                hello = _hello(reader.readline(MAX_HELLO))
                conn.settimeout(None)
                if hello == HELLO_MCP:
                    anyio.run(serve_pipe, build_server(self.gateway), reader, writer)
                elif hello.get("mnemo") == "admin":
                    writer.write(_reply(lambda: admin(self.gateway, hello)))
                    writer.flush()
                else:
                    log.info("a connection to the MCP socket said nothing we know")
        except (OSError, ValueError) as exc:
            log.info("an MCP connection ended: %s", type(exc).__name__)
        finally:
            with self._lock:
                self._connections.discard(conn)


def _hello(line: bytes) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _reply(work: Callable[[], Any]) -> bytes:
    try:
        answer: dict[str, Any] = {"ok": True, "result": work()}
    except MnemoError as exc:
        answer = {"ok": False, "error": exc.message, "hint": exc.hint}
    return json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n"


# -- the other end ---------------------------------------------------------------------


def connect(path: Path) -> socket.socket | None:
    """A connection to the process serving this profile, or None when none serves."""
    if not hasattr(socket, "AF_UNIX") or len(os.fsencode(path)) > MAX_PATH or not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        return None  # a file a crash left, or a process that is closing
    return sock


def ask(path: Path, request: dict[str, Any]) -> Any:
    """Run a consent command in the process serving the profile.

    Returns:
        The command's result, or raises the error it answered; `NotServing` when none serves.
    """
    sock = connect(path)
    if sock is None:
        raise NotServing
    with sock, sock.makefile("rb") as reader:
        sock.sendall(json.dumps({**request, "mnemo": "admin"}).encode("utf-8") + b"\n")
        sock.shutdown(socket.SHUT_WR)
        line = reader.readline(1 << 24)
    answer = _hello(line)
    if not answer:
        raise StorageError("Mnemo's running process did not answer.", "Try again, or close Mnemo and retry.")
    if not answer.get("ok"):
        raise InputError(str(answer.get("error", "")), str(answer.get("hint", "")))
    return answer.get("result")


class NotServing(Exception):
    """No process serves the profile's socket."""


def bridge(sock: socket.socket, stdin_fd: int = 0, stdout_fd: int = 1) -> None:
    """Copy an MCP host's stdio to the serving process and back, until either side ends."""
    sock.sendall(json.dumps(HELLO_MCP).encode("utf-8") + b"\n")

    def upstream() -> None:
        try:
            while chunk := os.read(stdin_fd, 65536):
                sock.sendall(chunk)
        except OSError:
            pass
        try:
            sock.shutdown(socket.SHUT_WR)  # the host closed our stdin: the session ends
        except OSError:
            pass

    threading.Thread(target=upstream, name="mcp-bridge-in", daemon=True).start()
    try:
        while chunk := sock.recv(65536):
            os.write(stdout_fd, chunk)
    except OSError:
        pass

"""The profile's MCP socket: owner-only, replaces what a crash left, answers consent commands,
and refuses a folder others can open or a path too long for a socket."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from assistant.app import Profile
from assistant.errors import InputError, StorageError
from assistant.mcp.gateway import MemoryGateway
from assistant.mcp.local import LocalServer, NotServing, ask, connect, socket_path


def test_the_socket_is_the_owners_and_answers_consent_commands(profile: Profile) -> None:
    path = socket_path(profile.dir)
    path.write_bytes(b"")  # what a crash leaves: a file nobody listens on
    assert connect(path) is None
    with pytest.raises(NotServing):
        ask(path, {"command": "clients"})
    server = LocalServer(MemoryGateway(profile), path)
    server.start()
    try:
        mode = path.stat().st_mode
        assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
        assert stat.S_IMODE(profile.dir.stat().st_mode) == 0o700
        assert ask(path, {"command": "allow", "name": "Jan", "permission": "write"})["permission"] == "write"
        assert [c["name"] for c in ask(path, {"command": "clients"})] == ["Jan"]
        with pytest.raises(InputError, match="No app called"):
            ask(path, {"command": "revoke", "name": "Nobody"})
    finally:
        server.close()
    assert not path.exists() and connect(path) is None


def test_a_folder_others_can_open_or_a_long_path_is_refused(profile: Profile, tmp_path: Path) -> None:
    gateway = MemoryGateway(profile)
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    with pytest.raises(StorageError, match="other users"):
        LocalServer(gateway, shared / "mcp.sock").start()
    deep = tmp_path / ("d" * 120)
    deep.mkdir(mode=0o700)
    with pytest.raises(StorageError, match="too long"):
        LocalServer(gateway, deep / "mcp.sock").start()
    assert connect(deep / "mcp.sock") is None

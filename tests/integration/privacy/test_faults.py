"""Faults and hostile input: a second instance, a full disk, a read-only folder, a hostile
import file, a tampered vault value, and no network connection but to the loopback fake."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from assistant.app import Profile
from assistant.errors import ImportFileError, StorageError, VaultError
from assistant.memory.store import NewMemory
from assistant.memory.transfer import export_memories, import_memories
from assistant.memory.types import Category

OPEN_IN_CHILD = """
import sys
from pathlib import Path
from assistant.app import Profile
from assistant.config import Settings
from assistant.errors import ProfileLockedError
from tests.integration.privacy.helpers import TinyEmbedder
try:
    Profile(Path(sys.argv[1]), "default", Settings(), embedder=TinyEmbedder()).close()
except ProfileLockedError as exc:
    print(exc.message)
    sys.exit(3)
"""


def test_a_second_process_on_the_same_data_dir_is_refused(data_dir: Path, tiny_profile: Profile) -> None:
    tiny_profile.service.add(NewMemory("I live in Porto", Category.FACT))
    result = subprocess.run([sys.executable, "-c", OPEN_IN_CHILD, str(data_dir)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 3, result.stderr[-2000:]
    assert "already running" in result.stdout
    assert tiny_profile.db.integrity_ok() and tiny_profile.store.total() == 1


def test_hostile_import_files_are_rejected_with_line_and_reason(tmp_path: Path, tiny_profile: Profile) -> None:
    kept = tiny_profile.service.add(NewMemory("I live in Porto", Category.FACT))
    good = {"id": 1, "content": "I like tea", "category": "preference", "importance": 3}
    cases: dict[str, tuple[list[Any], str]] = {
        "wrong type": ([good, {**good, "id": 2, "content": ["x"]}], "'content' must be text"),
        "duplicate id": ([good, {**good, "content": "other"}], "duplicate id 1"),
        "other profile": ([good, {**good, "id": 2, "profile_id": "someone"}], "another profile"),
        "importance": ([good, {**good, "id": 2, "importance": 99}], "'importance'"),
        "huge": ([good, {**good, "id": 2, "content": "x" * 100_000}], "longer than"),
    }
    for name, (records, reason) in cases.items():
        path = tmp_path / f"{name}.json"
        body = ",\n".join(json.dumps(r) for r in records)
        path.write_text('{"format": "mnemo-export", "version": 1, "profile": "default", "memories": [\n' + body + "\n]}")
        with pytest.raises(ImportFileError) as caught:
            import_memories(tiny_profile.service, tiny_profile.vault, path)
        assert reason in str(caught.value) and caught.value.line == 3, (name, str(caught.value))
        assert [m.id for m in tiny_profile.store.list(status=None)] == [kept.id]


def test_a_tampered_vault_value_fails_alone(tiny_profile: Profile) -> None:
    vault = tiny_profile.vault
    first = vault.put("phone", "13812345678", "138****5678", 1.0)
    second = vault.put("email", "a@example.org", "a***", 1.0)
    blob = bytearray(tiny_profile.db.scalar("SELECT ciphertext FROM vault WHERE id = ?", (first,)))
    blob[0] ^= 0x01
    tiny_profile.db.execute("UPDATE vault SET ciphertext = ? WHERE id = ?", (bytes(blob), first))
    with pytest.raises(VaultError, match="cannot be decrypted"):
        vault.get(first)
    assert vault.get(second) == "a@example.org"
    # a ciphertext copied onto another row fails too (the row id is bound in)
    tiny_profile.db.execute("UPDATE vault SET ciphertext = (SELECT ciphertext FROM vault WHERE id = ?), nonce = (SELECT nonce FROM vault WHERE id = ?) WHERE id = ?", (second, second, first))
    with pytest.raises(VaultError):
        vault.get(first)


def test_disk_full_gives_a_clear_error_and_recovers(tmp_path: Path, settings: Any, tiny: Any, clock: Any) -> None:
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)], capture_output=True, check=False).returncode:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        profile = Profile(mount, "default", settings, embedder=tiny, clock=clock, warn=lambda _t: None)
        ids = []
        with pytest.raises(StorageError) as caught:
            for i in range(10_000):
                ids.append(profile.store.add(NewMemory(f"memory {i} " + "filler " * 150, Category.FACT), 1.0).id)
        assert "disk is full" in str(caught.value).lower()
        assert profile.db.integrity_ok()
        subprocess.run(["mount", "-o", "remount,size=64m", str(mount)], check=True)
        profile.store.add(NewMemory("after the space came back", Category.FACT), 2.0)
        assert profile.store.total() == len(ids) + 1
        profile.close()
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_read_only_data_dir_gives_a_clear_error(tmp_path: Path, settings: Any, tiny: Any, clock: Any) -> None:
    folder = tmp_path / "ro"
    Profile(folder, "default", settings, embedder=tiny, clock=clock, warn=lambda _t: None).close()
    if subprocess.run(["mount", "--bind", "-o", "ro", str(folder), str(folder)], capture_output=True, check=False).returncode:
        pytest.skip("cannot bind-mount read-only here")
    subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=False)
    try:
        with pytest.raises(StorageError) as caught:
            Profile(folder, "default", settings, embedder=tiny, clock=clock, warn=lambda _t: None)
        assert "read-only" in str(caught.value) or "Cannot" in str(caught.value)
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
    reopened = Profile(folder, "default", settings, embedder=tiny, clock=clock, warn=lambda _t: None)
    assert reopened.db.integrity_ok()
    reopened.close()


class NetGuard:
    """Records every connection attempt that is not to loopback, and makes it fail loudly."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.attempts: list[str] = []
        real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo

        def connect(sock: socket.socket, address: Any) -> Any:
            host = address[0] if isinstance(address, tuple) else str(address)
            if sock.family == socket.AF_UNIX or host in ("127.0.0.1", "::1", "localhost"):
                return real_connect(sock, address)
            self.attempts.append(f"connect {address}")
            raise OSError(f"network blocked by test: {address}")

        def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            if host in (None, "127.0.0.1", "::1", "localhost"):
                return real_getaddrinfo(host, *args, **kwargs)
            self.attempts.append(f"getaddrinfo {host}")
            raise socket.gaierror(f"network blocked by test: {host}")

        monkeypatch.setattr(socket.socket, "connect", connect)
        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_no_byte_leaves_the_machine(data_dir: Path, tmp_path: Path, settings: Any, tiny: Any, clock: Any, fake_ollama: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    guard = NetGuard(monkeypatch)
    from assistant.chat.background import BackgroundRunner, ManualTimer
    from assistant.chat.engine import ChatEngine
    from assistant.config import Settings
    from assistant.llm.ollama_backend import OllamaBackend
    from assistant.memory.maintain import run_maintenance

    settings = Settings(embedding_model=settings.embedding_model, ollama_host=fake_ollama.host, chat_model="qwen2.5:7b",
                        request_timeout_s=5.0, connect_timeout_s=2.0)
    profile = Profile(data_dir, "default", settings, embedder=tiny, clock=clock, warn=lambda _t: None)
    try:
        with OllamaBackend(settings, sleep=lambda _s: None) as backend:
            engine = ChatEngine(profile, backend, runner=BackgroundRunner(synchronous=True), idle_timer=ManualTimer(), summarize_with_llm=False)
            session = engine.new_session()
            engine.send(session.id, "Remember that I live in Lisbon and I love green tea.")
            engine.flush_extraction(session.id)
            engine.close()
        run_maintenance(profile, clock.now())
        export_memories(profile.service, profile.vault, tmp_path / "export.json")
        profile.forget_me()
    finally:
        profile.close()
    assert guard.attempts == []

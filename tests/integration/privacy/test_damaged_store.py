"""A damaged or half-missing store: reported or rebuilt, never an internal error, never a
silent fresh start over data that existed."""

from __future__ import annotations

import logging
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assistant.app import RUNNING_MARK, Profile
from assistant.errors import KeyUnavailableError, StorageError, VaultError
from assistant.memory.store import NewMemory
from assistant.memory.types import Category
from assistant.memory.vectors.scrub import INDEX_ASIDE, PENDING_KEY
from tests.integration.privacy.helpers import CountingEmbedder, TinyEmbedder, crash


def _open(data_dir: Path, settings: Any, clock: Any, embedder: Any, **kwargs: Any) -> Profile:
    return Profile(data_dir, "default", settings, embedder=embedder, clock=clock, warn=kwargs.pop("warn", lambda _t: None), **kwargs)


def _with_notes(data_dir: Path, settings: Any, clock: Any, count: int) -> tuple[Profile, CountingEmbedder, list[int]]:
    embedder = CountingEmbedder()
    profile = _open(data_dir, settings, clock, embedder)
    ids = profile.service.add_many([(NewMemory(f"note {i}", Category.FACT), 1.0) for i in range(count)])
    return profile, embedder, ids


def _with_vault_and_index(profile: Profile) -> None:
    item = profile.vault.put("phone", "13812345678", "138****5678", 1.0)
    profile.service.add(NewMemory(f"phone 138****5678 [vault #{item}]", Category.IDENTIFIER, vault_ids=[item]))
    profile.service.add(NewMemory("I live in Porto", Category.FACT))


@pytest.mark.parametrize("damage", ["deleted", "truncated to 0 bytes"])
def test_a_lost_database_beside_an_index_and_keys_is_reported_not_replaced(
    tiny_profile: Profile, open_tiny: Callable[[], Profile], damage: str
) -> None:
    _with_vault_and_index(tiny_profile)
    tiny_profile.close()
    folder = tiny_profile.dir
    database = folder / "mnemo.db"
    if damage == "deleted":
        database.unlink()
    else:
        database.write_bytes(b"")
    with pytest.raises(StorageError) as caught:
        open_tiny()
    text = str(caught.value)
    assert ("missing" in text or "empty" in text) and "Restore" in text, text
    assert database.exists() == (damage != "deleted") and (not database.exists() or database.stat().st_size == 0)
    assert (folder / "index").is_dir() and (folder / "keys" / "kek.key").is_file(), "nothing was replaced"


def test_a_damaged_index_database_is_rebuilt_from_sqlite_with_progress(
    data_dir: Path, settings: Any, clock: Any, tiny_profile: Profile
) -> None:
    ids = tiny_profile.service.add_many(
        [(NewMemory(f"note {i} about the garden", Category.FACT), 1.0) for i in range(40)]
    )
    tiny_profile.close()
    chroma = tiny_profile.dir / "index" / "chroma.sqlite3"
    with open(chroma, "r+b") as handle:  # partly overwritten, as a bad sector or a stray write
        handle.seek(8192)
        handle.write(b"\x5a" * 20_000)
    progress: list[tuple[str, int, int]] = []
    warnings: list[str] = []
    embedder = CountingEmbedder()
    profile = _open(data_dir, settings, clock, embedder, warn=warnings.append,
                    progress=lambda what, done, total: progress.append((what, done, total)))
    try:
        hits = profile.service.index.query(embedder.embed_one("note 7 about the garden"), 3, "default")
        assert hits and hits[0][0] == ids[7]
        added = profile.service.add(NewMemory("a new note after the repair", Category.FACT))
        assert profile.service.index.ids("default") == {*ids, added.id}
        assert any("rebuilt" in w for w in warnings), warnings
        assert progress and progress[-1][1:] == (40, 40), progress
    finally:
        profile.close()


def test_a_crash_repair_reuses_valid_vectors_and_reports_progress(
    data_dir: Path, settings: Any, clock: Any
) -> None:
    profile, embedder, _ids = _with_notes(data_dir, settings, clock, 30)
    profile.store.add(NewMemory("committed, then the process was killed", Category.FACT), 2.0)
    crash(profile)
    embedder.embedded = 0
    progress: list[tuple[str, int, int]] = []
    reopened = _open(data_dir, settings, clock, embedder,
                     progress=lambda what, done, total: progress.append((what, done, total)))
    try:
        assert embedder.embedded == 1, "only the memory the index lacked is embedded"
        assert progress and progress[-1][1:] == (1, 1), progress
        assert reopened.service.index.count() == 31
    finally:
        reopened.close()


class LazyEmbedder(TinyEmbedder):
    """An embedder whose model is not loaded yet; loading it is what a repair must avoid."""

    is_loaded = False

    @property
    def model_name(self) -> str:  # type: ignore[override]
        raise AssertionError("the embedding model was loaded")

    @property
    def vector_space(self) -> str:  # type: ignore[override]
        raise AssertionError("the embedding model was loaded")


def test_a_crash_repair_with_nothing_to_embed_does_not_load_the_model(
    data_dir: Path, settings: Any, clock: Any, tiny_profile: Profile
) -> None:
    tiny_profile.service.add(NewMemory("I live in Porto", Category.FACT))
    crash(tiny_profile)
    reopened = _open(data_dir, settings, clock, LazyEmbedder())
    reopened.close()


def test_an_interrupted_index_scrub_resumes_without_embedding_again(
    data_dir: Path, settings: Any, clock: Any
) -> None:
    profile, embedder, ids = _with_notes(data_dir, settings, clock, 20)
    profile.service.delete(ids[0])
    assert profile.pending_scrub
    # killed inside the scrub, just after it moved the old index aside
    profile.service.vectors.release()
    (profile.dir / "index").rename(profile.dir / INDEX_ASIDE)
    crash(profile)
    embedder.embedded = 0
    reopened = _open(data_dir, settings, clock, embedder)
    try:
        assert embedder.embedded == 0, "the kept vectors come from the old index, not the model"
        assert reopened.service.index.ids("default") == set(ids[1:])
        assert not (reopened.dir / INDEX_ASIDE).exists()
        assert reopened.db.scalar("SELECT value FROM meta WHERE key = ?", (PENDING_KEY,)) is None
    finally:
        reopened.close()


def test_a_profile_closed_on_another_thread_leaves_no_crash_marker(
    data_dir: Path, settings: Any, clock: Any
) -> None:
    """The window opens the profile on a worker and closes it on the GUI thread."""
    opened: list[Profile] = []
    worker = threading.Thread(target=lambda: opened.append(_open(data_dir, settings, clock, TinyEmbedder())))
    worker.start()
    worker.join()
    profile = opened[0]
    assert (profile.dir / RUNNING_MARK).exists()
    profile.close()
    assert not (profile.dir / RUNNING_MARK).exists(), "a clean close is taken for a crash at the next start"
    _open(data_dir, settings, clock, TinyEmbedder()).close()  # and the lock was released


def test_acknowledged_writes_are_synced_to_disk(tiny_profile: Profile) -> None:
    assert tiny_profile.db.scalar("PRAGMA synchronous") == 2  # FULL: the WAL is synced at each commit


def test_a_vault_value_stored_as_broken_text_fails_alone(tiny_profile: Profile) -> None:
    vault = tiny_profile.vault
    broken = vault.put("phone", "13812345678", "138****5678", 1.0)
    fine = vault.put("email", "a@example.org", "a***", 1.0)
    tiny_profile.db.execute("UPDATE vault SET ciphertext = CAST(x'fffe00c3' AS TEXT) WHERE id = ?", (broken,))
    with pytest.raises(VaultError, match="cannot be decrypted"):
        vault.get(broken)
    assert vault.get(fine) == "a@example.org"
    assert vault.put("phone", "13800000000", "138****0000", 2.0) > fine  # the broken one is skipped


@pytest.mark.parametrize(
    "tamper",
    [
        "UPDATE vault_keys SET wrapped_key = CAST(x'ff00ff' AS TEXT)",
        "UPDATE vault_keys SET wrapped_key = 42",
        "UPDATE vault_keys SET wrapped_key = x'00'",
        "UPDATE vault_keys SET method = 'quantum'",
        "UPDATE vault_keys SET method = 7",
        "UPDATE vault_keys SET method = 'passphrase', salt = CAST(x'ff' AS TEXT)",
        "UPDATE vault_keys SET method = 'keyring', salt = NULL",
    ],
)
def test_a_tampered_vault_key_record_is_reported(
    data_dir: Path, settings: Any, clock: Any, tiny_profile: Profile, tamper: str
) -> None:
    item = tiny_profile.vault.put("phone", "13812345678", "138****5678", 1.0)
    tiny_profile.db.execute(tamper)
    tiny_profile.close()
    reopened = _open(data_dir, settings, clock, TinyEmbedder(), passphrase="some passphrase")
    try:
        with pytest.raises(KeyUnavailableError):
            reopened.vault.get(item)
    finally:
        reopened.close()


@pytest.fixture
def small_disk(tmp_path: Path) -> Any:
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True, check=False).returncode:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(mount: Path, leave: int) -> None:
    """Fill the file system until `leave` bytes are free."""
    import os

    free = os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize
    with open(mount / "filler", "wb") as handle:
        handle.write(b"\0" * max(0, free - leave))


def test_a_nearly_full_disk_gives_a_clear_error_without_a_traceback(
    small_disk: Path, tmp_path: Path, settings: Any, clock: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from assistant.memory.transfer import import_memories

    export = tmp_path / "export.json"
    rows = ",\n".join(
        f'{{"id": {i}, "content": "memory {i} {"filler " * 60}", "category": "fact"}}' for i in range(1, 400)
    )
    export.write_text('{"format": "mnemo-export", "version": 1, "profile": "default", "memories": [\n' + rows + "\n]}")
    profile = _open(small_disk, settings, clock, TinyEmbedder())
    try:
        profile.service.add(NewMemory("kept before the disk filled", Category.FACT))
        _fill(small_disk, 128 * 1024)
        caplog.set_level(logging.WARNING)
        with pytest.raises(StorageError, match="disk is full"):
            import_memories(profile.service, profile.vault, export)
        assert not [r for r in caplog.records if r.exc_info], "a traceback reached the terminal"
        assert profile.db.integrity_ok() and profile.store.total() == 1
    finally:
        profile.close()


def test_with_no_space_left_memories_can_still_be_listed_and_exported(
    small_disk: Path, tmp_path: Path, settings: Any, clock: Any
) -> None:
    from assistant.memory.transfer import export_memories

    profile = _open(small_disk, settings, clock, TinyEmbedder())
    profile.service.add(NewMemory("I live in Porto", Category.FACT))
    profile.close()
    _fill(small_disk, 0)
    warnings: list[str] = []
    reopened = _open(small_disk, settings, clock, TinyEmbedder(), warn=warnings.append)
    try:
        assert [m.content for m in reopened.store.list()] == ["I live in Porto"]
        assert export_memories(reopened.service, reopened.vault, tmp_path / "out.json") == 1
        assert any("disk is full" in w for w in warnings), warnings
        with pytest.raises(StorageError, match="disk is full"):
            reopened.service.add(NewMemory("no room for this", Category.FACT))
    finally:
        reopened.close()

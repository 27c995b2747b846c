"""KeyManager against a real SQLite database, real key files and real keyring backends."""

from __future__ import annotations

import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backends.fail
import keyring.errors
import pytest
from keyring.backend import KeyringBackend
from keyring.compat import properties

from assistant.errors import KeyUnavailableError
from assistant.memory.db import Database
from assistant.memory.keys import KeyManager

PROFILE = "p1"


class MemoryKeyring(KeyringBackend):
    """A real, light keyring backend that keeps secrets in a dict."""

    @properties.classproperty
    def priority(cls) -> float:  # noqa: N805
        raise RuntimeError("test backend: never chosen by keyring's own detection")

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.secrets.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("no such entry")


class LockedKeyring(MemoryKeyring):
    """A keyring whose every use fails, as a locked desktop keyring does."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.KeyringLocked("locked")


@pytest.fixture(autouse=True)
def fail_keyring() -> Iterator[None]:
    """Every test starts with keyring's fail backend (what this headless box has) and restores."""
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def memory_keyring() -> MemoryKeyring:
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    return backend


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(tmp_path / "m.db")
    for profile in (PROFILE, "p2"):
        database.execute(
            "INSERT INTO profiles(id, name, created_at) VALUES (?,?,?)", (profile, profile, 0.0)
        )
    yield database
    database.close()


@pytest.fixture
def key_dir(tmp_path: Path) -> Path:
    return tmp_path / "keys"


def stored_row(db: Database, profile: str = PROFILE) -> tuple[str, bytes | None, bytes] | None:
    row = db.one(
        "SELECT method, salt, wrapped_key FROM vault_keys WHERE profile_id = ?", (profile,)
    )
    return None if row is None else (row["method"], row["salt"], row["wrapped_key"])


# -- the fallback chain -------------------------------------------------------------------


def test_without_keyring_or_passphrase_a_0600_key_file_is_made_with_a_warning(
    db: Database, key_dir: Path
) -> None:
    warnings: list[str] = []
    km = KeyManager(db, PROFILE, key_dir, warn=warnings.append)

    key = km.data_key()

    assert len(key) == 32
    assert km.method == "keyfile"
    key_file = key_dir / "kek.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(warnings) == 1
    assert str(key_file) in warnings[0]
    assert "MNEMO_PASSPHRASE" in warnings[0] and "keyring" in warnings[0]
    assert km.warning == warnings[0]
    row = stored_row(db)
    assert row is not None and row[0] == "keyfile"
    assert key not in row[2]  # stored only wrapped


def test_key_file_reopens_to_the_same_key(db: Database, key_dir: Path) -> None:
    key = KeyManager(db, PROFILE, key_dir, warn=lambda _: None).data_key()
    warnings: list[str] = []

    again = KeyManager(db, PROFILE, key_dir, warn=warnings.append)

    assert again.data_key() == key
    assert warnings  # still beside the data: still warned


def test_passphrase_is_used_when_no_keyring_works(db: Database, key_dir: Path) -> None:
    km = KeyManager(db, PROFILE, key_dir, passphrase="correct horse")
    assert km.method == "passphrase"  # known before first use

    key = km.data_key()

    assert km.method == "passphrase"
    assert km.warning is None
    assert not (key_dir / "kek.key").exists()
    row = stored_row(db)
    assert row is not None and row[0] == "passphrase"
    assert row[1] is not None and len(row[1]) == 16
    assert KeyManager(db, PROFILE, key_dir, passphrase="correct horse").data_key() == key


def test_wrong_passphrase_raises_and_changes_nothing(db: Database, key_dir: Path) -> None:
    KeyManager(db, PROFILE, key_dir, passphrase="correct horse").data_key()
    before = stored_row(db)

    with pytest.raises(KeyUnavailableError) as info:
        KeyManager(db, PROFILE, key_dir, passphrase="wrong horse").data_key()

    assert "passphrase" in str(info.value).lower()
    assert info.value.hint
    assert stored_row(db) == before


def test_missing_passphrase_raises_instead_of_falling_back(db: Database, key_dir: Path) -> None:
    KeyManager(db, PROFILE, key_dir, passphrase="correct horse").data_key()

    with pytest.raises(KeyUnavailableError, match="passphrase") as info:
        KeyManager(db, PROFILE, key_dir, warn=lambda _: None).data_key()

    assert "MNEMO_PASSPHRASE" in info.value.hint
    assert not (key_dir / "kek.key").exists()


def test_keyring_is_preferred_when_it_works(
    db: Database, key_dir: Path, memory_keyring: MemoryKeyring
) -> None:
    warnings: list[str] = []
    km = KeyManager(db, PROFILE, key_dir, passphrase="ignored", warn=warnings.append)

    key = km.data_key()

    assert km.method == "keyring"
    assert km.warning is None and warnings == []
    assert not (key_dir / "kek.key").exists()
    [(service, username)] = memory_keyring.secrets
    assert service == "mnemo"
    assert username.startswith(f"{PROFILE}@")
    assert KeyManager(db, PROFILE, key_dir).data_key() == key


def test_a_locked_keyring_falls_back_when_creating(db: Database, key_dir: Path) -> None:
    keyring.set_keyring(LockedKeyring())

    km = KeyManager(db, PROFILE, key_dir, passphrase="correct horse")
    km.data_key()

    row = stored_row(db)
    assert row is not None and row[0] == "passphrase"


def test_keyring_gone_later_raises_and_makes_no_new_key(
    db: Database, key_dir: Path, memory_keyring: MemoryKeyring
) -> None:
    KeyManager(db, PROFILE, key_dir).data_key()
    before = stored_row(db)
    keyring.set_keyring(keyring.backends.fail.Keyring())

    with pytest.raises(KeyUnavailableError, match="keyring"):
        KeyManager(db, PROFILE, key_dir, passphrase="x", warn=lambda _: None).data_key()

    assert stored_row(db) == before
    assert not (key_dir / "kek.key").exists()


def test_keyring_entry_deleted_raises(
    db: Database, key_dir: Path, memory_keyring: MemoryKeyring
) -> None:
    KeyManager(db, PROFILE, key_dir).data_key()
    memory_keyring.secrets.clear()

    with pytest.raises(KeyUnavailableError, match="missing from the OS keyring"):
        KeyManager(db, PROFILE, key_dir).data_key()


def test_locked_keyring_on_reopen_raises(
    db: Database, key_dir: Path, memory_keyring: MemoryKeyring
) -> None:
    KeyManager(db, PROFILE, key_dir).data_key()
    keyring.set_keyring(LockedKeyring())

    with pytest.raises(KeyUnavailableError, match="refused"):
        KeyManager(db, PROFILE, key_dir).data_key()


def test_deleted_key_file_raises_and_makes_no_new_key(db: Database, key_dir: Path) -> None:
    KeyManager(db, PROFILE, key_dir, warn=lambda _: None).data_key()
    before = stored_row(db)
    (key_dir / "kek.key").unlink()

    with pytest.raises(KeyUnavailableError, match="missing") as info:
        KeyManager(db, PROFILE, key_dir, warn=lambda _: None).data_key()

    assert "backup" in info.value.hint
    assert stored_row(db) == before
    assert not (key_dir / "kek.key").exists()


def test_replaced_key_file_raises(db: Database, key_dir: Path) -> None:
    KeyManager(db, PROFILE, key_dir, warn=lambda _: None).data_key()
    (key_dir / "kek.key").unlink()
    # a different, valid key file (e.g. from another installation)
    KeyManager(db, "p2", key_dir, warn=lambda _: None).data_key()

    with pytest.raises(KeyUnavailableError, match="does not open"):
        KeyManager(db, PROFILE, key_dir, warn=lambda _: None).data_key()


def test_the_data_key_is_cached(db: Database, key_dir: Path) -> None:
    km = KeyManager(db, PROFILE, key_dir, passphrase="correct horse")
    key = km.data_key()
    db.execute("DELETE FROM vault_keys")  # proof that it is not read again

    assert km.data_key() is key


def test_profiles_get_different_keys(db: Database, key_dir: Path) -> None:
    one = KeyManager(db, PROFILE, key_dir, warn=lambda _: None).data_key()
    two = KeyManager(db, "p2", key_dir, warn=lambda _: None).data_key()

    assert one != two


def test_concurrent_first_use_makes_one_key(db: Database, key_dir: Path) -> None:
    managers = [KeyManager(db, PROFILE, key_dir, passphrase="correct horse") for _ in range(4)]
    start = threading.Barrier(len(managers))
    keys: list[bytes] = []

    def first_use(km: KeyManager) -> None:
        start.wait()
        keys.append(km.data_key())

    threads = [threading.Thread(target=first_use, args=(km,)) for km in managers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(keys) == len(managers) and len(set(keys)) == 1
    assert db.scalar("SELECT COUNT(*) FROM vault_keys") == 1


# -- destroy ------------------------------------------------------------------------------


def test_destroy_shreds_key_file_row_and_cache(db: Database, key_dir: Path) -> None:
    km = KeyManager(db, PROFILE, key_dir, warn=lambda _: None)
    key = km.data_key()

    km.destroy()

    assert not (key_dir / "kek.key").exists()
    assert stored_row(db) is None
    assert key not in (db.path.read_bytes() if db.path else b"")
    # a fresh key afterwards: the old one is gone for good
    assert km.data_key() != key


def test_destroy_keeps_a_key_file_another_profile_still_needs(db: Database, key_dir: Path) -> None:
    mine = KeyManager(db, PROFILE, key_dir, warn=lambda _: None)
    mine.data_key()
    theirs_key = KeyManager(db, "p2", key_dir, warn=lambda _: None).data_key()

    mine.destroy()

    assert (key_dir / "kek.key").exists()
    assert KeyManager(db, "p2", key_dir, warn=lambda _: None).data_key() == theirs_key


def test_destroy_deletes_the_keyring_entry(
    db: Database, key_dir: Path, memory_keyring: MemoryKeyring
) -> None:
    km = KeyManager(db, PROFILE, key_dir)
    km.data_key()

    km.destroy()

    assert memory_keyring.secrets == {}
    assert stored_row(db) is None


def test_destroy_without_a_key_is_harmless(db: Database, key_dir: Path) -> None:
    KeyManager(db, PROFILE, key_dir).destroy()

    assert stored_row(db) is None

"""A passphrase given in the window: it makes, opens or re-protects the vault's key."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backends.fail
import pytest

from assistant.errors import KeyUnavailableError
from assistant.memory.db import Database
from assistant.memory.keys import KeyManager

PROFILE = "p1"


@pytest.fixture(autouse=True)
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(tmp_path / "m.db")
    database.execute(
        "INSERT INTO profiles(id, name, created_at) VALUES (?,?,?)", (PROFILE, PROFILE, 0.0)
    )
    yield database
    database.close()


def keys(db: Database, tmp_path: Path, warnings: list[str] | None = None) -> KeyManager:
    return KeyManager(
        db, PROFILE, tmp_path / "keys", warn=(warnings if warnings is not None else []).append
    )


def test_a_new_vault_is_made_under_the_passphrase(db: Database, tmp_path: Path) -> None:
    first = keys(db, tmp_path)
    assert first.method == "keyfile"  # what it would pick with nothing given
    first.use_passphrase("correct horse")
    key = first.data_key()
    assert first.method == "passphrase" and not first.key_file.exists()
    again = keys(db, tmp_path)
    assert again.locked
    with pytest.raises(KeyUnavailableError):
        again.use_passphrase("wrong horse")
    assert again.locked
    again.use_passphrase("correct horse")
    assert not again.locked and again.data_key() == key


def test_a_key_file_is_replaced_by_the_passphrase_and_shredded(
    db: Database, tmp_path: Path
) -> None:
    warnings: list[str] = []
    first = keys(db, tmp_path, warnings)
    key = first.data_key()
    assert first.method == "keyfile" and first.key_file.exists() and warnings
    first.use_passphrase("correct horse")
    assert first.method == "passphrase" and first.warning is None
    assert not first.key_file.exists()  # the key no longer lies beside the data
    assert first.data_key() == key  # the vault's values stay readable
    later = KeyManager(db, PROFILE, tmp_path / "keys", passphrase="correct horse")
    assert later.data_key() == key


def test_an_empty_passphrase_is_refused(db: Database, tmp_path: Path) -> None:
    with pytest.raises(KeyUnavailableError, match="empty"):
        keys(db, tmp_path).use_passphrase("")

"""Vault against a real SQLite database and a real KeyManager."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import keyring
import keyring.backends.fail
import pytest

from assistant.clock import ManualClock
from assistant.errors import KeyUnavailableError, NotFoundError, VaultError
from assistant.memory.db import Database
from assistant.memory.keys import KeyManager
from assistant.memory.store import NewMemory
from assistant.memory.types import Category, Status, Turn
from assistant.memory.vault import Vault, VaultItem

if TYPE_CHECKING:
    from assistant.app import Profile

PROFILE = "p1"
NOW = 1_700_000_000.0

SECRETS = {
    "card": "4111-1111-1111-1111",
    "id_number": "身份证号码110101199003077777",
    "password": "pässwörd-🔑-秘密-zxq",
}


@pytest.fixture(autouse=True)
def fail_keyring() -> Iterator[None]:
    """keyring's fail backend, as on this headless box; restored afterwards."""
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    yield
    keyring.set_keyring(previous)


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


@pytest.fixture
def keys(db: Database, key_dir: Path) -> KeyManager:
    return KeyManager(db, PROFILE, key_dir, warn=lambda _: None)


@pytest.fixture
def vault(db: Database, keys: KeyManager) -> Vault:
    return Vault(db, PROFILE, keys)


def swap_ciphertexts(db: Database, a: int, b: int) -> None:
    rows = {
        r["id"]: (r["nonce"], r["ciphertext"])
        for r in db.query("SELECT id, nonce, ciphertext FROM vault WHERE id IN (?, ?)", (a, b))
    }
    for target, source in ((a, b), (b, a)):
        db.execute(
            "UPDATE vault SET nonce = ?, ciphertext = ? WHERE id = ?", (*rows[source], target)
        )


def ciphertext(db: Database, item_id: int) -> bytes:
    return bytes(db.scalar("SELECT ciphertext FROM vault WHERE id = ?", (item_id,)))


# -- round trip ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["+86 138 0013 8000", "张伟的银行卡 6222 0200 0000 1234", "🔐🦄 emoji ✓", ""]
)
def test_round_trip(vault: Vault, value: str) -> None:
    item_id = vault.put("other", value, "****", NOW)

    assert vault.get(item_id) == value


def test_round_trip_survives_reopening(db: Database, key_dir: Path, vault: Vault) -> None:
    ids = {vault.put(kind, value, "****", NOW): value for kind, value in SECRETS.items()}

    reopened = Vault(db, PROFILE, KeyManager(db, PROFILE, key_dir, warn=lambda _: None))

    assert {item_id: reopened.get(item_id) for item_id in ids} == ids


def test_items_show_masked_stubs_never_plaintext(vault: Vault) -> None:
    first = vault.put("phone", "13800138000", "138****8000", NOW)
    second = vault.put("email", "zhang.wei@example.com", "z***@example.com", NOW + 1)

    assert vault.items() == [
        VaultItem(first, "phone", "138****8000", NOW),
        VaultItem(second, "email", "z***@example.com", NOW + 1),
    ]


def test_every_value_gets_its_own_nonce(db: Database, vault: Vault) -> None:
    for i in range(1000):
        vault.put("password", f"value {i}", "****", NOW)

    nonces = [bytes(r["nonce"]) for r in db.query("SELECT nonce FROM vault")]
    assert len(nonces) == 1000
    assert all(len(n) == 12 for n in nonces)
    assert len(set(nonces)) == 1000
    assert len({bytes(r[0]) for r in db.query("SELECT ciphertext FROM vault")}) == 1000


# -- one item per value -------------------------------------------------------------------


def test_the_same_value_is_one_item(db: Database, key_dir: Path, vault: Vault) -> None:
    first = vault.put("passport", "X1234567", "*****567", NOW)

    assert vault.put("passport", "X1234567", "*****567", NOW + 1) == first
    assert vault.put("passport", "X1234568", "*****568", NOW) != first
    assert vault.put("pin", "X1234567", "****", NOW) != first  # another kind, another item
    theirs = Vault(db, "p2", KeyManager(db, "p2", key_dir, warn=lambda _: None))
    assert theirs.put("passport", "X1234567", "*****567", NOW) != first
    assert [(i.kind, i.created_at) for i in vault.items()] == [
        ("passport", NOW), ("passport", NOW), ("pin", NOW)
    ]


def test_a_damaged_item_is_passed_over(db: Database, vault: Vault) -> None:
    damaged = vault.put("passport", "X1234567", "*****567", NOW)
    db.execute("UPDATE vault SET ciphertext = x'00' WHERE id = ?", (damaged,))

    again = vault.put("passport", "X1234567", "*****567", NOW)

    assert again != damaged and vault.get(again) == "X1234567"


def test_finding_a_value_among_1000_items(vault: Vault) -> None:
    for i in range(1000):
        vault.put("passport", f"P{i:07d}", "****", NOW)
    start = time.perf_counter()
    found = vault.put("passport", "P0000999", "****", NOW)
    new = vault.put("passport", "P1000000", "****", NOW)
    elapsed = time.perf_counter() - start

    assert vault.get(found) == "P0000999" and new != found
    assert elapsed < 5.0  # a hang guard: about 4 ms a put here (each item of the kind is decrypted)


def test_a_shared_item_goes_with_the_last_memory(profile: Profile) -> None:
    service, vault = profile.service, profile.vault
    item = vault.put("passport", "X1234567", "*****567", NOW)
    other = vault.put("pin", "4321", "****", NOW)
    memories = [
        service.add(NewMemory(content=text, category=Category.IDENTIFIER, vault_ids=ids))
        for text, ids in (
            ("My passport number is *****567", [item]),
            ("Passport for the visa form: *****567", [item, other]),
            ("Passport *****567 renewed", [item]),
        )
    ]
    service.set_status(memories[2].id, Status.SUPERSEDED)  # a retired memory still refers to it

    service.delete(memories[1].id, vault.delete)
    assert [i.id for i in vault.items()] == [item]  # the pin had no other memory
    service.delete(memories[0].id, vault.delete)
    assert [i.id for i in vault.items()] == [item]
    service.delete(memories[2].id, vault.delete)
    assert vault.items() == []


def test_the_write_path_stores_a_repeated_value_once(profile: Profile, clock: ManualClock) -> None:
    for text in ("My passport number is X1234567.", "我的护照号是X1234567"):
        profile.writer.remember([Turn(role="user", content=text)], clock.now())

    assert [i.kind for i in profile.vault.items()] == ["passport"]
    assert all("X1234567" not in m.content for m in profile.store.list(status=None, limit=50))


# -- tampering ----------------------------------------------------------------------------


def test_swapped_ciphertexts_fail_only_for_the_swapped_rows(db: Database, vault: Vault) -> None:
    a = vault.put("card", SECRETS["card"], "****1111", NOW)
    b = vault.put("id_number", SECRETS["id_number"], "****7777", NOW)
    c = vault.put("password", SECRETS["password"], "****", NOW)

    swap_ciphertexts(db, a, b)

    for item_id in (a, b):
        with pytest.raises(VaultError) as info:
            vault.get(item_id)
        assert str(info.value).startswith(
            f"Vault item {item_id} cannot be decrypted: it was altered or the key is wrong"
        )
        assert info.value.hint
        assert not isinstance(info.value, KeyUnavailableError)
    assert vault.get(c) == SECRETS["password"]


def test_ciphertext_moved_to_another_profile_fails(
    db: Database, key_dir: Path, vault: Vault
) -> None:
    mine = vault.put("card", SECRETS["card"], "****", NOW)
    theirs = Vault(db, "p2", KeyManager(db, "p2", key_dir, warn=lambda _: None))
    target = theirs.put("card", "0000", "****", NOW)
    db.execute(
        "UPDATE vault SET nonce = (SELECT nonce FROM vault WHERE id = ?),"
        " ciphertext = (SELECT ciphertext FROM vault WHERE id = ?) WHERE id = ?",
        (mine, mine, target),
    )

    with pytest.raises(VaultError):
        theirs.get(target)


@pytest.mark.parametrize("position", [0, 5, -1])
def test_an_edited_byte_fails(db: Database, vault: Vault, position: int) -> None:
    item_id = vault.put("card", SECRETS["card"], "****", NOW)
    other = vault.put("password", SECRETS["password"], "****", NOW)
    edited = bytearray(ciphertext(db, item_id))
    edited[position] ^= 0x01
    db.execute("UPDATE vault SET ciphertext = ? WHERE id = ?", (bytes(edited), item_id))

    with pytest.raises(VaultError, match=f"Vault item {item_id} cannot be decrypted"):
        vault.get(item_id)
    assert vault.get(other) == SECRETS["password"]


def test_an_edited_nonce_fails(db: Database, vault: Vault) -> None:
    item_id = vault.put("card", SECRETS["card"], "****", NOW)
    db.execute("UPDATE vault SET nonce = zeroblob(12) WHERE id = ?", (item_id,))

    with pytest.raises(VaultError, match="cannot be decrypted"):
        vault.get(item_id)


@pytest.mark.parametrize("keep", [0, 1, 16, -1])
def test_a_truncated_value_fails(db: Database, vault: Vault, keep: int) -> None:
    item_id = vault.put("card", SECRETS["card"], "****", NOW)
    short = ciphertext(db, item_id)[:keep]
    db.execute("UPDATE vault SET ciphertext = ? WHERE id = ?", (short, item_id))

    with pytest.raises(VaultError, match="cannot be decrypted"):
        vault.get(item_id)


def test_a_truncated_nonce_fails(db: Database, vault: Vault) -> None:
    item_id = vault.put("card", SECRETS["card"], "****", NOW)
    db.execute("UPDATE vault SET nonce = substr(nonce, 1, 4) WHERE id = ?", (item_id,))

    with pytest.raises(VaultError, match="cannot be decrypted"):
        vault.get(item_id)


def test_a_wrong_key_fails(db: Database, vault: Vault, tmp_path: Path) -> None:
    item_id = vault.put("card", SECRETS["card"], "****", NOW)
    other_db = Database(tmp_path / "other" / "m.db")
    try:
        other_db.execute(
            "INSERT INTO profiles(id, name, created_at) VALUES (?,?,?)", (PROFILE, PROFILE, 0.0)
        )
        other_keys = KeyManager(other_db, PROFILE, tmp_path / "other-keys", passphrase="x")
        other = Vault(other_db, PROFILE, other_keys)
        other.put("card", "0000", "****", NOW)  # same profile and row id, another data key
        row = db.one("SELECT nonce, ciphertext FROM vault WHERE id = ?", (item_id,))
        assert row is not None
        other_db.execute(
            "UPDATE vault SET nonce = ?, ciphertext = ? WHERE id = ?",
            (row["nonce"], row["ciphertext"], item_id),
        )

        with pytest.raises(VaultError, match="cannot be decrypted"):
            other.get(item_id)
    finally:
        other_db.close()


def test_a_wrong_passphrase_cannot_open_the_vault(db: Database, key_dir: Path) -> None:
    item_id = Vault(db, PROFILE, KeyManager(db, PROFILE, key_dir, passphrase="one")).put(
        "card", SECRETS["card"], "****", NOW
    )
    vault = Vault(db, PROFILE, KeyManager(db, PROFILE, key_dir, passphrase="two"))

    with pytest.raises(KeyUnavailableError):
        vault.get(item_id)
    with pytest.raises(KeyUnavailableError):
        vault.put("card", "1234", "****", NOW)
    assert [i.id for i in vault.items()] == [item_id]  # the failed put left no row


# -- scope, deletion, shredding -----------------------------------------------------------


def test_missing_id_raises_not_found(vault: Vault) -> None:
    with pytest.raises(NotFoundError):
        vault.get(12345)
    with pytest.raises(NotFoundError):
        vault.delete(12345)


def test_everything_is_scoped_to_the_profile(db: Database, key_dir: Path, vault: Vault) -> None:
    theirs = Vault(db, "p2", KeyManager(db, "p2", key_dir, warn=lambda _: None))
    their_id = theirs.put("phone", "13900139000", "139****9000", NOW)
    my_id = vault.put("phone", "13800138000", "138****8000", NOW)

    with pytest.raises(NotFoundError):
        vault.get(their_id)
    with pytest.raises(NotFoundError):
        vault.delete(their_id)
    assert [i.id for i in vault.items()] == [my_id]
    assert vault.delete_all() == 1
    assert theirs.get(their_id) == "13900139000"


def test_delete_and_delete_all(vault: Vault) -> None:
    a = vault.put("card", SECRETS["card"], "****", NOW)
    b = vault.put("password", SECRETS["password"], "****", NOW)
    vault.put("id_number", SECRETS["id_number"], "****", NOW)

    vault.delete(a)

    with pytest.raises(NotFoundError):
        vault.get(a)
    assert vault.get(b) == SECRETS["password"]
    assert vault.delete_all() == 2
    assert vault.items() == []


def test_destroy_makes_values_undecryptable(
    db: Database, key_dir: Path, keys: KeyManager, vault: Vault
) -> None:
    item_id = vault.put("card", SECRETS["card"], "****", NOW)
    assert (key_dir / "kek.key").exists()

    keys.destroy()

    assert not (key_dir / "kek.key").exists()
    assert db.scalar("SELECT COUNT(*) FROM vault_keys") == 0
    fresh = Vault(db, PROFILE, KeyManager(db, PROFILE, key_dir, warn=lambda _: None))
    for reader in (vault, fresh):
        with pytest.raises(VaultError, match="cannot be decrypted"):
            reader.get(item_id)


# -- no plaintext at rest or in logs ------------------------------------------------------


def raw_bytes(db_path: Path, key_dir: Path) -> dict[str, bytes]:
    files = [db_path, Path(f"{db_path}-wal"), Path(f"{db_path}-shm"), *key_dir.iterdir()]
    return {str(p): p.read_bytes() for p in files if p.exists()}


def assert_no_plaintext(blobs: dict[str, bytes]) -> None:
    for value in SECRETS.values():
        for encoding in ("utf-8", "utf-16-le", "utf-16-be"):
            needle = value.encode(encoding)
            for name, blob in blobs.items():
                assert needle not in blob, f"{value!r} found in {name} ({encoding})"


def test_plaintext_never_reaches_disk_or_logs(
    db: Database, key_dir: Path, vault: Vault, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    ids = [vault.put(kind, value, "****", NOW) for kind, value in SECRETS.items()]
    for item_id in ids:
        vault.get(item_id)
    db.execute("UPDATE vault SET ciphertext = x'00' WHERE id = ?", (ids[0],))
    with pytest.raises(VaultError):
        vault.get(ids[0])
    assert db.path is not None

    assert_no_plaintext(raw_bytes(db.path, key_dir))  # still in the WAL
    db.execute("PRAGMA wal_checkpoint")
    blobs = raw_bytes(db.path, key_dir)
    assert any(name.endswith("kek.key") for name in blobs)
    assert_no_plaintext(blobs)
    assert_no_plaintext({"log": caplog.text.encode("utf-8")})

"""The vault's data key: made once per profile, stored only wrapped, shredded on forget-me.

A random 256-bit data key (DEK) encrypts the vault. It is wrapped with AES-256-GCM by a
key-encryption key (KEK) taken from, in order of preference: the OS keyring, a key derived
from the user's passphrase with scrypt, or, as a last resort, a 0600 key file beside the data
(with a visible warning). The wrapped DEK lives in `vault_keys`; once a profile's DEK is
wrapped with one method, that method is the only way back to it, so a missing or wrong KEK is
an error, never a reason to make a fresh key that would orphan the vault.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import keyring
import keyring.backends.fail
import keyring.backends.null
import keyring.errors
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from assistant.errors import KeyUnavailableError
from assistant.memory.db import Database

log = logging.getLogger("mnemo.keys")

Method = Literal["keyring", "passphrase", "keyfile"]

KEY_BYTES = 32
NONCE_BYTES = 12
SALT_BYTES = 16
SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
KEY_FILE_NAME = "kek.key"

_KEYRING_ERRORS = (keyring.errors.KeyringError, RuntimeError)


def keyfile_warning(path: Path) -> str:
    """The warning shown while the vault key sits in a file beside the data."""
    return (
        f"The vault key is stored in {path}, beside the data it protects: anyone who can read "
        "this folder can read your vault. Set a passphrase (environment variable "
        "MNEMO_PASSPHRASE or the `passphrase` setting) or install an OS keyring backend "
        "(e.g. gnome-keyring or KWallet) before you store sensitive values."
    )


class KeyManager:
    """Creates, unwraps, caches and destroys one profile's vault data key.

    Args:
        db: The profile's database (table `vault_keys`).
        profile_id: The profile whose key this is.
        key_dir: Where the last-resort key file `kek.key` is kept.
        passphrase: The user's passphrase, if any (env `MNEMO_PASSPHRASE` or a setting).
        service: The OS keyring service name.
        warn: Receives user-visible warnings; defaults to the `mnemo.keys` logger.
    """

    def __init__(
        self,
        db: Database,
        profile_id: str,
        key_dir: Path,
        *,
        passphrase: str | None = None,
        service: str = "mnemo",
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self._db = db
        self._profile_id = profile_id
        self._key_dir = Path(key_dir)
        self._passphrase = passphrase or None
        self._service = service
        self._warn: Callable[[str], None] = warn or log.warning
        self._lock = threading.Lock()
        self._dek: bytes | None = None
        self._method: Method | None = None

    # -- public -------------------------------------------------------------------------

    @property
    def key_file(self) -> Path:
        """The path of the last-resort key file."""
        return self._key_dir / KEY_FILE_NAME

    @property
    def method(self) -> Method:
        """How the data key is wrapped: the stored method, or the one first use would pick."""
        if self._method is not None:
            return self._method
        row = self._db.one(
            "SELECT CAST(method AS TEXT) AS method FROM vault_keys WHERE profile_id = ?",
            (self._profile_id,),
        )
        if row is not None:
            return _as_method(row["method"])
        if _keyring_usable():
            return "keyring"
        return "passphrase" if self._passphrase else "keyfile"

    @property
    def warning(self) -> str | None:
        """A user-visible warning about how the key is kept, or None when it is fine."""
        return keyfile_warning(self.key_file) if self.method == "keyfile" else None

    def data_key(self) -> bytes:
        """Return the profile's 32-byte data key, creating it on first use.

        Raises:
            KeyUnavailableError: A key exists but its key-encryption key is missing or wrong.
        """
        cached = self._dek
        if cached is not None:
            return cached
        # no lock of ours is held across database calls: a thread inside `db.atomic()`
        # may call this while another thread waits for the database (lock-order deadlock)
        row = self._stored_row()
        if row is None:
            dek, method = self._create()
        else:
            method = _as_method(row["method"])
            dek = self._unwrap(self._existing_kek(method, row["salt"]), method, row["wrapped_key"])
        with self._lock:
            if self._dek is None:
                self._dek, self._method = dek, method
                if method == "keyfile":
                    self._warn(keyfile_warning(self.key_file))
            return self._dek

    @property
    def locked(self) -> bool:
        """The vault is kept under a passphrase that has not been given yet."""
        return self._dek is None and self.method == "passphrase" and not self._passphrase

    def use_passphrase(self, passphrase: str) -> None:
        """Protect (or open) the vault with the user's passphrase, given in the window.

        A vault kept under a passphrase is opened with it (a wrong one raises, nothing
        changes); a profile without a key yet makes it under the passphrase (unless an OS
        keyring works: that stays first); a key kept in the key file is wrapped with the
        passphrase instead, and the file shredded.

        Raises:
            KeyUnavailableError: The passphrase does not open this vault.
        """
        if not passphrase:
            raise KeyUnavailableError("The passphrase is empty.", "Type the passphrase.")
        row = self._stored_row()
        if row is None:
            with self._lock:
                self._passphrase = passphrase
            return
        method = _as_method(row["method"])
        if method == "passphrase":
            dek = self._unwrap(_derive(passphrase, bytes(row["salt"] or b"")), method, row["wrapped_key"])
            with self._lock:
                self._passphrase, self._dek, self._method = passphrase, dek, method
            return
        if method == "keyring":
            return  # the keyring already keeps it better than a passphrase would
        dek = self.data_key()
        salt = secrets.token_bytes(SALT_BYTES)
        wrapped = self._wrap(_derive(passphrase, salt), "passphrase", dek)
        with self._db.atomic():
            self._db.execute(
                "UPDATE vault_keys SET method = 'passphrase', salt = ?, wrapped_key = ? WHERE profile_id = ?",
                (salt, wrapped, self._profile_id),
            )
            others_use_file = bool(
                self._db.scalar("SELECT COUNT(*) FROM vault_keys WHERE method = 'keyfile'")
            )
        with self._lock:
            self._passphrase, self._method = passphrase, "passphrase"
        if not others_use_file:
            _shred(self.key_file)
        log.info("vault key for profile %s now wrapped with a passphrase", self._profile_id)

    def destroy(self) -> None:
        """Crypto-shred the vault: forget the data key everywhere it could be recovered from.

        Deletes the wrapped key row, the keyring entry or the key file (overwritten first),
        and the cached key. Values encrypted with it can never be decrypted again. Call it
        outside a transaction, after the vault rows are deleted: the keyring entry and key
        file cannot be rolled back.
        """
        with self._db.atomic():
            row = self._stored_row()
            self._db.execute("DELETE FROM vault_keys WHERE profile_id = ?", (self._profile_id,))
            others_use_file = bool(
                self._db.scalar("SELECT COUNT(*) FROM vault_keys WHERE method = 'keyfile'")
            )
        with self._lock:
            self._dek = None
            self._method = None
        if not self._db.in_transaction:
            # secure_delete zeroes the page in the main file; the WAL may still hold it
            self._db.checkpoint()
        if row is None:
            return
        method = _as_method(row["method"])
        if method == "keyring":
            self._delete_keyring_entry(_account_id(row["salt"]))
        elif method == "keyfile" and not others_use_file:
            _shred(self.key_file)
        log.info("vault key for profile %s destroyed (%s)", self._profile_id, method)

    # -- creating -----------------------------------------------------------------------

    def _stored_row(self) -> sqlite3.Row | None:
        # CAST: a tampered row holding TEXT or a number comes back as bytes, so a damaged
        # record is reported as one (KeyUnavailableError), not as a type error
        return self._db.one(
            "SELECT CAST(method AS TEXT) AS method, CAST(salt AS BLOB) AS salt,"
            " CAST(wrapped_key AS BLOB) AS wrapped_key FROM vault_keys WHERE profile_id = ?",
            (self._profile_id,),
        )

    def _create(self) -> tuple[bytes, Method]:
        dek = AESGCM.generate_key(bit_length=256)
        method: Method
        salt: bytes | None
        created = self._create_keyring_kek()
        if created is not None:
            method, (salt, kek) = "keyring", created
        elif self._passphrase:
            method, salt = "passphrase", secrets.token_bytes(SALT_BYTES)
            kek = _derive(self._passphrase, salt)
        else:
            method, salt = "keyfile", None
            kek = self._create_key_file()
        wrapped = self._wrap(kek, method, dek)
        with self._db.atomic():
            # another thread may have made the key meanwhile: theirs wins, ours is dropped
            existing = self._stored_row()
            if existing is None:
                self._db.execute(
                    "INSERT INTO vault_keys(profile_id, method, salt, wrapped_key, created_at)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (self._profile_id, method, salt, wrapped, time.time()),
                )
        if existing is not None:
            if method == "keyring" and salt is not None:
                self._delete_keyring_entry(salt)
            theirs = _as_method(existing["method"])
            kek = self._existing_kek(theirs, existing["salt"])
            return self._unwrap(kek, theirs, existing["wrapped_key"]), theirs
        log.info("created vault key for profile %s (%s)", self._profile_id, method)
        return dek, method

    def _create_keyring_kek(self) -> tuple[bytes, bytes] | None:
        """Store a fresh KEK in the OS keyring; return (account id, KEK), or None if none works."""
        if not _keyring_usable():
            return None
        account = secrets.token_bytes(SALT_BYTES)
        kek = secrets.token_bytes(KEY_BYTES)
        secret = base64.b64encode(kek).decode("ascii")
        username = self._username(account)
        try:
            keyring.set_password(self._service, username, secret)
            stored = keyring.get_password(self._service, username)
        except _KEYRING_ERRORS as exc:
            log.info("OS keyring not usable (%s); falling back", type(exc).__name__)
            return None
        if stored != secret:
            log.info("OS keyring did not keep the key; falling back")
            return None
        return account, kek

    def _create_key_file(self) -> bytes:
        path = self.key_file
        self._key_dir.mkdir(parents=True, exist_ok=True)
        kek = secrets.token_bytes(KEY_BYTES)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            # another profile of this data dir made it: share it rather than clobber it
            return self._read_key_file()
        with os.fdopen(fd, "wb") as handle:
            handle.write(base64.b64encode(kek) + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        return kek

    # -- reopening ----------------------------------------------------------------------

    def _existing_kek(self, method: Method, salt: bytes | None) -> bytes:
        if method == "keyring":
            return self._read_keyring_kek(_account_id(salt))
        if method == "passphrase":
            if not self._passphrase:
                raise KeyUnavailableError(
                    "The vault is locked with a passphrase, and none was given.",
                    "Set the passphrase in the environment variable MNEMO_PASSPHRASE "
                    "or in the `passphrase` setting, then restart Mnemo.",
                )
            if salt is None:
                raise KeyUnavailableError(
                    "The vault key record is damaged (no salt).",
                    "Restore the database from a backup; the vault cannot be opened.",
                )
            return _derive(self._passphrase, bytes(salt))
        return self._read_key_file()

    def _read_keyring_kek(self, account: bytes) -> bytes:
        hint = (
            "Unlock or reinstall the OS keyring that held Mnemo's key (service "
            f"'{self._service}'), and keep the data folder with the same keyring. "
            "Nothing was changed."
        )
        if not _keyring_usable():
            raise KeyUnavailableError(
                "The vault key is in the OS keyring, which is not available.", hint
            )
        try:
            secret = keyring.get_password(self._service, self._username(account))
        except _KEYRING_ERRORS as exc:
            raise KeyUnavailableError(
                f"The OS keyring refused to give the vault key ({type(exc).__name__}).", hint
            ) from exc
        if secret is None:
            raise KeyUnavailableError("The vault key is missing from the OS keyring.", hint)
        try:
            kek = base64.b64decode(secret, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise KeyUnavailableError("The vault key in the OS keyring is damaged.", hint) from exc
        if len(kek) != KEY_BYTES:
            raise KeyUnavailableError("The vault key in the OS keyring is damaged.", hint)
        return kek

    def _read_key_file(self) -> bytes:
        path = self.key_file
        hint = (
            f"Restore {path} from a backup (it must be the file that was there when the vault "
            "was created). Nothing was changed."
        )
        try:
            raw = path.read_bytes()
        except FileNotFoundError as exc:
            raise KeyUnavailableError(f"The vault key file {path} is missing.", hint) from exc
        except OSError as exc:
            raise KeyUnavailableError(
                f"The vault key file {path} cannot be read: {exc.strerror}.", hint
            ) from exc
        try:
            kek = base64.b64decode(raw.strip(), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise KeyUnavailableError(f"The vault key file {path} is damaged.", hint) from exc
        if len(kek) != KEY_BYTES:
            raise KeyUnavailableError(f"The vault key file {path} is damaged.", hint)
        return kek

    def _unwrap(self, kek: bytes, method: Method, wrapped: bytes | None) -> bytes:
        if not wrapped or len(wrapped) <= NONCE_BYTES:
            raise KeyUnavailableError(_WRONG_KEY[method], _WRONG_KEY_HINT[method])
        try:
            dek = AESGCM(kek).decrypt(
                wrapped[:NONCE_BYTES], wrapped[NONCE_BYTES:], self._aad(method)
            )
        except (InvalidTag, ValueError) as exc:
            raise KeyUnavailableError(_WRONG_KEY[method], _WRONG_KEY_HINT[method]) from exc
        if len(dek) != KEY_BYTES:
            raise KeyUnavailableError(_WRONG_KEY[method], _WRONG_KEY_HINT[method])
        return dek

    # -- helpers ------------------------------------------------------------------------

    def _wrap(self, kek: bytes, method: Method, dek: bytes) -> bytes:
        nonce = secrets.token_bytes(NONCE_BYTES)
        return nonce + AESGCM(kek).encrypt(nonce, dek, self._aad(method))

    def _aad(self, method: Method) -> bytes:
        return f"mnemo|vault_keys|{self._profile_id}|data-key|{method}".encode()

    def _username(self, account: bytes) -> str:
        # the account id is random and stored with the wrapped key, so it stays stable when
        # the data folder moves and is distinct for every data folder using this profile id
        return f"{self._profile_id}@{account.hex()}"

    def _delete_keyring_entry(self, account: bytes) -> None:
        try:
            keyring.delete_password(self._service, self._username(account))
        except keyring.errors.PasswordDeleteError:
            log.info("keyring entry for profile %s was already gone", self._profile_id)
        except _KEYRING_ERRORS as exc:
            # the wrapped key row is gone, so the entry alone cannot open anything
            log.warning(
                "could not delete the keyring entry for profile %s (%s)",
                self._profile_id,
                type(exc).__name__,
            )


_WRONG_KEY: dict[Method, str] = {
    "keyring": "The key in the OS keyring does not open this vault.",
    "passphrase": "The passphrase does not open this vault.",
    "keyfile": "The vault key file does not open this vault.",
}
_WRONG_KEY_HINT: dict[Method, str] = {
    "keyring": "The keyring entry was replaced; restore it or the data folder from a backup.",
    "passphrase": "Give the passphrase the vault was created with (MNEMO_PASSPHRASE or the "
    "`passphrase` setting). Nothing was changed.",
    "keyfile": "Restore the original kek.key from a backup. Nothing was changed.",
}


def _as_method(value: object) -> Method:
    if value == "keyring":
        return "keyring"
    if value == "passphrase":
        return "passphrase"
    if value == "keyfile":
        return "keyfile"
    raise KeyUnavailableError(
        f"The vault key record names an unknown method {value!r}.",
        "This database was written by a newer Mnemo; upgrade Mnemo to open its vault.",
    )


def _account_id(salt: bytes | None) -> bytes:
    if not salt:
        raise KeyUnavailableError(
            "The vault key record is damaged (no keyring account).",
            "Restore the database from a backup; the vault cannot be opened.",
        )
    return bytes(salt)


def _keyring_usable() -> bool:
    """False when keyring has no real backend (the fail or null keyring, or none at all)."""
    try:
        backend = keyring.get_keyring()
    except _KEYRING_ERRORS:
        return False
    return not isinstance(backend, keyring.backends.fail.Keyring | keyring.backends.null.Keyring)


def _derive(passphrase: str, salt: bytes) -> bytes:
    kdf = Scrypt(salt=salt, length=KEY_BYTES, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    return kdf.derive(passphrase.encode("utf-8"))


def _shred(path: Path) -> None:
    """Overwrite a key file with random bytes, flush it to disk, then unlink it."""
    try:
        size = path.stat().st_size
        with open(path, "r+b", buffering=0) as handle:
            handle.write(secrets.token_bytes(max(size, KEY_BYTES * 2)))
            os.fsync(handle.fileno())
        path.unlink()
    except FileNotFoundError:
        log.info("vault key file was already gone")

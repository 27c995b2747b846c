"""Sensitive values (phone, ID and card numbers, passwords …) kept only as AES-256-GCM ciphertext.

Each value gets a fresh random nonce, and its associated data names the profile, the row and
the column, so a ciphertext copied onto another row, edited or truncated fails to decrypt —
for that value only. Plaintext is never stored, logged, embedded or indexed; the memory that
mentions a value keeps the masked stub. A value said twice is one item: the memories and
messages that mention it share its id.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from assistant.errors import NotFoundError, VaultError
from assistant.memory.db import Database
from assistant.memory.keys import NONCE_BYTES, KeyManager

log = logging.getLogger("mnemo.vault")


@dataclass(frozen=True)
class VaultItem:
    """What may be shown about a vault value without decrypting it."""

    id: int
    kind: str
    masked: str
    created_at: float


class Vault:
    """One profile's encrypted values.

    Args:
        db: The profile's database (table `vault`).
        profile_id: Every read and write is scoped to this profile.
        keys: Supplies the data key.
    """

    def __init__(self, db: Database, profile_id: str, keys: KeyManager) -> None:
        self._db = db
        self._profile_id = profile_id
        self._keys = keys

    def put(self, kind: str, value: str, masked: str, now: float) -> int:
        """Encrypt and store a value, unless the profile holds it already.

        Args:
            kind: What the value is (`phone`, `email`, `passport`, …).
            value: The plaintext; it leaves this method only as ciphertext.
            masked: A safe stub to show instead (`138****5678`).
            now: The creation time (seconds since the epoch).

        Returns:
            The id of the item of this kind holding this value: an existing one, else a new one.

        Raises:
            KeyUnavailableError: The data key cannot be opened.
        """
        aead = AESGCM(self._keys.data_key())  # before the transaction: may run scrypt
        with self._db.atomic():
            existing = self._find(aead, kind, value)
            if existing is not None:
                log.debug("vault item %d holds this value already (kind %s)", existing, kind)
                return existing
            # the row id is part of the associated data, so the row comes first
            cursor = self._db.execute(
                "INSERT INTO vault(profile_id, kind, masked, nonce, ciphertext, created_at)"
                " VALUES (?, ?, ?, x'', x'', ?)",
                (self._profile_id, kind, masked, now),
            )
            item_id = cursor.lastrowid
            assert item_id is not None  # an INSERT always sets it
            nonce = secrets.token_bytes(NONCE_BYTES)
            ciphertext = aead.encrypt(nonce, value.encode("utf-8"), self._aad(item_id))
            self._db.execute(
                "UPDATE vault SET nonce = ?, ciphertext = ? WHERE id = ? AND profile_id = ?",
                (nonce, ciphertext, item_id, self._profile_id),
            )
        log.debug("vault item %d stored (kind %s)", item_id, kind)
        return item_id

    def get(self, item_id: int) -> str:
        """Decrypt one value.

        Raises:
            NotFoundError: No such item in this profile.
            VaultError: The stored value was altered, moved or the key is wrong.
            KeyUnavailableError: The data key cannot be opened.
        """
        row = self._db.one(
            # CAST: a value stored as TEXT (a tampered row) comes back as bytes, not a decode error
            "SELECT CAST(nonce AS BLOB), CAST(ciphertext AS BLOB) FROM vault WHERE id = ? AND profile_id = ?",
            (item_id, self._profile_id),
        )
        if row is None:
            raise NotFoundError(
                f"Vault item {item_id} does not exist.", "It may have been deleted."
            )
        aead = AESGCM(self._keys.data_key())
        try:
            plaintext = aead.decrypt(bytes(row[0] or b""), bytes(row[1] or b""), self._aad(item_id))
            return plaintext.decode("utf-8")
        except (InvalidTag, ValueError) as exc:
            # ValueError: a nonce of an impossible length; UnicodeDecodeError is one too
            log.warning("vault item %d failed authentication", item_id)
            raise VaultError(
                f"Vault item {item_id} cannot be decrypted: it was altered or the key is wrong",
                hint="Other vault items are not affected. Delete this item and enter the value "
                "again; if every item fails, the vault key changed (check the passphrase or "
                "keyring).",
            ) from exc

    def items(self) -> list[VaultItem]:
        """List the profile's items, oldest first, without decrypting anything."""
        rows = self._db.query(
            "SELECT id, kind, masked, created_at FROM vault WHERE profile_id = ? ORDER BY id",
            (self._profile_id,),
        )
        return [VaultItem(r["id"], r["kind"], r["masked"], r["created_at"]) for r in rows]

    def delete(self, item_id: int) -> None:
        """Delete one item (its page is zeroed: the database runs with secure_delete).

        Raises:
            NotFoundError: No such item in this profile.
        """
        cursor = self._db.execute(
            "DELETE FROM vault WHERE id = ? AND profile_id = ?", (item_id, self._profile_id)
        )
        if cursor.rowcount == 0:
            raise NotFoundError(
                f"Vault item {item_id} does not exist.", "It may have been deleted."
            )
        log.debug("vault item %d deleted", item_id)

    def delete_all(self) -> int:
        """Delete every item of the profile.

        Returns:
            How many items were deleted.
        """
        cursor = self._db.execute("DELETE FROM vault WHERE profile_id = ?", (self._profile_id,))
        log.info("deleted %d vault items", cursor.rowcount)
        return cursor.rowcount

    def _find(self, aead: AESGCM, kind: str, value: str) -> int | None:
        """The item of `kind` holding `value`, found by decrypting each (a vault holds few items)."""
        wanted = value.encode("utf-8")
        rows = self._db.query(
            "SELECT id, CAST(nonce AS BLOB) AS nonce, CAST(ciphertext AS BLOB) AS ciphertext"
            " FROM vault WHERE profile_id = ? AND kind = ? ORDER BY id",
            (self._profile_id, kind),
        )
        for row in rows:
            try:
                plaintext = aead.decrypt(
                    bytes(row["nonce"] or b""), bytes(row["ciphertext"] or b""), self._aad(row["id"])
                )
            except (InvalidTag, ValueError):
                continue  # a damaged item holds nothing to match; get() reports it
            if hmac.compare_digest(plaintext, wanted):
                return int(row["id"])
        return None

    def _aad(self, item_id: int) -> bytes:
        return f"mnemo|vault|{self._profile_id}|{item_id}|ciphertext".encode()

"""Vault values in an export, sealed with a passphrase the user gives.

An export file leaves the data folder: it is mailed, synced, left in Downloads. Its vault
values (phone, card and ID numbers, passwords) are therefore never written in plain text:
each is encrypted with AES-256-GCM under a key derived from the user's passphrase with
scrypt (the parameters and salt are in the file's header). The associated data binds each
value to its record and position, so a sealed value moved to another memory fails to open.
A check value in the header lets an import tell a wrong passphrase before it writes anything.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from assistant.errors import InputError

KDF = "scrypt"
SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
NONCE_BYTES = 12
MIN_PASSPHRASE = 8
_CHECK = b"mnemo-export-check"
# What an import accepts from a file: scrypt costs memory (128 * r * n bytes), so a hostile
# header must not ask for gigabytes.
_MAX_N = 2**20
_MAX_R = 16
_MAX_P = 4


class PassphraseNeeded(InputError):
    """The export's vault values are sealed and no passphrase was given."""


class WrongPassphrase(InputError):
    """The passphrase given does not open the export's vault values."""


def check_passphrase(passphrase: str) -> None:
    """Refuse a passphrase too short to protect what it seals."""
    if len(passphrase) < MIN_PASSPHRASE:
        raise InputError(
            f"The passphrase is too short (at least {MIN_PASSPHRASE} characters).",
            "Choose a longer passphrase; you need it again to import the file.",
        )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def _aad(record_id: int, position: int) -> bytes:
    return f"mnemo-export|{record_id}|{position}".encode()


@dataclass
class Sealer:
    """Seals (export) and opens (import) the vault values of one file."""

    aead: AESGCM
    header: dict[str, Any]

    @classmethod
    def new(cls, passphrase: str) -> Sealer:
        check_passphrase(passphrase)
        salt = secrets.token_bytes(SALT_BYTES)
        aead = AESGCM(_derive(passphrase, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P))
        nonce = secrets.token_bytes(NONCE_BYTES)
        header = {
            "kdf": KDF, "n": SCRYPT_N, "r": SCRYPT_R, "p": SCRYPT_P, "salt": _b64(salt),
            "cipher": "AES-256-GCM", "check": _b64(nonce + aead.encrypt(nonce, _CHECK, b"check")),
        }
        return cls(aead, header)

    @classmethod
    def open(cls, header: Any, passphrase: str | None) -> Sealer:
        """The sealer of a file's header; raises when the passphrase is missing or wrong."""
        if not isinstance(header, dict) or header.get("kdf") != KDF:
            raise InputError("The export's encryption header is damaged or unknown.", "Export the file again.")
        n, r, p = header.get("n"), header.get("r"), header.get("p")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (n, r, p)):
            raise InputError("The export's encryption header is damaged.", "Export the file again.")
        assert isinstance(n, int) and isinstance(r, int) and isinstance(p, int)
        if not (2 <= n <= _MAX_N and n & (n - 1) == 0 and 1 <= r <= _MAX_R and 1 <= p <= _MAX_P):
            raise InputError("The export's encryption header asks for impossible costs.", "Export the file again.")
        if passphrase is None:
            raise PassphraseNeeded(
                "The export's vault values are encrypted with a passphrase.",
                "Give the passphrase chosen at export, or import without the vault values.",
            )
        try:
            salt, check = _unb64(str(header.get("salt"))), _unb64(str(header.get("check")))
        except (binascii.Error, ValueError, UnicodeEncodeError) as exc:
            raise InputError("The export's encryption header is damaged.", "Export the file again.") from exc
        aead = AESGCM(_derive(passphrase, salt, n, r, p))
        try:
            aead.decrypt(check[:NONCE_BYTES], check[NONCE_BYTES:], b"check")
        except (InvalidTag, ValueError) as exc:
            raise WrongPassphrase(
                "The passphrase does not open this export's vault values.",
                "Type the passphrase chosen at export (nothing was imported).",
            ) from exc
        return cls(aead, header)

    def seal(self, value: str, record_id: int, position: int) -> str:
        nonce = secrets.token_bytes(NONCE_BYTES)
        return _b64(nonce + self.aead.encrypt(nonce, value.encode("utf-8"), _aad(record_id, position)))

    def unseal(self, sealed: str, record_id: int, position: int) -> str:
        """The plain value; raises InputError for a value altered or moved in the file."""
        try:
            blob = _unb64(sealed)
            plain = self.aead.decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], _aad(record_id, position))
            return plain.decode("utf-8")
        except (InvalidTag, ValueError, binascii.Error, UnicodeError) as exc:
            raise InputError(
                f"A vault value of memory {record_id} in the file was altered and cannot be opened.",
                "Export the file again; nothing was imported.",
            ) from exc


def _derive(passphrase: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(passphrase.encode("utf-8", "surrogatepass"))

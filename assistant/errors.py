"""Errors the user can meet, each with what to do about it.

Two kinds, classified once where they arise: a `MnemoError` is the environment's or the
user's (disk full, Ollama not running, a malformed file) and is shown with a hint; anything
else is our bug and goes to the crash handler.
"""

from __future__ import annotations


class MnemoError(Exception):
    """A failure the user can act on. `hint` says what to do."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}\n  → {self.hint}" if self.hint else self.message


class StorageError(MnemoError):
    """The disk or the database refused: full, read-only, locked, corrupt."""


class VaultError(MnemoError):
    """A vault value could not be decrypted (tampered, swapped, or the key is wrong)."""


class KeyUnavailableError(VaultError):
    """No key could be found to open the vault."""


class InputError(MnemoError):
    """Input the user or a file gave that cannot be used as it is."""


class ImportFileError(InputError):
    """An export file that cannot be imported; `line` points at the problem."""

    def __init__(self, message: str, line: int | None = None, hint: str = "") -> None:
        where = f"line {line}: " if line is not None else ""
        super().__init__(where + message, hint or "Fix or re-export the file; nothing was imported.")
        self.line = line


class NotFoundError(MnemoError):
    """A memory, session or profile id that does not exist (in this profile)."""


class ProfileLockedError(MnemoError):
    """Another Mnemo process already has this data directory open."""


class ModelUnavailableError(MnemoError):
    """An embedding or chat model that is not on disk / not installed."""

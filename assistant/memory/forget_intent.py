"""Forget-me that finishes: an intent written before anything is erased, completed at the
next start if the process dies midway.

Forget-me takes several steps that no single transaction covers: shred the vault key (the
keyring entry or key file), close the database and index, rename the profile folder to a
tombstone, overwrite and remove it, open a fresh profile. A kill between two of them used to
leave a half-erased profile — say, the vault key gone but every memory back at the next
start. Now the first step writes an intent file beside the profile folder (``profiles/
.<name>.forget``, flushed to disk with its directory): from the moment it exists the erase
is decided, and `finish` completes it when the profile is next opened, before anything else
reads it. The last step removes the intent. A kill before the intent exists erased nothing.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

from assistant.errors import MnemoError, StorageError
from assistant.memory.db import Database
from assistant.memory.keys import KeyManager
from assistant.memory.shred import erase_profile_dir, finish_interrupted

log = logging.getLogger("mnemo.forget")

INTENT_SUFFIX = ".forget"


def intent_path(profile_folder: Path) -> Path:
    return profile_folder.parent / f".{profile_folder.name}{INTENT_SUFFIX}"


def _sync_dir(folder: Path) -> None:
    if os.name != "posix":
        return  # Windows has no directory fsync; its rename is durable on NTFS
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_intent(profile_folder: Path) -> None:
    """Record, durably, that this profile is to be erased (the point of no return)."""
    path = intent_path(profile_folder)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, b"forget-me requested\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        _sync_dir(path.parent)
    except OSError as exc:
        path.unlink(missing_ok=True)
        raise StorageError(
            f"Cannot start forget-me: {exc.strerror}.",
            "Free some disk space or make the data folder writable; nothing was erased.",
        ) from exc


def clear_intent(profile_folder: Path) -> None:
    """The erase is complete: the fresh profile is the profile now."""
    intent_path(profile_folder).unlink(missing_ok=True)
    _sync_dir(profile_folder.parent)


def pending(profile_folder: Path) -> bool:
    return intent_path(profile_folder).exists()


def finish(profile_folder: Path, profile_id: str) -> int:
    """Complete an interrupted forget-me (call with the profile's lock held, before opening it).

    Shreds the vault key wherever it lives (the keyring entry is named in the database, so
    that is opened first, when it still can be), then the folder. Returns the files removed.
    """
    log.warning("completing a forget-me that was interrupted")
    database = profile_folder / "mnemo.db"
    if database.exists():
        try:
            db = Database(database)
            try:
                KeyManager(db, profile_id, profile_folder / "keys", warn=lambda _text: None).destroy()
            finally:
                db.close()
        except (MnemoError, OSError, sqlite3.Error) as exc:
            # a damaged database: the keyring entry it named cannot be found, and opens
            # nothing without the wrapped key, which goes with the file
            log.warning("the vault key record could not be read (%s); erasing the folder", type(exc).__name__)
    removed = erase_profile_dir(profile_folder) + finish_interrupted(profile_folder)
    clear_intent(profile_folder)
    return removed

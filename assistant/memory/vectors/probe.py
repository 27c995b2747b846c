"""The probe after a crash: is the index folder safe to open in this process?

A damaged HNSW segment can crash the process that loads it (a segfault in native code)
instead of raising, so the folder is opened first in a child (vectors/child.py). A child
that crashes, hangs or reports an error means the folder is shredded and the index rebuilt
from SQLite.
"""

from __future__ import annotations

import logging
from pathlib import Path

from assistant.memory.db import Database
from assistant.memory.shred import shred_tree
from assistant.memory.vectors.child import PORTABLE_ERRORS, Served
from assistant.memory.vectors.chroma import check_folder
from assistant.memory.vectors.scrub import scrub_pending

log = logging.getLogger("mnemo.index")

PROBE_TIMEOUT_S = 120.0


def probe_index(folder: Path, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Open and query every collection of the folder in a child process.

    Returns False when the child crashed, hung or reported an error (rebuild from SQLite).
    """
    if not folder.exists():
        return True
    try:
        Served(check_folder, str(folder), start_timeout=timeout).close()  # the check is the opening
    except PORTABLE_ERRORS as exc:  # StorageError among them: crashed, hung
        log.warning("index probe failed (%s): the index is rebuilt from SQLite", type(exc).__name__)
        return False
    return True


def drop_if_damaged(db: Database, folder: Path) -> None:
    """After a crash, before this process opens the index: shred a folder the probe refuses.

    Not while a scrub is pending: the scrub replaces the folder first, reading the old one
    in a child, which survives a damaged file.
    """
    if not scrub_pending(db) and not probe_index(folder):
        shred_tree(folder)

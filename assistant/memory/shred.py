"""Overwrite-then-remove for files whose bytes must not stay on disk (vectors, keys, tombstones).

Forget-me renames the profile folder to a tombstone first (one atomic step), then
overwrites and removes it; a crash midway leaves a tombstone that the next start erases.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("mnemo.forget")

TOMBSTONE_PREFIX = ".forget-"


def shred_file(path: Path) -> None:
    """Overwrite a file with zeros and flush it before it is unlinked.

    Best effort on journaling file systems and SSDs (the device may keep old blocks); what
    we promise is that no file under the data directory holds the bytes.
    """
    try:
        size = path.stat().st_size
        with open(path, "r+b", buffering=0) as handle:
            block = b"\0" * (1 << 20)
            remaining = size
            while remaining > 0:
                remaining -= handle.write(block[: min(remaining, len(block))])
            os.fsync(handle.fileno())
    except OSError as exc:
        log.warning("could not overwrite a file before removal (%s)", exc.strerror)


def shred_tree(root: Path) -> int:
    """Overwrite every regular file under `root`, then remove the tree. Returns the file count."""
    if not root.exists():
        return 0
    files = [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
    for path in files:
        shred_file(path)
    shutil.rmtree(root, ignore_errors=False)
    return len(files)


def erase_profile_dir(folder: Path, after_rename: Callable[[], None] | None = None) -> int:
    """Rename the folder to a tombstone (atomic), then shred it. Returns the file count."""
    if not folder.exists():
        return 0
    tomb = folder.with_name(f"{TOMBSTONE_PREFIX}{folder.name}-{os.getpid()}-{time.monotonic_ns()}")
    os.replace(folder, tomb)
    if after_rename is not None:
        after_rename()
    return shred_tree(tomb)


def finish_interrupted(profile_folder: Path) -> int:
    """Erase what an interrupted forget-me left (call before opening a profile).

    An interrupted index scrub is not erased here: its old index holds the vectors the scrub
    still copies (`IndexScrubber.run`, vectors/scrub.py, resumes it), so nothing needs embedding again.
    """
    done = 0
    parent = profile_folder.parent
    if parent.exists():
        for tomb in parent.glob(f"{TOMBSTONE_PREFIX}{profile_folder.name}-*"):
            done += shred_tree(tomb)
    if done:
        log.info("erased %d files left by an interrupted deletion", done)
    return done

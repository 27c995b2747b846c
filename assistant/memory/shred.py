"""Overwrite-then-remove for files whose bytes must not stay on disk (vectors, keys, tombstones)."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

log = logging.getLogger("mnemo.forget")


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

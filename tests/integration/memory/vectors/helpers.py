"""Shared pieces of the vector-index tests. What `Served` builds in a child is module-level
here, so a fork-server child can import it."""

from __future__ import annotations

import os
import signal
from pathlib import Path


class Tally:
    """A served object with state, a public method and a private one."""

    def __init__(self, start: int) -> None:
        self.total = start

    def add(self, amount: int) -> int:
        self.total += amount
        return self.total

    def pid(self) -> int:
        return os.getpid()

    def _secret(self) -> str:
        return "not to be called across the pipe"


def crash_while_opening() -> None:
    """Dies as a damaged HNSW file makes Chroma die: a signal, not an exception."""
    os.kill(os.getpid(), signal.SIGSEGV)


def opened_here(folder: Path) -> bool:
    """This process has a Chroma client on the folder (Chroma caches one per folder)."""
    from chromadb.api.shared_system_client import SharedSystemClient

    return str(folder) in getattr(SharedSystemClient, "_identifier_to_system", {})

"""Background threads step aside for the foreground (the reply being written, the window)."""

from __future__ import annotations

import logging
import os
import sys
import threading

log = logging.getLogger("mnemo")

BACKGROUND_NICENESS = 10
"""Extraction, summaries and maintenance can wait a moment; the reply and the window cannot."""


def yield_cpu_to_foreground(niceness: int = BACKGROUND_NICENESS) -> None:
    """Lower the calling thread's CPU priority, so it runs when the others leave a core free.

    Linux gives each thread its own nice value (`setpriority` with the thread's id). Embedding
    runs torch on the calling thread; on a 2-core machine, at the same priority it took CPU
    time from the GUI thread. Elsewhere this does nothing.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, max(niceness, os.getpriority(os.PRIO_PROCESS, thread)))
    except OSError:
        log.debug("could not lower the background thread's priority", exc_info=True)

"""Work on the open profile shares the gate; forget-me, which closes what is behind the profile
and opens it afresh, goes through it alone.

Every call the window makes into the core goes through `Core.run`, which holds the gate
shared, so a table refresh, a chat turn or an export never reads a database forget-me has
just closed: forget-me waits for the work already running (the chat stops a streaming reply
first), and work asked for meanwhile waits for forget-me and then runs on the fresh profile.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ProfileGate:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._sharing = 0
        self._alone: int | None = None  # the thread going through alone
        self._waiting = False  # one is waiting for the shared work to end

    @contextmanager
    def shared(self) -> Iterator[None]:
        me = threading.get_ident()
        with self._changed:
            # The thread inside `alone` goes on: forget-me's change listeners call back in
            # (and a synchronous runner, in tests, runs everything on one thread).
            while self._waiting or self._alone not in (None, me):
                self._changed.wait()
            self._sharing += 1
        try:
            yield
        finally:
            with self._changed:
                self._sharing -= 1
                self._changed.notify_all()

    @contextmanager
    def alone(self) -> Iterator[None]:
        """Wait until no shared work runs, and keep new work out until the block ends."""
        with self._changed:
            while self._alone is not None or self._waiting:
                self._changed.wait()
            self._waiting = True
            while self._sharing:
                self._changed.wait()
            self._waiting, self._alone = False, threading.get_ident()
        try:
            yield
        finally:
            with self._changed:
                self._alone = None
                self._changed.notify_all()

"""The one place where the core's plain callbacks become Qt signals.

The core calls back from whatever thread it runs on (a worker, the extraction thread);
emitting a signal of this GUI-thread object queues the slot onto the GUI thread.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from assistant.memory.api import MaintenanceReport, MemoryChange
    from assistant.memory.types import Change

log = logging.getLogger("mnemo.ui")


class CoreBridge(QObject):
    token = Signal(int, str)  # turn number, text piece
    memory_changed = Signal(object)  # list[Change] of a chat turn, for the chat's notice
    memories_touched = Signal(object)  # a MemoryChange: any command of `Memories` (the panel refreshes)
    warning = Signal(str)  # user-visible warning from the core (model fallback, key file)
    error = Signal(object)  # a MnemoError nobody else handled
    bug = Signal(str)  # an unexpected exception: a short description for the user
    maintenance_finished = Signal(object)  # the scheduler's report

    # -- callables handed to the core (safe from any thread) ------------------------------

    def on_memory_changed(self, changes: Sequence[Change]) -> None:
        self.memory_changed.emit(list(changes))

    def on_memories_changed(self, change: MemoryChange) -> None:
        self.memories_touched.emit(change)

    def on_warning(self, text: str) -> None:
        self.warning.emit(text)

    def on_maintenance(self, report: MaintenanceReport) -> None:
        self.maintenance_finished.emit(report)

    def report(self, exc: BaseException) -> None:
        """Route an exception: MnemoError → message; anything else → the bug handler."""
        from assistant.errors import MnemoError

        if isinstance(exc, MnemoError):
            self.error.emit(exc)
            return
        self.report_bug(type(exc), exc, exc.__traceback__)

    def report_bug(
        self, kind: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        log.error("unexpected error: %s", "".join(traceback.format_exception(kind, exc, tb)))
        try:
            from assistant.cli import crash_report

            where = crash_report(exc)
        except Exception:  # noqa: BLE001 - reporting must never raise
            where = None
        self.bug.emit(f"{kind.__name__}" + (f" — {where}" if where else ""))

    def install_excepthooks(self) -> None:
        """Uncaught exceptions of any thread land in `bug` (the app does this, not tests)."""

        def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
            self.report_bug(kind, exc, tb)

        def thread_hook(args: threading.ExceptHookArgs) -> None:
            if args.exc_value is not None:
                self.report_bug(args.exc_type, args.exc_value, args.exc_traceback)

        sys.excepthook = hook
        threading.excepthook = thread_hook

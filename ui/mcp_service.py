"""Other apps reach the memory through the running window (`mnemo mcp` bridges to it).

Once the profile is open the window serves the profile's MCP socket (assistant/mcp/local.py:
an owner-only Unix socket in the profile folder, no TCP port); after forget-me, which removes
the folder, it serves it again. A client's `forget` waits, on its connection's thread, for
the user's answer in a dialog here; no answer within `CONFIRM_TIMEOUT_S` is a no.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from assistant.errors import MnemoError
from assistant.memory.api import ForgetPlan
from ui.display import friendly
from ui.i18n import tr, tr_n

log = logging.getLogger("mnemo.ui")

CONFIRM_TIMEOUT_S = 120.0
SHOWN_MATCHES = 8


@dataclass(eq=False)
class ForgetQuestion:
    """A client's forget, waiting for the user's answer."""

    client: str
    plan: ForgetPlan
    answered: threading.Event = field(default_factory=threading.Event)
    yes: bool = False


class McpService(QObject):
    """Serves MCP hosts for `core`'s profile while the window runs.

    Args:
        core: the window's core (`ui.core.Core`); serving starts when it has opened.
        window: parent of the confirmation dialogs.
    """

    asked = Signal(object)  # a ForgetQuestion, from a connection's thread to the GUI thread

    def __init__(self, core: Any, window: QWidget) -> None:
        super().__init__(window)
        self.core = core
        self.window = window
        self.server: Any = None
        self.dialog: QMessageBox | None = None
        self._waiting: set[ForgetQuestion] = set()
        self._waiting_lock = threading.Lock()
        self.asked.connect(self._ask)
        core.opened.connect(self.start)
        core.reset.connect(self.start)  # forget-me removed the folder, socket file and all

    def start(self) -> None:
        from assistant.mcp.gateway import MemoryGateway
        from assistant.mcp.local import LocalServer, socket_path

        self.stop()
        profile = self.core.profile
        server = LocalServer(MemoryGateway(profile, confirm_forget=self.confirm), socket_path(profile.dir))
        try:
            server.start()
        except MnemoError as exc:
            log.warning("other apps cannot reach the memory: %s", exc.message)
            return
        self.server = server

    def stop(self) -> None:
        """Stop serving; a client still waiting for an answer gets a no."""
        if self.server is not None:
            self.server.close()
            self.server = None
        with self._waiting_lock:
            waiting, self._waiting = self._waiting, set()
        for question in waiting:
            question.answered.set()

    def confirm(self, client: str, plan: ForgetPlan) -> bool:
        """On a connection's thread: ask the user, wait for the answer."""
        question = ForgetQuestion(client, plan)
        with self._waiting_lock:
            self._waiting.add(question)
        self.asked.emit(question)
        try:
            return question.answered.wait(CONFIRM_TIMEOUT_S) and question.yes
        finally:
            with self._waiting_lock:
                self._waiting.discard(question)

    def _ask(self, question: ForgetQuestion) -> None:
        vault = self.core.vault_entries
        lines = "\n".join("• " + friendly(m.content, vault) for m in question.plan.matches[:SHOWN_MATCHES])
        more = len(question.plan.matches) - SHOWN_MATCHES
        if more > 0:
            lines += "\n" + tr_n("… and {n} more", "… and {n} more", more)
        box = QMessageBox(QMessageBox.Icon.Question, tr("Forget memories?"),
                          tr("{app} asks Mnemo to forget these memories for good:", app=question.client)
                          + "\n\n" + lines, parent=self.window)
        forget = box.addButton(tr("Forget"), QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(tr("Keep"), QMessageBox.ButtonRole.RejectRole)

        def answered(_result: int) -> None:
            question.yes = box.clickedButton() is forget
            question.answered.set()
            self.dialog = None

        box.finished.connect(answered)
        QTimer.singleShot(int(CONFIRM_TIMEOUT_S * 1000), box, box.reject)  # the client stopped waiting
        self.dialog = box
        box.open()

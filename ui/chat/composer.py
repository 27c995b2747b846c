"""Where the user writes: the message box with Send and Stop.

Enter sends, Shift+Enter starts a new line; Tab and Shift+Tab move the focus out of the box
(a chat message has no use for a tab character); Send is off while the box is empty or a
reply is on its way.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from ui.i18n import tr

INPUT_LINES = 3
"""The box shows this many lines (more scroll); its height follows the font, so HiDPI and
large fonts keep three whole lines."""


class MessageInput(QPlainTextEdit):
    """Enter sends, Shift+Enter is a new line, Tab moves the focus on."""

    submitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTabChangesFocus(True)
        self.setObjectName("messageInput")
        lines = self.fontMetrics().lineSpacing() * INPUT_LINES
        margins = self.contentsMargins()
        self.setFixedHeight(
            lines + 2 * int(self.document().documentMargin()) + margins.top() + margins.bottom() + 4
        )

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if (
            event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.submitted.emit()
            return
        super().keyPressEvent(event)


class Composer(QWidget):
    """The input row. The chat view decides what sending means; this only says when."""

    submitted = Signal()
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._running = False
        self._available = False
        self.input = MessageInput()
        self.input.submitted.connect(self._submit)
        self.input.textChanged.connect(self._update)
        self.send_button = QPushButton()
        self.send_button.setDefault(True)
        self.send_button.clicked.connect(self._submit)
        self.stop_button = QPushButton()
        self.stop_button.clicked.connect(self.stop_requested)
        self.stop_button.setEnabled(False)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.input, 1)
        row.addLayout(buttons)
        self._update()

    @property
    def text(self) -> str:
        return self.input.toPlainText()

    def set_available(self, available: bool) -> None:
        """Whether a message can be sent at all (the profile is open, chat is installed)."""
        self._available = available
        self._update()

    def set_running(self, running: bool) -> None:
        self._running = running
        self.stop_button.setEnabled(running)
        self._update()

    def retranslate(self, *, temporary: bool = False) -> None:
        self.send_button.setText(tr("Send"))
        self.stop_button.setText(tr("Stop"))
        self.stop_button.setToolTip(tr("Stop the reply (Esc)"))
        if temporary:
            self.input.setPlaceholderText(
                tr("Message Mnemo in a temporary chat… (nothing here is saved or remembered)")
            )
        else:
            self.input.setPlaceholderText(
                tr("Message Mnemo… (Enter to send, Shift+Enter for a new line)")
            )

    def _update(self) -> None:
        self.send_button.setEnabled(
            self._available and not self._running and bool(self.text.strip())
        )

    def _submit(self) -> None:
        if self.send_button.isEnabled():
            self.submitted.emit()

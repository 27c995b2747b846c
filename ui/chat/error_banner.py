"""An in-window message for a failed turn: what happened, what to do, Retry, and for errors
the window can fix (a missing model, Ollama not running) a button that opens the fix."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ui.i18n import error_text, tr
from ui.theme import banner_style, theme

FIXES = {
    # error code → the button that opens the fix (its text; the window decides what it opens)
    "model_missing": "Choose or download a model…",
    "ollama_down": "Set up Ollama…",
}

_COMMAND = re.compile(r"`([^`]+)`")


def hint_html(hint: str) -> str:
    """A hint as rich text: `commands` in a fixed-pitch font, not between literal backticks."""
    parts = _COMMAND.split(hint)
    out = []
    for index, part in enumerate(parts):
        text = html.escape(part)
        out.append(f"<code>{text}</code>" if index % 2 else text)
    return "".join(out)


class ErrorBanner(QFrame):
    retry_requested = Signal()
    fix_requested = Signal(str)  # the error's code (see FIXES)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.error: BaseException | None = None
        self.setObjectName("errorBanner")
        self.message = QLabel()
        self.message.setWordWrap(True)
        font = self.message.font()
        font.setBold(True)
        self.message.setFont(font)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setTextFormat(Qt.TextFormat.RichText)
        self.hint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fix_button = QPushButton()
        self.fix_button.clicked.connect(self._fix)
        self.fix_button.hide()
        self.retry_button = QPushButton()
        self.retry_button.clicked.connect(self.retry_requested)
        self.close_button = QPushButton("×")
        self.close_button.setFlat(True)
        self.close_button.setFixedWidth(24)
        self.close_button.clicked.connect(self.clear)
        texts = QVBoxLayout()
        texts.addWidget(self.message)
        texts.addWidget(self.hint)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 8, 6)
        layout.addLayout(texts, 1)
        layout.addWidget(self.fix_button)
        layout.addWidget(self.retry_button)
        layout.addWidget(self.close_button)
        theme.changed.connect(self._restyle)
        self._restyle()
        self.hide()
        self.retranslate()

    def _restyle(self) -> None:
        self.setStyleSheet(banner_style("errorBanner", "error", theme.colors))

    def show_error(self, error: BaseException, *, can_retry: bool = True) -> None:
        self.error = error
        self.retry_button.setVisible(can_retry)
        self.fix_button.setVisible(getattr(error, "code", "") in FIXES)
        self.retranslate()
        self.show()

    def clear(self) -> None:
        self.error = None
        self.hide()

    def _fix(self) -> None:
        if self.error is not None:
            self.fix_requested.emit(getattr(self.error, "code", ""))

    def retranslate(self) -> None:
        self.retry_button.setText(tr("Retry"))
        self.close_button.setToolTip(tr("Close"))
        if self.error is not None:
            message, hint = error_text(self.error)
            self.message.setText(message)
            self.hint.setText(hint_html(hint))
            self.hint.setVisible(bool(hint))
            code = getattr(self.error, "code", "")
            if code in FIXES:
                self.fix_button.setText(tr(FIXES[code]))

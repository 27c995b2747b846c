"""An in-window message for a failed turn: what happened, what to do, and Retry."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ui.i18n import error_text, tr


class ErrorBanner(QFrame):
    retry_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.error: BaseException | None = None
        self.setObjectName("errorBanner")
        self.setStyleSheet(
            "QFrame#errorBanner { background:#fef2f2; border:1px solid #fecaca; border-radius:6px; }"
        )
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("font-weight:bold; color:#991b1b;")
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.retry_button = QPushButton()
        self.retry_button.clicked.connect(self.retry_requested)
        self.close_button = QPushButton("×")
        self.close_button.setFlat(True)
        self.close_button.setFixedWidth(24)
        self.close_button.clicked.connect(self.hide)
        texts = QVBoxLayout()
        texts.addWidget(self.message)
        texts.addWidget(self.hint)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addLayout(texts, 1)
        layout.addWidget(self.retry_button)
        layout.addWidget(self.close_button)
        self.hide()
        self.retranslate()

    def show_error(self, error: BaseException, *, can_retry: bool = True) -> None:
        self.error = error
        self.retry_button.setVisible(can_retry)
        self.retranslate()
        self.show()

    def retranslate(self) -> None:
        self.retry_button.setText(tr("Retry"))
        if self.error is not None:
            message, hint = error_text(self.error)
            self.message.setText(message)
            self.hint.setText(hint)
            self.hint.setVisible(bool(hint))

"""One message in the transcript: rendered Markdown, and for replies "memories used (n)"."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.chat.message_text import MessageText
from ui.i18n import tr

STYLE = (  # set once on the chat view: per-widget style sheets cost a parse per bubble
    "QFrame#userBubble { background:#dbeafe; border-radius:10px; }"
    "QFrame#assistantBubble { background:#ffffff; border:1px solid #e5e7eb; border-radius:10px; }"
    "QLabel#bubbleNote { color:#b45309; }"
    "QPushButton#memoriesUsed { color:#2563eb; text-align:left; padding:0; border:none; }"
)

RENDER_MIN_INTERVAL_MS = 50
"""Streamed text is re-rendered at most this often; longer texts wait longer (see `_render`),
so rendering never takes more than about a fifth of the GUI thread's time."""


class MessageBubble(QFrame):
    """A user or assistant message. Streaming pieces are coalesced before re-rendering."""

    memories_clicked = Signal()

    def __init__(self, role: str, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = role
        self.message_id: int | None = None
        self.injected: list[object] | None = None
        self._text = text
        self._injected_count = 0
        self.setObjectName("userBubble" if role == "user" else "assistantBubble")
        self.body = MessageText()
        self.note = QLabel()
        self.note.setObjectName("bubbleNote")
        self.note.setWordWrap(True)
        self.note.hide()
        self.memories_button = QPushButton()
        self.memories_button.setFlat(True)
        self.memories_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.memories_button.setObjectName("memoriesUsed")
        self.memories_button.clicked.connect(self.memories_clicked)
        self.memories_button.hide()
        footer = QHBoxLayout()
        footer.addWidget(self.memories_button)
        footer.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.body)
        layout.addWidget(self.note)
        layout.addLayout(footer)
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_MIN_INTERVAL_MS)
        self._render_timer.timeout.connect(self._render)
        self._render()

    @property
    def text(self) -> str:
        return self._text

    def append(self, piece: str) -> None:
        self._text += piece
        if not self._render_timer.isActive():
            self._render_timer.start()

    def set_text(self, text: str) -> None:
        self._text = text
        self._render_timer.stop()
        self._render()

    def finish(self) -> None:
        """The stream ended: render now and stop the coalescing timer."""
        self._render_timer.stop()
        self._render()

    def _render(self) -> None:
        started = time.perf_counter()
        self.body.set_markdown(self._text if self._text else ("…" if self.role == "assistant" else ""))
        spent_ms = (time.perf_counter() - started) * 1000
        self._render_timer.setInterval(max(RENDER_MIN_INTERVAL_MS, int(spent_ms * 5)))

    def set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def set_injected(self, count: int) -> None:
        self._injected_count = count
        self.memories_button.setVisible(self.role == "assistant" and count > 0)
        self.retranslate()

    def retranslate(self) -> None:
        self.memories_button.setText(tr("memories used ({n})", n=self._injected_count))

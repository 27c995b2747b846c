"""One message in the transcript: rendered Markdown, and for replies "memories used (n)"."""

from __future__ import annotations

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

WARM_UP_SAMPLE = "Mnemo **记忆** *斜体* `code`\n\n- 1\n\n```\nprint('你好')\n```"

RENDER_INTERVAL_MS = 100
"""Streamed text is shown at most this often: ten updates a second read as smooth, and each
one lays out and repaints the visible part of the transcript."""


class MessageBubble(QFrame):
    """A user or assistant message. Streaming pieces are coalesced before re-rendering."""

    memories_clicked = Signal()

    def __init__(self, role: str, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = role
        self.message_id: int | None = None
        self.injected: list[object] | None = None
        self._text = text
        self._streamed = False
        self._injected_count = 0
        self.setObjectName("userBubble" if role == "user" else "assistantBubble")
        self.body = MessageText()
        # One short line ("Stopped."), not word-wrapped: a wrapping label has a height for
        # its width, which makes every layout above it compute heights for widths, and Qt
        # does not cache the minimum ones: each layout pass then walked every bubble of the
        # transcript (~20 ms with 1,000 shown). Nothing in a bubble may wrap but `body`.
        self.note = QLabel()
        self.note.setObjectName("bubbleNote")
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
        self._render_timer.setInterval(RENDER_INTERVAL_MS)
        self._render_timer.timeout.connect(self._show_stream)
        self._render()

    @property
    def text(self) -> str:
        return self._text

    def append(self, piece: str) -> None:
        """A streamed piece: shown with the next update (see `RENDER_INTERVAL_MS`)."""
        self._text += piece
        self._streamed = True
        if not self._render_timer.isActive():
            self._render_timer.start()

    def set_text(self, text: str) -> None:
        """The final text: only what is not on screen yet is rendered when it extends the stream."""
        self._render_timer.stop()
        if self._streamed and text.startswith(self._text):
            self._text = text
            self.body.end_stream(text)
        else:
            self._text = text
            self._render()
        self._streamed = False

    def _show_stream(self) -> None:
        self.body.show_stream(self._text)

    def _render(self) -> None:
        self.body.set_markdown(
            self._text if self._text else ("…" if self.role == "assistant" else "")
        )

    def set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def set_injected(self, count: int) -> None:
        self._injected_count = count
        self.memories_button.setVisible(self.role == "assistant" and count > 0)
        self.retranslate()

    def retranslate(self) -> None:
        self.memories_button.setText(tr("memories used ({n})", n=self._injected_count))

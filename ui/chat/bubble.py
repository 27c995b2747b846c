"""One message in the transcript: the user's as typed in a tinted bubble, a reply as rendered
Markdown on the window's background, and for replies "memories used (n)"."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
from ui.i18n import tr, tr_n

if TYPE_CHECKING:
    from assistant.memory.types import Memory

WARM_UP_SAMPLE = "Mnemo **记忆** *斜体* `code`\n\n- 1\n\n```\nprint('你好')\n```"

RENDER_INTERVAL_MS = 100
"""Streamed text is shown at most this often: ten updates a second read as smooth, and each
one lays out and repaints the visible part of the transcript."""

NATURAL_WIDTH_CHARS = 2000
"""A user message longer than this is not measured for a narrow bubble: it fills the column."""

PADDING = (14, 8)  # horizontal, vertical: inside a bubble, around the text


class MessageBubble(QFrame):
    """A user or assistant message. Streaming pieces are coalesced before re-rendering.

    Args:
        role: "user" or "assistant".
        text: the message as stored (or typed).
        shown: what to show instead of `text` (stored text with its vault references written
            for people, see `ui.display`); `text` when not given.
    """

    memories_clicked = Signal()

    def __init__(
        self, role: str, text: str = "", parent: QWidget | None = None, *, shown: str | None = None
    ) -> None:
        super().__init__(parent)
        self.role = role
        self.message_id: int | None = None
        self.injected: list[Memory] | None = None
        self.failed = False  # a stored reply that never came (the model was not reachable)
        self._text = text
        self._shown = text if shown is None else shown
        self._streamed = False
        self._injected_count = 0
        self.setObjectName("userBubble" if role == "user" else "assistantBubble")
        self.body = MessageText()
        self.body.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
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
        layout = self._layout = QVBoxLayout(self)
        if role == "user":
            layout.setContentsMargins(PADDING[0], PADDING[1], PADDING[0], PADDING[1])
        else:  # a reply has no bubble: its text lines up with the column
            layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
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

    def natural_width(self) -> int | None:
        """The width a short user message needs (its longest line), None for a long one."""
        if self.role != "user" or len(self._shown) > NATURAL_WIDTH_CHARS:
            return None
        metrics = self.body.fontMetrics()
        widest = max(
            (metrics.horizontalAdvance(line) for line in self._shown.split("\n")), default=0
        )
        margins = self._layout.contentsMargins()
        # the document's margin on both sides, and a little room for rounding
        return widest + margins.left() + margins.right() + 4 * 2 + 6

    def append(self, piece: str) -> None:
        """A streamed piece: shown with the next update (see `RENDER_INTERVAL_MS`)."""
        self._text += piece
        self._shown = self._text
        self._streamed = True
        if not self._render_timer.isActive():
            self._render_timer.start()

    def set_text(self, text: str) -> None:
        """The final text: only what is not on screen yet is rendered when it extends the stream."""
        self._render_timer.stop()
        if self._streamed and text.startswith(self._text):
            self._text = self._shown = text
            self.body.end_stream(text)
        else:
            self._text = self._shown = text
            self._render()
        self._streamed = False

    def set_failed(self) -> None:
        """This reply never came: no "…" body, a note saying so instead."""
        self.failed = True
        self._render_timer.stop()
        self.body.hide()
        self.set_note(tr("No reply: the model could not be reached."))

    def _show_stream(self) -> None:
        self.body.show_stream(self._text)

    def _render(self) -> None:
        if self.role == "user":
            self.body.set_plain(self._shown)
        else:  # "…" while a reply is on its way
            self.body.set_markdown(self._shown if self._shown else "…")

    def set_highlighted(self, on: bool) -> None:
        """Mark the message the user jumped to (a memory's source); the style sheet draws it."""
        self.setProperty("highlighted", on)
        self.style().unpolish(self)
        self.style().polish(self)

    def set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def set_injected(self, count: int) -> None:
        self._injected_count = count
        self.memories_button.setVisible(self.role == "assistant" and count > 0)
        self.retranslate()

    def retranslate(self) -> None:
        self.memories_button.setText(
            tr_n("{n} memory used", "{n} memories used", self._injected_count)
        )
        if self.failed:
            self.note.setText(tr("No reply: the model could not be reached."))

"""The "memory updated" notice, with Undo."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from ui.i18n import tr
from ui.theme import banner_style, theme

if TYPE_CHECKING:
    from assistant.memory.types import Change

SHOWN = {"add", "update", "delete"}


class MemoryNotice(QFrame):
    """Shows what extraction stored; `undo_requested(changes)` asks the chat to undo them."""

    undo_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.changes: list[Change] = []
        self.display: Callable[[str], str] = lambda text: text  # stored text → shown text
        self.setObjectName("memoryNotice")
        theme.changed.connect(self._restyle)
        self._restyle()
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.undo_button = QPushButton()
        self.undo_button.clicked.connect(self._undo)
        self.close_button = QPushButton("×")
        self.close_button.setFlat(True)
        self.close_button.setFixedWidth(24)
        self.close_button.clicked.connect(self.clear)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.undo_button)
        layout.addWidget(self.close_button)
        self.hide()
        self.retranslate()

    def _restyle(self) -> None:
        self.setStyleSheet(banner_style("memoryNotice", "success", theme.colors))

    def clear(self) -> None:
        """Gone, with what it was about (a new chat starts without the last chat's notice)."""
        self.changes = []
        self.hide()

    def show_changes(self, changes: Sequence[Change]) -> None:
        shown = [c for c in changes if c.action.value in SHOWN]
        if not shown:
            return
        self.changes = shown
        self.retranslate()
        self.undo_button.setEnabled(True)
        self.show()

    def retranslate(self) -> None:
        self.undo_button.setText(tr("Undo"))
        self.close_button.setToolTip(tr("Close"))
        if not self.changes:
            return
        verbs = {"add": tr("Remembered"), "update": tr("Updated"), "delete": tr("Forgot")}
        lines = [
            f"{verbs[c.action.value]}: {self.display(c.content)}"
            for c in self.changes[:3]
        ]
        more = len(self.changes) - 3
        if more > 0:
            lines.append(tr("and {n} more", n=more))
        self.text.setText(
            tr("Memory updated") + " — " + "  ·  ".join(line.rstrip("。.") for line in lines)
        )

    def _undo(self) -> None:
        self.undo_button.setEnabled(False)
        self.undo_requested.emit(list(self.changes))

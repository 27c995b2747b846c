"""The "memories used" popup: exactly the memories injected for one reply, with actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.dates import short_datetime
from ui.display import friendly
from ui.i18n import tr
from ui.memory_panel.model import label
from ui.theme import theme

if TYPE_CHECKING:
    from assistant.memory.types import Memory
    from ui.core import Core


class MemoriesUsedDialog(QDialog):
    """Lists `memories`; "Don't use this again" archives one, "Delete" deletes it (via `core`)."""

    changed = Signal()

    def __init__(self, core: Core, memories: list[Memory], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._core = core
        self.setWindowTitle(tr("Memories used for this reply"))
        self.rows: dict[int, QFrame] = {}
        layout = QVBoxLayout(self)
        intro = QLabel(tr("Mnemo put these memories into the prompt for this reply:"))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        if not memories:
            layout.addWidget(QLabel(tr("These memories no longer exist.")))
        for memory in memories:
            layout.addWidget(self._row(memory))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.button(QDialogButtonBox.StandardButton.Close).setText(tr("Close"))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.setMinimumWidth(520)

    def _row(self, memory: Memory) -> QFrame:
        frame = QFrame()
        frame.setFrameShape(QFrame.Shape.StyledPanel)
        content = friendly(memory.content, self._core.vault_entries)
        text = QLabel(
            f"<b>{_esc(content)}</b><br><span style='color:{theme.colors.muted}'>"
            f"{label(memory.category.value)} · {short_datetime(memory.created_at)}</span>"
        )
        text.setWordWrap(True)
        text.setTextFormat(Qt.TextFormat.RichText)
        archive = QPushButton(tr("Don't use this again"))
        archive.setObjectName(f"archive-{memory.id}")
        archive.clicked.connect(lambda: self.archive(memory.id))
        delete = QPushButton(tr("Delete"))
        delete.setObjectName(f"delete-{memory.id}")
        delete.clicked.connect(lambda: self.delete(memory.id))
        row = QHBoxLayout(frame)
        row.addWidget(text, 1)
        row.addWidget(archive)
        row.addWidget(delete)
        self.rows[memory.id] = frame
        return frame

    def archive(self, memory_id: int) -> None:
        memories = self._core.memories
        self._core.run(
            lambda: memories.archive([memory_id]),
            lambda _r: self._done(memory_id, tr("Won't be used again.")),
        )

    def delete(self, memory_id: int) -> None:
        memories = self._core.memories
        self._core.run(
            lambda: memories.delete([memory_id]), lambda _r: self._done(memory_id, tr("Deleted."))
        )

    def _done(self, memory_id: int, text: str) -> None:
        frame = self.rows[memory_id]
        for button in frame.findChildren(QPushButton):
            button.setEnabled(False)
        row = frame.layout()
        assert row is not None, "made in _row"
        row.addWidget(QLabel(text))
        self.changed.emit()


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

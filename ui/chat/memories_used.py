"""The "memories used" popup: exactly the memories injected for one reply, why each was chosen
(the routes that found it, its relevance against the threshold), where it came from with a
link to that message, and actions."""

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
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from assistant.memory.api import origin_text, reasons
from ui.dates import short_datetime
from ui.display import friendly
from ui.i18n import tr
from ui.memory_panel.model import label
from ui.theme import theme

if TYPE_CHECKING:
    from assistant.chat.types import UsedMemory
    from ui.core import Core

OPEN_LINK = "Open that message"


class MemoriesUsedDialog(QDialog):
    """Lists `used`; "Don't use this again" archives one, "Delete" deletes it (via `core`);
    the link under a memory asks to open the message it came from (`source_requested`)."""

    changed = Signal()
    source_requested = Signal(str, int)  # session id, message id

    def __init__(self, core: Core, used: list[UsedMemory], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._core = core
        self.setWindowTitle(tr("Memories used for this reply"))
        self.rows: dict[int, QFrame] = {}
        self.why_labels: dict[int, QLabel] = {}
        self.origin_labels: dict[int, QLabel] = {}
        layout = QVBoxLayout(self)
        intro = QLabel(tr("Mnemo put these memories into the prompt for this reply:"))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        rows = QWidget()
        column = QVBoxLayout(rows)
        column.setContentsMargins(0, 0, 0, 0)
        if not used:
            column.addWidget(QLabel(tr("These memories no longer exist.")))
        for item in used:
            column.addWidget(self._row(item))
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(rows)
        layout.addWidget(scroll, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.button(QDialogButtonBox.StandardButton.Close).setText(tr("Close"))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.setMinimumWidth(620)
        self.resize(680, min(720, 160 + 150 * max(1, len(used))))

    def _row(self, item: UsedMemory) -> QFrame:
        memory = item.memory
        frame = QFrame()
        frame.setFrameShape(QFrame.Shape.StyledPanel)
        content = friendly(memory.content, self._core.vault_entries)
        muted = theme.colors.muted
        text = QLabel(
            f"<b>{_esc(content)}</b><br><span style='color:{muted}'>"
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
        top = QHBoxLayout()
        top.addWidget(text, 1)
        top.addWidget(archive, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(delete, 0, Qt.AlignmentFlag.AlignTop)
        box = QVBoxLayout(frame)
        box.addLayout(top)
        box.addWidget(self._why(item))
        box.addWidget(self._origin(item))
        self.rows[memory.id] = frame
        return frame

    def _why(self, item: UsedMemory) -> QLabel:
        lines = "".join(f"<li>{_esc(line)}</li>" for line in reasons(item.why, tr))
        why = QLabel(f"{_esc(tr('Why:'))}<ul style='margin:0 0 0 -20px'>{lines}</ul>")
        why.setObjectName(f"why-{item.memory.id}")
        why.setTextFormat(Qt.TextFormat.RichText)
        why.setWordWrap(True)
        self.why_labels[item.memory.id] = why
        return why

    def _origin(self, item: UsedMemory) -> QLabel:
        origin = item.origin
        words = _esc(origin_text(origin, tr, short_datetime))
        if origin.linked:
            unbroken = _esc(tr(OPEN_LINK)).replace(" ", "&nbsp;")  # the link on one line
            link = f"<a href='open' style='color:{theme.colors.link}'>{unbroken}</a>"
            words = f"{words} · {link}"
        shown = QLabel(f"<span style='color:{theme.colors.muted}'>{words}</span>")
        shown.setObjectName(f"origin-{item.memory.id}")
        shown.setTextFormat(Qt.TextFormat.RichText)
        shown.setWordWrap(True)
        shown.setTextInteractionFlags(
            Qt.TextInteractionFlag.LinksAccessibleByMouse | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        if origin.linked and origin.session_id is not None and origin.message_id is not None:
            session_id, message_id = origin.session_id, origin.message_id
            shown.linkActivated.connect(lambda _href: self.open_source(session_id, message_id))
        self.origin_labels[item.memory.id] = shown
        return shown

    def open_source(self, session_id: str, message_id: int) -> None:
        """Close, and ask the chat view to open that chat at that message."""
        self.accept()
        self.source_requested.emit(session_id, message_id)

    # The dialog deletes itself on close: closed before the result comes, it is not told.
    def archive(self, memory_id: int) -> None:
        memories = self._core.memories
        self._core.run_for(
            self,
            lambda: memories.archive([memory_id]),
            lambda _r: self._done(memory_id, tr("Won't be used again.")),
        )

    def delete(self, memory_id: int) -> None:
        memories = self._core.memories
        self._core.run_for(
            self, lambda: memories.delete([memory_id]), lambda _r: self._done(memory_id, tr("Deleted."))
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

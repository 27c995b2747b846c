"""The sessions sidebar: past chats (a list model), new chat, rename, delete, temporary toggle."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QInputDialog,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.dialogs import confirm
from ui.i18n import tr

if TYPE_CHECKING:
    from assistant.chat.types import Session

Index = QModelIndex | QPersistentModelIndex


class SessionListModel(QAbstractListModel):
    """Sessions, newest first, as the engine lists them."""

    def __init__(self) -> None:
        super().__init__()
        self._sessions: list[Session] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._sessions)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        session = self._sessions[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            title = session.title or tr("New chat")
            return ("⏳ " if session.temporary else "") + title
        if role == Qt.ItemDataRole.UserRole:
            return session.id
        return None

    def set_sessions(self, sessions: Sequence[Session]) -> None:
        self.beginResetModel()
        self._sessions = list(sessions)
        self.endResetModel()

    def session(self, row: int) -> Session:
        return self._sessions[row]

    def row_of(self, session_id: str | None) -> int:
        for row, session in enumerate(self._sessions):
            if session.id == session_id:
                return row
        return -1


class SessionSidebar(QWidget):
    """Emits what the user wants; the chat view talks to the engine."""

    new_requested = Signal(bool)  # temporary
    selected = Signal(str)
    rename_requested = Signal(str, str)
    delete_requested = Signal(str)

    def __init__(self, model: SessionListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.dialog: QWidget | None = None  # the last dialog opened (tests press its buttons)
        self.list = QListView()
        self.list.setModel(model)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setUniformItemSizes(True)
        self.list.clicked.connect(
            lambda index: self.selected.emit(index.data(Qt.ItemDataRole.UserRole))
        )
        self.temporary = QCheckBox()
        self.new_button = QPushButton()
        self.new_button.clicked.connect(lambda: self.new_requested.emit(self.temporary.isChecked()))
        self.rename_button = QPushButton()
        self.rename_button.clicked.connect(self._rename)
        self.delete_button = QPushButton()
        self.delete_button.clicked.connect(self._delete)
        buttons = QHBoxLayout()
        buttons.addWidget(self.rename_button)
        buttons.addWidget(self.delete_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.new_button)
        layout.addWidget(self.temporary)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self.setMinimumWidth(170)
        self.retranslate()

    def retranslate(self) -> None:
        self.new_button.setText(tr("+ New chat"))
        self.temporary.setText(tr("Temporary chat"))
        self.temporary.setToolTip(
            tr("A temporary chat is not saved and nothing from it is remembered.")
        )
        self.rename_button.setText(tr("Rename"))
        self.delete_button.setText(tr("Delete"))

    def current_id(self) -> str | None:
        index = self.list.currentIndex()
        return index.data(Qt.ItemDataRole.UserRole) if index.isValid() else None

    def select(self, session_id: str | None) -> None:
        row = self.model.row_of(session_id)
        if row >= 0:
            self.list.setCurrentIndex(self.model.index(row))

    def _rename(self) -> None:
        session_id = self.current_id()
        if session_id is None:
            return
        session = self.model.session(self.model.row_of(session_id))
        dialog = QInputDialog(self)  # opened, not exec()'d: the event loop (and workers) go on
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.setWindowTitle(tr("Rename chat"))
        dialog.setLabelText(tr("Title"))
        dialog.setTextValue(session.title)
        dialog.setOkButtonText(tr("Rename"))
        dialog.setCancelButtonText(tr("Cancel"))

        def chosen(title: str) -> None:
            if title.strip():
                self.rename_requested.emit(session_id, title.strip())

        dialog.textValueSelected.connect(chosen)
        self.dialog = dialog
        dialog.open()

    def _delete(self) -> None:
        session_id = self.current_id()
        if session_id is None:
            return
        self.dialog = confirm(
            self,
            tr("Delete chat"),
            tr("Delete this chat? Memories learnt from it stay until you delete them."),
            lambda: self.delete_requested.emit(session_id),
            action=tr("Delete"),
            destructive=True,
        )

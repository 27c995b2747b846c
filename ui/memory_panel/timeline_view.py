"""The memory timeline: what changed about the user and when, grouped by day, newest first,
with Undo where undo is possible and a way to the memory an entry is about."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QListView,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from assistant.errors import InputError
from assistant.memory.types import TimelineEntry
from ui.dialogs import error_message, inform
from ui.i18n import tr
from ui.memory_panel.timeline_model import TimelineModel, blocked_text
from ui.theme import muted_style, theme

if TYPE_CHECKING:
    from ui.core import Core

class TimelineView(QWidget):
    """Shows `model`; `open_memory(id)` asks the panel to show a memory's details."""

    open_memory = Signal(int)

    def __init__(self, core: Core, model: TimelineModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._core = core
        self.model = model
        self.dialog: QWidget | None = None
        self.list = QListView()
        self.list.setObjectName("memoryTimeline")
        self.list.setModel(model)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setAlternatingRowColors(False)
        self.list.setSpacing(2)
        self.list.doubleClicked.connect(lambda _i: self.open_selected())
        self.list.selectionModel().selectionChanged.connect(lambda *_: self._update())
        model.modelReset.connect(self._update)
        model.loaded.connect(self._show_empty_state)
        self.empty_label = QLabel()
        self.empty_label.setObjectName("timelineEmpty")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setMargin(24)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.list)
        self.pages.addWidget(self.empty_label)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.undo_button = QPushButton()
        self.undo_button.setObjectName("timelineUndo")
        self.undo_button.clicked.connect(self.undo_selected)
        self.open_button = QPushButton()
        self.open_button.setObjectName("timelineOpen")
        self.open_button.clicked.connect(self.open_selected)
        row = QHBoxLayout()
        row.addWidget(self.hint, 1)
        row.addWidget(self.open_button)
        row.addWidget(self.undo_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages, 1)
        layout.addLayout(row)
        theme.changed.connect(self._restyle)
        self._restyle()
        self.retranslate()

    def _restyle(self) -> None:
        self.empty_label.setStyleSheet(muted_style(theme.colors, size_px=15))
        self.hint.setStyleSheet(muted_style(theme.colors))

    def retranslate(self) -> None:
        self.undo_button.setText(tr("Undo"))
        self.undo_button.setToolTip(tr("Undo the selected change"))
        self.open_button.setText(tr("Show memory"))
        self.open_button.setToolTip(tr("Open the memory this change is about"))
        self.empty_label.setText(tr(
            "Nothing has changed yet. When Mnemo replaces, merges, archives or forgets a memory, "
            "it shows up here by day, and most changes can be undone."
        ))
        self.list.viewport().update()  # the days and entries are worded when painted
        self._update()

    def _show_empty_state(self) -> None:
        empty = not self.model.rowCount() and not self.model.loading
        self.pages.setCurrentWidget(self.empty_label if empty else self.list)

    def selected(self) -> TimelineEntry | None:
        rows = self.list.selectionModel().selectedRows()
        return self.model.entry(rows[0].row()) if rows else None

    def select_entry(self, number: int) -> None:
        """Select the `number`th entry (0 the newest; headings do not count)."""
        rows = [i for i in range(self.model.rowCount()) if self.model.entry(i) is not None]
        self.list.setCurrentIndex(self.model.index(rows[number], 0))

    def _update(self) -> None:
        entry = self.selected()
        self.undo_button.setEnabled(entry is not None and entry.undoable)
        self.open_button.setEnabled(entry is not None and bool(entry.memory_ids))
        self.hint.setText(blocked_text(entry) if entry else "")

    def undo_selected(self) -> None:
        entry = self.selected()
        if entry is None or not entry.undoable:
            return
        self.undo_button.setEnabled(False)
        memories = self._core.memories
        # the list and the table refresh on the change event (`Memories.subscribe`)
        self._core.run(lambda: memories.undo_timeline(entry), None, self._error)

    def open_selected(self) -> None:
        entry = self.selected()
        if entry is not None and entry.memory_ids:
            self.open_memory.emit(entry.memory_ids[0])

    def _error(self, exc: BaseException) -> None:
        self._update()
        if isinstance(exc, InputError):  # the entry was stale: the memory changed meanwhile
            self.model.refresh()
            text = tr("This change cannot be undone any more: the memory changed or was deleted since.")
            self.dialog = inform(self, tr("Undo"), text, error=True)
            return
        self.dialog = inform(self, tr("Mnemo"), error_message(exc), error=True)

"""`MemoryTableModel`: memories as a Qt table, loaded a page at a time off the GUI thread.

The view asks `canFetchMore`/`fetchMore` as the user scrolls; each page is fetched on a
worker and inserted when it arrives, so 100k memories cost one page of rows at a time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFont

from assistant.memory.types import Memory
from ui.dates import short_datetime
from ui.display import friendly
from ui.i18n import tr
from ui.memory_panel.queries import ORDERS, MemoryQuery, Page

if TYPE_CHECKING:
    from ui.core import Core
    from ui.display import VaultEntry

Index = QModelIndex | QPersistentModelIndex

COLUMNS = [
    # key, header (English; translated at display time), sort key or None
    ("content", "Content", None),
    ("category", "Category", None),
    ("importance", "Importance", "importance"),
    ("created", "Created", "created"),
    ("last_used", "Last used", "last_used"),
    ("use_count", "Uses", "use_count"),
    ("source", "Source", None),
    ("status", "Status", None),
]

LABELS = {
    # enum values shown in the table, translated
    "fact": "fact",
    "preference": "preference",
    "goal": "goal",
    "project": "project",
    "conclusion": "conclusion",
    "emotion": "emotion",
    "identifier": "identifier",
    "user_explicit": "you said",
    "user_implied": "implied",
    "assistant": "assistant",
    "manual": "manual",
    "active": "active",
    "superseded": "superseded",
    "merged": "merged",
    "archived": "archived",
}


def label(value: str) -> str:
    return tr(LABELS.get(value, value))


class MemoryTableModel(QAbstractTableModel):
    """Rows of `Memory`; `set_query` replaces the filter, `refresh` re-reads after changes.

    Args:
        core: the window's `Core` (its runner and profile).
        page_size: rows per fetch.
    """

    loading_changed = Signal(bool)
    total_changed = Signal(int)
    loaded = Signal()

    def __init__(self, core: Core, page_size: int = 200) -> None:
        super().__init__()
        self._core = core
        self.page_size = page_size
        self.query = MemoryQuery()
        self._rows: list[Memory] = []
        self.total = 0
        self._generation = 0
        self._loading = False

    # -- Qt model API ----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return tr(COLUMNS[section][1])
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        memory = self._rows[index.row()]
        key = COLUMNS[index.column()][0]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(memory, key)
        if role == Qt.ItemDataRole.ToolTipRole and key == "content":
            return friendly(memory.content, self._core.vault_entries)
        if role == Qt.ItemDataRole.FontRole and memory.pinned and key == "content":
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.UserRole:
            return memory.id
        return None

    def _display(self, memory: Memory, key: str) -> str:
        if key == "content":
            flags = ("📌 " if memory.pinned else "") + ("? " if memory.review else "")
            return flags + friendly(memory.content, self._core.vault_entries)
        if key == "category":
            return label(memory.category.value)
        if key == "importance":
            return str(memory.importance)
        if key == "created":
            return short_datetime(memory.created_at, self._now())
        if key == "last_used":
            return short_datetime(memory.last_accessed_at, self._now())
        if key == "use_count":
            return str(memory.access_count)
        if key == "source":
            return label(memory.source.value)
        return label(memory.status.value)

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self._loading and len(self._rows) < self.total

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent):
            self._request(len(self._rows), self.page_size, reset=False)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        key = COLUMNS[column][2]
        if key is None:
            return
        descending, ascending = ORDERS[key]
        self.set_query(
            self.query.with_(
                order=ascending if order == Qt.SortOrder.AscendingOrder else descending
            )
        )

    def _now(self) -> float | None:
        """The profile's clock ("today" in tests is the test's day)."""
        core = self._core
        return core.profile.clock.now().timestamp() if core.is_open else None

    # -- loading ---------------------------------------------------------------------------

    @property
    def loading(self) -> bool:
        return self._loading

    def memory(self, row: int) -> Memory:
        return self._rows[row]

    def memories(self) -> list[Memory]:
        return list(self._rows)

    def set_query(self, query: MemoryQuery) -> None:
        self.query = query
        self._request(0, self.page_size, reset=True)

    def refresh(self) -> None:
        """Re-read what is shown (after an edit, delete, import or extraction)."""
        self._request(0, max(self.page_size, len(self._rows)), reset=True)

    def clear(self) -> None:
        self._generation += 1
        self.beginResetModel()
        self._rows, self.total = [], 0
        self.endResetModel()
        self._set_loading(False)

    def _request(self, offset: int, limit: int, *, reset: bool) -> None:
        if not self._core.is_open:
            return
        self._generation += 1
        generation = self._generation
        core, memories, query = self._core, self._core.memories, self.query
        self._set_loading(True)
        self._core.run(
            lambda: (memories.page(query, offset, limit), core.read_vault_entries()),
            lambda out: self._arrived(generation, out[0], out[1], reset),
            lambda exc: self._failed(generation, exc),
        )

    def _arrived(
        self, generation: int, page: Page, vault: dict[int, VaultEntry], reset: bool
    ) -> None:
        if generation != self._generation:
            return  # a newer request replaced this one
        self._core.vault_entries = vault
        if reset:
            self.beginResetModel()
            self._rows = list(page.memories)
            self.total = page.total
            self.endResetModel()
        elif page.memories:
            start = len(self._rows)
            self.beginInsertRows(QModelIndex(), start, start + len(page.memories) - 1)
            self._rows.extend(page.memories)
            self.total = page.total
            self.endInsertRows()
        self._set_loading(False)
        self.total_changed.emit(self.total)
        self.loaded.emit()

    def _failed(self, generation: int, exc: BaseException) -> None:
        if generation == self._generation:
            self._set_loading(False)
        self._core.bridge.report(exc)

    def _set_loading(self, loading: bool) -> None:
        if loading != self._loading:
            self._loading = loading
            self.loading_changed.emit(loading)

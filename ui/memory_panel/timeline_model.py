"""`TimelineModel`: the memory timeline as a Qt list, a day's heading before its entries,
loaded a page at a time off the GUI thread (10k changes cost one page of rows at a time)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont

from assistant.memory.types import TimelineEntry, TimelineKind, TimelinePage
from ui.dates import day_heading
from ui.display import friendly
from ui.i18n import tr, tr_n
from ui.theme import theme

if TYPE_CHECKING:
    from ui.core import Core

Index = QModelIndex | QPersistentModelIndex
Row = date | TimelineEntry
"""A day's heading, or an entry of that day."""

CUT = 90  # characters of a memory shown in a row; the tooltip has all of it


def _cut(text: str) -> str:
    return text if len(text) <= CUT else text[: CUT - 1].rstrip() + "…"


def describe(entry: TimelineEntry, shown: Callable[[str], str], *, cut: bool = True) -> str:
    """What an entry says, in the window's language (`shown` words vault references)."""

    def text(value: str | None) -> str:
        if value is None:
            return tr("a memory since deleted")
        return _cut(shown(value)) if cut else shown(value)

    more = entry.count - 1
    extra = " " + tr("(+{n} more)", n=more) if more > 0 and entry.kind in _COUNTED else ""
    kind = entry.kind
    if kind is TimelineKind.SUPERSEDED:
        return tr("Changed: {before} → {after}", before=text(entry.before), after=text(entry.after))
    if kind is TimelineKind.MERGED:
        return tr("Merged: {before} into {after}", before=text(entry.before), after=text(entry.after))
    if kind is TimelineKind.EDITED:
        return tr("Edited: {before} → {after}", before=text(entry.before), after=text(entry.after))
    if kind is TimelineKind.PROPOSED:
        return tr("{origin} proposed: {memory}", origin=entry.origin or "", memory=text(entry.before))
    if kind in _TEXTS:
        return _TEXTS[kind](text(entry.before)) + extra
    return _COUNTS[kind](entry.count)


_TEXTS: dict[TimelineKind, Callable[[str], str]] = {
    TimelineKind.EXPIRED: lambda memory: tr("Expired: {memory}", memory=memory),
    TimelineKind.ARCHIVED: lambda memory: tr("Archived: {memory}", memory=memory),
    TimelineKind.RESTORED: lambda memory: tr("Restored: {memory}", memory=memory),
}
_COUNTED = set(_TEXTS)
_COUNTS: dict[TimelineKind, Callable[[int], str]] = {  # without text: what was deleted is never shown
    TimelineKind.FORGOTTEN: lambda n: tr_n("A memory was forgotten (you asked to forget it)",
                                           "{n} memories were forgotten (you asked to forget them)", n),
    TimelineKind.DELETED: lambda n: tr_n("A memory was deleted", "{n} memories were deleted", n),
    TimelineKind.REJECTED: lambda n: tr_n("A proposed memory was rejected", "{n} proposed memories were rejected", n),
    TimelineKind.PURGED: lambda n: tr_n("An old memory was removed for good (kept past its retention)",
                                        "{n} old memories were removed for good (kept past their retention)", n),
    TimelineKind.IMPORTED: lambda n: tr_n("Imported {n} memory from a file", "Imported {n} memories from a file", n),
}


def blocked_text(entry: TimelineEntry) -> str:
    """Why an entry cannot be undone ("" when it can, or when there is nothing to undo)."""
    if entry.undo_blocked == "gone":
        return tr("This cannot be undone: what was deleted is gone for good.")
    if entry.undo_blocked == "changed":
        return tr("This cannot be undone any more: the memory changed again since.")
    return ""


class TimelineModel(QAbstractListModel):
    """Rows of the timeline; `start` loads the first page, `refresh` re-reads after changes.

    Args:
        core: the window's `Core` (its runner and profile).
        page_size: entries per fetch.
    """

    loaded = Signal()

    def __init__(self, core: Core, page_size: int = 100) -> None:
        super().__init__()
        self._core = core
        self.page_size = page_size
        self._rows: list[Row] = []
        self._next = 0
        self._more = False
        self._generation = 0
        self.loading = False
        self.started = False  # shown once: from then on it follows changes

    # -- Qt model API ----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if index.isValid() and isinstance(self._rows[index.row()], date):
            return Qt.ItemFlag.ItemIsEnabled  # a heading: not selectable
        return super().flags(index)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        row = self._rows[index.row()]
        if isinstance(row, date):
            return self._heading(row, role)
        if role == Qt.ItemDataRole.DisplayRole:
            clock = datetime.fromtimestamp(row.at).strftime("%H:%M")
            return f"{clock}   {describe(row, self._shown)}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return "\n\n".join(t for t in (describe(row, self._shown, cut=False), blocked_text(row)) if t)
        if role == Qt.ItemDataRole.ForegroundRole and row.undo_blocked == "gone":
            return QColor(theme.colors.muted)
        if role == Qt.ItemDataRole.UserRole:
            return row
        return None

    def _heading(self, day: date, role: int) -> object:
        if role == Qt.ItemDataRole.DisplayRole:
            return day_heading(datetime(day.year, day.month, day.day, 12).timestamp(), self._now())
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            font.setBold(True)
            return font
        return None

    def _shown(self, text: str) -> str:
        return friendly(text, self._core.vault_entries)

    def _now(self) -> float | None:
        core = self._core
        return core.profile.clock.now().timestamp() if core.is_open else None

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self.loading and self._more

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent):
            self._request(self._next, self.page_size, reset=False)

    # -- loading ---------------------------------------------------------------------------

    def entry(self, row: int) -> TimelineEntry | None:
        found = self._rows[row] if 0 <= row < len(self._rows) else None
        return found if isinstance(found, TimelineEntry) else None

    def entries(self) -> list[TimelineEntry]:
        return [r for r in self._rows if isinstance(r, TimelineEntry)]

    def start(self) -> None:
        """The first page, once (the timeline is read when it is first shown)."""
        if not self.started:
            self.started = True
            self.refresh()

    def refresh(self) -> None:
        """Re-read what is shown (after an undo, or a change made anywhere)."""
        if self.started:
            self._request(0, max(self.page_size, self._next), reset=True)

    def _request(self, offset: int, limit: int, *, reset: bool) -> None:
        if not self._core.is_open:
            return
        self._generation += 1
        generation = self._generation
        memories = self._core.memories
        self.loading = True
        self._core.run(
            lambda: memories.timeline(offset, limit),
            lambda page: self._arrived(generation, page, reset),
            lambda exc: self._failed(generation, exc),
        )

    def _arrived(self, generation: int, page: TimelinePage, reset: bool) -> None:
        if generation != self._generation:
            return  # a newer request replaced this one
        if reset:
            self.beginResetModel()
            self._rows = _with_days([], page.entries)
            self.endResetModel()
        else:
            rows = _with_days(self._rows, page.entries)[len(self._rows):]
            if rows:
                start = len(self._rows)
                self.beginInsertRows(QModelIndex(), start, start + len(rows) - 1)
                self._rows.extend(rows)
                self.endInsertRows()
        self._next, self._more = page.next_offset, page.more
        self.loading = False
        self.loaded.emit()

    def _failed(self, generation: int, exc: BaseException) -> None:
        if generation == self._generation:
            self.loading = False
        self._core.bridge.report(exc)


def _with_days(rows: list[Row], entries: list[TimelineEntry]) -> list[Row]:
    """`rows` and `entries` after them, a day's heading before the first entry of each day."""
    out = list(rows)
    last = next((r for r in reversed(out) if isinstance(r, TimelineEntry)), None)
    day = datetime.fromtimestamp(last.at).date() if last else None
    for entry in entries:
        entry_day = datetime.fromtimestamp(entry.at).date()
        if entry_day != day:
            out.append(entry_day)
            day = entry_day
        out.append(entry)
    return out

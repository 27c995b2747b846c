"""The memory manager panel: search, filters, the table, and every action on memories.

The actions sit in a tool bar, so a narrow window moves the last ones behind its » button
instead of cutting them; Accept/Reject show in the review queue, Restore where something can
be restored. An empty table says why it is empty (no match, nothing to review, none yet).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTableView,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from assistant.memory.api import Details, PassphraseNeeded, WrongPassphrase
from assistant.memory.types import Category, Memory, Status
from ui.dialogs import confirm, error_message, inform
from ui.display import friendly
from ui.i18n import tr, tr_n
from ui.memory_panel.details_dialog import MemoryDetailsDialog
from ui.memory_panel.edit_dialog import EditMemoryDialog
from ui.memory_panel.model import MemoryTableModel, label
from ui.memory_panel.passphrase_dialog import PassphraseDialog
from ui.memory_panel.queries import MemoryQuery
from ui.memory_panel.timeline_model import TimelineModel
from ui.memory_panel.timeline_view import TimelineView
from ui.memory_panel.vault_dialog import VaultDialog
from ui.memory_panel.views import (
    BUTTONS,
    NARROW_PX,
    OPTIONAL_COLUMNS,
    REVIEW_HINT,
    REVIEW_VIEW,
    TIMELINE_VIEW,
    TOOLTIPS,
    VIEWS,
    empty_text,
)
from ui.progress import ProgressRelay, progress_dialog
from ui.theme import danger_button_style, muted_style, theme

if TYPE_CHECKING:
    from assistant.memory.api import ForgetMeReport, ImportReport, MemoryChange, VaultItem
    from ui.core import Core


class MemoryPanel(QWidget):
    """Shows `model` and applies actions through `core` (all core calls on workers)."""

    changed = Signal()  # an action of this panel changed memories
    forgotten = Signal(object)  # forget-me finished: its report

    def __init__(self, core: Core, model: MemoryTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._core = core
        self.model = model
        self.dialog: QWidget | None = None  # the last dialog opened (tests press its buttons)
        self.progress: QProgressDialog | None = None  # the last export/import progress
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(250)
        self._search_timer.timeout.connect(self._apply_filter)
        self._build()
        # The one place the table refreshes after a change, whoever made it (this panel, a
        # chat turn, an undo, an import, forget-me): `Memories` tells the bridge of each one.
        core.bridge.memories_touched.connect(self._on_memories_changed)
        theme.changed.connect(self._restyle)
        self._restyle()
        self.retranslate()

    # -- layout ------------------------------------------------------------------------

    def _build(self) -> None:
        self.search = QLineEdit()
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.search.returnPressed.connect(self._apply_filter)
        self.view_filter = QComboBox()
        self.view_filter.currentIndexChanged.connect(self._apply_filter)
        self.category_filter = QComboBox()
        self.category_filter.currentIndexChanged.connect(self._apply_filter)
        self.count_label = QLabel()
        top = QHBoxLayout()
        top.addWidget(self.search, 3)
        top.addWidget(self.view_filter, 1)
        top.addWidget(self.category_filter, 1)
        top.addWidget(self.count_label)
        self.review_hint = QLabel()
        self.review_hint.setWordWrap(True)
        self.review_hint.hide()

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setSortingEnabled(True)
        header = self.table.horizontalHeader()
        header.setSortIndicator(3, Qt.SortOrder.DescendingOrder)  # Created, newest first
        header.setSortIndicatorShown(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)  # dates never cut
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(True)
        self.table.doubleClicked.connect(lambda _i: self.edit_selected())
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())
        self.model.total_changed.connect(self._show_count)
        self.model.modelReset.connect(self._update_buttons)
        self.model.loaded.connect(self._show_empty_state)
        self.empty_label = QLabel()
        self.empty_label.setObjectName("memoriesEmpty")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setMargin(24)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.table)
        self.pages.addWidget(self.empty_label)
        self.timeline = TimelineView(self._core, TimelineModel(self._core))
        self.timeline.open_memory.connect(self.show_details_of)
        self.pages.addWidget(self.timeline)

        self.toolbar = QToolBar()
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.buttons: dict[str, QToolButton] = {}
        self._actions: dict[str, QAction] = {}
        for key, handler in [
            ("edit", self.edit_selected),
            ("pin", self.toggle_pin),
            ("details", self.show_details),
            ("delete", self.delete_selected),
            ("accept", self.accept_selected),
            ("reject", self.reject_selected),
            ("restore", self.restore_selected),
            ("vault", self.show_vault),
            ("export", self.export_dialog),
            ("import", self.import_dialog),
        ]:
            action = self.toolbar.addAction("")
            action.triggered.connect(handler)
            button = self.toolbar.widgetForAction(action)
            assert isinstance(button, QToolButton)
            button.setObjectName(f"memoryAction-{key}")
            self.buttons[key] = button
            self._actions[key] = action
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.toolbar.addWidget(spacer)
        self.forget_button = QPushButton()
        self.forget_button.setObjectName("forgetMe")
        self.forget_button.clicked.connect(self.ask_forget_me)
        self.toolbar.addWidget(self.forget_button)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.review_hint)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.toolbar)
        self._update_buttons()

    def _restyle(self) -> None:
        self.forget_button.setStyleSheet(danger_button_style("forgetMe", theme.colors))
        self.empty_label.setStyleSheet(muted_style(theme.colors, size_px=15))
        self.review_hint.setStyleSheet(muted_style(theme.colors))

    def retranslate(self) -> None:
        self.search.setPlaceholderText(tr("Search memories… (Ctrl+F)"))
        current = max(self.view_filter.currentIndex(), 0)
        self.view_filter.blockSignals(True)
        self.view_filter.clear()
        for text, _changes in VIEWS:
            self.view_filter.addItem(tr(text))
        self.view_filter.addItem(tr("Timeline"))
        self.view_filter.setCurrentIndex(current)
        self.view_filter.blockSignals(False)
        current = max(self.category_filter.currentIndex(), 0)
        self.category_filter.blockSignals(True)
        self.category_filter.clear()
        self.category_filter.addItem(tr("All categories"), None)
        for category in Category:
            self.category_filter.addItem(label(category.value), category)
        self.category_filter.setCurrentIndex(current)
        self.category_filter.blockSignals(False)
        for key, text in BUTTONS.items():
            self._actions[key].setText(tr(text))
            self._actions[key].setToolTip(tr(TOOLTIPS[key]))
        self.forget_button.setText(tr("Forget me…"))
        self.forget_button.setToolTip(tr("Erase everything Mnemo knows about you"))
        self.review_hint.setText(tr(REVIEW_HINT))
        self.timeline.retranslate()
        self._show_count(self.model.total)
        self._update_buttons()
        self._show_empty_state()
        self.model.headerDataChanged.emit(
            Qt.Orientation.Horizontal, 0, self.model.columnCount() - 1
        )

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        narrow = self.width() < NARROW_PX
        for column in OPTIONAL_COLUMNS:
            if self.table.isColumnHidden(column) != narrow:
                self.table.setColumnHidden(column, narrow)

    def focus_search(self) -> None:
        """Ctrl+F: the search box, its text selected to type over."""
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    # -- filter ------------------------------------------------------------------------

    def reload(self) -> None:
        self._apply_filter()

    def _apply_filter(self) -> None:
        self._search_timer.stop()
        view = max(self.view_filter.currentIndex(), 0)
        self.review_hint.setVisible(view == REVIEW_VIEW)
        if self._show_timeline(view == TIMELINE_VIEW):
            return
        query = MemoryQuery(
            category=self.category_filter.currentData(),
            search=self.search.text(),
            order=self.model.query.order,
        ).with_(**VIEWS[view][1])
        self.model.set_query(query)
        self._update_buttons()

    def _show_timeline(self, shown: bool) -> bool:
        """The timeline instead of the table (its own list; the filters do not apply)."""
        self.search.setEnabled(not shown)
        self.category_filter.setEnabled(not shown)
        if shown:
            self.table.clearSelection()
            self.pages.setCurrentWidget(self.timeline)
            self.timeline.model.start()
            self._update_buttons()
        elif self.pages.currentWidget() is self.timeline:
            self.pages.setCurrentWidget(self.table)
        return shown

    def _show_count(self, total: int) -> None:
        self.count_label.setText(tr_n("{n} memory", "{n} memories", total))

    def _show_empty_state(self) -> None:
        """The table, or a line saying why there is nothing in it."""
        if self.pages.currentWidget() is self.timeline:
            return
        if self.model.rowCount() or self.model.loading:
            self.pages.setCurrentWidget(self.table)
            return
        self.empty_label.setText(
            empty_text(self.model.query, max(self.view_filter.currentIndex(), 0))
        )
        self.pages.setCurrentWidget(self.empty_label)

    def selected(self) -> list[Memory]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self.model.memory(row) for row in rows]

    def select_row(self, row: int, *, extend: bool = False) -> None:
        flags = self.table.selectionModel().SelectionFlag.Rows | (
            self.table.selectionModel().SelectionFlag.Select
            if extend
            else self.table.selectionModel().SelectionFlag.ClearAndSelect
        )
        self.table.selectionModel().select(self.model.index(row, 0), flags)

    def _update_buttons(self) -> None:
        chosen = self.selected() if self.table.selectionModel() else []
        one = len(chosen) == 1
        view = max(self.view_filter.currentIndex(), 0)
        for key in ("edit", "pin", "details"):
            self._actions[key].setEnabled(one)
        self._actions["delete"].setEnabled(bool(chosen))
        review = bool(chosen) and all(m.review for m in chosen)
        self._actions["accept"].setEnabled(review)
        self._actions["reject"].setEnabled(review)
        self._actions["accept"].setVisible(view == REVIEW_VIEW)
        self._actions["reject"].setVisible(view == REVIEW_VIEW)
        self._actions["restore"].setVisible(REVIEW_VIEW < view < TIMELINE_VIEW)
        self._actions["restore"].setEnabled(
            bool(chosen) and all(m.status is not Status.ACTIVE for m in chosen)
        )
        if one:
            self._actions["pin"].setText(tr("Unpin") if chosen[0].pinned else tr("Pin"))

    # -- actions -----------------------------------------------------------------------

    def _on_memories_changed(self, change: MemoryChange) -> None:
        if change.ids or change.kind in ("forget_me", "reindex"):
            self.model.refresh()
            self.timeline.model.refresh()

    def _after(self, _result: object = None) -> None:
        self.changed.emit()  # the table refreshes on the change event (`_on_memories_changed`)

    def _error(self, exc: BaseException) -> None:
        self.dialog = inform(self, tr("Mnemo"), error_message(exc), error=True)

    def edit_selected(self) -> None:
        chosen = self.selected()
        if len(chosen) != 1:
            return
        dialog = EditMemoryDialog(chosen[0], self, vault=self._core.vault_entries)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog = dialog

        def save() -> None:
            fields = dialog.fields()
            if fields:
                memories, memory_id = self._core.memories, dialog.memory.id
                self._core.run(lambda: memories.edit(memory_id, **fields), self._after, self._error)

        dialog.accepted.connect(save)
        dialog.open()

    def toggle_pin(self) -> None:
        chosen = self.selected()
        if len(chosen) != 1:
            return
        memory, memories = chosen[0], self._core.memories
        self._core.run(
            lambda: memories.pin(memory.id, not memory.pinned), self._after, self._error
        )

    def delete_selected(self) -> None:
        chosen = self.selected()
        if not chosen:
            return
        if len(chosen) == 1:
            content = friendly(chosen[0].content, self._core.vault_entries)
            text = tr("Delete this memory for good?\n\n{content}", content=content)
        else:
            text = tr("Delete these {n} memories for good?", n=len(chosen))
        ids = [m.id for m in chosen]
        self.dialog = confirm(
            self,
            tr("Delete"),
            text,
            lambda: self.delete_ids(ids),
            action=tr("Delete"),
            destructive=True,
        )

    def delete_ids(self, ids: list[int]) -> None:
        memories = self._core.memories
        self._core.run(lambda: memories.delete(ids), self._after, self._error)

    def accept_selected(self) -> None:
        memories, ids = self._core.memories, [m.id for m in self.selected()]
        self._core.run(lambda: memories.accept(ids), self._after, self._error)

    def reject_selected(self) -> None:
        memories, ids = self._core.memories, [m.id for m in self.selected()]
        self._core.run(lambda: memories.reject(ids), self._after, self._error)

    def restore_selected(self) -> None:
        memories, ids = self._core.memories, [m.id for m in self.selected()]
        self._core.run(lambda: memories.restore(ids), self._after, self._error)

    def show_details(self) -> None:
        chosen = self.selected()
        if len(chosen) == 1:
            self.show_details_of(chosen[0].id)

    def show_details_of(self, memory_id: int) -> None:
        """A memory's history and provenance (from the table, or a timeline entry)."""
        memories = self._core.memories

        def shown(details: Details) -> None:
            dialog = MemoryDetailsDialog(details, self, vault=self._core.vault_entries)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.dialog = dialog
            dialog.open()

        self._core.run(lambda: memories.details(memory_id), shown, self._error)

    def show_vault(self) -> None:
        memories = self._core.memories

        def shown(items: list[VaultItem]) -> None:
            dialog = VaultDialog(self._core, items, self)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.dialog = dialog
            dialog.open()

        self._core.run(memories.vault_items, shown, self._error)

    # -- export / import ---------------------------------------------------------------

    def export_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, tr("Export memories"), str(Path.home() / "mnemo-memories.json"), "JSON (*.json)"
        )
        if path:
            self.ask_export(Path(path))

    def ask_export(self, path: Path) -> None:
        """Export to `path`, asking first whether the vault goes too (then with a passphrase)."""
        memories = self._core.memories

        def counted(items: list[VaultItem]) -> None:
            if not items:
                self.export_to(path)
                return
            self.dialog = box = QMessageBox(
                QMessageBox.Icon.Question,
                tr("Export"),
                tr(
                    "Include the {n} sensitive values (phone, card and ID numbers …)? They are "
                    "encrypted in the file with a passphrase you choose, and you need it to import them.",
                    n=len(items),
                ),
                parent=self,
            )
            box.setObjectName("export-vault")
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            include = box.addButton(tr("Include, encrypted"), QMessageBox.ButtonRole.AcceptRole)
            leave = box.addButton(tr("Leave them out"), QMessageBox.ButtonRole.NoRole)
            box.addButton(tr("Cancel"), QMessageBox.ButtonRole.RejectRole)
            box.setDefaultButton(leave)

            def answered() -> None:
                self.dialog = None  # the box deletes itself on close
                if box.clickedButton() is include:
                    self._ask_passphrase(
                        tr("Choose a passphrase to encrypt the sensitive values in the export."),
                        lambda phrase: self.export_to(path, include_sensitive=True, passphrase=phrase),
                        confirm=True,
                    )
                elif box.clickedButton() is leave:
                    self.export_to(path)

            box.finished.connect(answered)
            box.open()

        self._core.run(memories.vault_items, counted, self._error)

    def _ask_passphrase(
        self,
        text: str,
        chosen: Callable[[str], None],
        *,
        confirm: bool,
        skipped: Callable[[], None] | None = None,
        error: str = "",
    ) -> None:
        dialog = PassphraseDialog(
            self, text=text, confirm=confirm, allow_skip=skipped is not None, error=error
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.chosen.connect(chosen)
        if skipped is not None:
            dialog.skipped.connect(skipped)
        self.dialog = dialog
        dialog.open()

    def export_to(
        self, path: Path, *, include_sensitive: bool = False, passphrase: str | None = None
    ) -> None:
        relay = ProgressRelay(self)
        self.progress = dialog = progress_dialog(self, tr("Exporting memories…"), relay)
        memories = self._core.memories

        def done(count: int) -> None:
            dialog.close()
            self.dialog = inform(
                self, tr("Export"), tr("Exported {n} memories to {path}.", n=count, path=str(path))
            )

        def failed(exc: BaseException) -> None:
            dialog.close()
            self._error(exc)

        self._core.run(
            lambda: memories.export(
                path, include_sensitive=include_sensitive, passphrase=passphrase, progress=relay
            ),
            done,
            failed,
        )

    def import_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, tr("Import memories"), str(Path.home()), "JSON (*.json)"
        )
        if path:
            self.import_from(Path(path))

    def import_from(
        self, path: Path, *, passphrase: str | None = None, skip_sensitive: bool = False
    ) -> None:
        """Import `path`; an export whose vault values are sealed asks for its passphrase."""
        relay = ProgressRelay(self)
        self.progress = dialog = progress_dialog(self, tr("Importing memories…"), relay)
        memories = self._core.memories

        def done(report: ImportReport) -> None:
            dialog.close()
            self._after()
            self.dialog = inform(
                self,
                tr("Import"),
                tr(
                    "Imported {n} memories ({d} already known).",
                    n=report.imported,
                    d=report.skipped_duplicates,
                ),
            )

        def failed(exc: BaseException) -> None:
            dialog.close()
            if isinstance(exc, PassphraseNeeded | WrongPassphrase):
                wrong = isinstance(exc, WrongPassphrase)
                self._ask_passphrase(
                    tr("The sensitive values in this export are encrypted. Type the passphrase chosen at export."),
                    lambda phrase: self.import_from(path, passphrase=phrase),
                    confirm=False,
                    skipped=lambda: self.import_from(path, skip_sensitive=True),
                    error=tr("That passphrase does not open them. Try again.") if wrong else "",
                )
                return
            self._error(exc)

        self._core.run(
            lambda: memories.import_file(
                path, passphrase=passphrase, skip_sensitive=skip_sensitive, progress=relay
            ),
            done,
            failed,
        )

    # -- forget me ---------------------------------------------------------------------

    def ask_forget_me(self) -> None:
        profile = self._core.profile
        text = tr(
            "This erases everything Mnemo keeps about you in profile “{name}”:\n\n"
            "• all memories (including archived and superseded ones)\n"
            "• the sensitive vault and its key\n"
            "• every conversation\n"
            "• the search index and logs\n\n"
            "It cannot be undone. Export first if you want a copy.",
            name=profile.name,
        )
        self.dialog = confirm(
            self,
            tr("Forget me"),
            text,
            self.forget_me,
            action=tr("Erase everything"),
            destructive=True,
        )

    def forget_me(self) -> None:
        self.forget_button.setEnabled(False)

        def done(report: ForgetMeReport) -> None:
            self.forget_button.setEnabled(True)
            self.forgotten.emit(report)
            self.dialog = inform(
                self, tr("Forget me"), tr("Everything was erased in {s:.2f} s.", s=report.seconds)
            )

        def failed(exc: BaseException) -> None:
            self.forget_button.setEnabled(True)
            self._error(exc)

        self._core.forget_me(done, failed)

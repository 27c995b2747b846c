"""The sensitive section: vault items shown masked; one is revealed only when asked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ui.dates import short_datetime
from ui.display import dots, kind_label
from ui.i18n import tr

if TYPE_CHECKING:
    from assistant.memory.api import VaultItem
    from ui.core import Core


class VaultDialog(QDialog):
    """Lists `items` (VaultItem: id, kind, masked, created_at); Reveal decrypts one on a worker."""

    def __init__(self, core: Core, items: list[VaultItem], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._core = core
        self.items = items
        self.setWindowTitle(tr("Sensitive items"))
        layout = QVBoxLayout(self)
        note = QLabel(
            tr(
                "Phone numbers, ID numbers, card numbers and similar are kept encrypted and never sent to the model's memory index."
            )
        )
        note.setWordWrap(True)
        layout.addWidget(note)
        self.table = QTableWidget(len(items), 4)
        self.table.setHorizontalHeaderLabels([tr("Kind"), tr("Value"), tr("Added"), ""])
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, item in enumerate(items):
            self.table.setItem(row, 0, QTableWidgetItem(kind_label(item.kind)))
            self.table.setItem(row, 1, QTableWidgetItem(dots(item.masked)))
            self.table.setItem(row, 2, QTableWidgetItem(short_datetime(item.created_at)))
            button = QPushButton(tr("Reveal"))
            button.clicked.connect(lambda _=False, r=row: self.toggle(r))
            self.table.setCellWidget(row, 3, button)
        self.table.horizontalHeader().setStretchLastSection(False)
        self.table.resizeColumnsToContents()
        layout.addWidget(self.table)
        if not items:
            layout.addWidget(QLabel(tr("Nothing sensitive is stored.")))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.button(QDialogButtonBox.StandardButton.Close).setText(tr("Close"))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(560, 320)

    def toggle(self, row: int) -> None:
        item = self.items[row]
        cell = self.table.item(row, 1)
        button = self.table.cellWidget(row, 3)
        assert cell is not None and isinstance(button, QPushButton), "made in __init__"
        if cell.data(Qt.ItemDataRole.UserRole):  # shown: mask it again
            cell.setText(dots(item.masked))
            cell.setData(Qt.ItemDataRole.UserRole, False)
            button.setText(tr("Reveal"))
            return
        memories = self._core.memories

        def shown(value: str) -> None:
            cell.setText(value)
            cell.setData(Qt.ItemDataRole.UserRole, True)
            button.setText(tr("Hide"))

        # the dialog deletes itself on close (`WA_DeleteOnClose`), maybe before the value comes
        self._core.run_for(self, lambda: memories.reveal(item.id), shown)

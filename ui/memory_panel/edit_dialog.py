"""Edit one memory's content, category, importance and expiry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QDateTime
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QPlainTextEdit,
    QSpinBox,
    QWidget,
)

from assistant.memory.types import Category, Memory
from ui.dates import edit_format, ui_locale
from ui.display import friendly, friendly_parts, restore_tags
from ui.i18n import tr
from ui.memory_panel.model import label

if TYPE_CHECKING:
    from ui.display import VaultEntry


class EditMemoryDialog(QDialog):
    """Shows `memory`; `fields()` returns only what the user changed.

    The content is shown with its vault references worded for people ("••••4521 (bank card,
    in the vault)"); those still in the text when it is saved point at the vault again.
    """

    def __init__(
        self,
        memory: Memory,
        parent: QWidget | None = None,
        *,
        vault: Mapping[int, VaultEntry] | None = None,
    ) -> None:
        super().__init__(parent)
        self.memory = memory
        self._vault_parts = friendly_parts(memory.content, vault)
        self.setWindowTitle(tr("Edit memory"))
        self.content = QPlainTextEdit(friendly(memory.content, vault))
        self.content.setTabChangesFocus(True)
        self.category = QComboBox()
        for category in Category:
            self.category.addItem(label(category.value), category)
        self.category.setCurrentIndex(list(Category).index(memory.category))
        self.importance = QSpinBox()
        self.importance.setRange(1, 5)
        self.importance.setValue(memory.importance)
        self.expires = QCheckBox(tr("Expires"))
        self.expires_at = QDateTimeEdit()
        self.expires_at.setCalendarPopup(True)
        self.expires_at.setLocale(ui_locale())
        self.expires_at.setDisplayFormat(edit_format())
        self.expires.setChecked(memory.expires_at is not None)
        self.expires_at.setDateTime(
            QDateTime.fromSecsSinceEpoch(int(memory.expires_at))
            if memory.expires_at
            else QDateTime.currentDateTime()
        )
        self.expires_at.setEnabled(self.expires.isChecked())
        self.expires.toggled.connect(self.expires_at.setEnabled)
        form = QFormLayout(self)
        form.addRow(tr("Content"), self.content)
        form.addRow(tr("Category"), self.category)
        form.addRow(tr("Importance"), self.importance)
        form.addRow(self.expires, self.expires_at)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Save).setText(tr("Save"))
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(tr("Cancel"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.resize(480, 260)

    def fields(self) -> dict[str, object]:
        out: dict[str, object] = {}
        content = restore_tags(self.content.toPlainText().strip(), self._vault_parts)
        if content != self.memory.content:
            out["content"] = content
        category = Category(self.category.currentData())  # Qt may hand back the plain value
        if category is not self.memory.category:
            out["category"] = category
        if self.importance.value() != self.memory.importance:
            out["importance"] = self.importance.value()
        expires = (
            self.expires_at.dateTime().toSecsSinceEpoch() if self.expires.isChecked() else None
        )
        if (expires is None) != (self.memory.expires_at is None) or (
            expires is not None
            and self.memory.expires_at is not None
            and abs(expires - self.memory.expires_at) >= 60
        ):
            out["expires_at"] = float(expires) if expires is not None else None
        return out

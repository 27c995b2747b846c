"""At start, when the vault is kept under a passphrase: ask for it (the vault stays shut, and
the rest of Mnemo works, until it is given)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QVBoxLayout, QWidget

from ui.i18n import error_text, tr
from ui.theme import note_style, theme

if TYPE_CHECKING:
    from ui.core import Core


class UnlockDialog(QDialog):
    unlocked = Signal()

    def __init__(self, core: Core, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._core = core
        self.setObjectName("unlockVault")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle(tr("Open the vault"))
        intro = QLabel(
            tr(
                "Your sensitive vault is protected with a passphrase. Type it to use the phone "
                "numbers, card numbers and other values it keeps."
            )
        )
        intro.setWordWrap(True)
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(note_style(theme.colors))
        self.problem.hide()
        self.buttons = QDialogButtonBox()
        self.open_button = self.buttons.addButton(
            tr("Open"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        later = self.buttons.addButton(tr("Later"), QDialogButtonBox.ButtonRole.RejectRole)
        later.setToolTip(tr("Mnemo works without the vault; sensitive values stay shut away."))
        self.buttons.accepted.connect(self.unlock)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.passphrase)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(420)

    def unlock(self) -> None:
        memories, given = self._core.memories, self.passphrase.text()
        self.open_button.setEnabled(False)

        def done(_result: object) -> None:
            self.unlocked.emit()
            self.accept()

        def failed(exc: BaseException) -> None:
            self.open_button.setEnabled(True)
            message, hint = error_text(exc)
            self.problem.setText(message)
            self.problem.show()
            self.passphrase.selectAll()
            self.passphrase.setFocus()

        self._core.run_for(self, lambda: memories.use_passphrase(given), done, failed)

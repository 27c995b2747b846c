"""The passphrase that seals (export) or opens (import) an export's vault values.

Window-modal and opened with `open()`: the answer comes back by signal, so the event loop
keeps running (workers deliver, tests press the real buttons).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from assistant.memory.api import MIN_PASSPHRASE
from ui.i18n import tr


class PassphraseDialog(QDialog):
    """Asks a passphrase; with `confirm`, twice and at least MIN_PASSPHRASE characters.

    Signals:
        chosen: the passphrase, once the user pressed OK with a usable one.
        skipped: the user chose to go on without the vault values (`allow_skip`).
    """

    chosen = Signal(str)
    skipped = Signal()

    def __init__(
        self,
        parent: QWidget,
        *,
        text: str,
        confirm: bool,
        allow_skip: bool = False,
        error: str = "",
    ) -> None:
        super().__init__(parent)
        self.setObjectName("passphrase")
        self.setWindowTitle(tr("Passphrase"))
        self._confirm = confirm
        layout = QVBoxLayout(self)
        intro = QLabel(text)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.passphrase.setPlaceholderText(tr("Passphrase"))
        layout.addWidget(self.passphrase)
        self.again = QLineEdit()
        self.again.setEchoMode(QLineEdit.EchoMode.Password)
        self.again.setPlaceholderText(tr("The same passphrase again"))
        self.again.setVisible(confirm)
        layout.addWidget(self.again)
        self.message = QLabel(error)
        self.message.setWordWrap(True)
        self.message.setObjectName("passphrase-error")
        self.message.setVisible(bool(error))
        layout.addWidget(self.message)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(tr("OK"))
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(tr("Cancel"))
        self.skip_button: QPushButton | None = None
        if allow_skip:
            self.skip_button = self.buttons.addButton(
                tr("Import without them"), QDialogButtonBox.ButtonRole.ActionRole
            )
            self.skip_button.clicked.connect(self._skip)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)

    def accept(self) -> None:
        text = self.passphrase.text()
        problem = ""
        if self._confirm and len(text) < MIN_PASSPHRASE:
            problem = tr("Use at least {n} characters.", n=MIN_PASSPHRASE)
        elif self._confirm and self.again.text() != text:
            problem = tr("The two passphrases differ.")
        elif not text:
            problem = tr("Type the passphrase.")
        if problem:
            self.message.setText(problem)
            self.message.setVisible(True)
            return
        super().accept()
        self.chosen.emit(text)

    def _skip(self) -> None:
        self.done(QDialog.DialogCode.Rejected)
        self.skipped.emit()

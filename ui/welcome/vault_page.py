"""The welcome's vault page: how the key of the sensitive vault is kept (the OS keyring, a
passphrase, or a key file beside the data, with a plain warning), and a passphrase to set."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWizardPage,
)

from ui.i18n import error_text, tr
from ui.welcome.common import state_line, text, warn

if TYPE_CHECKING:
    from assistant.memory.api import VaultKey
    from ui.core import Core

MIN_PASSPHRASE = 8


class VaultPage(QWizardPage):
    """`changed` when the key's protection changed (the status bar re-reads it)."""

    changed = Signal()

    def __init__(self, core: Core) -> None:
        super().__init__()
        self._core = core
        self.method = ""
        self.kept_file = False
        self.state = state_line()
        self.explain = text()
        self.choice = QGroupBox()
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.again = QLineEdit()
        self.again.setEchoMode(QLineEdit.EchoMode.Password)
        self.protect_button = QPushButton()
        self.protect_button.clicked.connect(self.protect)
        self.keep_button = QPushButton()
        self.keep_button.clicked.connect(self.keep_file)
        self.problem = text()
        form = QFormLayout()
        self._passphrase_label = text()
        self._again_label = text()
        form.addRow(self._passphrase_label, self.passphrase)
        form.addRow(self._again_label, self.again)
        buttons = QHBoxLayout()
        buttons.addWidget(self.protect_button)
        buttons.addWidget(self.keep_button)
        buttons.addStretch(1)
        inside = QVBoxLayout(self.choice)
        inside.addLayout(form)
        inside.addWidget(self.problem)
        inside.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(self.state)
        layout.addWidget(self.explain)
        layout.addWidget(self.choice)
        layout.addStretch(1)
        self.passphrase.returnPressed.connect(self.again.setFocus)
        self.again.returnPressed.connect(self.protect)
        self.retranslate()

    def initializePage(self) -> None:  # noqa: N802 - Qt's name
        self._core.run_for(self, self._core.memories.vault_key, self._show)

    def _show(self, key: VaultKey) -> None:
        self.method = key.method
        self.retranslate()

    def protect(self) -> None:
        first, second = self.passphrase.text(), self.again.text()
        if len(first) < MIN_PASSPHRASE:
            self._problem(tr("Use at least {n} characters.", n=MIN_PASSPHRASE))
            return
        if first != second:
            self._problem(tr("The two passphrases differ."))
            return
        memories = self._core.memories
        self.protect_button.setEnabled(False)

        def done(_result: object) -> None:
            self.passphrase.clear()
            self.again.clear()
            self.protect_button.setEnabled(True)
            self.method = "passphrase"
            self._problem("")
            self.retranslate()
            self.changed.emit()

        def failed(exc: BaseException) -> None:
            self.protect_button.setEnabled(True)
            message, hint = error_text(exc)
            self._problem(f"{message} {hint}")

        self._core.run_for(self, lambda: memories.use_passphrase(first), done, failed)

    def keep_file(self) -> None:
        self.kept_file = True
        self.retranslate()
        wizard = self.wizard()
        if wizard is not None:
            wizard.next()

    def _problem(self, message: str) -> None:
        self.problem.setText(message)
        warn(self.problem, bool(message))
        self.problem.setVisible(bool(message))

    def retranslate(self) -> None:
        self.setTitle(tr("Your sensitive vault"))
        self.setSubTitle(
            tr(
                "Phone numbers, card and ID numbers, passwords you mention are kept apart, "
                "encrypted; the model never sees them."
            )
        )
        self._passphrase_label.setText(tr("Passphrase"))
        self._again_label.setText(tr("Again"))
        self.protect_button.setText(tr("Protect with this passphrase"))
        self.keep_button.setText(tr("Keep the key file"))
        self.problem.setVisible(bool(self.problem.text()))
        method = self.method
        warn(self.state, method == "keyfile")
        if method == "keyring":
            self.state.setText(tr("The vault's key is kept in this computer's keyring. ✓"))
            self.explain.setText(tr("Nothing to do: your login unlocks it."))
        elif method == "passphrase":
            self.state.setText(tr("The vault is protected with your passphrase. ✓"))
            self.explain.setText(
                tr(
                    "Mnemo asks for it when it starts. Without it the vault cannot be opened: "
                    "keep it somewhere safe."
                )
            )
        elif method == "keyfile":
            self.state.setText(tr("No keyring here: the vault's key would be kept in a file."))
            self.explain.setText(
                tr(
                    "That file sits beside your data, so anyone who can read your files can read "
                    "your vault. On a computer only you use, with an encrypted disk, that can be "
                    "fine. A passphrase protects it better: Mnemo asks for it at each start, and "
                    "if it is lost, so is the vault."
                )
            )
            if self.kept_file:
                self.explain.setText(
                    self.explain.text() + " " + tr("You chose to keep the key file.")
                )
        else:
            self.state.setText(tr("Looking at how the vault's key is kept…"))
            self.explain.setText("")
        self.choice.setVisible(method == "keyfile")
        self.choice.setTitle(tr("Protect the vault with a passphrase"))

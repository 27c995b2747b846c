"""The welcome's first page: the language of the window (applied at once)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QButtonGroup, QRadioButton, QVBoxLayout, QWizardPage

from ui.i18n import tr
from ui.settings_dialog import LANGUAGES
from ui.welcome.common import text


class LanguagePage(QWizardPage):
    """`chosen(setting)`: "auto", "zh" or "en"."""

    chosen = Signal(str)

    def __init__(self, current: str) -> None:
        super().__init__()
        self.intro = text()
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QRadioButton] = {}
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        for index, (value, _label) in enumerate(LANGUAGES):
            button = QRadioButton()
            button.setChecked(value == current)
            self.group.addButton(button, index)
            self.buttons[value] = button
            layout.addWidget(button)
        layout.addStretch(1)
        self.group.idClicked.connect(lambda index: self.chosen.emit(LANGUAGES[index][0]))
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(tr("Welcome to Mnemo"))
        self.setSubTitle(
            tr("A personal assistant that remembers you, running on your own computer.")
        )
        self.intro.setText(tr("Which language should Mnemo speak? (You can change it later.)"))
        for value, label in LANGUAGES:
            self.buttons[value].setText(tr(label) if value == "auto" else label)

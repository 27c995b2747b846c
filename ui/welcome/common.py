"""Small pieces the welcome pages share: wrapped text, a command to copy, a state line."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from ui.i18n import tr
from ui.theme import muted_style, note_style, theme


def text(value: str = "", *, muted: bool = False, rich: bool = False) -> QLabel:
    """A wrapped paragraph (rich: links open in the browser)."""
    label = QLabel(value)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setOpenExternalLinks(rich)
    label.setTextInteractionFlags(
        Qt.TextInteractionFlag.TextBrowserInteraction
        if rich
        else Qt.TextInteractionFlag.TextSelectableByMouse
    )
    if muted:
        label.setStyleSheet(muted_style(theme.colors))
    return label


def state_line() -> QLabel:
    """The page's one-line verdict ("Ollama 0.12.6 is running with qwen2.5:7b."), in bold."""
    label = text()
    font = label.font()
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * 1.1 if font.pointSizeF() > 0 else 11)
    label.setFont(font)
    return label


def warn(label: QLabel, on: bool) -> None:
    """Colour `label` as a warning (or not)."""
    label.setStyleSheet(note_style(theme.colors) if on else "")


class CommandLine(QWidget):
    """A command to run in a terminal: shown whole in a fixed-pitch font, with Copy."""

    def __init__(self, command: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.field = QLineEdit(command)
        self.field.setReadOnly(True)
        self.field.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.field.setCursorPosition(0)
        self.copy_button = QPushButton()
        self.copy_button.clicked.connect(self.copy)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.field, 1)
        row.addWidget(self.copy_button)
        self.retranslate()

    def set_command(self, command: str) -> None:
        self.field.setText(command)
        self.field.setCursorPosition(0)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.field.text())
        self.copy_button.setText(tr("Copied"))

    def retranslate(self) -> None:
        self.copy_button.setText(tr("Copy"))

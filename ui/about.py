"""Help → About: what Mnemo is, its version, where its data lives."""

from __future__ import annotations

import html
from pathlib import Path

import PySide6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from assistant import __version__
from ui.i18n import tr
from ui.icons import app_icon


def about_box(parent: QWidget, data_dir: Path | None) -> QMessageBox:
    """The About box (opened, not exec()'d; closes on Esc)."""
    box = QMessageBox(parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setObjectName("about")
    box.setWindowTitle(tr("About Mnemo"))
    box.setIconPixmap(app_icon().pixmap(64, 64))
    box.setTextFormat(Qt.TextFormat.RichText)
    where = (
        tr("Your data: {path}", path=f"<code>{html.escape(str(data_dir))}</code>")
        if data_dir is not None
        else ""
    )
    box.setText(
        f"<h3>Mnemo {html.escape(__version__)}</h3>"
        f"<p>{html.escape(tr('A personal assistant that remembers you, running on your own computer.'))}</p>"
        f"<p>{html.escape(tr('Your conversations and memories never leave this computer: the model runs in Ollama, here.'))}</p>"
        f"<p>{where}</p>"
        f"<p><small>PySide6 {html.escape(PySide6.__version__)} · MIT</small></p>"
    )
    box.setStandardButtons(QMessageBox.StandardButton.Close)
    box.button(QMessageBox.StandardButton.Close).setText(tr("Close"))
    box.open()
    return box

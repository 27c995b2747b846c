"""Window-modal message boxes that do not block: the answer comes back by callback.

`open()` (not `exec()`) keeps the event loop running, so workers keep delivering and tests
can press the real buttons.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from ui.i18n import error_text, tr


def confirm(
    parent: QWidget,
    title: str,
    text: str,
    on_yes: Callable[[], None],
    *,
    action: str = "",
    destructive: bool = False,
) -> QMessageBox:
    """Ask; `on_yes` runs only when the user presses the action button."""
    box = QMessageBox(
        QMessageBox.Icon.Warning if destructive else QMessageBox.Icon.Question,
        title,
        text,
        parent=parent,
    )
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    yes = box.addButton(
        action or tr("OK"),
        QMessageBox.ButtonRole.DestructiveRole
        if destructive
        else QMessageBox.ButtonRole.AcceptRole,
    )
    cancel = box.addButton(tr("Cancel"), QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(cancel)
    box.setObjectName("confirm")

    def finished() -> None:
        if box.clickedButton() is yes:
            on_yes()

    box.finished.connect(finished)
    box.open()
    return box


def inform(parent: QWidget, title: str, text: str, *, error: bool = False) -> QMessageBox:
    box = QMessageBox(
        QMessageBox.Icon.Critical if error else QMessageBox.Icon.Information,
        title,
        text,
        parent=parent,
    )
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setObjectName("inform")
    box.open()
    return box


def error_message(exc: BaseException) -> str:
    """An error's message and what to do, as rich text: commands in a fixed-pitch font, not
    between literal backticks."""
    from ui.chat.error_banner import hint_html

    message, hint = error_text(exc)
    text = html.escape(message).replace("\n", "<br>")
    return f"<p>{text}</p>" + (f"<p>{hint_html(hint)}</p>" if hint else "")

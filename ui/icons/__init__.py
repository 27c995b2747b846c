"""The app icon (SVG), shipped as package data so an installed wheel finds it."""

from __future__ import annotations

from importlib import resources

from PySide6.QtGui import QIcon

ICON_FILE = "mnemo.svg"


def app_icon() -> QIcon:
    """Mnemo's icon, for the window, the task bar and dialogs (drawn sharp at any scale)."""
    with resources.as_file(resources.files(__name__) / ICON_FILE) as path:
        icon = QIcon(str(path))
    return icon

"""The menu bar: File (New chat, Export, Import from…, Quit), Memory (Forget me…), Help (Welcome, About,
Data folder), each doing what it says."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QMessageBox

from assistant import __version__


def texts(menu: Any) -> list[str]:
    return [action.text() for action in menu.actions() if not action.isSeparator()]


def test_the_menus_hold_what_a_desktop_app_has(window: Any) -> None:
    menus = window.menus
    assert [m.title() for m in (menus.file, menus.memory, menus.help)] == [
        "&File",
        "&Memory",
        "&Help",
    ]
    assert texts(menus.file) == [
        "New chat",
        "New temporary chat",
        "Export memories…",
        "Import from…",
        "Settings…",
        "Quit",
    ]
    assert texts(menus.memory) == ["Search memories", "Run maintenance now", "Forget me…"]
    assert texts(menus.help) == ["Welcome…", "Open data folder", "About Mnemo"]
    assert menus.new_chat.shortcut().toString() == "Ctrl+N"
    assert menus.quit.shortcut().toString() == "Ctrl+Q"
    assert menus.search.shortcut().toString() == "Ctrl+F"


def test_help_opens_the_data_folder_and_about(qtbot: Any, window: Any, profile: Any) -> None:
    opened: list[QUrl] = []
    window.open_url = opened.append
    window.menus.data_folder.trigger()
    assert opened == [QUrl.fromLocalFile(str(profile.dir))]
    window.menus.about.trigger()
    box = window.dialog
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert __version__ in box.text() and str(profile.dir) in box.text()
    box.close()


def test_new_temporary_chat_and_forget_me_from_the_menus(qtbot: Any, window: Any) -> None:
    window.menus.new_temporary.trigger()
    assert window.chat.temporary and window.chat.temporary_banner.isVisible()
    window.menus.forget_me.trigger()
    box = window.memories.dialog
    assert isinstance(box, QMessageBox) and "cannot be undone" in box.text()
    box.reject()
    assert window.tabs.currentWidget() is window.memories


def test_quit_closes_the_window(qtbot: Any, window: Any) -> None:
    window.menus.quit.trigger()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=5000)

"""The menu bar: File, Memory, Help, with the app's keyboard shortcuts.

The actions are made here and handed to the main window, which connects them (it owns what
they do). Roles put Quit, Settings and About where macOS expects them.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from ui.i18n import tr

MENU_TEXTS = (
    "&File",
    "&Memory",
    "&Help",
    "New chat",
    "New temporary chat",
    "Export memories…",
    "Import from…",
    "Settings…",
    "Quit",
    "Search memories",
    "Run maintenance now",
    "Forget me…",
    "Welcome…",
    "Open data folder",
    "About Mnemo",
)
"""Every text of the menus (English; translated when shown)."""


@dataclass
class Menus:
    file: QMenu
    memory: QMenu
    help: QMenu
    new_chat: QAction
    new_temporary: QAction
    export: QAction
    import_from: QAction
    settings: QAction
    quit: QAction
    search: QAction
    maintenance: QAction
    forget_me: QAction
    welcome: QAction
    data_folder: QAction
    about: QAction

    def retranslate(self) -> None:
        menus = (self.file, self.memory, self.help)
        actions = [self.new_chat, self.new_temporary, self.export, self.import_from, self.settings, self.quit]
        actions += [self.search, self.maintenance, self.forget_me, self.welcome]
        actions += [self.data_folder, self.about]
        for menu, text in zip(menus, MENU_TEXTS[: len(menus)], strict=True):
            menu.setTitle(tr(text))
        for item, text in zip(actions, MENU_TEXTS[len(menus) :], strict=True):
            item.setText(tr(text))
        self.forget_me.setToolTip(tr("Erase everything Mnemo knows about you"))


def build_menus(window: QMainWindow) -> Menus:
    bar = window.menuBar()
    file, memory, help_menu = bar.addMenu(""), bar.addMenu(""), bar.addMenu("")

    def action(
        menu: QMenu, shortcut: QKeySequence.StandardKey | str | None = None, fallback: str = ""
    ) -> QAction:
        """An action; a standard shortcut some platforms leave empty gets `fallback`."""
        made = QAction(window)
        if shortcut is not None:
            keys = QKeySequence(shortcut)
            made.setShortcut(keys if not keys.isEmpty() else QKeySequence(fallback))
        menu.addAction(made)
        return made

    new_chat = action(file, QKeySequence.StandardKey.New, "Ctrl+N")
    new_temporary = action(file, "Ctrl+Shift+N")
    file.addSeparator()
    export = action(file)
    import_from = action(file)
    file.addSeparator()
    settings = action(file, "Ctrl+,")
    settings.setMenuRole(QAction.MenuRole.PreferencesRole)
    file.addSeparator()
    quit_action = action(file, QKeySequence.StandardKey.Quit, "Ctrl+Q")
    quit_action.setMenuRole(QAction.MenuRole.QuitRole)
    search = action(memory, QKeySequence.StandardKey.Find, "Ctrl+F")
    maintenance = action(memory)
    maintenance.setEnabled(False)  # until the scheduler is attached
    memory.addSeparator()
    forget_me = action(memory)
    welcome = action(help_menu)
    data_folder = action(help_menu)
    help_menu.addSeparator()
    about = action(help_menu)
    about.setMenuRole(QAction.MenuRole.AboutRole)
    menus = Menus(
        file=file,
        memory=memory,
        help=help_menu,
        new_chat=new_chat,
        new_temporary=new_temporary,
        export=export,
        import_from=import_from,
        settings=settings,
        quit=quit_action,
        search=search,
        maintenance=maintenance,
        forget_me=forget_me,
        welcome=welcome,
        data_folder=data_folder,
        about=about,
    )
    menus.retranslate()
    return menus

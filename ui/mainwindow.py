"""The main window: builds its parts (menus, chat, memory panel, status bar) and wires them."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QCloseEvent, QDesktopServices, QKeySequence, QShortcut
from PySide6.QtWidgets import QMainWindow, QMessageBox, QProgressDialog, QTabWidget, QWidget

from ui.about import about_box
from ui.chat.sessions import SessionListModel
from ui.chat.view import ChatView
from ui.core import Core
from ui.dialogs import error_message, inform
from ui.i18n import error_text, set_language, tr, translator
from ui.icons import app_icon
from ui.memory_panel.model import MemoryTableModel
from ui.memory_panel.panel import MemoryPanel
from ui.menus import build_menus
from ui.progress import ProgressRelay, progress_dialog
from ui.settings_dialog import SettingsDialog
from ui.statusbar import StatusBar
from ui.theme import theme

if TYPE_CHECKING:
    from assistant.chat.types import TurnResult
    from assistant.config import Settings
    from assistant.llm.backend import HealthStatus
    from assistant.memory.api import MaintenanceReport, ModelStatus, VaultKey
    from ui.welcome.wizard import WelcomeOptions

log = logging.getLogger("mnemo.ui")

MINIMUM_SIZE = (600, 400)
"""Nothing is cut at this size (a test checks every button and the status bar)."""


class MainWindow(QMainWindow):
    """Shows `core`; usable once `core.opened` fired (the window is up before that)."""

    ready = Signal()  # profile open, first data requested

    def __init__(self, core: Core, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.core = core
        self.dialog: QWidget | None = None
        self.progress: QProgressDialog | None = None  # the last re-indexing progress
        self.welcome: QWidget | None = None  # the welcome flow, while it is open
        self.unlock: QWidget | None = None  # the passphrase prompt, while it is open
        self.open_url: Callable[[QUrl], object] = QDesktopServices.openUrl
        # passed to WelcomeWizard (tests: find, downloader)
        self.welcome_options: WelcomeOptions = {}
        self.memory_model = MemoryTableModel(core)
        self.session_model = SessionListModel()
        self.chat = ChatView(core, self.session_model)
        self.memories = MemoryPanel(core, self.memory_model)
        self.status = StatusBar()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.chat, "")
        self.tabs.addTab(self.memories, "")
        self.setCentralWidget(self.tabs)
        self.setStatusBar(self.status)
        self.menus = build_menus(self)
        self.settings_action = self.menus.settings
        self.setWindowIcon(app_icon())
        self.setMinimumSize(*MINIMUM_SIZE)
        self.tabs.setEnabled(False)
        self.resize(1000, 700)
        self._connect_signals()
        self._add_shortcuts()
        self.retranslate()
        if core.is_open:
            self._on_opened()

    def _connect_signals(self) -> None:
        core, bridge, menus = self.core, self.core.bridge, self.menus
        core.opened.connect(self._on_opened)
        core.open_failed.connect(self._on_open_failed)
        core.embedder_state.connect(self._on_embedder)
        core.repairing.connect(self._on_repairing)
        core.forgetting.connect(lambda forgetting: self.tabs.setEnabled(not forgetting))
        core.reset.connect(self._on_reset)
        core.engine_replaced.connect(self.chat.reload_sessions)
        core.scheduler_attached.connect(self._on_scheduler)
        core.last_maintenance.connect(self._on_last_maintenance)
        bridge.error.connect(self.show_error)
        bridge.bug.connect(self.show_bug)
        bridge.warning.connect(self._on_warning)
        bridge.maintenance_finished.connect(self._on_maintenance)
        self.chat.reply_finished.connect(self._after_turn)
        self.chat.title_changed.connect(self._show_title)
        self.chat.error_banner.fix_requested.connect(lambda _code: self.open_welcome("ollama"))
        self.memories.changed.connect(self.chat.notice.clear)
        self.status.refresh_requested.connect(self.check_ollama)
        self.status.model_chosen.connect(self.choose_model)
        self.status.maintenance_requested.connect(self.run_maintenance)
        self.status.fix_requested.connect(self.open_welcome)
        menus.new_chat.triggered.connect(lambda: self.new_chat(temporary=False))
        menus.new_temporary.triggered.connect(lambda: self.new_chat(temporary=True))
        menus.export.triggered.connect(self.export_memories)
        menus.import_from.triggered.connect(self.import_history)
        menus.settings.triggered.connect(self.open_settings)
        menus.quit.triggered.connect(self.close)
        menus.search.triggered.connect(self.search_memories)
        menus.maintenance.triggered.connect(self.run_maintenance)
        menus.forget_me.triggered.connect(self.forget_me)
        menus.welcome.triggered.connect(lambda: self.open_welcome(None))
        menus.data_folder.triggered.connect(self.open_data_folder)
        menus.about.triggered.connect(self.show_about)
        translator.changed.connect(self.retranslate)

    def _add_shortcuts(self) -> None:
        """Esc stops a reply (in the memory search: clears it); Ctrl+Tab / Ctrl+Shift+Tab go
        to the next / previous tab (out of the message box too: Tab alone moves the focus on,
        see `ui.chat.composer`). Dialogs close on Esc themselves."""
        for keys, slot in (
            (Qt.Key.Key_Escape, self._escape),
            ("Ctrl+Tab", lambda: self._step_tab(1)),
            ("Ctrl+Shift+Tab", lambda: self._step_tab(-1)),
        ):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(slot)

    def _escape(self) -> None:
        if self.chat.busy:
            self.chat.stop()
        elif self.memories.search.hasFocus():
            self.memories.search.clear()

    def _step_tab(self, step: int) -> None:
        if self.tabs.isEnabled():
            self.tabs.setCurrentIndex((self.tabs.currentIndex() + step) % self.tabs.count())
            self.tabs.currentWidget().setFocus(Qt.FocusReason.TabFocusReason)

    def retranslate(self) -> None:
        self._show_title(self.chat.title() if self.core.is_open else "")
        self.tabs.setTabText(0, tr("Chat"))
        self.tabs.setTabText(1, tr("Memories"))
        self.menus.retranslate()
        if not self.core.is_open:
            self.status.showMessage(tr("Opening your profile…"))
        self.chat.retranslate()
        self.memories.retranslate()
        self.status.retranslate()

    def _show_title(self, chat_title: str) -> None:
        """The open chat's title; Qt adds the app's name ("Trip to Oslo — Mnemo", or "Mnemo")."""
        self.setWindowTitle(chat_title)

    # -- start-up ----------------------------------------------------------------------

    def _on_repairing(self, what: str, done: int, total: int) -> None:
        """A start-up repair's progress, in the status bar until it is done."""
        texts = {
            "indexing memories": tr("Repairing after an unclean exit: indexing memories"),
            "rebuilding the search index": tr("Repairing the damaged search index"),
        }
        text = texts.get(what, tr("Repairing the memory store"))
        if done >= total:
            self.status.showMessage(tr("Repair finished: {count} memories checked").format(count=total), 8000)
        else:
            self.status.showMessage(f"{text} {done}/{total}…")

    def _on_opened(self) -> None:
        settings = self.core.settings
        set_language(settings.language)
        theme.apply(settings.theme)
        self.chat.warm_up()  # before the chat can be used, after the window was first painted
        self.tabs.setEnabled(True)
        self.chat.set_available(self.core.engine is not None)
        self.status.clearMessage()
        self.memories.reload()
        self.chat.reload_sessions()
        self.check_ollama()
        self.check_vault_key()
        self.ready.emit()
        self._welcome_if_new()

    def _on_open_failed(self, exc: BaseException) -> None:
        """Say why, with Retry (a `mnemo` command may hold the profile a moment) and Quit: no
        window is left behind that can do nothing."""
        message, _hint = error_text(exc)
        self.status.showMessage(message)
        box = QMessageBox(
            QMessageBox.Icon.Critical, tr("Mnemo cannot start"), error_message(exc), parent=self
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setObjectName("openFailed")
        retry = box.addButton(tr("Retry"), QMessageBox.ButtonRole.AcceptRole)
        box.addButton(tr("Quit"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(retry)

        def answered() -> None:
            if box.clickedButton() is retry:
                self.status.showMessage(tr("Opening your profile…"))
                self.core.start()
            else:
                self.close()

        box.finished.connect(answered)
        self.dialog = box
        box.open()

    def _on_embedder(self, state: str, warning: str) -> None:
        model = self.core.memories.model_status().requested if self.core.is_open else ""
        self.status.set_embedder(state, warning, model)

    def _on_warning(self, text: str) -> None:
        """The core's warnings that have a status-bar item of their own are shown there,
        whole, with their fix (the fallback model, the key file); others for a while."""
        memories = self.core.memories if self.core.is_open else None
        if memories is not None and text == memories.key_file_warning():
            self.check_vault_key()
        elif memories is None or text != memories.model_status().warning:
            self.status.showMessage(text, 15000)

    def _on_last_maintenance(self, at: float | None) -> None:
        if at is not None:
            self.status.set_maintenance(at)

    def _on_scheduler(self) -> None:
        self.status.set_maintenance(None, available=True)
        self.menus.maintenance.setEnabled(True)

    def _on_reset(self) -> None:
        self.chat.reset()
        self.memory_model.clear()
        self.memories.reload()
        self.check_vault_key()

    def _after_turn(self, result: TurnResult) -> None:
        if result.error is not None or not self.status.healthy:
            self.check_ollama()  # a reply that came clears "not running"; an error re-checks

    def bring_to_front(self) -> None:
        """Another `mnemo` was started: show this window instead (see `ui.single_instance`)."""
        self.setWindowState(
            (self.windowState() & ~Qt.WindowState.WindowMinimized) | Qt.WindowState.WindowActive
        )
        self.show()
        self.raise_()
        self.activateWindow()

    # -- menu actions ------------------------------------------------------------------

    def new_chat(self, *, temporary: bool) -> None:
        if not self.tabs.isEnabled():
            return
        self.tabs.setCurrentWidget(self.chat)
        self.chat.new_session(temporary)

    def search_memories(self) -> None:
        if self.tabs.isEnabled():
            self.tabs.setCurrentWidget(self.memories)
            self.memories.focus_search()

    def export_memories(self) -> None:
        if self.core.is_open:
            self.tabs.setCurrentWidget(self.memories)
            self.memories.export_dialog()

    def import_history(self) -> None:
        """File ▸ Import from…: ChatGPT, Claude or a list of memories (ui/import_dialog.py)."""
        if not self.core.is_open:
            return
        from ui.import_dialog import ImportDialog
        from ui.memory_panel.views import REVIEW_VIEW

        def open_review() -> None:
            self.tabs.setCurrentWidget(self.memories)
            self.memories.view_filter.setCurrentIndex(REVIEW_VIEW)

        dialog = ImportDialog(self.core, self)
        dialog.review_requested.connect(open_review)
        self.dialog = dialog
        dialog.open()

    def forget_me(self) -> None:
        if self.core.is_open:
            self.tabs.setCurrentWidget(self.memories)
            self.memories.ask_forget_me()

    def open_data_folder(self) -> None:
        if self.core.is_open:
            self.open_url(QUrl.fromLocalFile(str(self.core.profile.dir)))

    def show_about(self) -> None:
        self.dialog = about_box(self, self.core.profile.dir if self.core.is_open else None)

    # -- welcome -----------------------------------------------------------------------

    def _welcome_if_new(self) -> None:
        """A new profile (nothing remembered, no chat) opens the welcome once."""
        settings = self.core.settings
        if settings.welcome_done:
            return
        memories, engine = self.core.memories, self.core.engine

        def is_new() -> bool:
            return memories.total() == 0 and not (engine is not None and engine.sessions())

        def decided(new: bool) -> None:
            if new:
                self.open_welcome(None)
            else:
                self._welcome_finished()

        self.core.run(is_new, decided)

    def open_welcome(self, page: str | None) -> None:
        """The welcome flow, from its start or at one page ("ollama", "embedding", "vault")."""
        if not self.core.is_open:
            return
        from ui.welcome.wizard import WelcomeWizard

        if self.welcome is not None:
            self.welcome.close()
        wizard = WelcomeWizard(self.core, start=page, parent=self, **self.welcome_options)
        wizard.language_chosen.connect(self._language_chosen)
        wizard.chat_model_chosen.connect(self.choose_model)
        wizard.embedding_chosen.connect(self._embedding_chosen)
        wizard.vault_changed.connect(self.check_vault_key)
        wizard.ollama_changed.connect(self.check_ollama)
        wizard.finished.connect(lambda _r: self._welcome_finished())
        self.welcome = wizard
        wizard.open()

    def _welcome_finished(self) -> None:
        self.welcome = None
        settings = self.core.settings
        if not settings.welcome_done:
            settings.welcome_done = True
            self._save_settings()

    def _language_chosen(self, language: str) -> None:
        self.core.settings.language = language
        set_language(language)
        self._save_settings()

    def _embedding_chosen(self, name: str) -> None:
        settings = self.core.settings
        if name != settings.embedding_model or self.status_embedding_state() == "fallback":
            settings.embedding_model = name
            self._save_settings()
            self.switch_embedding_model(name)

    def status_embedding_state(self) -> str:
        return self.core.memories.model_status().state

    # -- Ollama and the vault ----------------------------------------------------------

    def check_ollama(self) -> None:
        backend = self.core.backend
        if backend is None:
            return
        settings = self.core.settings

        def models() -> list[str]:
            try:
                return list(backend.list_models())
            except Exception as exc:  # noqa: BLE001 - health() already tells the user why
                log.debug("list_models failed: %s", type(exc).__name__)
                return []

        def checked(out: tuple[HealthStatus, list[str]]) -> None:
            health, names = out
            self.status.set_models(names, settings.chat_model)
            self.status.set_health(health)

        self.core.run(lambda: (backend.health(), models()), checked)

    def check_vault_key(self) -> None:
        """How the vault's key is kept, for the status bar (a key file is worth a word); a
        vault kept under a passphrase not given yet asks for it."""
        if not self.core.is_open:
            return
        memories = self.core.memories

        def shown(key: VaultKey) -> None:
            self.status.set_key_method(key.method)
            if key.locked and self.unlock is None:
                self.ask_passphrase()

        self.core.run(memories.vault_key, shown)

    def ask_passphrase(self) -> None:
        from ui.unlock_dialog import UnlockDialog

        dialog = UnlockDialog(self.core, self)
        dialog.finished.connect(lambda _r: setattr(self, "unlock", None))
        self.unlock = dialog
        dialog.open()

    def choose_model(self, name: str) -> None:
        settings = self.core.settings
        if name == settings.chat_model:
            self.check_ollama()
            return
        settings.chat_model = name
        self._save_settings()
        self.core.replace_backend(self.check_ollama)  # the engine binds its model when built

    def _save_settings(self) -> None:
        from assistant.config import save_settings

        settings = dataclasses.replace(self.core.settings)
        self.core.run(lambda: save_settings(settings))

    # -- settings ----------------------------------------------------------------------

    def open_settings(self) -> None:
        if not self.core.is_open:
            return
        dialog = SettingsDialog(
            self.core.settings, self.status.model_names(), self.core.profile.dir
        )
        dialog.setParent(self, dialog.windowFlags())
        from ui.connected_apps import add_to_settings

        add_to_settings(dialog, self.core)  # the MCP clients, their permissions, the access log
        self.dialog = dialog
        dialog.accepted.connect(lambda: self.apply_settings(dialog.result_settings()))
        dialog.open()

    def apply_settings(self, new: Settings) -> None:
        """Apply edited settings in place (the core holds this object) and save them."""
        from assistant.app import recall_options

        settings = self.core.settings
        old = dataclasses.replace(settings)
        for field in dataclasses.fields(settings):
            setattr(settings, field.name, getattr(new, field.name))
        self.core.memories.set_recall_options(recall_options(settings))
        self._save_settings()
        set_language(settings.language)
        theme.apply(settings.theme)
        if (settings.ollama_host, settings.chat_model, settings.num_ctx) != (
            old.ollama_host,
            old.chat_model,
            old.num_ctx,
        ):
            self.core.replace_backend(self.check_ollama)
        if settings.embedding_model != old.embedding_model:
            self.switch_embedding_model(settings.embedding_model)

    def switch_embedding_model(self, name: str) -> None:
        memories, warn = self.core.memories, self.core.bridge.on_warning
        relay = ProgressRelay(self)
        self.progress = dialog = progress_dialog(
            self, tr("Re-indexing memories with the new embedding model…"), relay
        )
        self.status.set_embedder("loading")

        def switch() -> ModelStatus:
            return memories.switch_model(name, relay, warn)

        def done(status: ModelStatus) -> None:
            dialog.close()
            self.status.set_embedder(status.state, status.warning or "", name)

        def failed(exc: BaseException) -> None:
            dialog.close()
            self.core._emit_embedder()
            self.show_error(exc)

        self.core.run(switch, done, failed)

    # -- maintenance -------------------------------------------------------------------

    def run_maintenance(self) -> None:
        scheduler = self.core.scheduler
        if scheduler is None:
            return
        self.status.run_now.setEnabled(False)
        self.menus.maintenance.setEnabled(False)
        self.status.showMessage(tr("Maintenance is running…"), 5000)
        scheduler.run_now()  # only schedules the job; the report arrives through the bridge

    def _on_maintenance(self, report: MaintenanceReport) -> None:
        self.status.run_now.setEnabled(True)
        self.menus.maintenance.setEnabled(True)
        self.status.set_maintenance(report)
        self.memory_model.refresh()

    # -- messages ----------------------------------------------------------------------

    def show_error(self, exc: BaseException) -> None:
        self.dialog = inform(self, tr("Mnemo"), error_message(exc), error=True)

    def show_bug(self, description: str) -> None:
        self.dialog = inform(
            self,
            tr("Mnemo"),
            tr(
                "Mnemo hit an internal error ({what}). This is a bug; please report it.",
                what=description,
            ),
            error=True,
        )

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        from ui.import_dialog import ImportDialog

        self.chat.stop()
        for importing in self.findChildren(ImportDialog):
            importing.stop()  # the workers' shutdown then waits for one conversation, not all
        self.core.close()
        super().closeEvent(event)

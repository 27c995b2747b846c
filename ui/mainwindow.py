"""The main window: builds its parts (chat, memory panel, status bar) and wires them."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QCloseEvent
from PySide6.QtWidgets import QMainWindow, QProgressDialog, QTabWidget, QWidget

from ui.chat.sessions import SessionListModel
from ui.chat.view import ChatView
from ui.core import Core
from ui.dialogs import inform
from ui.i18n import error_text, set_language, tr, translator
from ui.memory_panel.model import MemoryTableModel
from ui.memory_panel.panel import MemoryPanel
from ui.progress import ProgressRelay, progress_dialog
from ui.settings_dialog import SettingsDialog
from ui.statusbar import StatusBar

log = logging.getLogger("mnemo.ui")


class MainWindow(QMainWindow):
    """Shows `core`; usable once `core.opened` fired (the window is up before that)."""

    ready = Signal()  # profile open, first data requested

    def __init__(self, core: Core, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.core = core
        self.dialog: QWidget | None = None
        self.progress: QProgressDialog | None = None  # the last re-indexing progress
        self.memory_model = MemoryTableModel(core)
        self.session_model = SessionListModel()
        self.chat = ChatView(core, self.session_model)
        self.memories = MemoryPanel(core, self.memory_model)
        self.status = StatusBar()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.chat, "")
        self.tabs.addTab(self.memories, "")
        self.setCentralWidget(self.tabs)
        self.setStatusBar(self.status)
        self.settings_action = QAction(self)
        self.settings_action.triggered.connect(self.open_settings)
        self.menu = self.menuBar().addMenu("")
        self.menu.addAction(self.settings_action)
        self.tabs.setEnabled(False)
        self.resize(1000, 700)
        self._connect_signals()
        self.retranslate()
        if core.is_open:
            self._on_opened()

    def _connect_signals(self) -> None:
        core, bridge = self.core, self.core.bridge
        core.opened.connect(self._on_opened)
        core.open_failed.connect(self._on_open_failed)
        core.embedder_state.connect(self._on_embedder)
        core.reset.connect(self._on_reset)
        core.engine_replaced.connect(self.chat.reload_sessions)
        core.scheduler_attached.connect(lambda: self.status.set_maintenance(None, available=True))
        core.last_maintenance.connect(lambda at: at is not None and self.status.set_maintenance(at))
        bridge.memory_changed.connect(lambda _c: self.memory_model.refresh())
        bridge.error.connect(self.show_error)
        bridge.bug.connect(self.show_bug)
        bridge.warning.connect(lambda text: self.status.showMessage(text, 15000))
        bridge.maintenance_finished.connect(self._on_maintenance)
        self.chat.memories_changed.connect(self.memory_model.refresh)
        self.chat.reply_finished.connect(self._after_turn)
        self.memories.changed.connect(self.chat.notice.hide)
        self.status.refresh_requested.connect(self.check_ollama)
        self.status.model_chosen.connect(self.choose_model)
        self.status.maintenance_requested.connect(self.run_maintenance)
        translator.changed.connect(self.retranslate)

    def retranslate(self) -> None:
        self.setWindowTitle(tr("Mnemo — your local assistant"))
        self.tabs.setTabText(0, tr("Chat"))
        self.tabs.setTabText(1, tr("Memories"))
        self.menu.setTitle(tr("Mnemo"))
        self.settings_action.setText(tr("Settings…"))
        if not self.core.is_open:
            self.status.showMessage(tr("Opening your profile…"))
        self.chat.retranslate()
        self.memories.retranslate()
        self.status.retranslate()

    # -- start-up ----------------------------------------------------------------------

    def _on_opened(self) -> None:
        set_language(self.core.settings.language)
        self.chat.warm_up()  # before the chat can be used, after the window was first painted
        self.tabs.setEnabled(True)
        self.status.clearMessage()
        for warning in self.core.profile.warnings:
            self.status.showMessage(warning, 15000)
        self.memories.reload()
        self.chat.reload_sessions()
        self.check_ollama()
        self.ready.emit()

    def _on_open_failed(self, exc: BaseException) -> None:
        message, hint = error_text(exc)
        self.status.showMessage(message)
        self.dialog = inform(
            self, tr("Mnemo cannot start"), message + ("\n\n" + hint if hint else ""), error=True
        )

    def _on_embedder(self, state: str, warning: str) -> None:
        model = getattr(self.core.profile.embedder, "requested", "") if self.core.is_open else ""
        self.status.set_embedder(state, warning, model)

    def _on_reset(self) -> None:
        self.chat.reset()
        self.memory_model.clear()
        self.memories.reload()

    def _after_turn(self, result: Any) -> None:
        if result.error is not None:
            self.check_ollama()
        if result.changes:
            self.memory_model.refresh()

    # -- Ollama ------------------------------------------------------------------------

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

        self.core.run(backend.health, self.status.set_health)
        self.core.run(models, lambda names: self.status.set_models(names, settings.chat_model))

    def choose_model(self, name: str) -> None:
        settings = self.core.settings
        if name == settings.chat_model:
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
        names = [self.status.models.itemText(i) for i in range(self.status.models.count())]
        dialog = SettingsDialog(self.core.settings, names, self.core.profile.dir)
        dialog.setParent(self, dialog.windowFlags())
        self.dialog = dialog
        dialog.accepted.connect(lambda: self.apply_settings(dialog.result_settings()))
        dialog.open()

    def apply_settings(self, new: Any) -> None:
        """Apply edited settings in place (the core holds this object) and save them."""
        from assistant.app import recall_options

        settings = self.core.settings
        old = dataclasses.replace(settings)
        for field in dataclasses.fields(settings):
            setattr(settings, field.name, getattr(new, field.name))
        self.core.profile.recaller.options = recall_options(settings)
        self._save_settings()
        set_language(settings.language)
        if (settings.ollama_host, settings.chat_model, settings.num_ctx) != (
            old.ollama_host,
            old.chat_model,
            old.num_ctx,
        ):
            self.core.replace_backend(self.check_ollama)
        if settings.embedding_model != old.embedding_model:
            self.switch_embedding_model(settings.embedding_model)

    def switch_embedding_model(self, name: str) -> None:
        from assistant.memory.embedder import SentenceTransformerEmbedder

        profile = self.core.profile
        relay = ProgressRelay(self)
        self.progress = dialog = progress_dialog(
            self, tr("Re-indexing memories with the new embedding model…"), relay
        )
        self.status.set_embedder("loading")

        def switch() -> Any:
            embedder = SentenceTransformerEmbedder(name, warn=self.core.bridge.on_warning)
            embedder.load()
            profile.service.switch_embedder(embedder, relay)
            profile.embedder = embedder
            return embedder

        def done(embedder: Any) -> None:
            dialog.close()
            self.status.set_embedder(str(embedder.state), embedder.warning or "", name)

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
        self.status.showMessage(tr("Maintenance is running…"), 5000)
        scheduler.run_now()  # only schedules the job; the report arrives through the bridge

    def _on_maintenance(self, report: Any) -> None:
        self.status.run_now.setEnabled(True)
        self.status.set_maintenance(report)
        self.memory_model.refresh()

    # -- messages ----------------------------------------------------------------------

    def show_error(self, exc: BaseException) -> None:
        message, hint = error_text(exc)
        self.dialog = inform(
            self, tr("Mnemo"), message + ("\n\n" + hint if hint else ""), error=True
        )

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
        self.chat.stop()
        self.core.close()
        super().closeEvent(event)

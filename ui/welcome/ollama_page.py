"""The welcome's Ollama page: install it (what, for this OS), start it (how, then Check again),
choose a model it has, or download a recommended one with progress and Cancel."""

from __future__ import annotations

import html
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWizardPage,
)

from assistant.llm.backend import PullProgress
from assistant.llm.setup import (
    RECOMMENDED,
    OllamaProbe,
    OllamaState,
    download_url,
    find_ollama,
    install_command,
    platform_key,
    probe,
    recommended_model,
)
from ui.i18n import error_text, tr
from ui.welcome.common import CommandLine, state_line, text, warn

if TYPE_CHECKING:
    from ui.core import Core

MODEL_NOTES = {choice.name: choice.note for choice in RECOMMENDED}


class OllamaPage(QWizardPage):
    """Shows what `probe` found; `model_chosen(name)` when the user picks or downloads one."""

    model_chosen = Signal(str)
    checked = Signal(object)  # the OllamaProbe shown
    pull_progress = Signal(object)  # PullProgress, from the worker
    pull_ended = Signal(str)  # "success", "cancelled" or "error"

    def __init__(
        self,
        core: Core,
        *,
        find: Callable[[], Path | None] = find_ollama,
        platform: str = sys.platform,
    ) -> None:
        super().__init__()
        self._core = core
        self._find = find
        self._platform = platform
        self.probe: OllamaProbe | None = None
        self._cancel: threading.Event | None = None
        self.state = state_line()
        self.explain = text(rich=True)
        self.command = CommandLine()
        self.check_button = QPushButton()
        self.check_button.clicked.connect(self.check)
        self.installed_box = QGroupBox()
        self.installed = QComboBox()
        self.use_button = QPushButton()
        self.use_button.clicked.connect(self._use_installed)
        row = QHBoxLayout(self.installed_box)
        row.addWidget(self.installed, 1)
        row.addWidget(self.use_button)
        self.pull_box = QGroupBox()
        self.recommended = QComboBox()
        # long descriptions: the box does not widen the wizard, its list shows them whole
        self.recommended.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.recommended.setMinimumContentsLength(28)
        self.pull_button = QPushButton()
        self.pull_button.clicked.connect(self.pull)
        self.cancel_button = QPushButton()
        self.cancel_button.clicked.connect(self.cancel_pull)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.pull_status = text(muted=True)
        choose = QHBoxLayout()
        choose.addWidget(self.recommended, 1)
        choose.addWidget(self.pull_button)
        going = QHBoxLayout()
        going.addWidget(self.progress, 1)
        going.addWidget(self.cancel_button)
        pulling = QVBoxLayout(self.pull_box)
        pulling.addLayout(choose)
        pulling.addLayout(going)
        pulling.addWidget(self.pull_status)
        check_row = QHBoxLayout()
        check_row.addStretch(1)
        check_row.addWidget(self.check_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.state)
        layout.addWidget(self.explain)
        layout.addWidget(self.command)
        layout.addLayout(check_row)
        layout.addWidget(self.installed_box)
        layout.addWidget(self.pull_box)
        layout.addStretch(1)
        self.pull_progress.connect(self._show_progress)
        core.engine_replaced.connect(self._backend_replaced)
        self._set_pulling(False)
        self.retranslate()

    # -- checking ----------------------------------------------------------------------

    def initializePage(self) -> None:  # noqa: N802 - Qt's name
        self.check()

    def check(self) -> None:
        backend, model, find = self._core.backend, self._core.settings.chat_model, self._find
        if backend is None:
            return

        def look() -> OllamaProbe:
            health = backend.health()
            try:
                names = list(backend.list_models()) if health.version else []
            except Exception:  # noqa: BLE001 - health said why already; the list is extra
                names = []
            return probe(health, names, model, find=find)

        self.check_button.setEnabled(False)
        self.state.setText(tr("Looking for Ollama…"))
        self._core.run_for(self, look, self._show, self._check_failed)

    def _backend_replaced(self) -> None:
        """The window rebuilt the backend for the chosen model: look again."""
        if self.isVisible():
            self.check()

    def _choose(self, name: str) -> None:
        """Tell the window; it rebuilds the backend (then `_backend_replaced` looks again),
        unless the model was the configured one already."""
        unchanged = name == self._core.settings.chat_model
        self.model_chosen.emit(name)
        if unchanged:
            self.check()

    def _check_failed(self, exc: BaseException) -> None:
        self.check_button.setEnabled(True)
        message, hint = error_text(exc)
        self.state.setText(message)
        self.explain.setText(html.escape(hint))

    def _show(self, found: OllamaProbe) -> None:
        self.probe = found
        self.check_button.setEnabled(True)
        self.retranslate()
        self.checked.emit(found)

    # -- choosing ----------------------------------------------------------------------

    def _use_installed(self) -> None:
        name = self.installed.currentData()
        if name:
            self._choose(str(name))

    def pull(self) -> None:
        backend, name = self._core.backend, str(self.recommended.currentData() or "")
        if backend is None or not name or self._cancel is not None:
            return
        cancel = threading.Event()
        self._cancel = cancel
        self._set_pulling(True)
        self.progress.setValue(0)
        self.pull_status.setText(tr("Starting the download of {model}…", model=name))

        def done(complete: bool) -> None:
            self._cancel = None
            self._set_pulling(False)
            if complete:
                self.pull_status.setText(tr("{model} is installed.", model=name))
                self.pull_ended.emit("success")
                self._choose(name)
            else:
                self.progress.setValue(0)
                self.pull_status.setText(
                    tr("Download cancelled. What was downloaded is kept for next time.")
                )
                self.pull_ended.emit("cancelled")

        def failed(exc: BaseException) -> None:
            self._cancel = None
            self._set_pulling(False)
            message, hint = error_text(exc)
            self.pull_status.setText(f"{message}\n{hint}")
            self.pull_ended.emit("error")

        self._core.run_for(
            self, lambda: backend.pull_model(name, self.pull_progress.emit, cancel), done, failed
        )

    def cancel_pull(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
            self.cancel_button.setEnabled(False)
            self.pull_status.setText(tr("Cancelling…"))

    @property
    def pulling(self) -> bool:
        return self._cancel is not None

    def _set_pulling(self, pulling: bool) -> None:
        self.pull_button.setEnabled(not pulling)
        self.recommended.setEnabled(not pulling)
        self.cancel_button.setVisible(pulling)
        self.cancel_button.setEnabled(pulling)
        self.progress.setVisible(pulling)

    def _show_progress(self, step: PullProgress) -> None:
        if self._cancel is None or self._cancel.is_set():
            return
        fraction = step.fraction
        if fraction is not None:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(fraction * 1000))
            gb = 1024**3
            self.pull_status.setText(
                tr(
                    "Downloading: {done:.1f} of {total:.1f} GB",
                    done=step.completed / gb,
                    total=step.total / gb,
                )
            )
        elif step.status:
            self.pull_status.setText(
                {
                    "pulling manifest": tr("Asking Ollama for the model…"),
                    "verifying sha256 digest": tr("Checking the download…"),
                    "writing manifest": tr("Installing…"),
                    "success": tr("Installed."),
                }.get(step.status, step.status)
            )

    # -- texts -------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.setTitle(tr("Ollama, the model that answers"))
        self.setSubTitle(
            tr("Mnemo talks to a model running on this computer in Ollama: nothing leaves it.")
        )
        self.check_button.setText(tr("Check again"))
        self.installed_box.setTitle(tr("Use a model you have"))
        self.use_button.setText(tr("Use this model"))
        self.pull_box.setTitle(tr("Download a model"))
        self.pull_button.setText(tr("Download"))
        self.cancel_button.setText(tr("Cancel"))
        self.command.retranslate()
        self._fill_recommended()
        found = self.probe
        if found is None:
            self.state.setText(tr("Looking for Ollama…"))
            for widget in (self.explain, self.command, self.installed_box, self.pull_box):
                widget.hide()
            return
        {
            OllamaState.NOT_INSTALLED: self._not_installed,
            OllamaState.NOT_RUNNING: self._not_running,
            OllamaState.NO_MODEL: self._no_model,
            OllamaState.READY: self._ready,
        }[found.state](found)

    def _not_installed(self, found: OllamaProbe) -> None:
        warn(self.state, True)
        self.state.setText(tr("Ollama is not installed on this computer."))
        command = install_command(self._platform)
        url = download_url(self._platform)
        link = f'<a href="{url}">{url}</a>'
        if command is not None:
            self.explain.setText(
                html.escape(tr("Install it with this command in a terminal:"))
                + "<br>"
                + tr("(or download it from {link}), then press Check again.", link=link)
            )
            self.command.set_command(command)
        else:
            app = (
                tr("Ollama for macOS")
                if platform_key(self._platform) == "darwin"
                else tr("Ollama for Windows")
            )
            self.explain.setText(
                tr(
                    "Download and install {app} from {link}, open it, then press Check again.",
                    app=html.escape(app),
                    link=link,
                )
            )
        self.command.setVisible(command is not None)
        self.explain.show()
        self.check_button.show()
        self.installed_box.hide()
        self.pull_box.hide()

    def _not_running(self, found: OllamaProbe) -> None:
        warn(self.state, True)
        self.state.setText(tr("Ollama is installed but not running."))
        host = html.escape(self._core.settings.ollama_host)
        if platform_key(self._platform) == "linux":
            how = tr(
                "Start it in a terminal with the command below (or, if it was installed as a "
                "service, with <code>sudo systemctl start ollama</code>), then press Check again."
            )
        else:
            how = tr(
                "Open the Ollama app (it runs in the menu bar or the notification area), or "
                "run the command below in a terminal, then press Check again."
            )
        self.explain.setText(how + "<br>" + tr("Mnemo looks for it at {host}.", host=host))
        self.command.set_command("ollama serve")
        for widget in (self.explain, self.command, self.check_button):
            widget.show()
        self.installed_box.hide()
        self.pull_box.hide()

    def _no_model(self, found: OllamaProbe) -> None:
        warn(self.state, True)
        version = found.version or "?"
        self.state.setText(
            tr(
                "Ollama {version} is running, but the model {model} is not installed.",
                version=version,
                model=found.model,
            )
        )
        self._fill_installed(found.installed)
        if found.installed:
            self.explain.setText(html.escape(tr("Use one of your models, or download one:")))
        else:
            self.explain.setText(html.escape(tr("Download a model to chat with:")))
        self.explain.show()
        self.command.hide()
        self.check_button.show()
        self.installed_box.setVisible(bool(found.installed))
        self.pull_box.show()

    def _ready(self, found: OllamaProbe) -> None:
        warn(self.state, False)
        self.state.setText(
            tr(
                "Ollama {version} is running with {model}. ✓",
                version=found.version or "",
                model=found.model,
            )
        )
        self.explain.setText(
            html.escape(
                tr("You can chat now. Another model can be chosen here or in the status bar.")
            )
        )
        self._fill_installed(found.installed)
        self.explain.show()
        self.command.hide()
        self.check_button.hide()
        self.installed_box.setVisible(len(found.installed) > 1)
        self.pull_box.show()

    def _fill_installed(self, names: list[str]) -> None:
        current = self._core.settings.chat_model
        self.installed.clear()
        for name in names:
            self.installed.addItem(name, name)
        index = self.installed.findData(current)
        self.installed.setCurrentIndex(max(index, 0))

    def _fill_recommended(self) -> None:
        chosen = self.recommended.currentData() or recommended_model().name
        self.recommended.clear()
        best = recommended_model().name
        for choice in RECOMMENDED:
            label = tr(
                "{model} — {size} GB download, for {ram} GB of memory or more: {note}",
                model=choice.name,
                size=f"{choice.size_gb:.1f}",
                ram=choice.ram_gb,
                note=tr(MODEL_NOTES[choice.name]),
            )
            if choice.name == best:
                label += " " + tr("(recommended here)")
            self.recommended.addItem(label, choice.name)
        self.recommended.setCurrentIndex(max(0, self.recommended.findData(chosen)))

"""The welcome's embedding page: download BGE small (its size and progress shown) or keep the
small bundled model, with one sentence on the difference."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QVBoxLayout, QWizardPage

from assistant.config import DEFAULT_EMBEDDING_MODEL
from assistant.memory.api import BUNDLED_MODEL
from ui.i18n import error_text, tr
from ui.welcome.common import state_line, text, warn

if TYPE_CHECKING:
    from ui.core import Core

Downloader = Callable[[str, Callable[[str], None]], None]
"""(model name, report a progress line) -> None; raises ModelUnavailableError."""

BGE_SIZE_MB = 95
_PERCENT = re.compile(r"(\d{1,3})%")


def download_model(name: str, report: Callable[[str], None]) -> None:
    """Fetch `name` from the Hugging Face hub (on a worker), reporting progress lines."""
    from assistant.memory.api import SentenceTransformerEmbedder

    SentenceTransformerEmbedder(name, allow_fallback=False).download(report)


class EmbeddingPage(QWizardPage):
    """`model_chosen(name)`: the embedding model to use (the window re-indexes with it)."""

    model_chosen = Signal(str)
    progressed = Signal(str)  # a progress line, from the worker
    download_ended = Signal(bool)

    def __init__(self, core: Core, *, downloader: Downloader = download_model) -> None:
        super().__init__()
        self._core = core
        self._download = downloader
        self.downloading = False
        self.state = state_line()
        self.explain = text()
        self.download_button = QPushButton()
        self.download_button.clicked.connect(self.download)
        self.keep_button = QPushButton()
        self.keep_button.clicked.connect(self.keep)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.hide()
        self.status = text(muted=True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.download_button)
        buttons.addWidget(self.keep_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.state)
        layout.addWidget(self.explain)
        layout.addLayout(buttons)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addStretch(1)
        self.progressed.connect(self._show_progress)
        core.embedder_state.connect(self._embedder_changed)
        self.retranslate()

    def initializePage(self) -> None:  # noqa: N802 - Qt's name
        self.retranslate()

    def _embedder_changed(self, _state: str, _warning: str) -> None:
        self.retranslate()

    def _current(self) -> tuple[str, str, str]:
        """(configured model, the embedder's state, the model it serves: "" while loading)."""
        core = self._core
        if not core.is_open:
            return "", "", ""
        status = core.memories.model_status()
        return core.settings.embedding_model, status.state, status.serving

    def download(self) -> None:
        if self.downloading:
            return
        self.downloading = True
        self.download_button.setEnabled(False)
        self.progress.setValue(0)
        self.progress.show()
        self.status.setText(tr("Downloading BGE small…"))

        def done(_result: object) -> None:
            self.downloading = False
            self.progress.setValue(100)
            self.status.setText(tr("Downloaded. Mnemo now indexes your memories with it."))
            self.download_ended.emit(True)
            self.model_chosen.emit(DEFAULT_EMBEDDING_MODEL)

        def failed(exc: BaseException) -> None:
            self.downloading = False
            self.download_button.setEnabled(True)
            self.progress.hide()
            message, hint = error_text(exc)
            self.status.setText(f"{message}\n{hint}")
            self.download_ended.emit(False)

        download, report = self._download, self.progressed.emit
        self._core.run_for(self, lambda: download(DEFAULT_EMBEDDING_MODEL, report), done, failed)

    def keep(self) -> None:
        self.status.setText(
            tr("Mnemo keeps the small model. BGE can be downloaded here later (Help → Welcome).")
        )
        self.model_chosen.emit(BUNDLED_MODEL)

    def _show_progress(self, line: str) -> None:
        match = _PERCENT.search(line)
        if match and not line.startswith("Fetching"):
            self.progress.setValue(min(100, int(match.group(1))))
        self.status.setText(line)

    def retranslate(self) -> None:
        self.setTitle(tr("Finding the right memory"))
        self.setSubTitle(tr("An embedding model lets Mnemo find memories by what they mean."))
        self.explain.setText(
            tr(
                "BGE small (Chinese and English, about {mb} MB) finds the right memory by meaning "
                "much more often, above all in Chinese; the bundled model is small and ready at "
                "once, but it was trained mostly on English.",
                mb=BGE_SIZE_MB,
            )
        )
        self.download_button.setText(tr("Download BGE small (about {mb} MB)", mb=BGE_SIZE_MB))
        self.keep_button.setText(tr("Keep the small model"))
        model, state, serving = self._current()
        ready_bge = serving == DEFAULT_EMBEDDING_MODEL
        stand_in = bool(serving) and serving == BUNDLED_MODEL and model != BUNDLED_MODEL
        if ready_bge:
            self.state.setText(tr("BGE small is ready. ✓"))
        elif not serving or state == "loading":
            self.state.setText(tr("Loading the embedding model…"))
        elif model == BUNDLED_MODEL:
            self.state.setText(tr("Mnemo uses the small bundled model, as you chose."))
        elif stand_in:
            self.state.setText(
                tr("BGE small is not on this computer: Mnemo uses the small bundled model for now.")
            )
        else:
            self.state.setText(tr("Mnemo uses {model}.", model=serving))
        warn(self.state, stand_in)
        self.download_button.setVisible(not ready_bge)
        self.download_button.setEnabled(not self.downloading)
        self.keep_button.setVisible(not ready_bge and model != BUNDLED_MODEL)

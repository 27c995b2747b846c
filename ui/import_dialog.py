"""File ▸ Import from…: bring history over from ChatGPT, Claude or a list of memories.

The file is read, checked and replayed on a worker (`assistant.importers.load`, then
`Memories.import_history`), with a progress bar and Cancel; the result says how many
memories wait in the review queue, with a button that opens it. A refused file shows why,
in the dialog, and nothing was written.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from assistant.errors import MnemoError
from assistant.importers import load
from assistant.memory.api import HistoryReport
from ui.core import Core
from ui.dialogs import error_message
from ui.i18n import tr, tr_n
from ui.progress import ProgressRelay

KINDS = (
    ("chatgpt", "ChatGPT data export (.zip or conversations.json)", "ChatGPT export (*.zip *.json)"),
    ("claude", "Claude data export (.zip or conversations.json)", "Claude export (*.zip *.json)"),
    ("text", "A list of memories (one per line, .txt or .md)", "Text (*.txt *.md)"),
)


class ImportDialog(QDialog):
    """Choose a file, import it in the background, see what came of it."""

    review_requested = Signal()  # "Open the review queue"
    finished_import = Signal(object)  # the HistoryReport (tests, the window)

    def __init__(self, core: Core, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._core = core
        self._stop = threading.Event()
        self.running = False
        self.setWindowTitle(tr("Import from…"))
        self.kind = QComboBox()
        for kind, label, _pattern in KINDS:
            self.kind.addItem(tr(label), kind)
        self.path = QLineEdit()
        self.path.setPlaceholderText(tr("The exported file"))
        self.choose = QPushButton(tr("Choose…"))
        self.note = QLabel(tr(
            "Mnemo reads what you said in those conversations, as if you had said it here, at the time you "
            "said it. What it keeps waits in the review queue until you accept it (see Settings). "
            "Importing the same file again adds nothing."))
        self.note.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.import_button = QPushButton(tr("Import"))
        self.import_button.setDefault(True)
        self.cancel_button = QPushButton(tr("Cancel"))
        self.review_button = QPushButton(tr("Open the review queue"))
        self.review_button.hide()
        self._layout()
        self.choose.clicked.connect(self._choose)
        self.import_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.reject)
        self.review_button.clicked.connect(self._open_review)
        self.resize(560, 260)

    def _layout(self) -> None:
        layout = QVBoxLayout(self)
        layout.addWidget(self.kind)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(self.choose)
        layout.addLayout(row)
        layout.addWidget(self.note)
        layout.addWidget(self.progress)
        layout.addWidget(self.status, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.review_button)
        buttons.addStretch(1)
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.cancel_button)
        layout.addLayout(buttons)

    def _choose(self) -> None:
        pattern = KINDS[max(self.kind.currentIndex(), 0)][2]
        path, _ = QFileDialog.getOpenFileName(self, tr("Import from…"), str(Path.home()), pattern)
        if path:
            self.path.setText(path)

    # -- the import ----------------------------------------------------------------------

    def start(self) -> None:
        """Import the chosen file on a worker."""
        text = self.path.text().strip()
        if not text:
            self._show_error(tr("Choose the file to import first."))
            return
        kind, path, memories = str(self.kind.currentData()), Path(text).expanduser(), self._core.memories
        relay = ProgressRelay(self)
        relay.progressed.connect(self._progressed)
        self._set_running(True)

        def work() -> HistoryReport:
            conversations = load(kind, path, datetime.fromtimestamp(memories.now(), UTC))
            return memories.import_history(conversations, progress=relay, cancel=self._stop.is_set)

        self._core.run_for(self, work, self._done, self._failed)

    def _set_running(self, running: bool) -> None:
        self.running = running
        self._stop.clear()
        for widget in (self.kind, self.path, self.choose, self.import_button):
            widget.setEnabled(not running)
        self.progress.setVisible(running)
        if running:
            self.progress.setRange(0, 0)  # busy until the first conversation is done
        self.cancel_button.setText(tr("Cancel") if running else tr("Close"))
        self.status.setText(tr("Reading the file…") if running else self.status.text())

    def _progressed(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        if not self._stop.is_set():
            self.status.setText(tr("Importing conversation {done} of {total}…", done=done, total=total))

    def stop(self) -> None:
        """Stop the import after the conversation under way (the window is closing)."""
        self._stop.set()

    def reject(self) -> None:
        """Cancel stops the import after the conversation under way; Close closes."""
        if self.running:
            self.stop()
            self.status.setText(tr("Stopping after this conversation…"))
            self.cancel_button.setEnabled(False)
            return
        super().reject()

    def _done(self, report: HistoryReport) -> None:
        self._set_running(False)
        self.cancel_button.setEnabled(True)
        self.status.setText(summary(report, str(self.kind.currentData())))
        self.review_button.setVisible(report.in_review > 0)
        self.finished_import.emit(report)

    def _failed(self, exc: BaseException) -> None:
        self._set_running(False)
        self.cancel_button.setEnabled(True)
        if not isinstance(exc, MnemoError):
            self._core.bridge.report(exc)  # our bug: the crash handler
            return
        self.status.setText(error_message(exc))

    def _show_error(self, text: str) -> None:
        self.status.setText(f"<p>{text}</p>")

    def _open_review(self) -> None:
        self.review_requested.emit()
        self.accept()


def summary(report: HistoryReport, kind: str) -> str:
    """"12 memories from 5 conversations waiting for your review", and what was skipped."""
    if not report.conversations and report.skipped and not report.cancelled:
        return tr("Nothing new: everything in this file was imported before.")
    memories = tr_n("{n} memory", "{n} memories", report.memories)
    if kind == "text":
        source = tr("your list")
    else:
        source = tr_n("{n} conversation", "{n} conversations", report.conversations)
    if report.in_review:
        parts = [tr("{memories} from {source} waiting for your review.", memories=memories, source=source)]
    else:
        parts = [tr("{memories} from {source} stored.", memories=memories, source=source)]
    if report.skipped:
        parts.append(tr_n("{n} conversation was imported before.", "{n} conversations were imported before.", report.skipped))
    if report.forget_requests:
        parts.append(tr_n("{n} request to forget something was not acted on.",
                          "{n} requests to forget something were not acted on.", report.forget_requests))
    if report.cancelled:
        parts.append(tr("Stopped before the end: import the file again to go on."))
    return " ".join(parts)

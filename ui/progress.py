"""Progress from a worker thread to a progress dialog, by signal."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget


class ProgressRelay(QObject):
    """Call it from any thread with (done, total); `progressed` fires on the GUI thread."""

    progressed = Signal(int, int)

    def __call__(self, done: int, total: int) -> None:
        self.progressed.emit(done, total)


def progress_dialog(parent: QWidget, text: str, relay: ProgressRelay) -> QProgressDialog:
    dialog = QProgressDialog(text, "", 0, 0, parent)
    dialog.setCancelButton(None)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(300)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)

    def update(done: int, total: int) -> None:
        dialog.setMaximum(max(total, 1))
        dialog.setValue(done)

    relay.progressed.connect(update)
    return dialog

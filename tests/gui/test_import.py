"""File ▸ Import from…: the dialog imports in the background with progress, can be
cancelled, says what came of it (and opens the review queue), and shows a refused file's
reason in place, with nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QMessageBox, QTextBrowser

from assistant.config import load_settings
from ui.import_dialog import ImportDialog
from ui.memory_panel.details_dialog import MemoryDetailsDialog
from ui.memory_panel.views import REVIEW_VIEW

FIXTURES = Path(__file__).parents[1] / "fixtures" / "imports"
CHATGPT = FIXTURES / "chatgpt_conversations.json"


def open_dialog(window: Any, kind: str, path: Path | str) -> ImportDialog:
    window.menus.import_from.trigger()
    dialog = window.dialog
    assert isinstance(dialog, ImportDialog) and dialog.isVisible()
    dialog.kind.setCurrentIndex(dialog.kind.findData(kind))
    dialog.path.setText(str(path))
    return dialog


def test_import_shows_progress_and_opens_the_review_queue(qtbot: Any, window: Any) -> None:
    dialog = open_dialog(window, "chatgpt", CHATGPT)
    values: list[int] = []
    dialog.progress.valueChanged.connect(values.append)
    with qtbot.waitSignal(dialog.finished_import, timeout=120000) as finished:
        dialog.import_button.click()
        assert dialog.running and dialog.progress.isVisible() and not dialog.import_button.isEnabled()
    report = finished.args[0]
    assert report.conversations == 4 and report.in_review == report.memories > 0
    assert values[-1] == 4 and dialog.progress.maximum() == 4
    assert f"{report.memories} memories from 4 conversations waiting for your review." in dialog.status.text()
    assert "1 request to forget something was not acted on." in dialog.status.text()
    assert dialog.review_button.isVisible() and dialog.cancel_button.text() == "Close"
    dialog.review_button.click()
    assert window.tabs.currentWidget() is window.memories
    assert window.memories.view_filter.currentIndex() == REVIEW_VIEW
    qtbot.waitUntil(lambda: window.memory_model.rowCount() == report.memories, timeout=10000)
    panel = window.memories
    panel.select_row(0)
    panel.show_details()
    qtbot.waitUntil(lambda: isinstance(panel.dialog, MemoryDetailsDialog) and panel.dialog.isVisible(), timeout=10000)
    shown = panel.dialog.findChild(QTextBrowser).toPlainText()
    assert "Brought over from another assistant: imported from ChatGPT, conversation “" in shown
    panel.dialog.close()
    again = open_dialog(window, "chatgpt", CHATGPT)
    with qtbot.waitSignal(again.finished_import, timeout=60000):
        again.import_button.click()
    assert again.status.text() == "Nothing new: everything in this file was imported before."
    assert not again.review_button.isVisible()
    again.reject()


def test_cancel_stops_between_conversations(qtbot: Any, window: Any) -> None:
    memories = window.core.memories
    dialog = open_dialog(window, "chatgpt", CHATGPT)
    memories.lock.acquire()  # the worker waits at its first conversation
    try:
        dialog.import_button.click()
        dialog.cancel_button.click()
        assert dialog.isVisible() and dialog.status.text() == "Stopping after this conversation…"
        assert not dialog.cancel_button.isEnabled()
    finally:
        memories.lock.release()
    with qtbot.waitSignal(dialog.finished_import, timeout=120000) as finished:
        pass
    report = finished.args[0]
    assert report.cancelled and report.conversations <= 1
    assert "Stopped before the end: import the file again to go on." in dialog.status.text()
    assert dialog.isVisible() and dialog.import_button.isEnabled()
    dialog.cancel_button.click()  # now it is Close
    assert not dialog.isVisible()


def test_a_refused_file_shows_why_in_the_dialog(qtbot: Any, window: Any, tmp_path: Path) -> None:
    broken = tmp_path / "conversations.json"
    broken.write_text('[{"title": "x", "mapping": {}', encoding="utf-8")
    dialog = open_dialog(window, "chatgpt", "")
    dialog.import_button.click()
    assert dialog.status.text() == "<p>Choose the file to import first.</p>"
    dialog.path.setText(str(broken))
    dialog.import_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=30000)
    text = dialog.status.text()
    assert "conversations.json is not valid JSON" in text and "Nothing was imported" in text
    assert dialog.import_button.isEnabled() and not dialog.progress.isVisible()
    assert not isinstance(window.dialog, QMessageBox) and window.core.memories.total() == 0
    dialog.path.setText(str(FIXTURES / "claude_conversations.json"))
    dialog.import_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=30000)
    assert "use the Claude importer" in dialog.status.text()
    dialog.reject()


def test_the_setting_accepts_imports_without_review(qtbot: Any, window: Any) -> None:
    window.open_settings()
    settings = window.dialog
    assert not settings.accept_imports.isChecked()
    settings.accept_imports.setChecked(True)
    settings.accept()
    qtbot.waitUntil(lambda: not window.core.runner.busy, timeout=10000)
    assert load_settings().accept_imports_without_review
    dialog = open_dialog(window, "text", FIXTURES / "memories.md")
    with qtbot.waitSignal(dialog.finished_import, timeout=60000) as finished:
        dialog.import_button.click()
    assert finished.args[0].in_review == 0 and finished.args[0].memories == 8
    assert dialog.status.text() == "8 memories from your list stored."
    dialog.reject()


def test_closing_the_window_stops_an_import(qtbot: Any, window: Any, profile: Any) -> None:
    dialog = open_dialog(window, "chatgpt", CHATGPT)
    dialog.import_button.click()
    window.close()  # waits for the worker: it stops after the conversation under way
    assert not window.core.runner.busy
    done = profile.db.scalar("SELECT COUNT(*) FROM imported_conversations")
    assert done <= 1, "the import stopped instead of running on after the window closed"

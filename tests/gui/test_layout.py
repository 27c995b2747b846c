"""What the window looks like at its edges: nothing cut at 600×400, a readable column at
1400 px, one "Mnemo" in the title, counted nouns, readable dates."""

from __future__ import annotations

import re
from typing import Any

import pytest
from PySide6.QtWidgets import QAbstractButton, QApplication, QCheckBox, QLabel, QWidget

from tests.gui.test_chat import send
from ui.i18n import set_language
from ui.memory_panel.edit_dialog import EditMemoryDialog


def settle(qtbot: Any, window: Any) -> None:
    """Let layouts run (a resize is laid out on the next pass of the event loop)."""
    QApplication.processEvents()
    QApplication.processEvents()  # a second pass: what the first laid out may post more


def cut(window: Any) -> list[str]:
    """Every visible button and status-bar text that is narrower than its text needs."""
    found = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or widget.window() is not window:
            continue
        if isinstance(widget, QAbstractButton) and not isinstance(widget, QCheckBox):
            if widget.width() < widget.sizeHint().width() or widget.height() < 10:
                found.append(f"{type(widget).__name__} {widget.text()!r}: {widget.width()} px")
        if isinstance(widget, QCheckBox) and widget.width() < widget.sizeHint().width():
            found.append(f"checkbox {widget.text()!r}")
    status = window.status
    for widget in status.findChildren(QWidget):
        if widget.isVisible() and widget.parent() is not None:
            box = widget.geometry()
            if box.right() > status.width() or box.left() < 0:
                found.append(
                    f"status item {getattr(widget, 'text', lambda: '')()!r} outside the bar"
                )
            if isinstance(widget, QLabel) and widget.width() < widget.sizeHint().width():
                found.append(f"status label {widget.text()!r} cut")
    return found


@pytest.mark.parametrize("language", ["en", "zh"])
def test_nothing_is_cut_at_600_by_400(
    qtbot: Any, make_window: Any, seed: Any, language: str
) -> None:
    seed("I live in Berlin")
    window = make_window(scheduler=True)
    qtbot.waitUntil(lambda: window.core.scheduler is not None, timeout=10000)
    # what start-up asked of the core is back (Ollama's health, the vault key, the last
    # maintenance): a result arriving between a layout pass and the measure changes a text
    qtbot.waitUntil(lambda: not window.core.runner.busy, timeout=10000)
    try:
        set_language(language)
        window.resize(600, 400)
        settle(qtbot, window)
        assert (window.width(), window.height()) == (600, 400)
        assert cut(window) == []
        window.tabs.setCurrentWidget(window.memories)
        settle(qtbot, window)
        assert cut(window) == []
        window.resize(1200, 800)  # room again: the maintenance items come back
        settle(qtbot, window)
        assert window.status.maintenance.isVisible()
    finally:
        set_language("en")


def test_bubbles_keep_a_readable_width_at_1400_px(
    qtbot: Any, window: Any, fake_ollama: Any
) -> None:
    window.resize(1400, 800)
    fake_ollama.script("A long answer, " + "with many words in it that go on " * 30)
    send(qtbot, window, "hi")
    settle(qtbot, window)
    user, reply = window.chat.bubbles
    transcript = window.chat.transcript
    column = transcript.column_width
    assert reply.width() <= column + 8  # a reply fills the column, not the window
    assert transcript.viewport().width() > column + 200  # the window is wider than that
    left = reply.mapTo(transcript.viewport(), reply.rect().topLeft()).x()
    right = transcript.viewport().width() - (left + reply.width())
    assert abs(left - right) <= 30  # the column is centred
    assert user.width() < 200  # a short message gets a small bubble…
    user_right = user.mapTo(transcript.viewport(), user.rect().topRight()).x()
    assert abs(user_right - (left + reply.width())) <= 8  # …at the column's right edge


def shown_title(window: Any) -> str:
    """The title the window system shows: Qt appends the display name unless the title
    already ends with it (QPlatformWindow::formatWindowTitle); an empty title is the name."""
    title, name = window.windowTitle(), QApplication.applicationDisplayName()
    if not title:
        return name
    return title if title.endswith(name) else f"{title} — {name}"


def test_the_title_names_mnemo_once(qtbot: Any, window: Any) -> None:
    QApplication.setApplicationDisplayName("Mnemo")  # as the app sets it
    assert shown_title(window).count("Mnemo") == 1
    send(qtbot, window, "Trip to Oslo in May")
    qtbot.waitUntil(lambda: window.windowTitle() == "Trip to Oslo in May", timeout=10000)
    assert shown_title(window) == "Trip to Oslo in May — Mnemo"
    window.chat.new_session()
    assert shown_title(window) == "Mnemo"


def test_counts_are_counted_nouns(qtbot: Any, make_window: Any, seed: Any) -> None:
    seed("I live in Berlin")
    window = make_window()
    assert window.memories.count_label.text() == "1 memory"
    seed("I like tea")
    with qtbot.waitSignal(window.memory_model.loaded, timeout=10000):
        window.memory_model.refresh()
    assert window.memories.count_label.text() == "2 memories"
    try:
        set_language("zh")
        assert window.memories.count_label.text() == "2 条记忆"
    finally:
        set_language("en")


def test_dates_are_whole_and_readable(qtbot: Any, make_window: Any, seed: Any, clock: Any) -> None:
    memory = seed("My passport expires soon", expires_at=clock.now().timestamp() + 275 * 86400)
    window = make_window()
    window.resize(1000, 700)
    settle(qtbot, window)
    table, model = window.memories.table, window.memory_model
    created = model.data(model.index(0, 3))
    assert created.startswith("Today ")  # the memory was made "now" (the test's clock)
    assert table.columnWidth(3) >= table.fontMetrics().horizontalAdvance(created)  # not "…"
    dialog = EditMemoryDialog(model.memory(0), window.memories)
    qtbot.addWidget(dialog)
    shown = dialog.expires_at.text()
    assert re.fullmatch(r"[A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2}\s?[AP]M", shown), shown
    assert dialog.fields() == {}  # showing it changed nothing
    set_language("zh")
    try:
        zh = EditMemoryDialog(model.memory(0), window.memories)
        qtbot.addWidget(zh)
        assert re.fullmatch(r"\d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}", zh.expires_at.text())
    finally:
        set_language("en")
    assert memory.id == model.memory(0).id

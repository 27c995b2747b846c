"""The keyboard: Tab leaves the message box, Ctrl+Tab changes tabs, Ctrl+N starts a chat, Esc
stops a reply and closes dialogs, Ctrl+F searches the memories."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.fakes.fake_ollama import FakeOllama, ScriptedReply
from tests.gui.test_chat import send


@pytest.fixture
def active(qtbot: Any, window: Any) -> Any:
    """The window, active (window shortcuts need it)."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    return window


def test_tab_moves_the_focus_out_of_the_message_box(qtbot: Any, active: Any) -> None:
    box = active.chat.input
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    qtbot.keyClicks(box, "hi")
    qtbot.keyClick(box, Qt.Key.Key_Tab)
    assert box.toPlainText() == "hi"  # no tab character typed
    assert not box.hasFocus()
    assert QApplication.focusWidget() is active.chat.send_button  # the next in the chain
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Backtab)
    assert box.hasFocus()


def test_ctrl_tab_goes_to_the_other_tab_from_the_box(qtbot: Any, active: Any) -> None:
    box = active.chat.input
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    qtbot.keyClick(box, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert active.tabs.currentWidget() is active.memories
    assert box.toPlainText() == ""
    qtbot.keyClick(
        QApplication.focusWidget(),
        Qt.Key.Key_Backtab,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert active.tabs.currentWidget() is active.chat


def test_ctrl_n_starts_a_new_chat(qtbot: Any, active: Any) -> None:
    send(qtbot, active, "first chat")
    assert active.chat.bubbles
    active.tabs.setCurrentWidget(active.memories)
    qtbot.keyClick(active.memories.table, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert active.tabs.currentWidget() is active.chat
    assert active.chat.session_id is None and active.chat.bubbles == []
    qtbot.waitUntil(active.chat.input.hasFocus)


def test_esc_stops_the_reply(qtbot: Any, active: Any, fake_ollama: FakeOllama) -> None:
    gate = threading.Event()
    fake_ollama.script(ScriptedReply("word " * 2000, chunk_size=5, interval_s=0.01, gate=gate))
    with qtbot.waitSignal(active.chat.reply_finished, timeout=30000) as finished:
        active.chat.send("tell me a long story")
        gate.set()
        qtbot.waitUntil(lambda: "word" in active.chat.bubbles[-1].text, timeout=10000)
        qtbot.keyClick(active.chat.input, Qt.Key.Key_Escape)
    assert finished.args[0].partial and active.chat.bubbles[-1].note.text() == "Stopped."


def test_esc_closes_dialogs(qtbot: Any, active: Any, seed: Any) -> None:
    active.open_settings()
    dialog = active.dialog
    qtbot.waitUntil(dialog.isVisible)
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    active.menus.forget_me.trigger()
    box = active.memories.dialog
    assert isinstance(box, QMessageBox) and box.isVisible()
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not box.isVisible())
    assert active.core.profile.store.total() == 0 or active.memories.forget_button.isEnabled()


def test_ctrl_f_searches_the_memories(qtbot: Any, active: Any, seed: Any) -> None:
    seed("I live in Berlin")
    seed("I like green tea")
    with qtbot.waitSignal(active.memory_model.loaded, timeout=10000):
        active.memories.reload()
    box = active.chat.input
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    qtbot.keyClick(box, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    search = active.memories.search
    assert active.tabs.currentWidget() is active.memories and search.hasFocus()
    qtbot.keyClicks(search, "Berlin")
    qtbot.waitUntil(
        lambda: [m.content for m in active.memory_model.memories()] == ["I live in Berlin"],
        timeout=10000,
    )
    qtbot.keyClick(search, Qt.Key.Key_Escape)  # clears the search
    assert search.text() == ""
    qtbot.waitUntil(lambda: active.memory_model.rowCount() == 2, timeout=10000)
    qtbot.waitUntil(lambda: not active.memory_model.loading, timeout=10000)

"""Forget me: one button, a confirmation naming what goes, then an empty profile."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox

from tests.fakes.fake_ollama import FakeOllama, ScriptedReply
from tests.gui.test_chat import send
from tests.gui.test_memory_panel import press


def test_forget_me_leaves_an_empty_store(
    qtbot: Any, make_window: Any, seed: Any, profile: Any
) -> None:
    seed("My phone number is 13812345678")
    seed("I live in Berlin")
    window = make_window()
    send(qtbot, window, "I am a teacher.")
    assert profile.store.total() >= 2
    panel = window.memories
    panel.ask_forget_me()
    box = panel.dialog
    assert "all memories" in box.text() and "every conversation" in box.text()
    with qtbot.waitSignal(panel.forgotten, timeout=30000) as blocker:
        press(box, QMessageBox.ButtonRole.DestructiveRole)
    report = blocker.args[0]
    print(f"\nforget-me took {report.seconds:.3f} s")
    assert report.seconds < 30
    assert profile.store.total() == 0
    assert profile.vault.items() == []
    assert window.core.engine.sessions() == []
    qtbot.waitUntil(lambda: window.chat.bubbles == [] and window.session_model.rowCount() == 0)
    qtbot.waitUntil(lambda: not panel.model.loading and panel.model.rowCount() == 0)
    assert "s." in panel.dialog.text()
    panel.dialog.close()
    # the fresh profile works: chatting goes on
    result = send(qtbot, window, "hello again")
    assert result.error is None


def test_forget_me_while_a_reply_streams(
    qtbot: Any,
    make_window: Any,
    seed: Any,
    profile: Any,
    fake_ollama: FakeOllama,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The reply stops, the erase waits for its turn, and nothing is re-wired: the same engine
    and the same `Memories` go on with the fresh profile, and the panel shows it."""
    seed("I live in Berlin")
    window = make_window()
    engine, memories, panel = window.core.engine, profile.memories, window.memories
    problems: list[object] = []
    window.core.bridge.bug.connect(problems.append)
    window.core.bridge.error.connect(problems.append)
    fake_ollama.script(ScriptedReply("word " * 2000, chunk_size=5, interval_s=0.01))  # ~20 s
    with qtbot.waitSignal(window.chat.reply_finished, timeout=30000) as finished:
        assert window.chat.send("My sister is called Lena. Tell me a long story.")
        qtbot.waitUntil(lambda: "word" in window.chat.bubbles[-1].text, timeout=10000)
        panel.ask_forget_me()
        with qtbot.waitSignal(panel.forgotten, timeout=30000):
            press(panel.dialog, QMessageBox.ButtonRole.DestructiveRole)
    stopped = finished.args[0]
    assert stopped.partial and stopped.error is None  # cut cleanly, not failed
    assert window.core.engine is engine and profile.memories is memories
    assert memories.total() == 0 and engine.sessions() == []
    qtbot.waitUntil(
        lambda: window.chat.bubbles == [] and not panel.model.loading and panel.model.rowCount() == 0
    )
    assert panel.pages.currentWidget() is panel.empty_label
    assert window.tabs.isEnabled() and panel.forget_button.isEnabled()
    panel.dialog.close()
    # the same engine chats on, and what it is told is remembered and shown
    result = send(qtbot, window, "Remember that my favourite colour is green.")
    assert result.error is None and not result.partial
    assert any(c.action.value == "add" for c in result.changes), result.changes
    qtbot.waitUntil(lambda: any("green" in m.content for m in panel.model.memories()), timeout=10000)
    assert [s.id for s in engine.sessions()] == [window.chat.session_id]
    assert problems == [] and not window.chat.error_banner.isVisible()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]

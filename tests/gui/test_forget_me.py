"""Forget me: one button, a confirmation naming what goes, then an empty profile."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QMessageBox

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

"""The sessions sidebar and the turn controls: rename, delete, temporary chat, stop."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QMessageBox

from tests.fakes.fake_ollama import FakeOllama, ScriptedReply
from tests.gui.test_chat import send
from tests.gui.test_memory_panel import press


def test_rename_and_delete_a_chat(qtbot: Any, window: Any, profile: Any) -> None:
    send(qtbot, window, "My phone number is 13812345678, plan my trip to Oslo")
    first = window.chat.session_id
    assert profile.vault.items()  # the number went to the vault, referenced by this chat
    qtbot.mouseClick(window.chat.sidebar.new_button, Qt.MouseButton.LeftButton)
    send(qtbot, window, "What should I pack?")
    qtbot.waitUntil(
        lambda: window.chat.session_id not in (None, first) and window.session_model.rowCount() == 2
    )
    second = window.chat.session_id
    sidebar = window.chat.sidebar
    sidebar.select(first)
    qtbot.mouseClick(sidebar.rename_button, Qt.MouseButton.LeftButton)
    dialog = sidebar.dialog
    assert isinstance(dialog, QInputDialog) and dialog.isVisible()
    assert dialog.textValue().startswith("My phone number is")  # named after its first message
    dialog.setTextValue("Trip to Oslo")
    with qtbot.waitSignal(window.chat.sessions_loaded, timeout=10000):
        dialog.accept()
    assert window.core.engine.session(first).title == "Trip to Oslo"
    assert window.session_model.session(window.session_model.row_of(first)).title == "Trip to Oslo"

    vaulted = len(profile.vault.items())
    sidebar.select(first)
    qtbot.mouseClick(sidebar.delete_button, Qt.MouseButton.LeftButton)
    assert (
        isinstance(sidebar.dialog, QMessageBox)
        and "Memories learnt from it stay" in sidebar.dialog.text()
    )
    with qtbot.waitSignal(window.chat.sessions_loaded, timeout=10000):
        press(sidebar.dialog, QMessageBox.ButtonRole.DestructiveRole)
    assert [s.id for s in window.core.engine.sessions()] == [second]
    assert window.session_model.rowCount() == 1
    # one vault item per value: the memory made from that message still refers to it
    assert len(profile.vault.items()) == vaulted


def test_temporary_chat_remembers_nothing(qtbot: Any, window: Any, profile: Any) -> None:
    send(qtbot, window, "hello")
    normal = window.chat.session_id
    memories, sessions_before = profile.store.total(), len(window.core.engine.sessions())
    qtbot.mouseClick(
        window.chat.sidebar.temporary, Qt.MouseButton.LeftButton
    )  # starts a temporary chat
    assert window.chat.session_id is None and window.chat.temporary
    assert window.chat.temporary_banner.isVisible()  # the chat says it is temporary
    assert "Temporary chat" in window.chat.temporary_label.text()
    result = send(
        qtbot, window, "Remember that my favourite colour is green. My phone number is 13812345678."
    )
    temporary = window.chat.session_id
    assert temporary not in (None, normal) and window.core.engine.session(temporary).temporary
    assert result.error is None and result.changes == [] and result.injected == []
    assert not window.chat.notice.isVisible()
    window.core.engine.flush_extraction()
    assert profile.store.total() == memories and profile.vault.items() == []
    qtbot.waitUntil(lambda: window.session_model.rowCount() == sessions_before + 1)
    row = window.session_model.row_of(temporary)
    assert window.session_model.data(window.session_model.index(row)).startswith("⏳")
    # switching back: the toggle shows the kind of the chat that is open
    with qtbot.waitSignal(window.chat.transcript_loaded, timeout=10000):
        window.chat.open_session(normal)
    assert not window.chat.sidebar.temporary.isChecked()
    assert not window.chat.temporary_banner.isVisible()


def test_stop_button_keeps_the_partial_reply(
    qtbot: Any, window: Any, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(
        ScriptedReply("word " * 2000, chunk_size=5, interval_s=0.01)
    )  # ~20 s if not stopped
    with qtbot.waitSignal(window.chat.reply_finished, timeout=30000) as finished:
        window.chat.input.setPlainText("tell me a long story")
        qtbot.mouseClick(window.chat.send_button, Qt.MouseButton.LeftButton)
        assert window.chat.stop_button.isEnabled() and not window.chat.send_button.isEnabled()
        qtbot.waitUntil(lambda: "word" in window.chat.bubbles[-1].text, timeout=10000)
        qtbot.mouseClick(window.chat.stop_button, Qt.MouseButton.LeftButton)
    result = finished.args[0]
    assert result.partial and result.error is None
    assert 0 < len(result.reply) < len("word " * 2000)
    reply = window.chat.bubbles[-1]
    assert reply.text == result.reply and reply.note.text() == "Stopped." and reply.note.isVisible()
    assert not window.chat.stop_button.isEnabled()
    assert not window.chat.send_button.isEnabled()  # the box is empty
    window.chat.input.setPlainText("and then?")
    assert window.chat.send_button.isEnabled()
    stored = window.core.engine.messages(window.chat.session_id)[-1]
    assert (stored.role, stored.status, stored.content) == ("assistant", "partial", result.reply)

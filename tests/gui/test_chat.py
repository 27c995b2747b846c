"""The chat view against the real engine and the fake Ollama server."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from tests.fakes.fake_ollama import FakeOllama, ScriptedReply
from ui.chat.memories_used import MemoriesUsedDialog


def send(qtbot: Any, window: Any, text: str, timeout: int = 20000) -> Any:
    with qtbot.waitSignal(window.chat.reply_finished, timeout=timeout) as blocker:
        window.chat.input.setPlainText(text)
        qtbot.mouseClick(window.chat.send_button, Qt.MouseButton.LeftButton)
    return blocker.args[0]


def test_send_shows_streamed_reply(qtbot: Any, window: Any, fake_ollama: FakeOllama) -> None:
    fake_ollama.script(
        ScriptedReply(
            "Hello **there**! Here is code:\n\n```python\nprint('hi')\n```\n", chunk_size=3
        )
    )
    pieces: list[str] = []
    window.core.bridge.token.connect(lambda _turn, piece: pieces.append(piece))
    result = send(qtbot, window, "hi")
    assert result.error is None
    assert len(pieces) >= 2 and "".join(pieces) == result.reply  # it streamed, in pieces
    reply = window.chat.bubbles[-1]
    assert reply.role == "assistant" and reply.text.startswith("Hello **there**")
    shown = reply.body.toPlainText()
    assert "Hello there!" in shown and "**" not in shown  # Markdown rendered, not raw
    assert "print('hi')" in shown and "```" not in shown  # the code block kept, fences gone
    assert window.chat.input.toPlainText() == ""
    qtbot.waitUntil(lambda: window.session_model.rowCount() == 1)
    assert [m.role for m in window.core.engine.messages(window.chat.session_id)] == [
        "user",
        "assistant",
    ]


def test_memories_used_popup_lists_injected_and_archives(
    qtbot: Any, make_window: Any, seed: Any, profile: Any
) -> None:
    memory = seed("I live in Berlin", slot="user.city")
    window = make_window()
    result = send(qtbot, window, "Where do I live? Berlin?")
    assert [m.id for m in result.injected] == [memory.id]
    bubble = window.chat.bubbles[-1]
    assert bubble.memories_button.isVisible()
    assert bubble.memories_button.text() == "1 memory used"
    qtbot.mouseClick(bubble.memories_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: (
            isinstance(window.chat.dialog, MemoriesUsedDialog) and window.chat.dialog.isVisible()
        )
    )
    dialog = window.chat.dialog
    assert list(dialog.rows) == [memory.id]
    with qtbot.waitSignal(dialog.changed):
        qtbot.mouseClick(
            dialog.findChild(type(bubble.memories_button), f"archive-{memory.id}"),
            Qt.MouseButton.LeftButton,
        )
    assert profile.store.get(memory.id).status.value == "archived"
    dialog.close()


def test_memories_used_popup_deletes(qtbot: Any, make_window: Any, seed: Any, profile: Any) -> None:
    memory = seed("My daughter is called Ana", slot="user.child")
    window = make_window()
    result = send(qtbot, window, "What is my daughter called? Ana?")
    assert memory.id in [m.id for m in result.injected]
    qtbot.mouseClick(window.chat.bubbles[-1].memories_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: (
            isinstance(window.chat.dialog, MemoriesUsedDialog) and window.chat.dialog.isVisible()
        )
    )
    dialog = window.chat.dialog
    with qtbot.waitSignal(window.memory_model.loaded, timeout=10000):  # the panel re-reads
        qtbot.mouseClick(
            dialog.findChild(QPushButton, f"delete-{memory.id}"), Qt.MouseButton.LeftButton
        )
    assert profile.store.get_many([memory.id]) == {}
    assert memory.id not in profile.service.index.ids(profile.service.profile_id)
    assert memory.id not in [m.id for m in window.memory_model.memories()]
    dialog.close()


def test_memories_used_popup_closed_before_a_delete_finishes(
    qtbot: Any, make_window: Any, seed: Any, profile: Any
) -> None:
    # the popup deletes itself on close; the worker's answer must not reach its widgets
    memory = seed("My daughter is called Ana", slot="user.child")
    window = make_window()
    send(qtbot, window, "What is my daughter called? Ana?")
    qtbot.mouseClick(window.chat.bubbles[-1].memories_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: (
            isinstance(window.chat.dialog, MemoriesUsedDialog) and window.chat.dialog.isVisible()
        )
    )
    dialog = window.chat.dialog
    qtbot.mouseClick(dialog.findChild(QPushButton, f"delete-{memory.id}"), Qt.MouseButton.LeftButton)
    dialog.close()  # before the event loop can deliver the result
    qtbot.waitUntil(lambda: not window.core.runner.busy, timeout=10000)
    assert profile.store.get_many([memory.id]) == {}


def test_stop_keeps_partial_reply(qtbot: Any, window: Any, fake_ollama: FakeOllama) -> None:
    import threading

    gate = threading.Event()
    fake_ollama.script(ScriptedReply("a" * 4000, chunk_size=2, gate=gate))
    with qtbot.waitSignal(window.chat.reply_finished, timeout=20000) as blocker:
        window.chat.send("tell me a long story")
        assert window.chat.stop_button.isEnabled()
        window.chat.stop()
        gate.set()
    result = blocker.args[0]
    assert result.error is None or result.partial
    assert not window.chat.stop_button.isEnabled()


def test_extraction_notice_and_undo(qtbot: Any, window: Any, profile: Any) -> None:
    result = send(qtbot, window, "Remember that my favourite colour is green.")
    added = [c for c in result.changes if c.action.value == "add"]
    assert added, result.changes
    notice = window.chat.notice
    assert notice.isVisible() and "green" in notice.text.text()
    qtbot.mouseClick(notice.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: all(profile.memories.get_many([c.memory_id]) == [] for c in added), timeout=10000
    )
    qtbot.waitUntil(lambda: not notice.isVisible() or not notice.changes, timeout=10000)


def test_sessions_new_and_reopen(qtbot: Any, window: Any) -> None:
    send(qtbot, window, "first chat")
    first = window.chat.session_id
    qtbot.mouseClick(window.chat.sidebar.new_button, Qt.MouseButton.LeftButton)
    assert window.chat.session_id is None and window.chat.bubbles == []
    send(qtbot, window, "second chat")
    qtbot.waitUntil(
        lambda: window.chat.session_id != first and window.session_model.rowCount() == 2
    )
    with qtbot.waitSignal(window.chat.transcript_loaded, timeout=10000):
        window.chat.open_session(first)
    assert [b.text for b in window.chat.bubbles] == ["first chat", "OK: first chat"]

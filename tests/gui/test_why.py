"""The "why" view under a reply: the routes and score of each memory, and the link to the
message it came from, which opens that chat at that message."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt

from tests.gui.test_chat import send
from ui.chat.memories_used import MemoriesUsedDialog


def open_why(qtbot: Any, window: Any, bubble: Any) -> MemoriesUsedDialog:
    window.chat.dialog = None
    qtbot.mouseClick(bubble.memories_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: isinstance(window.chat.dialog, MemoriesUsedDialog) and window.chat.dialog.isVisible()
    )
    dialog: MemoriesUsedDialog = window.chat.dialog
    return dialog


def test_the_why_view_shows_routes_and_score_and_says_when_there_is_no_source(
    qtbot: Any, make_window: Any, seed: Any
) -> None:
    memory = seed("My cat Momo loves tuna", entities=["Momo"])
    window = make_window()
    send(qtbot, window, "What should I buy for Momo?")
    dialog = open_why(qtbot, window, window.chat.bubbles[-1])
    assert list(dialog.rows) == [memory.id]
    why = dialog.why_labels[memory.id].text()
    assert "Found by meaning (similarity" in why and "Found by the name “Momo”" in why
    assert "Relevance " in why and "threshold 0.42" in why
    origin = dialog.origin_labels[memory.id].text()
    assert "Added by hand" in origin and "href" not in origin  # no dead link
    dialog.close()


def test_the_source_link_opens_the_other_chat_at_that_message(qtbot: Any, window: Any) -> None:
    window.resize(640, 420)
    send(qtbot, window, "My cat Momo loves tuna.")
    first = window.chat.session_id
    source_id = window.chat.bubbles[0].message_id
    for n in range(4):  # the source message is pushed above the first screen
        send(qtbot, window, f"Let me tell you about my day, part {n}: " + "it rained. " * 40)
    qtbot.mouseClick(window.chat.sidebar.new_button, Qt.MouseButton.LeftButton)
    send(qtbot, window, "What should I buy for Momo?")
    second = window.chat.session_id
    assert second != first
    dialog = open_why(qtbot, window, window.chat.bubbles[-1])
    linked = [i for i, label in dialog.origin_labels.items() if "href" in label.text()]
    assert linked, [label.text() for label in dialog.origin_labels.values()]
    label = dialog.origin_labels[linked[0]]
    assert "From your message in" in label.text()
    with qtbot.waitSignal(window.chat.transcript.revealed, timeout=10000) as revealed:
        label.linkActivated.emit("open")
    bubble = revealed.args[0]
    assert window.chat.session_id == first and bubble.message_id == source_id
    assert window.chat.sidebar.current_id() == first
    assert bubble.property("highlighted") is True and window.chat.transcript.highlighted is bubble
    transcript = window.chat.transcript

    def on_screen() -> bool:
        top = bubble.mapTo(transcript.viewport(), QPoint(0, 0)).y()
        return 0 <= top < transcript.viewport().height()

    qtbot.waitUntil(on_screen, timeout=5000)
    assert transcript.verticalScrollBar().value() < transcript.verticalScrollBar().maximum()


def test_a_deleted_source_chat_is_said_not_linked(qtbot: Any, window: Any) -> None:
    send(qtbot, window, "My cat Momo loves tuna.")
    first = window.chat.session_id
    qtbot.mouseClick(window.chat.sidebar.new_button, Qt.MouseButton.LeftButton)
    send(qtbot, window, "What should I buy for Momo?")
    window.core.engine.delete_session(first)
    dialog = open_why(qtbot, window, window.chat.bubbles[-1])
    texts = [label.text() for label in dialog.origin_labels.values()]
    assert any("The chat it came from was deleted." in t for t in texts), texts
    assert not any("href" in t for t in texts)
    dialog.close()

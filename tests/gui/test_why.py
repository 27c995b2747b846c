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


def on_screen(transcript: Any, bubble: Any) -> bool:
    top = bubble.mapTo(transcript.viewport(), QPoint(0, 0)).y()
    return 0 <= top < transcript.viewport().height()


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
    for n in range(8):  # the source message is pushed above the first screen (whatever the font)
        send(qtbot, window, f"Let me tell you about my day, part {n}: " + "it rained. " * 80)
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
    qtbot.waitUntil(lambda: on_screen(transcript, bubble), timeout=5000)
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


def test_the_link_reaches_a_message_older_than_the_first_page(
    qtbot: Any, make_window: Any, profile: Any, seed: Any
) -> None:
    """A long chat opens at its newest messages; the source is built back to, then shown."""
    from assistant.chat.history import ConversationStore
    from ui.chat.transcript import FIRST_PAGE

    store = ConversationStore(profile.db, profile.name)
    old = store.create_session("old-chat", "A long chat", False, 1000.0)
    said = [store.add_message(old.id, role, f"{role} line {n}", 1000.0 + n)
            for n in range(FIRST_PAGE + 20) for role in ("user", "assistant")]
    source = said[0]
    memory = seed("My cat Momo loves tuna", entities=["Momo"], session_id=old.id, source_message_id=source.id)
    window = make_window()
    send(qtbot, window, "What should I buy for Momo?")
    dialog = open_why(qtbot, window, window.chat.bubbles[-1])
    label = dialog.origin_labels[memory.id]
    assert "“A long chat”" in label.text() and "href" in label.text()
    with qtbot.waitSignal(window.chat.transcript.revealed, timeout=20000) as revealed:
        label.linkActivated.emit("open")
    bubble = revealed.args[0]
    transcript = window.chat.transcript
    assert window.chat.session_id == old.id and bubble.message_id == source.id
    assert transcript.bubbles[0] is bubble  # built back to the first message
    qtbot.waitUntil(lambda: on_screen(transcript, bubble), timeout=5000)


def test_while_a_reply_streams_the_link_says_to_wait(qtbot: Any, window: Any, fake_ollama: Any) -> None:
    import threading

    from tests.fakes.fake_ollama import ScriptedReply

    send(qtbot, window, "My cat Momo loves tuna.")
    first, source_id = window.chat.session_id, window.chat.bubbles[0].message_id
    qtbot.mouseClick(window.chat.sidebar.new_button, Qt.MouseButton.LeftButton)
    gate = threading.Event()
    fake_ollama.script(ScriptedReply("a long answer " * 50, chunk_size=4, gate=gate))
    with qtbot.waitSignal(window.chat.reply_finished, timeout=20000):
        window.chat.send("What should I buy for Momo?")
        assert window.chat.busy
        window.chat.open_message(first, source_id)
        assert window.chat.session_id != first  # the streaming chat stays on screen
        assert window.chat.info.isVisible() and "reply is on its way" in window.chat.info.text()
        gate.set()

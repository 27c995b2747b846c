"""The first hour's chat defects: Retry sends once, a failed turn survives a restart as a
failed turn (not "…"), the status bar follows the last reply, Send needs text, a long paste
is sent whole or refused whole, lines stay lines, and a new chat starts clean."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from tests.fakes.fake_ollama import FakeOllama
from tests.gui.test_chat import send


def turn_requests(server: FakeOllama) -> list[dict[str, Any]]:
    return [r for r in server.chat_requests if not r.get("format")]


def user_texts(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


def test_retry_after_ollama_comes_back_sends_the_message_once(
    qtbot: Any, window: Any, fake_ollama: FakeOllama
) -> None:
    port = fake_ollama.port
    fake_ollama.stop()
    failed = send(qtbot, window, "plan my weekend")
    assert failed.error is not None and failed.error.code == "ollama_down"
    qtbot.waitUntil(lambda: "not running" in window.status.ollama.text(), timeout=10000)
    fake_ollama.start(port)

    with qtbot.waitSignal(window.chat.reply_finished, timeout=20000) as blocker:
        qtbot.mouseClick(window.chat.error_banner.retry_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0].error is None
    assert [b.text for b in window.chat.bubbles] == ["plan my weekend", "OK: plan my weekend"]
    (request,) = turn_requests(fake_ollama)  # the first try never reached the server
    assert user_texts(request) == ["plan my weekend"]
    stored = window.core.engine.messages(window.chat.session_id)
    assert [(m.role, m.status) for m in stored] == [("user", "complete"), ("assistant", "complete")]
    # a reply came: the status bar says so (it said "not running")
    qtbot.waitUntil(lambda: "connected" in window.status.ollama.text(), timeout=10000)
    assert not window.chat.error_banner.isVisible()


def test_a_failed_turn_after_a_restart_is_shown_as_failed_and_can_be_retried(
    qtbot: Any, make_window: Any, fake_ollama: FakeOllama
) -> None:
    port = fake_ollama.port
    fake_ollama.stop()
    window = make_window()
    send(qtbot, window, "are you there?")
    session_id = window.chat.session_id
    window.close()  # quit and start again, Ollama still down
    fake_ollama.start(port)
    again = make_window()
    with qtbot.waitSignal(again.chat.transcript_loaded, timeout=10000):
        again.chat.open_session(session_id)
    user, reply = again.chat.bubbles
    assert user.text == "are you there?"
    assert reply.failed and reply.body.isHidden() and "No reply" in reply.note.text()
    assert "…" not in reply.body.toPlainText() or reply.body.isHidden()
    banner = again.chat.error_banner
    qtbot.waitUntil(banner.isVisible)
    assert banner.retry_button.isVisible()
    with qtbot.waitSignal(again.chat.reply_finished, timeout=20000):
        qtbot.mouseClick(banner.retry_button, Qt.MouseButton.LeftButton)
    assert [b.text for b in again.chat.bubbles] == ["are you there?", "OK: are you there?"]
    stored = again.core.engine.messages(session_id)
    assert [m.content for m in stored] == ["are you there?", "OK: are you there?"]
    assert user_texts(turn_requests(fake_ollama)[-1]) == ["are you there?"]


def test_send_needs_text(qtbot: Any, window: Any) -> None:
    button = window.chat.send_button
    assert not button.isEnabled()
    window.chat.input.setPlainText("   \n  ")
    assert not button.isEnabled()
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)  # Enter on blanks sends nothing
    assert window.chat.bubbles == []
    window.chat.input.setPlainText("hello")
    assert button.isEnabled()


def test_a_pasted_100k_message_is_refused_whole_or_sent_whole(
    qtbot: Any, window: Any, fake_ollama: FakeOllama
) -> None:
    pasted = "All work and no play makes Jack a dull boy. " * 2300
    assert len(pasted) > 100_000
    window.chat.input.setPlainText(pasted)
    qtbot.mouseClick(window.chat.send_button, Qt.MouseButton.LeftButton)
    banner = window.chat.error_banner
    assert banner.isVisible() and "too long" in banner.message.text()
    assert "8,192" in banner.message.text() and not banner.retry_button.isVisible()
    assert window.chat.input.toPlainText() == pasted  # nothing lost
    assert window.chat.bubbles == [] and turn_requests(fake_ollama) == []

    window.core.settings.num_ctx = 65536  # a model with a large context: it goes whole
    result = send(qtbot, window, pasted, timeout=60000)
    assert result.error is None
    assert user_texts(turn_requests(fake_ollama)[-1]) == [pasted.strip()]
    assert window.chat.bubbles[0].text == pasted.strip()
    assert "left out" not in window.chat.info.text()


def test_a_multi_line_message_keeps_its_lines(qtbot: Any, window: Any) -> None:
    send(qtbot, window, "shopping list:\neggs\n*milk*")
    body = window.chat.bubbles[0].body
    assert body.toPlainText() == "shopping list:\neggs\n*milk*"  # as typed, not Markdown
    assert body.document().blockCount() == 3
    session_id = window.chat.session_id
    window.chat.new_session()
    with qtbot.waitSignal(window.chat.transcript_loaded, timeout=10000):
        window.chat.open_session(session_id)
    assert window.chat.bubbles[0].body.document().blockCount() == 3


def test_a_new_chat_starts_clean_and_empty_chats_do_not_pile_up(qtbot: Any, window: Any) -> None:
    send(qtbot, window, "Remember that my favourite colour is green.")
    assert window.chat.notice.isVisible()
    first = window.chat.session_id
    for _ in range(3):
        qtbot.mouseClick(window.chat.sidebar.new_button, Qt.MouseButton.LeftButton)
    assert not window.chat.notice.isVisible()  # the last chat's notice stayed with it
    assert window.chat.bubbles == [] and window.chat.session_id is None
    assert [s.id for s in window.core.engine.sessions()] == [first]
    qtbot.waitUntil(lambda: window.session_model.rowCount() == 1)
    send(qtbot, window, "A second chat")
    assert len(window.core.engine.sessions()) == 2
    with qtbot.waitSignal(window.chat.transcript_loaded, timeout=10000):
        window.chat.open_session(first)
    assert not window.chat.notice.isVisible()


def test_vault_references_are_worded_for_people(qtbot: Any, window: Any, profile: Any) -> None:
    send(qtbot, window, "My bank card number is 6222021234564521")
    (item,) = profile.vault.items()
    assert item.kind == "bank_card"
    stored = [m.content for m in profile.store.list()]
    assert any("[vault #" in text for text in stored)  # the store keeps its references
    panel, model = window.memories, window.memory_model
    qtbot.waitUntil(lambda: model.rowCount() > 0, timeout=10000)
    shown = [model.data(model.index(row, 0)) for row in range(model.rowCount())]
    assert all("[vault #" not in text for text in shown)
    assert any("••••4521 (bank card, in the vault)" in text for text in shown)
    assert "[vault #" not in window.chat.notice.text.text()
    session_id = window.chat.session_id
    window.chat.new_session()
    with qtbot.waitSignal(window.chat.transcript_loaded, timeout=10000):
        window.chat.open_session(session_id)
    user = window.chat.bubbles[0].body.toPlainText()
    assert "[vault #" not in user and "••••4521" in user
    panel.show_vault()
    qtbot.waitUntil(lambda: panel.dialog is not None and panel.dialog.isVisible(), timeout=10000)
    assert panel.dialog.table.item(0, 0).text() == "bank card"
    panel.dialog.close()

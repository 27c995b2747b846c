"""Engine failures show a clear in-window message; the user's message is never lost."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from assistant.config import Settings
from tests.fakes.fake_ollama import FakeOllama, ScriptedReply
from tests.gui.conftest import gui_settings
from tests.gui.test_chat import send


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class TestServerDown:
    @pytest.fixture
    def settings(self) -> Settings:
        return gui_settings(f"http://127.0.0.1:{_closed_port()}", connect_timeout_s=1.0)

    def test_ollama_down(self, qtbot: Any, window: Any) -> None:
        result = send(qtbot, window, "are you there?")
        assert result.error is not None and result.error.code == "ollama_down"
        banner = window.chat.error_banner
        assert banner.isVisible()
        assert "Ollama is not running" in banner.message.text()
        assert "ollama serve" in banner.hint.text()
        assert [b.text for b in window.chat.bubbles] == ["are you there?"]
        stored = window.core.engine.messages(window.chat.session_id)
        assert stored[0].content == "are you there?"
        qtbot.waitUntil(lambda: "not running" in window.status.ollama.text(), timeout=10000)


class TestModelMissing:
    @pytest.fixture
    def settings(self, fake_ollama: FakeOllama) -> Settings:
        return gui_settings(fake_ollama.host, chat_model="llama3.1:8b")

    def test_model_missing_names_the_pull_command(self, qtbot: Any, window: Any) -> None:
        result = send(qtbot, window, "hi there")
        assert result.error.code == "model_missing"
        banner = window.chat.error_banner
        assert "llama3.1:8b is not installed" in banner.message.text()
        assert "ollama pull llama3.1:8b" in banner.hint.text()
        assert window.chat.bubbles[0].text == "hi there"


def test_stream_cut_keeps_partial_and_retry_works(
    qtbot: Any, window: Any, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(
        ScriptedReply("This reply will break in the middle", chunk_size=4, break_after=3)
    )
    result = send(qtbot, window, "tell me something")
    assert result.error is not None and result.error.code == "stream_cut"
    assert window.chat.error_banner.isVisible()
    assert "cut off" in window.chat.error_banner.message.text()
    assert window.chat.bubbles[-1].text.startswith("This reply")
    with qtbot.waitSignal(window.chat.reply_finished, timeout=20000) as blocker:
        window.chat.error_banner.retry_button.click()
    assert blocker.args[0].error is None
    assert not window.chat.error_banner.isVisible()


def test_error_message_in_chinese(qtbot: Any, window: Any, fake_ollama: FakeOllama) -> None:
    from ui.i18n import set_language

    fake_ollama.models = []
    set_language("zh")
    try:
        send(qtbot, window, "你好")
        assert "ollama pull" in window.chat.error_banner.hint.text()
        assert "未安装" in window.chat.error_banner.message.text()
        assert window.chat.send_button.text() == "发送"
    finally:
        set_language("en")

"""The first run, against the fake Ollama server: a new profile opens the welcome; its Ollama
page walks each state (not installed, not running, running without the model, a pull with
progress and Cancel, ready); the embedding and vault pages; Skip, and Help → Welcome."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from assistant.config import DEFAULT_EMBEDDING_MODEL, Settings, load_settings
from assistant.memory.embedder import BUNDLED_MODEL
from tests.fakes.fake_ollama import FakeOllama
from tests.gui.conftest import gui_settings
from tests.gui.test_chat import send
from ui.welcome.wizard import PAGES, WelcomeWizard


@pytest.fixture
def settings(fake_ollama: FakeOllama) -> Settings:
    return gui_settings(fake_ollama.host, welcome_done=False)  # a new profile


class Installed:
    """Where the (pretend) Ollama program is: None until the test "installs" it."""

    def __init__(self) -> None:
        self.path: Path | None = None

    def __call__(self) -> Path | None:
        return self.path


def welcome(qtbot: Any, window: Any, page: str | None = None) -> WelcomeWizard:
    """The welcome the window shows (opened at `page` from Help / the status bar)."""
    if page is not None:
        window.open_welcome(page)
    qtbot.waitUntil(lambda: window.welcome is not None and window.welcome.isVisible())
    wizard = window.welcome
    assert isinstance(wizard, WelcomeWizard)
    return wizard


def ollama_page(qtbot: Any, window: Any, installed: Installed) -> Any:
    """Skip the welcome the new profile opened; open it again at its Ollama page."""
    first = welcome(qtbot, window)
    first.reject()
    window.welcome_options = {"find": installed}
    wizard = welcome(qtbot, window, "ollama")
    assert wizard.page_name() == "ollama"
    page = wizard.ollama
    qtbot.waitUntil(lambda: page.probe is not None, timeout=10000)
    return page


def checked(qtbot: Any, page: Any) -> Any:
    with qtbot.waitSignal(page.checked, timeout=10000) as blocker:
        qtbot.mouseClick(page.check_button, Qt.MouseButton.LeftButton)
    return blocker.args[0]


def test_a_new_profile_opens_the_welcome_once_and_help_opens_it_again(
    qtbot: Any, make_window: Any, profile: Any
) -> None:
    window = make_window()
    wizard = welcome(qtbot, window)
    assert (
        wizard.page_name() == "language"
        and wizard.buttonText(wizard.WizardButton.CancelButton) == "Skip"
    )
    wizard.reject()  # Skip
    qtbot.waitUntil(lambda: window.welcome is None)
    assert window.core.settings.welcome_done
    qtbot.waitUntil(lambda: not window.core.runner.busy, timeout=10000)
    assert load_settings().welcome_done  # kept for the next start
    window.close()
    again = make_window()  # the next start: no welcome
    qtbot.waitUntil(lambda: not again.core.runner.busy, timeout=10000)
    assert again.welcome is None
    again.menus.welcome.trigger()  # Help → Welcome
    assert welcome(qtbot, again).page_name() == "language"
    again.welcome.reject()


def test_a_profile_with_memories_is_not_new(qtbot: Any, make_window: Any, seed: Any) -> None:
    seed("I live in Berlin")
    window = make_window()
    qtbot.waitUntil(lambda: window.core.settings.welcome_done, timeout=10000)
    assert window.welcome is None


def test_ollama_not_installed_then_not_running_then_without_the_model_then_ready(
    qtbot: Any, make_window: Any, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    port = fake_ollama.port
    fake_ollama.stop()
    fake_ollama.models = ["phi3:mini", "nomic-embed-text:latest"]
    installed = Installed()
    window = make_window()
    page = ollama_page(qtbot, window, installed)

    # 1. absent: what to install, for this OS
    assert page.probe.state.value == "not_installed"
    assert "not installed" in page.state.text()
    assert page.command.isVisible() and "ollama.com/install.sh" in page.command.field.text()
    assert "ollama.com/download" in page.explain.text()

    # 2. installed, not running: how to start it, and Check again
    installed.path = tmp_path / "ollama"
    assert checked(qtbot, page).state.value == "not_running"
    assert "not running" in page.state.text() and page.command.field.text() == "ollama serve"

    # 3. running, without the configured model: pick one of the installed chat models
    fake_ollama.start(port)
    found = checked(qtbot, page)
    assert found.state.value == "no_model" and found.installed == ["phi3:mini"]
    assert "qwen2.5:7b is not installed" in page.state.text()
    assert page.installed_box.isVisible() and page.pull_box.isVisible()
    qtbot.waitUntil(lambda: "not installed" in window.status.ollama.text(), timeout=10000)
    assert "not running" not in window.status.ollama.text()  # truthful: it runs
    with qtbot.waitSignal(page.checked, timeout=10000) as blocker:
        qtbot.mouseClick(page.use_button, Qt.MouseButton.LeftButton)

    # 4. ready
    assert blocker.args[0].state.value == "ready"
    assert window.core.settings.chat_model == "phi3:mini"
    assert "running with phi3:mini" in page.state.text()
    qtbot.waitUntil(lambda: "connected" in window.status.ollama.text(), timeout=10000)
    window.welcome.reject()
    result = send(qtbot, window, "hello")
    assert result.error is None and fake_ollama.last_chat["model"] == "phi3:mini"


def test_a_pull_shows_progress_cancels_and_then_completes(
    qtbot: Any, make_window: Any, fake_ollama: FakeOllama
) -> None:
    fake_ollama.models = ["phi3:mini"]
    fake_ollama.pull_gate = threading.Event()
    window = make_window()
    page = ollama_page(qtbot, window, Installed())
    assert page.probe.state.value == "no_model"
    page.recommended.setCurrentIndex(page.recommended.findData("qwen2.5:7b"))
    qtbot.mouseClick(page.pull_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.progress.value() > 0, timeout=10000)  # bytes are coming
    assert page.progress.isVisible() and "GB" in page.pull_status.text()
    assert not page.pull_button.isEnabled()
    with qtbot.waitSignal(page.pull_ended, timeout=10000) as ended:
        qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["cancelled"] and "cancelled" in page.pull_status.text()
    fake_ollama.pull_gate.set()
    assert fake_ollama.pull_finished.wait(10) and fake_ollama.pull_outcomes == ["cancelled"]
    assert "qwen2.5:7b" not in fake_ollama.models and page.pull_button.isEnabled()

    fake_ollama.pull_gate = None
    fake_ollama.pull_finished.clear()
    with qtbot.waitSignal(page.checked, timeout=20000) as blocker:
        qtbot.mouseClick(page.pull_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0].state.value == "ready"
    assert fake_ollama.pull_outcomes == ["cancelled", "success"]
    assert "qwen2.5:7b" in fake_ollama.models and window.core.settings.chat_model == "qwen2.5:7b"
    qtbot.waitUntil(lambda: "connected" in window.status.ollama.text(), timeout=10000)
    window.welcome.reject()


def test_a_missing_model_in_the_status_bar_opens_the_fix(
    qtbot: Any, make_window: Any, fake_ollama: FakeOllama
) -> None:
    fake_ollama.models = ["phi3:mini"]
    window = make_window()
    welcome(qtbot, window).reject()
    qtbot.waitUntil(
        lambda: "qwen2.5:7b not installed" in window.status.ollama.text(), timeout=10000
    )
    assert window.status.models.currentText() == "qwen2.5:7b (not installed)"
    qtbot.mouseClick(window.status.ollama, Qt.MouseButton.LeftButton)
    assert welcome(qtbot, window).page_name() == "ollama"
    window.welcome.reject()
    result = send(qtbot, window, "hi")  # the banner offers the same fix
    assert result.error.code == "model_missing"
    banner = window.chat.error_banner
    assert banner.fix_button.isVisible() and "`" not in banner.hint.text()
    qtbot.mouseClick(banner.fix_button, Qt.MouseButton.LeftButton)
    assert welcome(qtbot, window).page_name() == "ollama"
    window.welcome.reject()


def test_language_applies_at_once(qtbot: Any, make_window: Any) -> None:
    from ui.i18n import set_language

    window = make_window()
    wizard = welcome(qtbot, window)
    try:
        wizard.language.buttons["zh"].click()
        assert wizard.buttonText(wizard.WizardButton.NextButton) == "下一步"
        assert window.chat.send_button.text() == "发送"
        assert window.core.settings.language == "zh"
    finally:
        wizard.reject()
        set_language("en")


class TestEmbedding:
    @pytest.fixture
    def settings(self, fake_ollama: FakeOllama) -> Settings:
        # BGE asked for; the bundled one serves
        return gui_settings(
            fake_ollama.host, embedding_model=DEFAULT_EMBEDDING_MODEL, welcome_done=False
        )

    def test_download_shows_progress_and_keep_uses_the_small_model(
        self, qtbot: Any, make_window: Any
    ) -> None:
        lines: list[str] = []

        def downloader(name: str, report: Any) -> None:  # the hub's progress lines
            lines.append(name)
            for percent in (10, 55, 100):
                report(f"model.safetensors: {percent}% ({percent * 0.95:.1f} of 95.8 MB)")

        window = make_window()
        welcome(qtbot, window).reject()
        window.welcome_options = {"downloader": downloader}
        wizard = welcome(qtbot, window, "embedding")
        page = wizard.embedding
        assert "not on this computer" in page.state.text()
        assert "95 MB" in page.download_button.text() and page.keep_button.isVisible()
        assert "Chinese" in page.explain.text()
        with qtbot.waitSignal(page.download_ended, timeout=10000) as ended:
            qtbot.mouseClick(page.download_button, Qt.MouseButton.LeftButton)
        assert ended.args == [True] and lines == [DEFAULT_EMBEDDING_MODEL]
        assert page.progress.value() == 100
        window.welcome.reject()
        qtbot.waitUntil(lambda: not window.core.runner.busy, timeout=60000)

        wizard = welcome(qtbot, window, "embedding")
        qtbot.mouseClick(wizard.embedding.keep_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: window.core.settings.embedding_model == BUNDLED_MODEL)
        qtbot.waitUntil(
            lambda: window.status.embedding.text() == "Embeddings: ready", timeout=60000
        )
        window.welcome.reject()


def test_the_vault_page_sets_a_passphrase(qtbot: Any, make_window: Any, profile: Any) -> None:
    window = make_window()
    welcome(qtbot, window).reject()
    wizard = welcome(qtbot, window, "vault")
    page = wizard.vault
    qtbot.waitUntil(lambda: page.method == "keyfile", timeout=10000)  # no keyring on this box
    assert "anyone who can read your files" in page.explain.text() and page.choice.isVisible()
    qtbot.waitUntil(window.status.vault.isVisible, timeout=10000)
    page.passphrase.setText("short")
    page.again.setText("short")
    page.protect()
    assert "at least 8" in page.problem.text()
    page.passphrase.setText("correct horse battery")
    page.again.setText("correct horse battery!")
    page.protect()
    assert "differ" in page.problem.text()
    page.again.setText("correct horse battery")
    with qtbot.waitSignal(page.changed, timeout=10000):
        page.protect()
    assert profile.keys.method == "passphrase" and not profile.keys.key_file.exists()
    assert "protected with your passphrase" in page.state.text()
    qtbot.waitUntil(lambda: not window.status.vault.isVisible(), timeout=10000)
    wizard.next()
    assert wizard.page_name() == "privacy"
    assert str(profile.dir) in wizard.privacy.body.text()
    assert "Forget me" in wizard.privacy.body.text()
    wizard.accept()  # Start chatting
    qtbot.waitUntil(lambda: window.welcome is None)


def test_a_vault_under_a_passphrase_asks_for_it_at_start(
    qtbot: Any, data_dir: Path, settings: Settings, embedder: Any, clock: Any
) -> None:
    from assistant.app import Profile
    from tests.gui.conftest import no_retry_backend
    from ui.app import build

    first = Profile(
        data_dir, "default", settings, embedder=embedder, clock=clock, passphrase="correct horse"
    )
    first.vault.put("phone", "13812345678", "138****5678", 0.0)
    first.close()
    profile = Profile(
        data_dir, "default", settings, embedder=embedder, clock=clock, warn=lambda _t: None
    )
    try:
        settings.welcome_done = True
        core, window = build(
            open_profile=lambda: profile, make_backend=no_retry_backend, scheduler=False
        )
        qtbot.addWidget(window)
        window.show()
        core.start()
        qtbot.waitUntil(
            lambda: window.unlock is not None and window.unlock.isVisible(), timeout=10000
        )
        dialog = window.unlock
        dialog.passphrase.setText("wrong horse")
        dialog.unlock()
        qtbot.waitUntil(dialog.problem.isVisible, timeout=10000)
        assert "passphrase does not open" in dialog.problem.text() and dialog.isVisible()
        dialog.passphrase.setText("correct horse")
        with qtbot.waitSignal(dialog.unlocked, timeout=10000):
            dialog.unlock()
        assert not profile.keys.locked
        (item,) = profile.vault.items()
        assert profile.vault.get(item.id) == "13812345678"
        window.close()
    finally:
        profile.close()


def test_every_page_is_reachable(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    welcome(qtbot, window).reject()
    for name in PAGES:
        wizard = welcome(qtbot, window, name)
        assert wizard.page_name() == name
        wizard.reject()
        qtbot.waitUntil(lambda: window.welcome is None)

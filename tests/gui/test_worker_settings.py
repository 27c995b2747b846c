"""The task runner's two modes, and the settings dialog applied to the running window."""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtWidgets import QLabel

from assistant.config import load_settings
from ui.i18n import set_language, translator
from ui.settings_dialog import SettingsDialog
from ui.worker import Runner


def test_runner_threaded_delivers_on_the_gui_thread(qtbot: Any) -> None:
    runner = Runner()
    seen: list[tuple[str, bool]] = []
    with qtbot.waitSignal(runner.idle, timeout=5000):
        runner.run_task(
            lambda: threading.current_thread().name,
            lambda name: seen.append((name, threading.current_thread() is threading.main_thread())),
        )
    assert seen and seen[0][0] != threading.main_thread().name and seen[0][1]
    errors: list[BaseException] = []
    with qtbot.waitSignal(runner.idle, timeout=5000):
        runner.run_task(lambda: 1 / 0, None, errors.append)
    assert isinstance(errors[0], ZeroDivisionError)
    runner.shutdown()


def test_runner_synchronous_switch() -> None:
    runner = Runner(synchronous=True)
    out: list[Any] = []
    runner.run_task(lambda: 41 + 1, out.append)
    runner.run_task(lambda: [][0], None, out.append)
    assert out[0] == 42 and isinstance(out[1], IndexError)
    runner.shutdown()


def test_settings_dialog_switches_language_and_saves(
    qtbot: Any, window: Any, data_dir: Any
) -> None:
    dialog = SettingsDialog(window.core.settings, ["qwen2.5:7b"], window.core.profile.dir, window)
    qtbot.addWidget(dialog)
    assert str(window.core.profile.dir) in [label.text() for label in dialog.findChildren(QLabel)]
    dialog.language.setCurrentIndex(dialog.language.findData("zh"))
    dialog.recall_k.setValue(3)
    try:
        with qtbot.waitSignal(window.core.runner.idle, timeout=10000):
            window.apply_settings(dialog.result_settings())
        assert translator.language == "zh" and window.chat.send_button.text() == "发送"
        assert window.core.profile.recaller.options.k == 3
        saved = load_settings()
        assert saved.language == "zh" and saved.recall_k == 3
    finally:
        set_language("en")


def test_maintenance_run_now_reports_in_the_status_bar(
    qtbot: Any, make_window: Any, seed: Any
) -> None:
    seed("I live in Berlin")
    window = make_window(scheduler=True)
    qtbot.waitUntil(
        lambda: window.core.scheduler is not None and window.status.run_now.isVisible(),
        timeout=10000,
    )
    with qtbot.waitSignal(window.core.bridge.maintenance_finished, timeout=60000) as blocker:
        window.status.run_now.click()
    report = blocker.args[0]
    assert report.steps
    assert (
        window.status.maintenance.text().startswith("Maintenance: ")
        and "not run" not in window.status.maintenance.text()
    )
    assert window.status.run_now.isEnabled()

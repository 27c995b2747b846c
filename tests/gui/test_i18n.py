"""Every UI string is translatable, and the language setting switches the window."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QAbstractButton, QWidget

import ui.i18n
from tests.gui.test_chat import send
from ui.i18n import ERROR_TEXTS, _table, set_language

ROOT = Path(__file__).resolve().parents[2]
UI = ROOT / "ui"


def literals() -> set[str]:
    found: set[str] = set()
    for path in UI.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "tr"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found.add(node.args[0].value)
            if (  # tr_n(singular, plural, n): Chinese reads the plural's entry
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "tr_n"
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
            ):
                found.add(node.args[1].value)
    # texts passed to tr() through a variable
    from ui.chat.error_banner import FIXES
    from ui.memory_panel.details_dialog import EVENTS
    from ui.memory_panel.model import COLUMNS, LABELS
    from ui.memory_panel.views import BUTTONS, REVIEW_HINT, TOOLTIPS, VIEWS
    from ui.menus import MENU_TEXTS
    from ui.settings_dialog import LANGUAGES, THEME_CHOICES
    from ui.welcome.ollama_page import MODEL_NOTES
    from ui.welcome.privacy_page import POINTS

    found |= {text for pair in ERROR_TEXTS.values() for text in pair}
    found |= (
        {h for _k, h, _s in COLUMNS}
        | set(LABELS.values())
        | {v for v, _c in VIEWS}
        | set(BUTTONS.values())
    )
    found |= set(EVENTS) | {text for value, text in LANGUAGES if value == "auto"}
    found |= set(FIXES.values()) | set(TOOLTIPS.values()) | {REVIEW_HINT} | set(MENU_TEXTS)
    found |= {text for _value, text in THEME_CHOICES}
    from ui.connected_apps import OUTCOMES, PERMISSIONS

    found |= {text for _value, text in PERMISSIONS} | set(OUTCOMES.values())
    found |= set(MODEL_NOTES.values()) | {text for point in POINTS for text in point}
    from assistant.memory.explain import ORIGIN_TEXTS, TEXTS, TOPICS  # the why view's templates
    from ui.chat.memories_used import OPEN_LINK

    found |= set(TEXTS.values()) | set(TOPICS.values()) | set(ORIGIN_TEXTS.values()) | {OPEN_LINK}

    from ui.import_dialog import KINDS

    found |= {label for _kind, label, _pattern in KINDS}
    return found


def test_every_string_has_a_chinese_translation() -> None:
    table = _table("zh")
    missing = sorted(text for text in literals() if text not in table)
    assert not missing, f"{len(missing)} strings lack a Chinese translation: {missing[:20]}"


class Recording(dict[str, str]):
    """The Chinese table, noting every text looked up that it lacks."""

    def __init__(self, table: dict[str, str]) -> None:
        super().__init__(table)
        self.missing: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        if key not in self:
            self.missing.add(key)
        return super().get(key, default)


@pytest.fixture
def chinese(monkeypatch: pytest.MonkeyPatch) -> Any:
    table = Recording(_table("zh"))
    monkeypatch.setattr(ui.i18n, "_table", lambda language: table if language == "zh" else {})
    set_language("zh")
    yield table
    set_language("en")


def test_every_text_shown_is_translated(
    qtbot: Any, make_window: Any, seed: Any, chinese: Any
) -> None:
    """Walk the window in Chinese (chat, memories used, notice, panel dialogs, settings): no
    text shown was missing from zh.json, including those passed to tr() through variables."""
    seed("I live in Berlin", slot="user.city")
    window = make_window()
    set_language("zh")  # the profile's settings said English when it opened
    result = send(
        qtbot,
        window,
        "Where do I live? Remember that I like green tea and my phone number is 13812345678.",
    )
    assert result.injected and result.changes and window.core.profile.vault.items()
    window.chat.show_memories_used(window.chat.bubbles[-1])
    qtbot.waitUntil(lambda: window.chat.dialog is not None)
    window.chat.dialog.close()
    panel = window.memories
    window.tabs.setCurrentWidget(panel)
    for row in range(panel.model.rowCount()):
        panel.select_row(row)
        panel.show_details()
        qtbot.waitUntil(
            lambda: panel.dialog is not None and panel.dialog.isVisible(), timeout=10000
        )
        panel.dialog.close()
        panel.dialog = None
    panel.edit_selected()
    panel.dialog.close()
    panel.show_vault()
    qtbot.waitUntil(lambda: panel.dialog is not None and panel.dialog.isVisible(), timeout=10000)
    panel.dialog.close()
    for index in range(panel.view_filter.count()):
        panel.view_filter.setCurrentIndex(index)
    window.open_settings()
    assert isinstance(window.dialog, QWidget) and window.dialog.isVisible()
    window.dialog.close()
    assert "发送" in [button.text() for button in window.findChildren(QAbstractButton)]
    assert not chinese.missing, f"shown untranslated: {sorted(chinese.missing)}"


def test_language_setting_switches_the_window(qtbot: Any, window: Any) -> None:
    try:
        set_language("zh")
        assert window.chat.send_button.text() == "发送"
        assert window.tabs.tabText(1) == "记忆"
        assert window.memories.forget_button.text() == "忘记我…"
        set_language("en")
        assert window.chat.send_button.text() == "Send"
    finally:
        set_language("en")


def test_translations_ship_in_the_wheel(tmp_path: Path) -> None:
    """Built as a wheel (not only in a checkout or an editable install), `ui` finds zh.json."""
    source = tmp_path / "src"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("assistant", "ui", "resources"):  # resources/: the menu entry (data files)
        shutil.copytree(ROOT / name, source / name, ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert "ui/translations/zh.json" in archive.namelist()
        archive.extractall(tmp_path / "installed")
    probe = (
        "import ui, ui.i18n as i18n; i18n.set_language('zh');"
        "print(ui.__file__); print(i18n.tr('Send'))"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "installed")}
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    where, send = done.stdout.split()
    assert where.startswith(str(tmp_path / "installed")) and send == "发送"

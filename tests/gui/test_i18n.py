"""Every UI string is translatable, and the language setting switches the window."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from ui.i18n import ERROR_TEXTS, _table, set_language

UI = Path(__file__).resolve().parents[2] / "ui"


def literals() -> set[str]:
    found: set[str] = set()
    for path in UI.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "tr" and node.args and isinstance(node.args[0], ast.Constant):
                found.add(node.args[0].value)
    found |= {text for pair in ERROR_TEXTS.values() for text in pair}
    from ui.memory_panel.model import COLUMNS, LABELS
    from ui.memory_panel.panel import VIEWS

    found |= {h for _k, h, _s in COLUMNS} | set(LABELS.values()) | {v for v, _c in VIEWS}
    return found


def test_every_string_has_a_chinese_translation() -> None:
    table = _table("zh")
    missing = sorted(text for text in literals() if text not in table)
    assert not missing, f"{len(missing)} strings lack a Chinese translation: {missing[:20]}"


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

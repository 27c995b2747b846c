"""Colours: the window follows the system's light or dark scheme (or the user's choice), no
text is unreadable in either, and no module but `ui.theme` names a colour."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from assistant.errors import MnemoError
from assistant.memory.store import NewMemory
from assistant.memory.types import Category, Source
from tests.gui.test_chat import send
from ui.theme import DARK, LIGHT, theme, wcag_contrast

UI = Path(__file__).resolve().parents[2] / "ui"
COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\b|\brgba?\(|QColor\(\s*['\"]|Qt\.GlobalColor\.")


@pytest.fixture
def system() -> Iterator[dict[str, Qt.ColorScheme]]:
    """What the (pretend) system asks for; the theme reads it as it would Qt's style hints."""
    wanted = {"scheme": Qt.ColorScheme.Light}
    theme.set_system_source(lambda: wanted["scheme"])
    theme.apply("system")
    yield wanted
    theme.set_system_source(None)
    theme.apply("system")


def window_colour(widget: QWidget) -> QColor:
    return widget.palette().color(QPalette.ColorRole.Window)


def on_screen(window: QWidget, widget: QWidget) -> QImage:
    """What `widget` looks like where it is in the window (its ancestors' backgrounds too)."""
    shot = window.grab().toImage()
    corner = widget.mapTo(window, QPoint(0, 0))
    return shot.copy(QRect(corner, widget.size()))


def text_contrast(image: QImage) -> float:
    """The contrast of the text against the background it is drawn on: the commonest colour
    is the background, the pixel furthest from it a glyph's core (anti-aliasing only blends
    between the two)."""
    counts: Counter[int] = Counter()
    for y in range(0, image.height(), 1):
        for x in range(0, image.width(), 1):
            counts[image.pixel(x, y)] += 1
    background = QColor.fromRgb(counts.most_common(1)[0][0])
    return max(wcag_contrast(QColor.fromRgb(rgb), background) for rgb in counts)


@pytest.mark.parametrize("scheme", [Qt.ColorScheme.Dark, Qt.ColorScheme.Light])
def test_bubbles_and_banners_are_readable(
    qtbot: Any, system: Any, make_window: Any, scheme: Qt.ColorScheme
) -> None:
    system["scheme"] = scheme
    theme.apply()
    window = make_window()
    dark = scheme == Qt.ColorScheme.Dark
    assert (window_colour(window).lightness() < 128) == dark
    window.core.profile.service.add(
        NewMemory("My favourite tea is oolong", Category.PREFERENCE, source=Source.MANUAL)
    )
    send(qtbot, window, "Remember that my favourite colour is green. Which tea do I like?")
    window.chat.error_banner.show_error(
        MnemoError("Ollama is not running.", "Start `ollama serve`.")
    )
    window.chat._show_kind(True)  # the temporary-chat banner, shown as in a temporary chat
    window.resize(1000, 700)
    qtbot.waitUntil(lambda: window.width() == 1000, timeout=5000)
    QApplication.processEvents()
    user, reply = window.chat.bubbles
    chat = window.chat
    parts = {  # each text where it is drawn (over its bubble's or banner's background)
        "user bubble": user.body,
        "reply": reply.body,
        "memory notice": chat.notice.text,
        "error message": chat.error_banner.message,
        "error hint": chat.error_banner.hint,
        "temporary banner": chat.temporary_label,
        "message box": chat.input.viewport(),
        "memories used": reply.memories_button,
    }
    window.chat.input.setPlainText("typed text")
    for name, widget in parts.items():
        assert widget.isVisible(), name
        ratio = text_contrast(on_screen(window, widget))
        assert ratio >= 4.5, (
            f"{name}: contrast {ratio:.1f} in the {'dark' if dark else 'light'} scheme"
        )


def test_the_scheme_follows_the_system_and_the_setting(
    qtbot: Any, system: Any, window: Any
) -> None:
    assert theme.colors is LIGHT and window_colour(window) == QColor(LIGHT.window)
    system["scheme"] = Qt.ColorScheme.Dark  # the user switches the desktop to dark
    QGuiApplication.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert theme.colors is DARK
    qtbot.waitUntil(lambda: window_colour(window) == QColor(DARK.window), timeout=5000)
    bubble_sheet = window.chat.transcript.widget().styleSheet()
    assert DARK.user_bubble in bubble_sheet and LIGHT.user_bubble not in bubble_sheet
    settings = window.core.settings
    window.apply_settings(type(settings)(**{**vars(settings), "theme": "light"}))
    assert theme.colors is LIGHT  # the manual choice wins over the system's
    QGuiApplication.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert theme.colors is LIGHT
    window.apply_settings(type(settings)(**{**vars(settings), "theme": "system"}))
    assert theme.colors is DARK
    qtbot.waitUntil(lambda: not window.core.runner.busy, timeout=10000)


def test_no_module_but_the_palette_names_a_colour() -> None:
    found = []
    for path in sorted(UI.rglob("*.py")):
        if path.name == "theme.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if COLOUR.search(line):
                found.append(f"{path.relative_to(UI.parent)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_every_scheme_pair_reads_well() -> None:
    """The pairs the widgets put text on, checked where they are defined as well."""
    for colors in (LIGHT, DARK):
        for fg, bg in (
            ("text", "window"),
            ("text", "surface"),
            ("text", "user_bubble"),
            ("muted", "window"),
            ("note", "window"),
            ("link", "window"),
            ("success_text", "success_bg"),
            ("error_text", "error_bg"),
            ("info_text", "info_bg"),
            ("on_danger", "danger"),
            ("on_accent", "accent"),
        ):
            ratio = wcag_contrast(QColor(getattr(colors, fg)), QColor(getattr(colors, bg)))
            assert ratio >= 4.5, f"{fg} on {bg} ({'dark' if colors.dark else 'light'}): {ratio:.2f}"


def test_the_window_has_the_app_icon(window: Any) -> None:
    icon = window.windowIcon()
    assert not icon.isNull() and not icon.pixmap(64, 64).isNull()
    assert QApplication.instance() is not None

"""The one palette module: every colour the window shows, in a light and a dark scheme.

The app follows the system's colour scheme (Qt 6 `QStyleHints.colorScheme`, live: a change
while Mnemo runs re-colours it) unless the user chose "light" or "dark" in Settings. Both
schemes use the Fusion style with a palette built here, so a dark system never leaves a light
bubble with light text; widgets that draw their own backgrounds (bubbles, banners) take their
style sheets from the functions below and re-read them on `theme.changed`. No other module
names a colour (a test checks).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

log = logging.getLogger("mnemo.ui")

THEMES = ("system", "light", "dark")
"""The `theme` setting's values."""


@dataclass(frozen=True)
class Colors:
    """One scheme. Pairs meant to be read on each other keep a WCAG contrast of 4.5 or more."""

    dark: bool
    window: str  # the window behind everything; replies are written on it
    surface: str  # inputs, lists, tables
    alt_surface: str  # every other table row
    text: str
    muted: str  # secondary text (dates, hints, empty states)
    border: str
    accent: str  # buttons that matter, selection
    on_accent: str
    link: str
    user_bubble: str  # the user's messages
    note: str  # short warnings: "Stopped.", "Embeddings: small model"
    success_bg: str  # "Memory updated"
    success_border: str
    success_text: str
    error_bg: str  # a failed turn
    error_border: str
    error_text: str
    info_bg: str  # "temporary chat"
    info_border: str
    info_text: str
    danger: str  # "Forget me…", "Erase everything"
    on_danger: str


LIGHT = Colors(
    dark=False,
    window="#f7f7f8",
    surface="#ffffff",
    alt_surface="#f3f4f6",
    text="#1f2328",
    muted="#5b616b",
    border="#d4d7dd",
    accent="#2563eb",
    on_accent="#ffffff",
    link="#1d4ed8",
    user_bubble="#e3ebfb",
    note="#9a4a05",
    success_bg="#ecfdf5",
    success_border="#a7f3d0",
    success_text="#065f46",
    error_bg="#fef2f2",
    error_border="#fecaca",
    error_text="#991b1b",
    info_bg="#f5f0ff",
    info_border="#d8c7fb",
    info_text="#4c1d95",
    danger="#b3261e",
    on_danger="#ffffff",
)

DARK = Colors(
    dark=True,
    window="#1c1d21",
    surface="#26282d",
    alt_surface="#2d3036",
    text="#e8e9eb",
    muted="#a3a8b0",
    border="#3d4047",
    accent="#2f6bd6",
    on_accent="#ffffff",
    link="#8ab4ff",
    user_bubble="#2c3a55",
    note="#f4b04a",
    success_bg="#10291f",
    success_border="#1f6b4a",
    success_text="#a7f3d0",
    error_bg="#3a1517",
    error_border="#7f1d1d",
    error_text="#fecaca",
    info_bg="#2a2040",
    info_border="#5b3c99",
    info_text="#e4d7ff",
    danger="#c0362c",
    on_danger="#ffffff",
)

CODE_BACKGROUND = QColor(128, 128, 128, 40)
"""Behind code blocks: a translucent grey reads on both schemes, so a rendered reply needs no
re-rendering when the scheme changes."""

SchemeSource = Callable[[], Qt.ColorScheme]


class Theme(QObject):
    """Which scheme is on, and the app palette for it.

    Args:
        system_scheme: what the system asks for (tests pass their own); by default Qt's
            style hints, or the platform palette's lightness where they say "unknown".
    """

    changed = Signal()

    def __init__(self, system_scheme: SchemeSource | None = None) -> None:
        super().__init__()
        self.setting = "system"
        self.colors = LIGHT
        self._system_scheme = system_scheme
        self._platform_dark: bool | None = None  # the platform palette, seen before ours
        self._watching = False

    def set_system_source(self, source: SchemeSource | None) -> None:
        self._system_scheme = source

    def system_is_dark(self) -> bool:
        if self._system_scheme is not None:
            return self._system_scheme() == Qt.ColorScheme.Dark
        scheme = QGuiApplication.styleHints().colorScheme()
        if scheme != Qt.ColorScheme.Unknown:
            return scheme == Qt.ColorScheme.Dark
        return bool(self._platform_dark)

    def apply(self, setting: str | None = None) -> None:
        """Switch to `setting` ("system", "light", "dark"; None: keep the current one)."""
        app = QApplication.instance()
        if setting is not None:
            self.setting = setting if setting in THEMES else "system"
        if not isinstance(app, QApplication):
            return
        hints = app.styleHints()
        if self._platform_dark is None:
            self._platform_dark = app.palette().color(QPalette.ColorRole.Window).lightness() < 128
        if not self._watching:
            hints.colorSchemeChanged.connect(self._system_changed)
            self._watching = True
        if self.setting == "system":
            hints.unsetColorScheme()  # what the system says, not an earlier override of ours
            dark = self.system_is_dark()
        else:
            dark = self.setting == "dark"
            # The native title bar and dialogs follow where the platform supports it.
            hints.setColorScheme(Qt.ColorScheme.Dark if dark else Qt.ColorScheme.Light)
        colors = DARK if dark else LIGHT
        if app.style().name().lower() != "fusion":
            app.setStyle("Fusion")
        app.setPalette(palette(colors))
        if colors is not self.colors:
            self.colors = colors
            log.debug("colour scheme: %s", "dark" if dark else "light")
            self.changed.emit()

    def _system_changed(self, _scheme: Qt.ColorScheme) -> None:
        if self.setting == "system":
            self.apply()


def palette(c: Colors) -> QPalette:
    """The Fusion palette of a scheme (disabled text dimmed, links and selection in the accent)."""
    p = QPalette()
    roles = QPalette.ColorRole
    for role, value in (
        (roles.Window, c.window),
        (roles.WindowText, c.text),
        (roles.Base, c.surface),
        (roles.AlternateBase, c.alt_surface),
        (roles.Text, c.text),
        (roles.PlaceholderText, c.muted),
        (roles.Button, c.surface if c.dark else c.alt_surface),
        (roles.ButtonText, c.text),
        (roles.BrightText, c.on_danger),
        (roles.ToolTipBase, c.surface),
        (roles.ToolTipText, c.text),
        (roles.Highlight, c.accent),
        (roles.HighlightedText, c.on_accent),
        (roles.Link, c.link),
        (roles.LinkVisited, c.link),
        (roles.Accent, c.accent),
        (roles.Light, c.alt_surface if c.dark else c.surface),
        (roles.Midlight, c.border),
        (roles.Mid, c.border),
        (roles.Dark, c.muted),
        (roles.Shadow, c.window if c.dark else c.muted),
    ):
        p.setColor(role, QColor(value))
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(c.muted))
    return p


# -- style sheets of the widgets that paint their own backgrounds -----------------------


def chat_style(c: Colors) -> str:
    """The transcript's sheet (set once on its content widget: one parse for every bubble)."""
    return (
        f"QFrame#userBubble {{ background:{c.user_bubble}; border-radius:14px; }}"
        "QFrame#assistantBubble { background:transparent; }"
        f"QLabel#bubbleNote {{ color:{c.note}; }}"
        f"QPushButton#memoriesUsed {{ color:{c.link}; text-align:left; padding:0; border:none; }}"
        f"QPushButton#memoriesUsed:hover {{ text-decoration:underline; }}"
        # the message a memory came from, just opened from "memories used"
        f"QFrame#userBubble[highlighted=\"true\"], QFrame#assistantBubble[highlighted=\"true\"]"
        f" {{ background:{c.info_bg}; border:2px solid {c.accent}; border-radius:14px; }}"
    )


def banner_style(name: str, kind: str, c: Colors) -> str:
    """A rounded banner (`kind`: success, error or info) named `name`, and its labels."""
    bg, border, text = {
        "success": (c.success_bg, c.success_border, c.success_text),
        "error": (c.error_bg, c.error_border, c.error_text),
        "info": (c.info_bg, c.info_border, c.info_text),
    }[kind]
    return (
        f"QFrame#{name} {{ background:{bg}; border:1px solid {border}; border-radius:8px; }}"
        f"QFrame#{name} QLabel {{ color:{text}; background:transparent; }}"
    )


def danger_button_style(name: str, c: Colors) -> str:
    return (
        f"QPushButton#{name} {{ background:{c.danger}; color:{c.on_danger}; font-weight:bold;"
        " padding:4px 12px; border-radius:4px; }"
        f"QPushButton#{name}:disabled {{ background:{c.border}; color:{c.muted}; }}"
    )


def muted_style(c: Colors, *, size_px: int | None = None) -> str:
    return f"color:{c.muted};" + (f" font-size:{size_px}px;" if size_px else "")


def note_style(c: Colors) -> str:
    return f"color:{c.note};"


def wcag_contrast(first: QColor, second: QColor) -> float:
    """The WCAG 2 contrast ratio of two colours (1 to 21; body text wants 4.5 or more)."""

    def luminance(color: QColor) -> float:
        def channel(value: float) -> float:
            return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

        return (
            0.2126 * channel(color.redF())
            + 0.7152 * channel(color.greenF())
            + 0.0722 * channel(color.blueF())
        )

    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


theme = Theme()

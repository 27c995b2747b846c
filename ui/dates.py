"""Dates as people read them, in the window's language: "Today 14:05", "Mar 2, 14:05",
"2025年3月2日 14:05" — never a cut "2026-12-01 …" or a C-locale "1 12 2026 07:49".

The locale is the system's when it speaks the window's language (so an en_GB system keeps
its day-month order and 24-hour clock), else a default one for that language.
"""

from __future__ import annotations

import time
from datetime import datetime

from PySide6.QtCore import QDateTime, QLocale

from ui.i18n import tr, translator


def ui_locale() -> QLocale:
    """The QLocale dates are written in: the system's if it is in the window's language."""
    system = QLocale.system()
    if translator.language == "zh":
        if system.language() == QLocale.Language.Chinese:
            return system
        return QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    if system.language() == QLocale.Language.English:
        return system
    return QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)


def _day_format(locale: QLocale, *, year: bool) -> str:
    if locale.language() == QLocale.Language.Chinese:
        return "yyyy年M月d日" if year else "M月d日"
    if locale.territory() in (QLocale.Country.UnitedStates, QLocale.Country.Philippines):
        return "MMM d, yyyy" if year else "MMM d"
    return "d MMM yyyy" if year else "d MMM"


def _time_format(locale: QLocale) -> str:
    return locale.timeFormat(QLocale.FormatType.ShortFormat)


def short_datetime(ts: float | None, now: float | None = None) -> str:
    """A table cell: "Today 14:05", "Yesterday 09:30", "Mar 2, 14:05", "Mar 2, 2025"."""
    if not ts:
        return "—"
    locale = ui_locale()
    moment = QDateTime.fromSecsSinceEpoch(int(ts))
    day = datetime.fromtimestamp(ts).date()
    today = datetime.fromtimestamp(now if now is not None else time.time()).date()
    clock = locale.toString(moment, _time_format(locale))
    if day == today:
        return tr("Today {time}", time=clock)
    if (today - day).days == 1:
        return tr("Yesterday {time}", time=clock)
    if day.year == today.year:
        joint = " " if locale.language() == QLocale.Language.Chinese else ", "
        return f"{locale.toString(moment, _day_format(locale, year=False))}{joint}{clock}"
    return locale.toString(moment, _day_format(locale, year=True))


def long_datetime(ts: float | None) -> str:
    """A date in full, with the year and the time: "Dec 1, 2026 7:49 AM", "2026年12月1日 07:49"."""
    if not ts:
        return "—"
    locale = ui_locale()
    moment = QDateTime.fromSecsSinceEpoch(int(ts))
    return locale.toString(moment, f"{_day_format(locale, year=True)} {_time_format(locale)}")


def edit_format() -> str:
    """The display format of a QDateTimeEdit, in the same style as `long_datetime`."""
    locale = ui_locale()
    return f"{_day_format(locale, year=True)} {_time_format(locale)}"


def day_heading(ts: float, now: float | None = None) -> str:
    """A day of the memory timeline: "Today", "Yesterday", "Saturday, Nov 28, 2026"."""
    locale = ui_locale()
    day = datetime.fromtimestamp(ts).date()
    today = datetime.fromtimestamp(now if now is not None else time.time()).date()
    if day == today:
        return tr("Today")
    if (today - day).days == 1:
        return tr("Yesterday")
    moment = QDateTime.fromSecsSinceEpoch(int(ts))
    if locale.language() == QLocale.Language.Chinese:
        return locale.toString(moment, f"{_day_format(locale, year=True)} dddd")
    return locale.toString(moment, f"dddd, {_day_format(locale, year=True)}")

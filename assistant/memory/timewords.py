"""Relative time words (Chinese and English) resolved against an injected `now`.

`future_date` reads the day a plan refers to ("下周三", "next Wednesday", "3月5号");
`past_range` reads the window a question about the past refers to ("上周", "last time").
Both return aware datetimes in `now`'s timezone: (start of the first day, end of the last day).
"""

from __future__ import annotations

import re
from calendar import monthrange
from collections.abc import Callable
from datetime import date, datetime, time, timedelta

Range = tuple[datetime, datetime]

_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2,
    "a few": 3, "few": 3, "several": 3,
}  # fmt: skip
_ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5}
_EN_WEEKDAYS = {
    "mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6,
}  # fmt: skip
_EN_MONTHS = {m: i for i, m in enumerate(
    "jan feb mar apr may jun jul aug sep oct nov dec".split(), start=1)}

_ZH_NUM = r"[0-9０-９零〇一二两三四五六七八九十]{1,3}"
_EN_NUM = r"(?:\d{1,2}|a couple of|couple of|a few|few|several|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|an?)"
_EN_WD = r"(mon|tue|wed|thu|fri|sat|sun)(?:day|s|sday|nesday|rs|rsday|urday)?"
_EN_FULL_WD = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_EN_MON = (
    r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
    r"(?:uary|ruary|ch|il|e|y|ust|t|tember|ober|ember|\.)?"
)


def zh_number(text: str) -> int | None:
    """Parse a small Chinese or Arabic number ("十二", "两", "25"); None if it is not one."""
    text = text.translate(str.maketrans("０１２３４５６７８９", "0123456789"))
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _ZH_DIGITS and ch != "十" for ch in text):
        return None
    if "十" in text:
        tens, _, ones = text.partition("十")
        t = _ZH_DIGITS.get(tens, 0) if tens else 1
        o = _ZH_DIGITS.get(ones, 0) if ones else 0
        return t * 10 + o
    value = 0
    for ch in text:
        value = value * 10 + _ZH_DIGITS[ch]
    return value


def en_number(text: str) -> int | None:
    """Parse a small English count ("six", "a couple of", "12"); None if it is not one."""
    text = text.lower().strip()
    return int(text) if text.isdigit() else _EN_NUMBERS.get(text)


def _day_start(now: datetime, day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=now.tzinfo)


def _span(now: datetime, first: date, last: date | None = None) -> Range:
    end = datetime.combine(last or first, time.max, tzinfo=now.tzinfo)
    return _day_start(now, first), end


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _month(now: datetime, offset: int) -> Range:
    index = now.year * 12 + now.month - 1 + offset
    year, month = divmod(index, 12)
    month += 1
    return _span(now, date(year, month, 1), date(year, month, monthrange(year, month)[1]))


def _safe_date(year: int, month: int, day: int) -> date | None:
    if not (1 <= month <= 12 and 1 <= day <= monthrange(year, month)[1]):
        return None
    return date(year, month, day)


def _upcoming_month_day(now: datetime, month: int | None, day: int) -> Range | None:
    today = now.date()
    if month is None:
        found = _safe_date(today.year, today.month, day)
        if found is None or found < today:
            nxt = _month(now, 1)[0]
            found = _safe_date(nxt.year, nxt.month, day)
    else:
        found = _safe_date(today.year, month, day)
        if found is not None and found < today:
            found = _safe_date(today.year + 1, month, day)
    return _span(now, found) if found else None


def _past_month_day(now: datetime, month: int, day: int) -> Range | None:
    found = _safe_date(now.year, month, day)
    if found is not None and found > now.date():
        found = _safe_date(now.year - 1, month, day)
    return _span(now, found) if found else None


def _weekday_in(now: datetime, week_offset: int, weekday: int) -> date:
    return _monday(now.date()) + timedelta(weeks=week_offset, days=weekday)


def _upcoming_weekday(now: datetime, weekday: int) -> date:
    return now.date() + timedelta(days=(weekday - now.weekday()) % 7)


def _weekend(now: datetime, week_offset: int) -> Range:
    sat = _weekday_in(now, week_offset, 5)
    first = max(sat, now.date()) if week_offset == 0 else sat
    return _span(now, first, sat + timedelta(days=1))


def _zh_weekday(now: datetime, prefix: str, wd: str) -> Range:
    if wd == "末":
        return _weekend(now, 1 if prefix.startswith("下") else 0)
    weekday = _ZH_WEEKDAYS[wd]
    if prefix.startswith("下"):
        return _span(now, _weekday_in(now, 1, weekday))
    if prefix:
        day = _weekday_in(now, 0, weekday)
        return _span(now, day if day >= now.date() else day + timedelta(weeks=1))
    return _span(now, _upcoming_weekday(now, weekday))


Rule = tuple[re.Pattern[str], Callable[[re.Match[str], datetime], "Range | None"]]

# Chinese New Year's day (the lunar calendar's; the table covers the years the app will see).
_SPRING_FESTIVAL = {
    2025: date(2025, 1, 29), 2026: date(2026, 2, 17), 2027: date(2027, 2, 6), 2028: date(2028, 1, 26),
    2029: date(2029, 2, 13), 2030: date(2030, 2, 3), 2031: date(2031, 1, 23), 2032: date(2032, 2, 11),
}  # fmt: skip


def _spring_festival(now: datetime, offset_days: int = 0) -> Range | None:
    for year in (now.year, now.year + 1):
        day = _SPRING_FESTIVAL.get(year)
        if day is not None and day + timedelta(days=offset_days) >= now.date():
            return _span(now, day + timedelta(days=offset_days))
    return None


def _thanksgiving(now: datetime) -> Range:
    for year in (now.year, now.year + 1):
        first = date(year, 11, 1)
        day = first + timedelta(days=(3 - first.weekday()) % 7 + 21)  # the fourth Thursday
        if day >= now.date():
            break
    return _span(now, day)


def _next_year_holiday(now: datetime, word: str) -> Range | None:
    """"明年五一": the holiday as it falls next year."""
    new_year = datetime(now.year + 1, 1, 1, tzinfo=now.tzinfo)
    for rx, build in _HOLIDAYS:
        if (m := rx.search(word)) is not None:
            return build(m, new_year)
    return None


# Holidays people date plans by ("婚礼改到明年五一了", "home for Christmas"): those on a fixed
# day as (pattern, month, day), then those that move.
_FIXED_HOLIDAYS = (
    (r"(?<![0-9一二三四五六七八九十])五一(?![个万千百块元岁分号日])", 5, 1),
    (r"国庆", 10, 1),
    (r"元旦", 1, 1),
    (r"平安夜", 12, 24),
    (r"圣诞", 12, 25),
    (r"(?<!七夕)情人节", 2, 14),
    (r"(?i)\bchristmas eve\b|\bxmas eve\b", 12, 24),
    (r"(?i)\b(?:christmas|xmas)\b(?! eve)", 12, 25),
    (r"(?i)\bnew year'?s eve\b|\bnye\b", 12, 31),
    (r"(?i)\bnew year'?s(?: day)?\b(?! eve)", 1, 1),
    (r"(?i)\bvalentine'?s(?: day)?\b", 2, 14),
    (r"(?i)\bhalloween\b", 10, 31),
)
_HOLIDAYS: list[Rule] = [
    *((re.compile(rx), lambda m, n, mo=mo, d=d: _upcoming_month_day(n, mo, d)) for rx, mo, d in _FIXED_HOLIDAYS),
    (re.compile(r"除夕|年三十|大年夜"), lambda m, n: _spring_festival(n, -1)),
    (re.compile(r"春节|过年|大年初一"), lambda m, n: _spring_festival(n)),
    (re.compile(r"(?i)\bthanksgiving\b"), lambda m, n: _thanksgiving(n)),
]

_WEEK_ZH = r"(?:周|星期|礼拜)"
_FUTURE: list[Rule] = [
    (re.compile(r"大后天"), lambda m, n: _span(n, n.date() + timedelta(days=3))),
    (re.compile(r"后天"), lambda m, n: _span(n, n.date() + timedelta(days=2))),
    (re.compile(r"明天|明早|明晚|明儿"), lambda m, n: _span(n, n.date() + timedelta(days=1))),
    (re.compile(r"今天|今晚|今早|今儿"), lambda m, n: _span(n, n.date())),
    (re.compile(rf"(下下|下个?|这个?|本)?{_WEEK_ZH}([一二三四五六日天末])"),
     lambda m, n: _zh_weekday(n, m.group(1) or "", m.group(2))),
    (re.compile(r"(?<!上)周末"), lambda m, n: _weekend(n, 0)),
    (re.compile(rf"下个?{_WEEK_ZH}"), lambda m, n: _span(n, _weekday_in(n, 1, 0), _weekday_in(n, 1, 6))),
    (re.compile(r"下个?月[底末]"), lambda m, n: _month_end(n, 1)),
    (re.compile(r"(?:这个?|本)?月[底末]"), lambda m, n: _month_end(n, 0)),
    (re.compile(r"下个?月"), lambda m, n: _month(n, 1)),
    (re.compile(r"明年\s?(五一|国庆|元旦|平安夜|圣诞|情人节|除夕|春节|过年)"), lambda m, n: _next_year_holiday(n, m.group(1))),
    (re.compile(rf"明年\s?({_ZH_NUM})\s?月(?![0-9０-９零〇一二两三四五六七八九十号日])"), lambda m, n: _next_year_month(n, m.group(1))),
    (re.compile(r"明年"), lambda m, n: _span(n, date(n.year + 1, 1, 1), date(n.year + 1, 12, 31))),
    (re.compile(rf"({_ZH_NUM})\s?月\s?({_ZH_NUM})\s?[号日]"),
     lambda m, n: _month_day(n, m.group(1), m.group(2))),
    # "改到 3月 22 了": the day in digits with no 号 after it (not "3月 22 个人", "3月 5.5 公里")
    (re.compile(r"(?<![0-9])(1[0-2]|[1-9])\s?月\s?([12][0-9]|3[01]|[1-9])(?![0-9.:%])(?!\s?(?:个|天|周|年|岁|人|点|度|元|块|公里|斤|分|次|k|km))"),
     lambda m, n: _month_day(n, m.group(1), m.group(2))),
    (re.compile(rf"下个?月\s?({_ZH_NUM})\s?[号日]"), lambda m, n: _next_month_day(n, m.group(1))),
    (re.compile(rf"(?<![0-9月年])(?<![0-9月年]\s)({_ZH_NUM})\s?[号](?!楼|线|院|门|房|车厢)"),
     lambda m, n: _month_day(n, None, m.group(1))),
    (re.compile(rf"({_ZH_NUM})(天|周|个?星期|个?礼拜|个月)(?:以?后|之后)"),
     lambda m, n: _zh_after(n, m.group(1), m.group(2))),
    (re.compile(r"(?i)\bday after tomorrow\b"), lambda m, n: _span(n, n.date() + timedelta(days=2))),
    (re.compile(r"(?i)\btomorrow\b"), lambda m, n: _span(n, n.date() + timedelta(days=1))),
    (re.compile(r"(?i)\b(?:today|tonight|this (?:morning|afternoon|evening))\b"),
     lambda m, n: _span(n, n.date())),
    (re.compile(rf"(?i)\bnext {_EN_WD}\b"),
     lambda m, n: _span(n, _weekday_in(n, 1, _EN_WEEKDAYS[m.group(1).lower()]))),
    (re.compile(r"(?i)\b(this|next) weekend\b|\bthe weekend\b|\bon the weekend\b"),
     lambda m, n: _weekend(n, 1 if (m.group(1) or "").lower() == "next" else 0)),
    # "thursday the 19th", "on Friday, 3rd": the day of the month decides, not the weekday
    (re.compile(rf"(?i)\b(?:on )?{_EN_WD},? (?:the )?(\d{{1,2}})(?:st|nd|rd|th)\b"),
     lambda m, n: _month_day(n, None, m.group(2))),
    (re.compile(rf"(?i)\b(?:this|on|coming|this coming) {_EN_WD}\b"),
     lambda m, n: _span(n, _upcoming_weekday(n, _EN_WEEKDAYS[m.group(1).lower()]))),
    # a weekday told bare, in full: "the recital is friday at 6pm", "moved it to saturday",
    # "due tuesday" ("sat" and "sun" alone are words; "fridays" is a routine, see episodes.py)
    (re.compile(rf"(?i)\b(?:is|are|'s|to|till|until|by|for|due|from)\s+{_EN_FULL_WD}\b(?!s)"
                rf"|\b{_EN_FULL_WD}\s+(?=at\s+\d|\d{{1,2}}(?::\d\d)?\s*(?:am|pm)\b|(?:night|morning|afternoon|evening)\b)"),
     lambda m, n: _span(n, _upcoming_weekday(n, _EN_WEEKDAYS[(m.group(1) or m.group(2)).lower()[:3]]))),
    (re.compile(r"(?i)\bnext week\b"), lambda m, n: _span(n, _weekday_in(n, 1, 0), _weekday_in(n, 1, 6))),
    (re.compile(r"(?i)\bend of next month\b"), lambda m, n: _month_end(n, 1)),
    (re.compile(r"(?i)\bend of (?:the|this) month\b"), lambda m, n: _month_end(n, 0)),
    (re.compile(r"(?i)\bnext month\b"), lambda m, n: _month(n, 1)),
    (re.compile(r"(?i)\bnext year\b"), lambda m, n: _span(n, date(n.year + 1, 1, 1), date(n.year + 1, 12, 31))),
    (re.compile(rf"(?i)\b{_EN_MON} (\d{{1,2}})(?:st|nd|rd|th)?\b"),
     lambda m, n: _month_day(n, str(_EN_MONTHS[m.group(1).lower()]), m.group(2))),
    (re.compile(rf"(?i)\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_EN_MON}(?![a-z])"),
     lambda m, n: _month_day(n, str(_EN_MONTHS[m.group(2).lower()]), m.group(1))),
    # "on the 2nd", "bumped to the 19th" — not "on the 5th floor"
    (re.compile(r"(?i)\b(?:on|to|until|till|by|for) the (\d{1,2})(?:st|nd|rd|th)\b(?!\s+of\s+[A-Za-z])(?!\s+(?:floor|street|st|avenue|ave|row|grade|place|time|year|anniversary|birthday|century|edition|percentile))"),
     lambda m, n: _month_day(n, None, m.group(1))),
    (re.compile(rf"(?i)\bin {_EN_NUM} (day|week|month)s?\b"),
     lambda m, n: _en_after(n, m.group(0).split(" ", 1)[1].rsplit(" ", 1)[0], m.group(1))),
    *_HOLIDAYS,
]  # fmt: skip


# A stretch of days: "14th-18th May", "May 14–18", "3rd to 7th june", "6月3号到7号",
# "6 月 3 日至 6 月 7 日", "3号到7号". The whole stretch, not its first or last day: a trip
# lasts until it ends.
_TO = r"\s*(?:-|–|—|~|～|to|until|till|through|thru)\s*"
_ORD = r"(?:st|nd|rd|th)?"
_RANGES: list[Rule] = [
    (re.compile(rf"(?i)\b(\d{{1,2}}){_ORD}{_TO}(?:the\s+)?(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_EN_MON}(?![a-z])"),
     lambda m, n: _stretch(n, str(_EN_MONTHS[m.group(3).lower()]), m.group(1), None, m.group(2))),
    (re.compile(rf"(?i)\b{_EN_MON}\s+(\d{{1,2}}){_ORD}{_TO}(\d{{1,2}}){_ORD}\b(?!\s*(?:am|pm|:))"),
     lambda m, n: _stretch(n, str(_EN_MONTHS[m.group(1).lower()]), m.group(2), None, m.group(3))),
    (re.compile(rf"({_ZH_NUM})\s?月\s?({_ZH_NUM})\s?[号日]?\s?(?:到|至|-|–|~|～)\s?(?:({_ZH_NUM})\s?月\s?)?({_ZH_NUM})\s?[号日]"),
     lambda m, n: _stretch(n, m.group(1), m.group(2), m.group(3), m.group(4))),
    (re.compile(rf"(?<![0-9月年])(?<![0-9月年]\s)({_ZH_NUM})\s?[号日]?\s?(?:到|至|-|–|~|～)\s?({_ZH_NUM})\s?号(?!楼|线|院|门|房|车厢)"),
     lambda m, n: _stretch(n, None, m.group(1), None, m.group(2))),
    # "coming to stay 12th-19th": ordinals both, or it is "3-4pm" or "5-6 people"
    (re.compile(r"(?i)\b(\d{1,2})(?:st|nd|rd|th)\s*(?:-|–|to|until|till)\s*(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b"),
     lambda m, n: _stretch(n, None, m.group(1), None, m.group(2))),
]  # fmt: skip


def _next_year_month(now: datetime, month: str) -> Range | None:
    mo = zh_number(month)
    if mo is None or not 1 <= mo <= 12:
        return None
    return _span(now, date(now.year + 1, mo, 1), date(now.year + 1, mo, monthrange(now.year + 1, mo)[1]))


def _next_month_day(now: datetime, day: str) -> Range | None:
    d = zh_number(day)
    first = _month(now, 1)[0]
    found = _safe_date(first.year, first.month, d) if d is not None else None
    return _span(now, found) if found else None


def _stretch(now: datetime, month: str | None, first: str, last_month: str | None, last: str) -> Range | None:
    """The days from `first` to `last` (of `last_month`, or of the same month), upcoming or
    under way ("staying 12th-19th", said on the 14th, is this month's)."""
    today = now.date()
    a, b = zh_number(first), zh_number(last)
    if month is None and last_month is None and a is not None and b is not None and a <= b:
        this = (_safe_date(today.year, today.month, a), _safe_date(today.year, today.month, b))
        if this[0] is not None and this[1] is not None and this[1] >= today:
            return _span(now, this[0], this[1])
    start = _month_day(now, month, first)
    d = zh_number(last)
    mo = zh_number(last_month) if last_month is not None else None
    if start is None or d is None or (last_month is not None and mo is None):
        return None
    begin = start[0].date()
    end = _safe_date(begin.year, mo or begin.month, d)
    if end is not None and end < begin:
        end = _safe_date(begin.year + 1, mo, d) if mo is not None else None
    if end is None or (end - begin).days > 92:
        return None
    return _span(now, begin, end)


def _month_end(now: datetime, offset: int) -> Range:
    """The last week of this month (offset 0) or the next (1)."""
    index = now.year * 12 + now.month - 1 + offset
    year, month = divmod(index, 12)
    last = monthrange(year, month + 1)[1]
    return _span(now, max(now.date(), date(year, month + 1, last - 6)), date(year, month + 1, last))


def _month_day(now: datetime, month: str | None, day: str) -> Range | None:
    d = zh_number(day)
    mo = zh_number(month) if month is not None else None
    if d is None or (month is not None and mo is None):
        return None
    return _upcoming_month_day(now, mo, d)


def _shift(now: datetime, count: int, unit: str) -> Range:
    if unit.endswith("月") or unit.startswith("month"):
        index = now.year * 12 + now.month - 1 + count
        year, month = divmod(index, 12)
        day = min(now.day, monthrange(year, month + 1)[1])
        return _span(now, date(year, month + 1, day))
    days = count if unit in ("天", "day") else count * 7
    return _span(now, now.date() + timedelta(days=days))


def _zh_after(now: datetime, count: str, unit: str) -> Range | None:
    value = zh_number(count)
    return _shift(now, value, unit) if value is not None and value < 400 else None


def _en_after(now: datetime, count: str, unit: str) -> Range | None:
    value = en_number(count)
    return _shift(now, value, unit.lower()) if value is not None else None


def _found(text: str, now: datetime, rules: list[Rule]) -> list[tuple[int, Range]]:
    """(where, range) of the first match of each rule that resolves."""
    found: list[tuple[int, Range]] = []
    for rx, build in rules:
        m = rx.search(text)
        if m is not None and (span := build(m, now)) is not None:
            found.append((m.start(), span))
    return found


def _earliest(text: str, now: datetime, rules: list[Rule], stretches: list[Rule] | None = None) -> Range | None:
    """The range of the first time expression in `text`, or of a narrower one inside it
    ("这个月底（1月30号）" is the 30th, not the last week of the month) — but a stretch of days
    ("14th-18th May") that starts there is the whole stretch."""
    found = _found(text, now, rules)
    spans = _found(text, now, stretches or [])
    if not found and not spans:
        return None
    if spans and (not found or min(spans)[0] <= min(f[0] for f in found)):
        return min(spans, key=lambda f: f[0])[1]
    first = min(found, key=lambda f: f[0])[1]
    inside = [span for _, span in found if first[0] <= span[0] and span[1] <= first[1]]
    return min(inside, key=lambda span: span[1] - span[0])


def future_date(text: str, now: datetime) -> Range | None:
    """Return (start, end) of the day or range a plan refers to, or None.

    Args:
        text: the user's sentence ("下周三去上海出差", "next Wednesday I fly to Berlin").
        now: the current aware time; results are in its timezone.
    """
    return _earliest(text, now, _FUTURE, _RANGES)


def _recent(now: datetime, days: int) -> Range:
    return now - timedelta(days=days), now


def _past_weekday(now: datetime, week_offset: int, weekday: int) -> Range:
    return _span(now, _weekday_in(now, week_offset, weekday))


_PAST: list[Rule] = [
    (re.compile(r"大前天"), lambda m, n: _span(n, n.date() - timedelta(days=3))),
    (re.compile(r"前天"), lambda m, n: _span(n, n.date() - timedelta(days=2))),
    (re.compile(r"昨天|昨晚|昨日|昨儿"), lambda m, n: _span(n, n.date() - timedelta(days=1))),
    (re.compile(rf"上个?{_WEEK_ZH}([一二三四五六日天])"),
     lambda m, n: _past_weekday(n, -1, _ZH_WEEKDAYS[m.group(1)])),
    (re.compile(r"上个?周末"), lambda m, n: _span(n, _weekday_in(n, -1, 5), _weekday_in(n, -1, 6))),
    (re.compile(rf"上个?{_WEEK_ZH}"), lambda m, n: _span(n, _weekday_in(n, -1, 0), _weekday_in(n, -1, 6))),
    (re.compile(rf"这个?{_WEEK_ZH}|本周"), lambda m, n: (_day_start(n, _monday(n.date())), n)),
    (re.compile(r"上个?月"), lambda m, n: _month(n, -1)),
    (re.compile(r"这个月|本月"), lambda m, n: (_day_start(n, n.date().replace(day=1)), n)),
    (re.compile(r"前年"), lambda m, n: _span(n, date(n.year - 2, 1, 1), date(n.year - 2, 12, 31))),
    (re.compile(r"去年"), lambda m, n: _span(n, date(n.year - 1, 1, 1), date(n.year - 1, 12, 31))),
    (re.compile(r"上次|上回|之前|以前"), lambda m, n: _recent(n, 30)),
    (re.compile(r"前几天|几天前|前些天|这几天"), lambda m, n: _recent(n, 7)),
    (re.compile(r"最近|近来|这阵子|这段时间"), lambda m, n: _recent(n, 14)),
    (re.compile(rf"({_ZH_NUM})(天|周|个?星期|个?礼拜|个月)(?:以?前|之前)"),
     lambda m, n: _zh_ago(n, m.group(1), m.group(2))),
    (re.compile(r"今天早些时候|今天"), lambda m, n: (_day_start(n, n.date()), n)),
    (re.compile(rf"({_ZH_NUM})\s?月\s?({_ZH_NUM})\s?[号日]"),
     lambda m, n: _zh_past_md(n, m.group(1), m.group(2))),
    (re.compile(r"(?i)\bday before yesterday\b"), lambda m, n: _span(n, n.date() - timedelta(days=2))),
    (re.compile(r"(?i)\byesterday\b"), lambda m, n: _span(n, n.date() - timedelta(days=1))),
    (re.compile(rf"(?i)\blast {_EN_WD}\b"),
     lambda m, n: _past_weekday(n, -1, _EN_WEEKDAYS[m.group(1).lower()])),
    (re.compile(r"(?i)\blast weekend\b"), lambda m, n: _span(n, _weekday_in(n, -1, 5), _weekday_in(n, -1, 6))),
    (re.compile(r"(?i)\blast week\b"), lambda m, n: _span(n, _weekday_in(n, -1, 0), _weekday_in(n, -1, 6))),
    (re.compile(r"(?i)\bthis week\b"), lambda m, n: (_day_start(n, _monday(n.date())), n)),
    (re.compile(r"(?i)\blast month\b"), lambda m, n: _month(n, -1)),
    (re.compile(r"(?i)\bthis month\b"), lambda m, n: (_day_start(n, n.date().replace(day=1)), n)),
    (re.compile(r"(?i)\blast year\b"), lambda m, n: _span(n, date(n.year - 1, 1, 1), date(n.year - 1, 12, 31))),
    (re.compile(r"(?i)\b(?:last time|the other day|previously|before)\b"), lambda m, n: _recent(n, 30)),
    (re.compile(rf"(?i)\b{_EN_NUM} (day|week|month)s? ago\b"),
     lambda m, n: _en_ago(n, m.group(0).rsplit(" ", 2)[0], m.group(1))),
    (re.compile(r"(?i)\b(?:recently|lately|these days|the past few days)\b"), lambda m, n: _recent(n, 14)),
    (re.compile(r"(?i)\b(?:earlier )?today\b"), lambda m, n: (_day_start(n, n.date()), n)),
    (re.compile(rf"(?i)\b{_EN_MON} (\d{{1,2}})(?:st|nd|rd|th)?\b"),
     lambda m, n: _past_month_day(n, _EN_MONTHS[m.group(1).lower()], int(m.group(2)))),
]  # fmt: skip


def _ago(now: datetime, count: int, unit: str) -> Range:
    day = _shift(now, -count, unit)[0].date()
    if unit.startswith("day") or unit == "天":
        return _span(now, day)
    if unit.endswith("月") or unit.startswith("month"):
        return _span(now, day.replace(day=1), day.replace(day=monthrange(day.year, day.month)[1]))
    return _span(now, day - timedelta(days=3), day + timedelta(days=3))


def _zh_ago(now: datetime, count: str, unit: str) -> Range | None:
    value = zh_number(count)
    return _ago(now, value, unit) if value is not None and 0 < value < 400 else None


def _en_ago(now: datetime, count: str, unit: str) -> Range | None:
    if not count.strip().isdigit() and count.strip().lower() not in _EN_NUMBERS:
        return None
    if count.strip().lower() in ("a few", "few", "several", "a couple of", "couple of"):
        # Fuzzy counts: everything from a week (or a month) back up to yesterday.
        days = {"d": 7, "w": 35, "m": 120}[unit[0].lower()]
        yesterday = now.date() - timedelta(days=1)
        return _span(now, now.date() - timedelta(days=days), yesterday)
    value = en_number(count)
    return _ago(now, value, unit.lower()) if value is not None and value > 0 else None


def _zh_past_md(now: datetime, month: str, day: str) -> Range | None:
    mo, d = zh_number(month), zh_number(day)
    return _past_month_day(now, mo, d) if mo is not None and d is not None else None


def past_range(query: str, now: datetime) -> Range | None:
    """Return the (start, end) window a question about the past refers to, or None.

    Args:
        query: the user's question ("上周我说的那家餐厅叫什么", "what did I say last time?").
        now: the current aware time; results are in its timezone and never end after `now`.
    """
    found = _earliest(query, now, _PAST)
    if found is None:
        return None
    start, end = found
    return start, min(end, now)




# Words that make a clause about what lies ahead, so a month named alone ("in March") is its date.
PLAN_WORDS = re.compile(
    r"(?i)\b(?:going to|gonna|will|'ll|plan|planning|have to|need to|must|due|appointment|meeting|flight|interview|exam|"
    r"deadline|trip|wedding|party|birthday|dentist|surgery|presentation|conference|concert|vacation|holiday|renew|expires?)\b"
)
_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_ONLY = re.compile(
    r"(?i:\b(?:in|by|before|until|till|this|next|early|late|mid|end of|start of|during)\s+(?:-\s*)?)"
    r"((?i:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?))\b(?!\s+\d)"
)


def month_span(text: str, now: datetime) -> Range | None:
    """'in march', 'by April', 'before my trip in June': the next such month, as a whole-month span."""
    m = _MONTH_ONLY.search(text)
    if m is None:
        return None
    month = _MONTH_NAMES.index(m.group(1).lower()[:3]) + 1
    year = now.year + (1 if month < now.month else 0)
    return _span(now, date(year, month, 1), date(year, month, monthrange(year, month)[1]))


__all__ = ["PLAN_WORDS", "Range", "en_number", "future_date", "month_span", "past_range", "zh_number"]

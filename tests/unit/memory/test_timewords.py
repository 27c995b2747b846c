"""Relative dates resolved against a fixed clock: Wednesday 2026-03-04 15:00 in Shanghai."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from assistant.memory.timewords import future_date, past_range, zh_number

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 3, 4, 15, 0, tzinfo=TZ)  # a Wednesday


def days(r: tuple[datetime, datetime] | None) -> tuple[date, date] | None:
    return (r[0].date(), r[1].date()) if r else None


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("明天去看牙医", "2026-03-05", "2026-03-05"),
        ("后天要交报告", "2026-03-06", "2026-03-06"),
        ("下周三去上海出差", "2026-03-11", "2026-03-11"),
        ("下星期五开会", "2026-03-13", "2026-03-13"),
        ("这周五聚餐", "2026-03-06", "2026-03-06"),
        ("周五见", "2026-03-06", "2026-03-06"),
        ("周末去爬山", "2026-03-07", "2026-03-08"),
        ("下周末回家", "2026-03-14", "2026-03-15"),
        ("下个月搬家", "2026-04-01", "2026-04-30"),
        ("3月5号体检", "2026-03-05", "2026-03-05"),
        ("三月十二号考试", "2026-03-12", "2026-03-12"),
        ("2月1日去东京", "2027-02-01", "2027-02-01"),  # already past this year
        ("5号交房租", "2026-03-05", "2026-03-05"),
        ("两周后出发", "2026-03-18", "2026-03-18"),
        ("tomorrow I have a dentist appointment", "2026-03-05", "2026-03-05"),
        ("next Wednesday I fly to Berlin", "2026-03-11", "2026-03-11"),
        ("this Friday we ship", "2026-03-06", "2026-03-06"),
        # a weekday told bare, in full
        ("the recital is friday at 6pm", "2026-03-06", "2026-03-06"),
        ("they moved the game to saturday", "2026-03-07", "2026-03-07"),
        ("report due monday", "2026-03-09", "2026-03-09"),
        ("sunday morning we fly out", "2026-03-08", "2026-03-08"),
        ("the party is on March 5", "2026-03-05", "2026-03-05"),
        ("exam on 20th March", "2026-03-20", "2026-03-20"),
        ("in two weeks I start the new job", "2026-03-18", "2026-03-18"),
        ("in 3 days", "2026-03-07", "2026-03-07"),
        ("next month we move", "2026-04-01", "2026-04-30"),
        ("next week is busy", "2026-03-09", "2026-03-15"),
        ("this weekend I'm hiking", "2026-03-07", "2026-03-08"),
        # spaced as people type digits among Chinese characters
        ("6 月 20 号到期", "2026-06-20", "2026-06-20"),
        ("我下个月 8 号要去上海参加家电展", "2026-04-08", "2026-04-08"),
        ("下个月8号去上海", "2026-04-08", "2026-04-08"),
        ("住到明年三月再回来", "2027-03-01", "2027-03-31"),
        # a stretch of days is the whole stretch
        ("14th-18th May, staying in the gothic quarter", "2026-05-14", "2026-05-18"),
        ("barcelona is now 3rd to 7th june instead", "2026-06-03", "2026-06-07"),
        ("Rome May 20-24", "2026-05-20", "2026-05-24"),
        ("6月3号到7号去云南", "2026-06-03", "2026-06-07"),
        ("12月28号到1月3号回老家", "2026-12-28", "2027-01-03"),
        ("my sister is coming to stay 2nd-9th", "2026-03-02", "2026-03-09"),  # under way: this month's
        ("the meeting is on March 20 at 3-4pm", "2026-03-20", "2026-03-20"),
        # holidays
        ("婚礼改到五一了", "2026-05-01", "2026-05-01"),
        ("婚礼改到明年五一了", "2027-05-01", "2027-05-01"),
        ("国庆去西藏", "2026-10-01", "2026-10-01"),
        ("过年回老家", "2027-02-06", "2027-02-06"),  # this year's (17 Feb) is past
        ("home for Christmas", "2026-12-25", "2026-12-25"),
        ("thanksgiving at my parents'", "2026-11-26", "2026-11-26"),
        # a day in digits with no 号 after it
        ("航班改到 4月 22 了", "2026-04-22", "2026-04-22"),
        ("考试定在6月9", "2026-06-09", "2026-06-09"),
    ],
)
def test_future(text: str, first: str, last: str) -> None:
    got = future_date(text, NOW)
    assert got is not None
    assert days(got) == (date.fromisoformat(first), date.fromisoformat(last))
    assert got[0].tzinfo is TZ and got[0].hour == 0 and got[1].hour == 23


@pytest.mark.parametrize("text", ["I live in Berlin", "我住3号楼", "我住 3-5号楼", "下班后吃饭", "", "monthly report", "may I ask", "5-6 people", "五一个人", "我51岁",
                                  "I sat down", "sun is out", "i swim fridays",
                                  "3月 22 个人报名", "3月跑了 5.5 公里"])
def test_future_none(text: str) -> None:
    assert future_date(text, NOW) is None


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("昨天我说了什么", "2026-03-03", "2026-03-03"),
        ("前天那家店叫啥", "2026-03-02", "2026-03-02"),
        ("上周聊的那本书", "2026-02-23", "2026-03-01"),
        ("上周三我们吃了什么", "2026-02-25", "2026-02-25"),
        ("上个月的计划", "2026-02-01", "2026-02-28"),
        ("去年去了哪", "2025-01-01", "2025-12-31"),
        ("3天前我提过", "2026-03-01", "2026-03-01"),
        ("what did I say yesterday?", "2026-03-03", "2026-03-03"),
        ("the book from last week", "2026-02-23", "2026-03-01"),
        ("last month's plan", "2026-02-01", "2026-02-28"),
        ("last Friday's dinner", "2026-02-27", "2026-02-27"),
        ("a few days ago I mentioned a cafe", "2026-02-25", "2026-03-03"),
        ("last year", "2025-01-01", "2025-12-31"),
    ],
)
def test_past(text: str, first: str, last: str) -> None:
    assert days(past_range(text, NOW)) == (date.fromisoformat(first), date.fromisoformat(last))


@pytest.mark.parametrize("text", ["上次", "last time", "最近", "recently", "lately"])
def test_past_open_windows_end_now(text: str) -> None:
    got = past_range(text, NOW)
    assert got is not None and got[1] == NOW and 7 <= (NOW - got[0]).days <= 30


@pytest.mark.parametrize("text", ["hello", "我住在杭州", "what is the capital of France"])
def test_past_none(text: str) -> None:
    assert past_range(text, NOW) is None


def test_month_end_rollover() -> None:
    jan31 = datetime(2026, 1, 31, 9, tzinfo=TZ)
    assert days(future_date("下个月", jan31)) == (date(2026, 2, 1), date(2026, 2, 28))
    assert days(past_range("last month", datetime(2026, 1, 10, tzinfo=TZ))) == (date(2025, 12, 1), date(2025, 12, 31))
    assert days(future_date("30号", datetime(2026, 2, 10, tzinfo=TZ))) == (date(2026, 3, 30), date(2026, 3, 30))


@pytest.mark.parametrize(("text", "value"), [("十二", 12), ("两", 2), ("二十五", 25), ("十", 10), ("31", 31), ("x", None)])
def test_zh_number(text: str, value: int | None) -> None:
    assert zh_number(text) == value


def test_the_narrower_of_two_dates_wins() -> None:
    now = datetime(2026, 1, 5, 9, tzinfo=ZoneInfo("Asia/Shanghai"))
    start, end = future_date("我这个月底（1月30号）要交年终述职的PPT", now)  # type: ignore[misc]
    assert start.date() == end.date() == date(2026, 1, 30)
    start, _ = future_date("dentist appointment on thursday the 19th at 4pm", now)  # type: ignore[misc]
    assert start.date() == date(2026, 1, 19)
    start, end = future_date("月底要去清迈玩五天", now)  # type: ignore[misc]
    assert (start.date(), end.date()) == (date(2026, 1, 25), date(2026, 1, 31))


def test_the_nth_of_a_month_in_lower_case() -> None:
    now = datetime(2026, 1, 25, 20, tzinfo=UTC)
    span = future_date("dentist appointment on the 3rd of march", now)
    assert span is not None and span[0].date() == date(2026, 3, 3)

"""Injected time: every time-dependent rule reads a Clock, never the wall directly."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """Return the current time, timezone-aware."""
        ...


class SystemClock:
    """The wall clock, in local time with its offset."""

    def now(self) -> datetime:
        return datetime.now().astimezone()


class ManualClock:
    """A clock tests and the evaluation harness move by hand."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("ManualClock needs a timezone-aware datetime")
        self._now = start

    def now(self) -> datetime:
        return self._now

    def set(self, when: datetime) -> None:
        if when.tzinfo is None:
            raise ValueError("ManualClock needs a timezone-aware datetime")
        self._now = when

    def advance(self, delta: timedelta) -> None:
        self._now = self._now + delta


def to_ts(when: datetime) -> float:
    """Seconds since the epoch for an aware datetime (how the store keeps time)."""
    if when.tzinfo is None:
        raise ValueError("naive datetime: attach a timezone first")
    return when.timestamp()


def from_ts(ts: float, tz: tzinfo | None = None) -> datetime:
    return datetime.fromtimestamp(ts, tz or UTC)


def iso(ts: float | None, tz: tzinfo | None = None) -> str | None:
    """ISO 8601 text for a stored timestamp, or None."""
    if ts is None:
        return None
    return from_ts(ts, tz).isoformat(timespec="seconds")


def parse_iso(text: str) -> datetime:
    """Parse ISO 8601 with an offset; a naive value is rejected with a clear message."""
    value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError(f"timestamp {text!r} has no UTC offset (write e.g. 2026-03-02T20:15:00+08:00)")
    return value


def parse_iso_ts(text: str) -> float:
    """`parse_iso` as epoch seconds that `iso` can show again (not past year 1 or 9999 in UTC).

    Raises:
        ValueError: not ISO 8601 with an offset, or out of range.
    """
    try:
        ts = to_ts(parse_iso(text))
        from_ts(ts)
    except (OverflowError, OSError) as exc:
        raise ValueError(f"timestamp {text[:40]!r} is out of range") from exc
    return ts


__all__ = ["Clock", "SystemClock", "ManualClock", "to_ts", "from_ts", "iso", "parse_iso", "parse_iso_ts", "timedelta"]

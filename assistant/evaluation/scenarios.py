"""Strict loader for evaluation scenario files (JSON Lines, one scenario per line).

The format is fixed in ``docs``/``eval-format.md``: each non-blank line is a JSON object
with ``id``, ``lang``, optional ``sensitive`` and ``events`` (messages and probes in time
order). Anything malformed raises `ScenarioFormatError` naming the 1-based line and the
reason, so a broken file is never half-scored.

Beyond the letter of the format the loader also rejects what is almost surely a mistake:
unknown keys (a typo such as ``"expects"`` would otherwise silently test nothing),
duplicate keys in one object, empty strings where a value is needed (an empty ``expect``
string matches everything), a scenario with no probe, and a probe that checks nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from assistant.clock import parse_iso
from assistant.errors import InputError

LANGS = ("zh", "en", "mixed")
ROLES = ("user", "assistant")

_SCENARIO_KEYS = frozenset({"id", "lang", "sensitive", "events"})
_MESSAGE_KEYS = frozenset({"at", "session", "role", "content"})
_PROBE_EVENT_KEYS = frozenset({"at", "probe"})
_PROBE_KEYS = frozenset({"query", "expect", "forbid", "max_injected"})


class ScenarioFormatError(InputError):
    """A scenario file that cannot be used; `line` is 1-based, `reason` says why."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(
            f"line {line}: {reason}",
            "Fix the scenario file (format: docs/eval-format.md); nothing was run.",
        )
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Message:
    at: datetime
    session: str
    role: str
    content: str


@dataclass(frozen=True, slots=True)
class Probe:
    at: datetime
    query: str
    expect: list[list[str]] = field(default_factory=list)
    forbid: list[str] = field(default_factory=list)
    max_injected: int | None = None


@dataclass(frozen=True, slots=True)
class Scenario:
    id: str
    lang: str
    sensitive: list[str]
    events: list[Message | Probe]
    line: int = field(default=0, compare=False)
    """The 1-based line of the file the scenario came from (0 when built in code);
    provenance only, so it takes no part in equality."""

    @property
    def probes(self) -> list[Probe]:
        return [e for e in self.events if isinstance(e, Probe)]

    @property
    def messages(self) -> list[Message]:
        return [e for e in self.events if isinstance(e, Message)]


class _Bad(Exception):
    """A reason without a line; turned into `ScenarioFormatError` by the caller."""


def load_scenarios(path: Path) -> list[Scenario]:
    """Read and validate every scenario in `path`; raise on the first problem found."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(
            f"cannot read scenario file {path}: {exc.strerror or exc}",
            "Check the path given to --dataset.",
        ) from exc
    return parse_scenarios(data)


def parse_scenarios(data: bytes) -> list[Scenario]:
    """Validate scenario-file bytes (what `load_scenarios` does after reading the file)."""
    scenarios: list[Scenario] = []
    first_line_of: dict[str, int] = {}
    for number, text in _lines(data):
        if not text.strip():
            continue
        try:
            scenario = _scenario(_json(text), number)
        except _Bad as exc:
            raise ScenarioFormatError(number, str(exc)) from None
        if scenario.id in first_line_of:
            raise ScenarioFormatError(
                number,
                f"duplicate id {scenario.id!r} (first used on line {first_line_of[scenario.id]})",
            )
        first_line_of[scenario.id] = number
        scenarios.append(scenario)
    if not scenarios:
        raise ScenarioFormatError(1, "empty file: no scenarios")
    return scenarios


def _lines(data: bytes) -> Iterator[tuple[int, str]]:
    raw_lines = data.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()  # the newline that ends the last line does not start another one
    for index, raw in enumerate(raw_lines):
        number = index + 1
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ScenarioFormatError(
                number, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
            ) from None
        if number == 1:
            text = text.removeprefix("\ufeff")  # a BOM some editors write; harmless
        yield number, text.removesuffix("\r")


def _json(text: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise _Bad(f"invalid JSON: {exc.msg} (column {exc.colno})") from None


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Bad(f"invalid JSON: key {key!r} appears twice in one object")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise _Bad(f"invalid JSON: {name} is not a JSON value")


def _scenario(obj: Any, line: int) -> Scenario:
    if not isinstance(obj, dict):
        raise _Bad(f"a scenario must be a JSON object, got {_kind(obj)}")
    _known_keys(obj, _SCENARIO_KEYS, "scenario")
    sid = _text(obj, "id", "scenario")
    where = f"scenario {sid!r}"
    lang = _required(obj, "lang", where)
    if not isinstance(lang, str) or lang not in LANGS:
        raise _Bad(f"{where}: 'lang' must be one of {', '.join(LANGS)}, got {lang!r}")
    sensitive = _text_list(obj, "sensitive", where) if "sensitive" in obj else []
    raw_events = _required(obj, "events", where)
    if not isinstance(raw_events, list):
        raise _Bad(f"{where}: 'events' must be a list, got {_kind(raw_events)}")
    if not raw_events:
        raise _Bad(f"{where}: 'events' is empty")
    events: list[Message | Probe] = []
    for index, raw in enumerate(raw_events):
        event = _event(raw, f"{where} events[{index}]")
        if events and event.at < events[-1].at:
            raise _Bad(
                f"{where} events[{index}]: events out of time order "
                f"({event.at.isoformat()} is before {events[-1].at.isoformat()})"
            )
        events.append(event)
    if not any(isinstance(e, Probe) for e in events):
        raise _Bad(f"{where}: no probe among the events, so nothing would be scored")
    return Scenario(id=sid, lang=lang, sensitive=sensitive, events=events, line=line)


def _event(raw: Any, where: str) -> Message | Probe:
    if not isinstance(raw, dict):
        raise _Bad(f"{where}: an event must be a JSON object, got {_kind(raw)}")
    if "probe" in raw:
        _known_keys(raw, _PROBE_EVENT_KEYS, f"{where} (a probe)")
        return _probe(raw, where)
    if not _MESSAGE_KEYS & (raw.keys() - {"at"}):
        raise _Bad(f"{where}: neither a message (session, role, content) nor a probe ('probe')")
    _known_keys(raw, _MESSAGE_KEYS, f"{where} (a message)")
    at = _at(raw, where)
    session = _text(raw, "session", where)
    role = _required(raw, "role", where)
    if role not in ROLES:
        raise _Bad(f"{where}: unknown role {role!r} (use 'user' or 'assistant')")
    content = _text(raw, "content", where)
    return Message(at=at, session=session, role=role, content=content)


def _probe(raw: dict[str, Any], where: str) -> Probe:
    at = _at(raw, where)
    spec = raw["probe"]
    where = f"{where} probe"
    if not isinstance(spec, dict):
        raise _Bad(f"{where}: 'probe' must be an object, got {_kind(spec)}")
    _known_keys(spec, _PROBE_KEYS, where)
    query = _text(spec, "query", where)
    expect: list[list[str]] = []
    if "expect" in spec:
        items = spec["expect"]
        if not isinstance(items, list):
            raise _Bad(f"{where}: 'expect' must be a list, got {_kind(items)}")
        for i, item in enumerate(items):
            expect.append(_alternatives(item, f"{where} expect[{i}]"))
    forbid = _text_list(spec, "forbid", where) if "forbid" in spec else []
    max_injected: int | None = None
    if "max_injected" in spec:
        value = spec["max_injected"]
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Bad(f"{where}: 'max_injected' must be an integer, got {_kind(value)}")
        if value < 0:
            raise _Bad(f"{where}: 'max_injected' must not be negative, got {value}")
        max_injected = value
    if not expect and not forbid and max_injected is None:
        raise _Bad(f"{where}: checks nothing (give expect, forbid or max_injected)")
    return Probe(at=at, query=query, expect=expect, forbid=forbid, max_injected=max_injected)


def _alternatives(item: Any, where: str) -> list[str]:
    if isinstance(item, str):
        if not item.strip():
            raise _Bad(f"{where}: an empty string would match anything")
        return [item]
    if not isinstance(item, list):
        raise _Bad(f"{where}: must be a string or a list of strings, got {_kind(item)}")
    if not item:
        raise _Bad(f"{where}: an empty list of alternatives can never match")
    for alt in item:
        if not isinstance(alt, str):
            raise _Bad(f"{where}: alternatives must be strings, got {_kind(alt)}")
        if not alt.strip():
            raise _Bad(f"{where}: an empty string would match anything")
    return list(item)


def _at(raw: dict[str, Any], where: str) -> datetime:
    value = _required(raw, "at", where)
    if not isinstance(value, str):
        raise _Bad(f"{where}: 'at' must be an ISO 8601 string, got {_kind(value)}")
    try:
        return parse_iso(value)
    except ValueError as exc:
        if "no UTC offset" in str(exc):
            raise _Bad(f"{where}: 'at' {value!r} has no UTC offset (write e.g. +08:00)") from None
        raise _Bad(f"{where}: 'at' {value!r} is not an ISO 8601 timestamp") from None


def _required(obj: dict[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise _Bad(f"{where}: missing field {key!r}")
    return obj[key]


def _text(obj: dict[str, Any], key: str, where: str) -> str:
    value = _required(obj, key, where)
    if not isinstance(value, str):
        raise _Bad(f"{where}: {key!r} must be a string, got {_kind(value)}")
    if not value.strip():
        raise _Bad(f"{where}: {key!r} is empty")
    return value


def _text_list(obj: dict[str, Any], key: str, where: str) -> list[str]:
    value = obj[key]
    if not isinstance(value, list):
        raise _Bad(f"{where}: {key!r} must be a list of strings, got {_kind(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise _Bad(f"{where}: {key}[{i}] must be a string, got {_kind(item)}")
        if not item.strip():
            raise _Bad(f"{where}: {key}[{i}] is empty")
    return list(value)


def _known_keys(obj: dict[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(obj.keys() - allowed)
    if unknown:
        raise _Bad(
            f"{where}: unknown field {', '.join(repr(k) for k in unknown)} "
            f"(allowed: {', '.join(sorted(allowed))})"
        )


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


__all__ = [
    "LANGS",
    "ROLES",
    "Message",
    "Probe",
    "Scenario",
    "ScenarioFormatError",
    "load_scenarios",
    "parse_scenarios",
]

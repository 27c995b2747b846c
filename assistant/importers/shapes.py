"""Type checks for untrusted JSON: a wrong type is refused with where it was found."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, TypeVar

from assistant.importers.records import (
    ImportedConversation,
    ImportedTurn,
    ImportRefused,
    ImportSource,
)

T = TypeVar("T")
_NAMES = {dict: "an object", list: "a list", str: "text", int: "a number", float: "a number"}


def expect(value: Any, kind: type[T], where: str) -> T:
    """`value` if it is a `kind`, else a refusal that names `where` and what was found."""
    if isinstance(value, kind) and not isinstance(value, bool):
        return value
    found = "nothing" if value is None else _NAMES.get(type(value), type(value).__name__)
    raise ImportRefused(f"{where} should be {_NAMES.get(kind, kind.__name__)}, but it is {found}.",
                        "This is not an unmodified export: download it again from the assistant's settings.")


def optional(value: Any, kind: type[T], where: str) -> T | None:
    return None if value is None else expect(value, kind, where)


def conversations_list(data: Any, name: str) -> list[Any]:
    if isinstance(data, dict):
        raise ImportRefused(f"The {name} export should hold a list of conversations, but it holds a single object.",
                            "Choose the conversations.json of the export (or the .zip itself).")
    return expect(data, list, f"The {name} export")


def each_conversation(data: Any, export: str, parse: Callable[[dict[str, Any], str], T]) -> list[T]:
    """`parse(conversation, where)` for every conversation of an export's list."""
    items = conversations_list(data, export)
    return [parse(expect(item, dict, f"Conversation {n}"), f"Conversation {n}") for n, item in enumerate(items, 1)]


def require(raw: dict[str, Any], key: str, where: str, export: str, other: tuple[str, str]) -> None:
    """Refuse a conversation without `key`, saying so when it has the other export's (`other`:
    its key and name)."""
    if key in raw:
        return
    hint = f" It looks like a {other[1]} export: use the {other[1]} importer." if other[0] in raw else ""
    raise ImportRefused(f"{where} has no \"{key}\": this is not a {export} export.{hint}")


def assemble(source: ImportSource, title: str, started: datetime | None, items: Iterable[T],
             make_turn: Callable[[T, datetime | None], ImportedTurn | None]) -> ImportedConversation:
    """A conversation of the turns `make_turn(item, time of the turn before)` gives (None:
    skipped); with no time of its own it starts at its first turn."""
    turns: list[ImportedTurn] = []
    for item in items:
        turn = make_turn(item, turns[-1].at if turns else started)
        if turn is not None:
            turns.append(turn)
    begun = started or (turns[0].at if turns else datetime.fromtimestamp(0, UTC))
    return ImportedConversation(source, title, begun, tuple(turns))

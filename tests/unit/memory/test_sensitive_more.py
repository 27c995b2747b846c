"""find_sensitive against the evaluation scenarios, plus international phones, cards and addresses."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.memory.sensitive import find_sensitive

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios" / "dev.jsonl"
# The same separators the evaluation's plaintext scan squeezes out between digits.
_SEP_BETWEEN_DIGITS = re.compile(r"(?<=\d)[\s\-./_,:()\u00a0]+(?=\d)")


def _scenarios() -> list[dict]:
    with SCENARIOS.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _user_messages(scenario: dict) -> list[str]:
    return [e["content"] for e in scenario["events"] if e.get("role") == "user"]


def _squeeze(text: str) -> tuple[str, list[int]]:
    """`text` without separators between digits, and each kept character's index in `text`."""
    dropped = {i for m in _SEP_BETWEEN_DIGITS.finditer(text) for i in range(m.start(), m.end())}
    kept = [i for i in range(len(text)) if i not in dropped]
    return "".join(text[i] for i in kept), kept


def _occurrences(message: str, value: str) -> Iterator[list[int]]:
    """Index lists of the characters of `message` that spell `value` (digits may be squeezed)."""
    start = message.find(value)
    while start >= 0:
        yield list(range(start, start + len(value)))
        start = message.find(value, start + 1)
    if re.search(r"\d", value):
        squeezed, index = _squeeze(message)
        needle, _ = _squeeze(value)
        start = squeezed.find(needle)
        while start >= 0:
            yield index[start : start + len(needle)]
            start = squeezed.find(needle, start + 1)


def _covered(message: str) -> set[int]:
    return {i for s in find_sensitive(message) for i in range(s.start, s.end)}


SENSITIVE_CASES = [
    pytest.param(sc["id"], value, id=f"{sc['id']}:{value}")
    for sc in _scenarios()
    for value in sc.get("sensitive", [])
]


@pytest.mark.parametrize(("scenario_id", "value"), SENSITIVE_CASES)
def test_every_scenario_sensitive_value_is_found(scenario_id: str, value: str) -> None:
    scenario = next(sc for sc in _scenarios() if sc["id"] == scenario_id)
    seen = False
    for message in _user_messages(scenario):
        covered = _covered(message)
        for chars in _occurrences(message, value):
            seen = True
            missed = "".join(
                message[i] for i in chars if i not in covered and not message[i].isspace()
            )
            assert not missed, (
                f"{value!r} not fully covered in {message!r}: {find_sensitive(message)}"
            )
    assert seen, f"{value!r} does not occur in any user message of {scenario_id}"


def test_scenarios_list_sensitive_values() -> None:
    assert len(SENSITIVE_CASES) >= 10


def _expect_strings(scenario: dict) -> Iterator[str]:
    for event in scenario["events"]:
        for group in event.get("probe", {}).get("expect", []):
            yield from group if isinstance(group, list) else [group]


IDENT_CASES = [
    pytest.param(sc["id"], value, id=f"{sc['id']}:{value}")
    for sc in _scenarios()
    for value in dict.fromkeys(_expect_strings(sc))
    if re.search(r"\d", value)
]


@pytest.mark.parametrize(("scenario_id", "value"), IDENT_CASES)
def test_expected_identifiers_are_not_flagged(scenario_id: str, value: str) -> None:
    assert find_sensitive(value) == [], value
    scenario = next(sc for sc in _scenarios() if sc["id"] == scenario_id)
    for message in _user_messages(scenario):
        covered = _covered(message)
        start = message.find(value)
        while start >= 0:
            assert not covered & set(range(start, start + len(value))), (
                message,
                find_sensitive(message),
            )
            start = message.find(value, start + 1)


def test_identifier_scenarios_exist() -> None:
    values = {p.values[1] for p in IDENT_CASES}
    assert {"JD2026021088341207", "113-4820917-5521346", "CS-0091-4471"} <= values


def kinds(text: str) -> list[tuple[str, str]]:
    return [(s.kind, s.value) for s in find_sensitive(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # phones: US / UK / EU with country codes, parentheses, dots, spaces
        ("my new cell is (617) 555-0143, the old", [("phone", "(617) 555-0143")]),
        (
            "call 617-555-0143 or 617.555.0143",
            [("phone", "617-555-0143"), ("phone", "617.555.0143")],
        ),
        ("reach me on +1 (617) 555-0143", [("phone", "+1 (617) 555-0143")]),
        ("US: +1-212-555-0199", [("phone", "+1-212-555-0199")]),
        ("1 800 555 0199 toll free", [("phone", "1 800 555 0199")]),
        ("office +44 20 7946 0958", [("phone", "+44 20 7946 0958")]),
        ("office +44 (0)20 7946 0958", [("phone", "+44 (0)20 7946 0958")]),
        ("mobile 07700 900123", [("phone", "07700 900123")]),
        ("landline (020) 7946 0958", [("phone", "(020) 7946 0958")]),
        ("Berlin: +49 30 12345678", [("phone", "+49 30 12345678")]),
        ("ruf an: 0049 30 1234567", [("phone", "0049 30 1234567")]),
        ("portable +33 6 12 34 56 78", [("phone", "+33 6 12 34 56 78")]),
        ("Roma +39 06 1234 5678", [("phone", "+39 06 1234 5678")]),
        ("NL +31.20.123.4567", [("phone", "+31.20.123.4567")]),
        # cards: 4-4-4-4, dashes, Amex 4-6-5, next to an order word but named as a card
        (
            "for online orders use my visa 4539 1488 0343 6467, exp 09/28",
            [("bank_card", "4539 1488 0343 6467")],
        ),
        ("card 4539-1488-0343-6467", [("bank_card", "4539-1488-0343-6467")]),
        ("amex 3782 822463 10005", [("bank_card", "3782 822463 10005")]),
        ("amex 3782-822463-10005 exp 01/29", [("bank_card", "3782-822463-10005")]),
        # Chinese addresses with spaces and building / unit / room words
        (
            "我家地址是杭州市西湖区文三路 478 号 3 幢 1202，快递",
            [("address", "杭州市西湖区文三路 478 号 3 幢 1202")],
        ),
        ("住在阳光小区5号楼2单元301", [("address", "阳光小区5号楼2单元301")]),
        ("寄到长乐路 100 弄 5 号 601 室", [("address", "长乐路 100 弄 5 号 601 室")]),
        ("万科花园 3 栋 2 单元 502 室，记一下", [("address", "万科花园 3 栋 2 单元 502 室")]),
        ("文三路478号3-1202", [("address", "文三路478号3-1202")]),
        # UK / US / EU street addresses with flats and postcodes
        (
            "my address for deliveries? 14 Kelvin Grove, Flat 3B, Glasgow G3 7SA",
            [("address", "14 Kelvin Grove, Flat 3B, Glasgow G3 7SA")],
        ),
        (
            "Flat 3B, 14 Kelvin Grove, Glasgow G3 7SA",
            [("address", "Flat 3B, 14 Kelvin Grove, Glasgow G3 7SA")],
        ),
        ("10 Downing Street, London SW1A 2AA", [("address", "10 Downing Street, London SW1A 2AA")]),
        (
            "742 Evergreen Terrace, Springfield, IL 62704",
            [("address", "742 Evergreen Terrace, Springfield, IL 62704")],
        ),
        (
            "350 5th Ave, Apt 12C, New York, NY 10118",
            [("address", "350 5th Ave, Apt 12C, New York, NY 10118")],
        ),
        (
            "1600 Pennsylvania Ave NW, Washington, DC 20500",
            [("address", "1600 Pennsylvania Ave NW, Washington, DC 20500")],
        ),
        ("ich wohne Hauptstraße 5, 10115 Berlin", [("address", "Hauptstraße 5, 10115 Berlin")]),
        ("Berliner Straße 12a, 80331 München", [("address", "Berliner Straße 12a, 80331 München")]),
        ("Via Roma 12, 00184 Roma", [("address", "Via Roma 12, 00184 Roma")]),
        ("12 rue de Rivoli, 75001 Paris", [("address", "12 rue de Rivoli, 75001 Paris")]),
        ("my postcode is G3 7SA", [("address", "G3 7SA")]),
        ("zip code: 94107", [("address", "94107")]),
    ],
)
def test_finds_international(text: str, expected: list[tuple[str, str]]) -> None:
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "amazon order 113-4820917-5521346 still says 'preparing for shipment'",
        "订单号 JD2026021088341207，帮我记下",
        "快递单号 SF1432098765512，顺丰的",
        "SF14320987655",
        "filed a ticket, ref #CS-0091-4471. callback within 48h",
        "工单 IT-58213",
        "it costs $1,299.99 or €2.499,00",
        "meeting 2026-03-05 at 10:30, back by 17:45",
        "on 05/03/2024 and 2024.03.05",
        "version 10.2.3.4567 shipped",
        "in Spring 2024 we moved",
        "I live in Glasgow now",
        "Apple M2 8GB laptop",
        "I walked 2 Miles Down the hill",
        "population 1,234,567,890",
        "call 617-555-0143-22",
        "serial 0000 0000 0000",
        "00 00 00 00 00 00",
        "帮我算下 3500 块分 12 期，每期多少",
        "我家在3号楼",
        "度数是左眼 450 右眼 500",
        "order 4111 1111 1111 1111",
    ],
)
def test_ordinary_numbers_not_flagged(text: str) -> None:
    assert find_sensitive(text) == []


@pytest.mark.parametrize(
    "big",
    [
        "00 " * 333_333,
        "+1 " * 333_333,
        "(617) " * 166_666,
        "Hauptstraße " * 80_000,
        "12 rue de " * 100_000,
        "postcode " * 110_000,
        "Flat 3B, " * 111_111,
        "文三路 478 " * 125_000,
    ],
    ids=range(8),
)
def test_megabyte_adversarial_input_is_fast(big: str) -> None:
    start = time.perf_counter()
    find_sensitive(big)
    # a hang guard, not a speed target (figures come from benchmarks): catastrophic
    # backtracking on 1 MB would take minutes, linear matching well under a second
    assert time.perf_counter() - start < 20.0

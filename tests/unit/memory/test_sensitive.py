"""find_sensitive / mask / redact on real-looking Chinese and English text."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.memory.sensitive import (
    SensitiveSpan,
    find_sensitive,
    id_number_ok,
    luhn_ok,
    mask,
    redact,
)


def kinds(text: str) -> list[tuple[str, str]]:
    return [(s.kind, s.value) for s in find_sensitive(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我的手机号是13812345678，有事打我", [("phone", "13812345678")]),
        ("call me at +86 138-1234-5678 tonight", [("phone", "+86 138-1234-5678")]),
        ("电话：139 1234 5678", [("phone", "139 1234 5678")]),
        ("my number's 15912345678.", [("phone", "15912345678")]),
        ("身份证号 11010519491231002X 别外传", [("id_number", "11010519491231002X")]),
        ("id: 110105194912310021x", []),  # bad checksum and 19 chars
        ("card 4111 1111 1111 1111 exp 12/27", [("bank_card", "4111 1111 1111 1111")]),
        ("no. 6222-0212-3456-7899-0", []),  # fails Luhn
        ("卡号6222-0212-3456-7899-0", [("bank_card", "6222-0212-3456-7899-0")]),  # named: no Luhn needed
        ("my card is 5500000000000004", [("bank_card", "5500000000000004")]),
        ("mail me: a.b+tag@example.co.uk!", [("email", "a.b+tag@example.co.uk")]),
        ("邮箱是 zhang_san@163.com", [("email", "zhang_san@163.com")]),
        ("我住在北京市海淀区中关村大街27号", [("address", "北京市海淀区中关村大街27号")]),
        ("地址：上海市浦东新区世纪大道100号3单元502室", [("address", "上海市浦东新区世纪大道100号3单元502室")]),
        ("快递寄到杭州市西湖区文三路478号", [("address", "杭州市西湖区文三路478号")]),
        ("I live at 221B Baker Street, London", [("address", "221B Baker Street, London")]),
        ("HQ is 1600 Amphitheatre Parkway, Mountain View", [("address", "1600 Amphitheatre Parkway, Mountain View")]),
        ("send it to 123 Main St Apt 4", [("address", "123 Main St Apt 4")]),
        ("my password is hunter2.", [("password", "hunter2")]),
        ("wifi password: Sunny_2024", [("password", "Sunny_2024")]),
        ("The WiFi password is cafe1234!", [("password", "cafe1234!")]),  # "!" may be part of it
        ("密码是abc123", [("password", "abc123")]),
        ("银行卡密码：887766", [("password", "887766")]),
        ("my pin is 1234", [("pin", "1234")]),
    ],
)
def test_finds(text: str, expected: list[tuple[str, str]]) -> None:
    assert kinds(text) == expected
    for span in find_sensitive(text):
        assert text[span.start : span.end] == span.value


@pytest.mark.parametrize(
    "text",
    [
        "I live in Berlin",
        "我住在杭州",
        "我在海淀区上班",
        "我住在杭州西湖区文三路",
        "my order 4521-8890-12 cost ¥199 on 2024-03-05",
        "订单号 4111111111111111",
        "the meeting is at 3:30 on March 5",
        "I ran 5 miles down the road",
        "it costs $1,299.99",
        "version 1.2.3 released in 2024",
        "my password is wrong",
        "the pin is on the table",
        "密码是多少",
        "I have 3 kids and 2 cats",
        "1234567890123456789012345",  # one long number, not a card
        "我家在3号楼",
        "room 1203 on the 12th floor",
    ],
)
def test_ordinary_text_is_not_sensitive(text: str) -> None:
    assert find_sensitive(text) == []


@pytest.mark.parametrize(
    ("kind", "value", "masked"),
    [
        ("phone", "13812345678", "138****5678"),
        ("phone", "+86 138-1234-5678", "138****5678"),
        ("id_number", "11010519491231002X", "1101**********002X"),
        ("bank_card", "4111 1111 1111 1234", "**** **** **** 1234"),
        ("email", "alice@example.com", "a***@example.com"),
        ("address", "北京市海淀区中关村大街27号", "北京市海淀区***"),
        ("address", "221B Baker Street, London", "***, London"),
        ("address", "123 Main St Apt 4", "***"),
        ("password", "hunter2", "***"),
    ],
)
def test_mask(kind: str, value: str, masked: str) -> None:
    assert mask(kind, value) == masked


def test_spans_sorted_and_non_overlapping() -> None:
    text = "13812345678@qq.com 和 13912345678，住北京市朝阳区建国路88号，pin: 9999"
    spans = find_sensitive(text)
    assert [s.kind for s in spans] == ["email", "phone", "address", "pin"]
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))


def test_redact_replaces_each_span() -> None:
    text = "call 13812345678 or mail bob@example.com"
    out = redact(text, find_sensitive(text), lambda s: f"[{s.kind}]")
    assert out == "call [phone] or mail [email]"
    assert redact(text, [], lambda s: "x") == text


def test_redact_skips_overlap() -> None:
    a = SensitiveSpan("phone", 0, 5, "12345", "x")
    b = SensitiveSpan("phone", 3, 8, "45678", "y")
    assert redact("1234567890", [a, b], lambda s: s.masked) == "x67890"


def test_checksums() -> None:
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert id_number_ok("11010519491231002X") and not id_number_ok("110105194912310021")


@pytest.mark.parametrize(
    "big",
    [
        "a" * 1_000_000,
        "1" * 1_000_000,
        "1 " * 500_000,
        "中" * 1_000_000,
        "a@" * 500_000,
        "北京市" * 333_333,
        "路1" * 500_000,
        "Aa " * 333_333,
        "\x00\x01\n\t" * 250_000,
    ],
    ids=range(9),
)
def test_megabyte_input_is_fast(big: str) -> None:
    start = time.perf_counter()
    find_sensitive(big)
    # a hang guard, not a speed target (figures come from benchmarks): catastrophic
    # backtracking on 1 MB would take minutes, linear matching well under a second
    assert time.perf_counter() - start < 20.0


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_never_raises(text: str) -> None:
    for span in find_sensitive(text):
        assert text[span.start : span.end] == span.value

"""Find, mask and redact sensitive spans: phones, ID numbers, cards, e-mail, addresses, and any
value a key word names ("passport number is X1234567", "密码：s3cr3t!").

Pure functions over text, Chinese and English. Every pattern is linear-time: runs are anchored
by look-behinds so a scan never restarts inside a run, and repetitions are bounded.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

KIND_LABELS: dict[str, tuple[str, str]] = {
    "phone": ("phone number", "手机号"),
    "id_number": ("ID number", "身份证号"),
    "bank_card": ("bank card", "银行卡号"),
    "email": ("e-mail", "邮箱"),
    "address": ("address", "住址"),
    "password": ("password", "密码"),
    "passport": ("passport number", "护照号"),
    "ssn": ("social security number", "社会安全号"),
    "driver_license": ("driver's license number", "驾照号"),
    "iban": ("IBAN", "IBAN 账号"),
    "account": ("account number", "账号"),
    "pin": ("PIN", "PIN 码"),
    "license_plate": ("license plate", "车牌号"),
    "policy_number": ("policy number", "保单号"),
    "tax_id": ("tax ID", "税号"),
    "security_code": ("card security code", "卡安全码"),
    "api_key": ("API key or token", "密钥"),
    "recovery_code": ("recovery code", "恢复码"),
}
"""What each kind is called, in English and in Chinese (shown instead of the kind's id)."""
KINDS = tuple(KIND_LABELS)


@dataclass(frozen=True)
class SensitiveSpan:
    """One sensitive value found in a text: `text[start:end] == value`."""

    kind: str
    start: int
    end: int
    value: str
    masked: str


# A run of digits with single spaces/dashes between them; phones, IDs and cards live inside one.
_RUN = re.compile(r"\d{3,}(?:[ \-]\d+)*[Xx]?")
_PHONE = re.compile(r"(?:(?:\+|00)?86[ \-]?)?1[3-9]\d(?:[ \-]?\d{4}){2}(?!\d)")
# International phones, checked separately from the digit runs above. Every form carries a mark
# an ordinary number lacks: a +/00 country code, a NANP (area) code, or a national trunk 0.
# Each pattern opens with a plain character class and checks the character before it with a
# look-behind placed after that first character, so the engine can skip ahead to candidates.
_B = r"[0-9A-Za-z+\-./(]"  # a phone never continues a word, a number, a path or a sign
_B_OPEN = r"[0-9A-Za-z+\-./]"  # "(07700 900312)": a whole number in brackets
_PHONE_END = r"(?![0-9A-Za-z]|[.\-]\d)"
_INTL_PHONE = re.compile(
    rf"(?:\+(?<!{_B}\+)|0(?<!{_B}0)0)[1-9]\d{{0,2}}(?:[ .\-]?\(0\))?"
    r"(?:[ .\-]?\(\d{1,5}\))?(?:[ .\-]?\d{1,10})(?:[ .\-]\d{1,10}){0,6}" + _PHONE_END
)
_NANP_PHONE = re.compile(
    rf"(?:1(?<!{_B}1)[ .\-]?(?:\([2-9]\d{{2}}\) ?|[2-9]\d{{2}}[ .\-])"
    rf"|\((?<!{_B}\()[2-9]\d{{2}}\) ?|[2-9](?<!{_B}[2-9])\d{{2}}[ .\-])"
    r"[2-9]\d{2}[ .\-]\d{4}" + _PHONE_END
)
_NATIONAL_PHONE = re.compile(
    rf"(?:\((?<!{_B}\()0[1-9]\d{{0,3}}\) ?|0(?<!{_B_OPEN}0)[1-9]\d{{0,3}}[ \-]?)\d{{2,4}}(?:[ \-]?\d{{2,4}}){{1,3}}"
    + _PHONE_END
)
_ID = re.compile(r"(?<![0-9A-Za-z])\d{17}[\dXx](?![0-9A-Za-z])")
_CARD = re.compile(r"(?<![0-9A-Za-z-])\d(?:[ -]?\d){12,18}(?![\d])")
_CARD_WORD = re.compile(r"(?i:card|visa|master|amex|maestro|debit|credit|卡)")
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,6}\.[A-Za-z]{2,24}(?![A-Za-z0-9-])"
)
_CJK = r"\u4e00-\u9fff"
_NUM = r"[0-9一二三四五六七八九十百零〇两]{1,6}"
# Anchor on the part every street address has (a street or estate followed by a number), then
# walk back over the place names in Python; a regex that guessed the prefix would backtrack.
# People type spaces around the numbers ("文三路 478 号 3 幢 1202"), so allow one between parts.
_ZH_ANCHOR = re.compile(
    rf"(?:大街|大道|路|街|巷|弄|胡同|里) ?{_NUM} ?(?:号|弄)"
    rf"|(?:小区|花园|公寓|大厦|新村|家园|苑|社区|广场)(?= ?{_NUM} ?(?:号楼|号院|栋|幢|座|单元|号))"
)
_ZH_UNITS = re.compile(
    rf"(?: ?[-—]? ?{_NUM} ?(?:号楼|号院|栋|幢|座|单元|层|楼|室|号|弄)){{1,5}}"
    rf"(?: ?[-—]? ?\d{{2,5}} ?室?(?![\d年月日时点分元块岁个:：.,/]))?"
)
# "478号3-1202" / "3栋1202": a building-room pair typed without unit words.
_ZH_ROOM = re.compile(r" ?\d{1,4} ?[-—] ?\d{2,5} ?室?(?![\d年月日时点分元块岁个:：.,/-])")
_ZH_LEAD = re.compile(r".*(?:住在|住|搬到|搬去|位于|寄到|送到|发到|地址|址|在|是|到|为|和|跟|从|去)")
_ZH_ADMIN_PREFIX = re.compile(rf"^(?:[{_CJK}]{{1,8}}?(?:省|自治区|特别行政区|市|区|县)){{1,4}}")
_ZH_BACK = 24  # how far back the place names of one address may reach

_EN_SUFFIX = (
    r"(?i:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|parkway|pkwy"
    r"|way|place|pl|terrace|square|sq|highway|hwy|close|crescent|grove|gardens|gdns|mews|row"
    r"|circle|cir|trail|alley|quay|wharf)"
)
_EN_UNIT = r"(?i:apt|apartment|suite|ste|unit|flat|#)\.?\s*#?[A-Za-z0-9-]{1,6}\b"
_CITY = r"[A-Z][A-Za-z'-]{1,20}\b(?:\s+[A-Z][A-Za-z'-]{1,20}\b){0,3}"
# UK postcode ("G3 7SA", "SW1A 1AA"), US state + ZIP ("IL 62704"), or a 4-5 digit postcode and city.
_UK_POSTCODE = r"[A-Z]{1,2}\d[A-Z\d]?\s\d[ABD-HJLNP-UW-Z]{2}\b"
_EN_TAIL = (
    rf"(?:,\s*{_CITY})?"
    rf"(?:,?\s+(?:{_UK_POSTCODE}|[A-Z]{{2}}\s+\d{{5}}(?:-\d{{4}})?(?!\d))"
    r"|,\s*\d{4,5}\s+[A-ZÄÖÜ][a-zäöüß]{1,20}\b)?"
)
_EN_ADDRESS = re.compile(
    r"\d(?<![\w.]\d)\d{0,4}[A-Za-z]?\s+"
    r"(?:(?:\d{1,3}(?:st|nd|rd|th)|[A-Z][A-Za-z'-]{0,20})\s+){1,4}" + _EN_SUFFIX + r"\b\.?"
    r"(?:\s+(?:[NS][EW]?|[EW])\b)?"
    rf"(?:,?\s*{_EN_UNIT})?" + _EN_TAIL
)
_EN_UNIT_BEFORE = re.compile(_EN_UNIT + r",?\s+$")
_EU_CITY_TAIL = r"(?:,?\s*\d{4,5}\s+[A-ZÄÖÜ][a-zäöüßà-ÿ]{1,20}\b)?"
# Continental streets: "Hauptstraße 5, 10115 Berlin", "Via Roma 12", "12 rue de Rivoli, 75001 Paris".
# German street words are glued to the name, so anchor on the ending and walk back in Python.
_DE_ANCHOR = re.compile(
    r"(?:[sS]tra(?:ße|sse)|[sS]tr\.|[wW]eg|[aA]llee|[pP]latz|[gG]asse)\s+\d{1,4}[a-z]?(?![\w.,]\d)\b" + _EU_CITY_TAIL
)
_SOUTH_ADDRESS = re.compile(
    r"(?:Via|Viale|Piazza|Calle|Carrer|Avenida|Rua)\s+(?:(?:de|del|della|di|da|do|dos|la)\s+){0,2}"
    r"[A-Z][a-zà-ÿ'-]{1,25}(?:\s+[A-Z][a-zà-ÿ'-]{1,25}){0,2}\s+\d{1,4}[a-z]?(?![\w.,]\d)\b" + _EU_CITY_TAIL
)
_FR_ADDRESS = re.compile(
    r"\d(?<![\w.]\d)\d{0,3}(?:bis|ter)?,?\s+(?i:rue|avenue|boulevard|bd|place|chemin|allée|impasse|quai)\s+"
    r"(?:(?:de|du|des|la|le|d'|l')\s*){0,3}[A-ZÀ-Ý][A-Za-zÀ-ÿ'-]{1,25}(?:\s+[A-Z][A-Za-zÀ-ÿ'-]{1,25}){0,3}"
    r"(?:,?\s*\d{5}\s+[A-Z][A-Za-zÀ-ÿ'-]{1,20}\b)?"
)
# A postcode on its own is only an address when the text says so.
_POSTCODE = re.compile(
    r"(?i:post\s?code|postal\s+code|zip(?:\s+code)?|plz|邮编|邮政编码)\s*(?:is|was|:|：|是|为)?\s*"
    rf"({_UK_POSTCODE}|\d{{5}}(?:-\d{{4}})?(?!\d)|\d{{6}}(?!\d))"
)


def _latin(ch: str) -> bool:
    return ch.isalpha() and ch < "\u0250"


def _de_street_start(text: str, anchor: int) -> int:
    """Start of the street name ending at `anchor` ("Haupt|straße", "Berliner |Straße"), or -1."""
    start = anchor
    while start > max(0, anchor - 30) and _latin(text[start - 1]):
        start -= 1
    if start == anchor:  # "Straße 5" on its own: take one capitalised word before it
        prev = start - 1
        if prev > 0 and text[prev] in " -":
            word = prev
            while word > max(0, prev - 26) and _latin(text[word - 1]):
                word -= 1
            glued = word > 0 and (text[word - 1].isdigit() or _latin(text[word - 1]))
            if word < prev and text[word].isupper() and not glued:
                return word
    if start > 0 and (text[start - 1].isdigit() or _latin(text[start - 1])):
        return -1
    return start if text[start].isupper() else -1


_FR_WORDS = ("rue", "avenue", "boulevard", "bd", "place", "chemin", "allée", "impasse", "quai")
_SOUTH_WORDS = ("Via", "Viale", "Piazza", "Calle", "Carrer", "Avenida", "Rua")
_DE_WORDS = ("stra", "str.", "weg", "allee", "platz", "gasse")


def _en_address_spans(text: str) -> Iterator[tuple[int, SensitiveSpan]]:
    for m in _EN_ADDRESS.finditer(text):
        start = m.start()
        unit = _EN_UNIT_BEFORE.search(text, max(0, start - 24), start)
        yield 5, _span("address", text, unit.start() if unit else start, m.end())
    lowered = text.lower()
    if any(w in lowered for w in _FR_WORDS):
        for m in _FR_ADDRESS.finditer(text):
            yield 5, _span("address", text, m.start(), m.end())
    if any(w in text for w in _SOUTH_WORDS):
        for m in _SOUTH_ADDRESS.finditer(text):
            if m.start() == 0 or not text[m.start() - 1].isalnum():
                yield 5, _span("address", text, m.start(), m.end())
    if any(w in lowered for w in _DE_WORDS):
        for m in _DE_ANCHOR.finditer(text):
            start = _de_street_start(text, m.start())
            if start >= 0:
                yield 5, _span("address", text, start, m.end())
    lowered = text.lower()
    if any(w in lowered for w in ("post", "zip", "plz", "邮")):
        for m in _POSTCODE.finditer(text):
            yield 5, _span("address", text, m.start(1), m.end(1))


def _digits(value: str) -> str:
    return "".join(ch for ch in value if ch.isdigit() or ch in "Xx")


def luhn_ok(number: str) -> bool:
    """Return True when a digit string passes the Luhn checksum."""
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def id_number_ok(number: str) -> bool:
    """Return True for an 18-character Chinese resident ID with a valid ISO 7064 check and date."""
    if len(number) != 18 or not number[:17].isdigit():
        return False
    month, day = int(number[10:12]), int(number[12:14])
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return False
    total = sum(int(ch) * w for ch, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11] == number[17].upper()


def ssn_ok(number: str) -> bool:
    """Return True for a US social security number that could be issued (not 000/666/9xx-00-0000)."""
    digits = number.replace("-", "").replace(" ", "")
    if len(digits) != 9 or not digits.isdigit():
        return False
    return digits[:3] not in ("000", "666") and digits[0] != "9" and digits[3:5] != "00" and digits[5:] != "0000"


def iban_ok(number: str) -> bool:
    """Return True for an IBAN (ISO 13616) whose mod-97 check holds, grouped or not."""
    compact = number.replace(" ", "").upper()
    if not (15 <= len(compact) <= 34 and compact.isascii() and compact.isalnum()):
        return False
    if not (compact[:2].isalpha() and compact[2:4].isdigit()):
        return False
    return int("".join(str(int(ch, 36)) for ch in compact[4:] + compact[:4])) % 97 == 1


_SSN = re.compile(r"\d(?<![0-9A-Za-z-]\d)\d{2}-\d{2}-\d{4}(?![0-9-])")
_IBAN = re.compile(r"[A-Z](?<![0-9A-Za-z][A-Z])[A-Z]\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![0-9A-Za-z])")


# Written the way banks print one ("NL27 INGB 0008 8213 47"): an IBAN even when its check
# digits are mistyped, and nothing else is shaped so.
_IBAN_GROUPED = re.compile(r"[A-Z]{2}\d{2}(?: [A-Z0-9]{4}){3,7}(?: [A-Z0-9]{1,3})?")


# Secret keys whose shape says what they are: "sk-live-…", "ghp_…", "xoxb-…", "AKIA…", "Bearer …".
_API_KEY = re.compile(
    r"(?<![A-Za-z0-9_-])(?:sk-(?:live-|test-|proj-|ant-)?[A-Za-z0-9_-]{16,}|[ps]k_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|rk_(?:live|test)_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-])"
    r"|(?<=Bearer )[A-Za-z0-9._~+/-]{20,}=*"
)


def _shape_spans(text: str) -> Iterator[tuple[int, SensitiveSpan]]:
    """SSNs, IBANs and API keys: shapes that checks tell apart from other text without a key word."""
    for m in _API_KEY.finditer(text):
        yield -1, _span("api_key", text, m.start(), m.end())
    if "-" in text:
        for m in _SSN.finditer(text):
            if ssn_ok(m.group(0)) and not _named_as_id(text, m.start()):
                yield 1, _span("ssn", text, m.start(), m.end())
    for m in _IBAN.finditer(text):
        if iban_ok(m.group(0)) or (_IBAN_GROUPED.fullmatch(m.group(0)) and not _named_as_id(text, m.start())):
            yield 0, _span("iban", text, m.start(), m.end())
    for m in _ZH_PLATE.finditer(text):
        yield 0, _span("license_plate", text, m.start(), m.end())


# A mainland Chinese plate: a province, a letter, then five or six letters and digits (no I or
# O), at least one a digit: "浙A·D73K9", "粤B12345", "京AD12345" (new energy).
_PROVINCE_CHARS = "京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼"
_ZH_PLATE = re.compile(
    rf"(?<![A-Za-z0-9])[{_PROVINCE_CHARS}][A-HJ-NP-Z][·•・.\- ]?"
    r"(?=[A-HJ-NP-Z]{0,5}\d)[A-HJ-NP-Z0-9]{5,6}(?![A-Za-z0-9])"
)


_ID_CONTEXT = re.compile(
    r"(?i:order|ticket|tracking|booking|reference|invoice|case|parcel|package|shipment"
    r"|订单|单号|工单|快递|运单|物流|编号|发票)"
)


def mask(kind: str, value: str) -> str:
    """Return a display-safe stub of a sensitive value (e.g. ``138****5678``)."""
    digits = _digits(value)
    if kind == "phone":
        digits = digits[-11:] if len(digits) > 11 else digits
        return digits[:3] + "****" + digits[-4:]
    if kind == "id_number" and len(value) == 18:
        return value[:4] + "*" * 10 + value[-4:].upper()
    if kind == "bank_card" and len(digits) >= 12:
        return "**** **** **** " + digits[-4:]
    if kind == "ssn" and ssn_ok(value):
        return "***-**-" + digits[-4:]
    if kind == "email":
        local, _, domain = value.partition("@")
        return (local[:1] or "*") + "***@" + domain
    if kind == "address":
        prefix = _ZH_ADMIN_PREFIX.match(value)
        if prefix and prefix.end() < len(value):
            return prefix.group(0) + "***"
        city = value.rsplit(",", 1)
        if len(city) == 2 and not any(ch.isdigit() for ch in city[1]):
            return "***," + city[1]
        return "***"
    if kind in ("pin", "security_code", "api_key", "recovery_code"):
        return "****"
    if kind in KIND_LABELS and kind != "password":
        return _tail(value)
    return "***"


def _tail(value: str) -> str:
    """``*****567``: the last few characters (at most four, at most half), never the whole value."""
    compact = "".join(ch for ch in value if ch.isalnum())
    keep = min(4 if len(compact) >= 10 else 3 if len(compact) >= 7 else 2, len(compact) // 2)
    return "*" * min(max(len(compact) - keep, 3), 8) + (compact[-keep:] if keep else "")


def _span(kind: str, text: str, start: int, end: int) -> SensitiveSpan:
    value = text[start:end]
    return SensitiveSpan(kind, start, end, value, mask(kind, value))


def _digit_spans(text: str) -> Iterator[tuple[int, SensitiveSpan]]:
    for run in _RUN.finditer(text):
        lo, hi = run.span()
        if sum(map(str.isdigit, text[lo : min(hi, lo + 64)])) < 11:
            continue
        if hi - lo > 19 and " " not in text[lo:hi] and "-" not in text[lo:hi]:
            continue  # one long unbroken number: a hash or a serial, never a phone or card
        hi = min(len(text), hi + 1)
        for m in _ID.finditer(text, lo, hi):
            if id_number_ok(m.group(0)):
                yield 1, _span("id_number", text, m.start(), m.end())
        for m in _PHONE.finditer(text, max(0, lo - 5), hi):
            before = text[m.start() - 1] if m.start() else ""
            if not (before.isdigit() or before in "+-" or ("a" <= before.lower() <= "z")):
                yield 2, _span("phone", text, m.start(), m.end())
        for m in _CARD.finditer(text, lo, hi):
            digits = _digits(m.group(0))
            if not luhn_ok(digits) or not _card_shaped(m.group(0)) or _id_context(text, m.start()):
                continue
            if len(digits) == 18 and id_number_ok(m.group(0)):
                continue
            yield 3, _span("bank_card", text, m.start(), m.end())


_GROUP = re.compile(r"[ -]")


def _card_shaped(value: str) -> bool:
    """A card is written unbroken, in fours (4-4-4-4, 4-4-4-4-3) or in the Amex 4-6-5 layout."""
    groups = [len(g) for g in _GROUP.split(value)]
    if len(groups) == 1:
        return True
    if groups in ([4, 6, 5], [4, 6, 4]):
        return True
    return all(g == 4 for g in groups[:-1]) and 1 <= groups[-1] <= 4


def _id_context(text: str, start: int) -> bool:
    """True when an order/ticket word names the number, and no card word comes between them."""
    window = text[max(0, start - 24) : start]
    named = list(_ID_CONTEXT.finditer(window))
    return bool(named) and not _CARD_WORD.search(window, named[-1].end())


def _phone_digits_ok(value: str, lo: int, hi: int) -> bool:
    return lo <= sum(map(str.isdigit, value.replace("(0)", ""))) <= hi


def _intl_phone_spans(text: str) -> Iterator[tuple[int, SensitiveSpan]]:
    if "+" in text or "00" in text:
        for m in _INTL_PHONE.finditer(text):
            if _phone_digits_ok(m.group(0), 9, 15) and not _named_as_id(text, m.start()):
                yield 2, _span("phone", text, m.start(), m.end())
    for m in _NANP_PHONE.finditer(text):
        yield 2, _span("phone", text, m.start(), m.end())
    if "0" in text:
        for m in _NATIONAL_PHONE.finditer(text):
            if _phone_digits_ok(m.group(0), 10, 11) and not _named_as_id(text, m.start()):
                yield 2, _span("phone", text, m.start(), m.end())


def _named_as_id(text: str, start: int) -> bool:
    return _ID_CONTEXT.search(text, max(0, start - 16), start) is not None


# -- values named by a key word -------------------------------------------------------------
# "passport number is X1234567": the key word says what the value is, whatever its shape. One
# scan finds the key words; the glue and the value are then matched where the key ends, with
# bounded patterns, and a key inside a value already taken is skipped: the work stays linear.


@dataclass(frozen=True)
class _Key:
    """A key word and what its value looks like.

    `value` is "id" (an identifier: a digit, four characters or more), "weak" (an identifier
    that is not a small number: after "insurance is" that is an amount), "secret" (any run
    without spaces) or "phrase" (the rest of the clause).
    """

    kind: str
    en: str  # whole words, any case
    zh: str = ""  # anywhere: Chinese puts no space between words
    value: str = "id"


_NUMBERED = r"(?=\s+(?:number|no\b|id\b|card))"  # "account" only as "account number", …
_PASS_NOT_AFTER = "".join(
    f"(?<!{word} )" for word in (
        "boarding", "bus", "season", "day", "ski", "hall", "park", "annual", "monthly", "weekly",
        "transit", "rail", "train", "metro", "festival", "museum", "backstage", "press", "guest",
        "visitor", "gym", "free", "all-access", "mountain", "a", "to", "will", "ll", "i", "can", "just",
    )
)
_PASS = _PASS_NOT_AFTER + r"pass(?=[ \t]*[:=][ \t]*\S|[ \t]+(?=\S{4,})\S*[\d!@#$%^&*])"
_KEYS = (
    _Key("passport", r"passport", "护照|通行证"),
    _Key("ssn", r"social\s+security|ssn|national\s+insurance|social\s+insurance|(?-i:SIN)|(?<=\bmy\s)social(?=\s+(?:is|number|no\b|#|:))", "社会安全|社会保障"),
    _Key("id_number", rf"national\s+id(?:entity)?(?:\s+card)?|id(?:entity)?\s+card|(?:id|identity){_NUMBERED}"
         r"|(?<=\bmy\s)id"
         # the national numbers of other countries, by their own names
         r"|nric|hkid|mykad|aadhaa?r|dni|nie|cpf|curp|pesel|personnummer|bsn|(?-i:FIN)(?=\s+(?:is|number|no\b|[:#]))",
         "身份证|证件|居民证|回乡证|台胞证"),
    _Key("driver_license", rf"driv(?:er'?s?|ing)\s+licen[cs]e|licen[cs]e{_NUMBERED}|(?<=\bmy\s)licen[cs]e(?!\s+plate)", "驾照|驾驶证|驾驶执照"),
    _Key("license_plate", rf"(?:licen[cs]e|number|registration|car)\s+plate|plate{_NUMBERED}|plates?"
         r"|(?<=\bcar\s)reg(?:istration)?(?=\s+(?:is|number|no\b)|:)", "车牌|牌照"),
    _Key("iban", r"iban"),
    _Key("account", rf"(?:bank|checking|savings|current)\s+account|account{_NUMBERED}|acct", "账号|账户"),
    _Key("account", r"account", value="weak"),
    _Key("account", r"routing(?:\s+number)?|sort\s+code|bsb|swift(?:\s+code)?|bic|a/c"
         r"|acc\.?(?=[ \t]*(?:no\.?|number|#|:)?[ \t]*\d)"),
    _Key("bank_card", rf"card{_NUMBERED}|card(?=\s+end(?:ing|s)\b)|(?:credit|debit|bank)\s+card|visa|mastercard|master\s+card|amex|american\s+express|discover\s+card",
         "银行卡|卡号|信用卡|储蓄卡|借记卡|工资卡|银联"),
    _Key("security_code", r"cvv2?|cvc2?|csc|cid|card\s+security\s+code|security\s+code", "安全码|CVV码|验证码|校验码"),
    # a code sent for one log-in: "one-time code 583920", "OTP: 4471", "动态码 882910"
    _Key("security_code", r"one[\s-]?time\s+(?:code|pin|passcode|password)|otp(?:\s+code)?|verification\s+code"
         r"|(?:2fa|two[\s-]factor|sms|text|login|log-in|sign[\s-]?in|auth(?:entication)?|authenticator)\s+code"
         # "my bank just texted me a code 662901"
         r"|(?:texted|sent|emailed|messaged|gave)\s+me\s+(?:(?:a|the|this|my|their)\s+)?(?:\w+\s+)?code",
         "动态码|动态密码|短信码|登录码"),
    _Key("pin", r"pin"),
    # "the door code is 2580", "locker combo 12-34-56": what opens something
    _Key("pin", r"(?:alarm|door|gate|garage|locker|safe|keypad|entry|building|lock|bike\s+lock)\s+(?:code|combo|combination|pin)"
         r"|combination|(?:lock\s+)?combo|(?:pickup|pick-up|collection|parcel\s+locker)\s+code",
         "门禁码|门禁密码|门锁密码|保险箱密码|密码锁|取件码|取货码|提货码|开箱码|门禁|门锁|密码门"),
    _Key("password", r"password|passcode|passwd|pwd|pw|pass\s+code|wi-?fi\s+(?:key|code)", "密码|口令", value="secret"),
    # "network Pinewood, pass pinecone77", "pass: x9!k": the short word, before a value that
    # has a digit or a symbol (not a boarding pass or "I'll pass")
    _Key("password", _PASS, value="secret"),
    _Key("password", r"pass\s?phrase", value="phrase"),
    _Key("api_key", r"api[\s_-]?key|access[\s_-]?key|secret[\s_-]?key|private[\s_-]?key"
         r"|(?:access|auth|api|bearer|github|gitlab|slack|openai|personal\s+access)[\s_-]?token", "密钥|秘钥|令牌", value="secret"),
    _Key("recovery_code", r"recovery\s+(?:code|key)s?|backup\s+codes?|2fa\s+codes?", "恢复码|备用码", value="secret"),
    _Key("recovery_code", r"seed\s+phrase|recovery\s+phrase|mnemonic(?:\s+phrase)?", "助记词", value="phrase"),
    _Key("policy_number", rf"(?:insurance\s+)?policy{_NUMBERED}|(?:insurance|medicare|nhs|health\s+card){_NUMBERED}"
         r"|(?:insurance|health\s+plan)\s+member(?:ship)?\s+(?:id|number)",
         "保单|保险单|医保卡|社保卡|医保|社保"),
    _Key("policy_number", r"insurance(?:\s+policy)?", value="weak"),
    _Key("tax_id", rf"tax(?:payer)?\s+(?:identification|file)|tax(?:payer)?{_NUMBERED}|tax\s+code"
         rf"|vat{_NUMBERED}|(?-i:EIN|ITIN|TIN|TFN|UTR)|(?-i:PAN)(?=\s+(?:card|number|no\b))", "税号|纳税人识别号|税务登记号"),
)
_KEY = re.compile(
    "|".join(
        f"((?<![A-Za-z0-9_])(?i:{key.en})(?![A-Za-z0-9_])" + (f"|{key.zh})" if key.zh else ")")
        for key in _KEYS
    )
)
# Numbers an order, a ticket or a membership gives out are identifiers to keep, not secrets.
_NOT_SECRET_BEFORE = re.compile(
    r"(?i:order|ticket|tracking|booking|reservation|confirmation|reference|invoice|parcel|shipment"
    r"|member(?:ship)?|loyalty|rewards?|library|frequent[ -]flyer|会员|积分|订单|快递|运单|物流|借书|图书)"
    r"(?:\s*(?:card|卡))?\s*$"
)
# What a code opens or proves is secret whatever it came with: "快递验证码 683912", "order PIN".
_CODES = frozenset({"pin", "security_code"})
_S = r"[ \t\u00a0\u3000]{0,3}"
# What people put between the key and the value: "'s", "号码", "number", "for my bank", "is", ":".
_GLUE = re.compile(
    r"(?:['’]s(?![A-Za-z]))?"
    rf"(?:{_S}的?(?:号码|号|码|后[四六46]位|尾号|末[四46]位)){{0,2}}"
    rf"(?:{_S}(?:(?i:number|num|no\.?|nr\.?|code|id|card)(?![A-Za-z])|#)){{0,2}}"
    rf"(?:[ \t]{{1,3}}(?i:for|of|to|at|on|with|from)(?:[ \t]{{1,3}}[^\s:=：]{{1,24}}){{1,3}}?"
    rf"(?={_S}(?:(?i:is|was)(?![A-Za-z])|[:=：])))?"
    # "门锁密码我改成 #902716", "password is now X", "PIN changed to 1234"
    rf"(?P<verb>{_S}(?:我们?|已经?|刚刚?)?(?:改成|换成|设成|设置成|设为|设置为|改为|变成|更新[为成]|现在是|现在)了?"
    rf"|{_S}(?i:(?:is|was)[ \t]+now|now|(?:(?:was|is|got|has\s+been)[ \t]+)?(?:changed|set|updated|reset)[ \t]+(?:it[ \t]+)?to)(?![A-Za-z]))?"
    # "card ending in 4242", "SSN's last four are 1120", "my plate reads 7ABC123"
    rf"(?:{_S}(?i:ending(?:[ \t]+(?:in|with))?|ends[ \t]+(?:in|with)|last[ \t]+(?:four|4|six|6)(?:[ \t]+digits)?|reads|says)(?![A-Za-z]))?"
    rf"(?:{_S}(?:(?i:is|was|are|were)(?![A-Za-z])|[:=#＝：＃]|是|为|為|叫)){{0,2}}"
    # "要填护照号，我的是EJ4829173", "passport number? mine is X1234567"
    rf"(?:{_S}[，,?？]{_S}(?:我的|(?i:mine|my one|it|it's))?{_S}(?:是|为|(?i:is|'s)(?![A-Za-z]))?"
    # "表格要填身份证号 我的是330206…": the pause a space
    rf"|{_S}(?:我的|(?i:mine|my one)(?![A-Za-z])){_S}(?:是|为|(?i:is|'s)(?![A-Za-z]))?)?"
    rf"{_S}(?P<quote>[\"'“‘「『])?"
)
_GLUE_MAX = 40  # the key and its value stand in one clause
_CLOSING_QUOTE = {'"': '"', "'": "'", "“": "”", "‘": "’", "「": "」", "『": "』"}
_PROVINCES = _PROVINCE_CHARS + "使领"  # and embassy and consulate plates, after a key word
_ID_VALUE = re.compile(
    rf"[{_PROVINCES}][A-Za-z][·•・.\- ]?[A-Za-z0-9]{{5,6}}(?![A-Za-z0-9])"  # 粤B12345, 京A·12345
    r"|[A-Z]{2}\d{2} ?[A-Z]{3}(?![A-Za-z0-9])"  # a British plate: AB12 CDE
    r"|[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])"  # a National Insurance number
    r"|[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]{4}){2,7}(?: ?[A-Za-z0-9]{1,3})?(?![A-Za-z0-9])"  # IBAN-like
    r"|(?=[-/.·_A-Za-z]{0,63}\d)[A-Za-z0-9](?:[A-Za-z0-9]|[-/.·_](?=[A-Za-z0-9])){0,63}(?![A-Za-z0-9])"
    r"(?: \d{1,8}(?![A-Za-z0-9])){0,7}"  # a token with a digit, then digit groups: "123 45 6789"
)
_SECRET_RUN = re.compile(r"[^\s\"“”‘’「」『』\u3000-\u303f\u3400-\u9fff\uff00-\uffef]{1,128}")
_PHRASE_RUN = re.compile(r"[^\n.;,!?。，；！？]{1,128}")
_SENTENCE_END = ".,;:…"  # after a value, never part of it
_CLOSERS = {")": "(", "]": "[", "}": "{", "）": "（", "】": "【"}
_YEAR = re.compile(r"(?:19|20)\d\d")
_AMOUNT_UNIT = re.compile(
    r"[ \t]?(?:%|(?i:dollars?|euros?|pounds?|yuan|rmb|usd|eur|gbp|years?|months?|weeks?|days?|hours?"
    r"|minutes?|times|km|miles?|kg|characters|chars|digits|letters)(?![A-Za-z])"
    r"|元|块|円|岁|年|月|天|个|次|万|千|小时|分钟|位)"
)
_SECRET_STOP = frozenset(
    "wrong incorrect correct right the a an not too same strong weak reset expired required "
    "changed forgotten lost saved stored secret safe long short hard easy simple in on at my "
    "your his her our their it this that also still here there written below above being "
    "what which how case-sensitive fine ok okay good working broken now new old".split()
)


def _keyed_spans(text: str) -> Iterator[tuple[int, SensitiveSpan]]:
    taken = 0
    for found in _KEY.finditer(text):
        start = found.start()
        key = _KEYS[(found.lastindex or 1) - 1]
        if start < taken or (key.kind not in _CODES and _NOT_SECRET_BEFORE.search(text, max(0, start - 24), start)):
            continue  # "快递单号" is an identifier to keep; "快递验证码" still opens the locker
        glue = _GLUE.match(text, found.end())
        assert glue is not None  # every part of the glue is optional
        at = glue.end()
        if at - found.end() > _GLUE_MAX:
            continue
        # after "now" or "changed to" a value needs a digit: "password now has 12 characters"
        bare = not text[found.end() : at].strip() or glue.group("verb") is not None
        span = _value(text, at, key, glue.group("quote"), bare)
        if span is None and key.value in ("id", "weak"):
            # "driver's license 要 renew 了，号码 F4829173": the number named later in the sentence
            later = _LATER_NUMBER.search(text, at, min(len(text), at + _LATER_MAX))
            if later is not None and not _SENTENCE_BREAK.search(text, at, later.start()):
                span = _identifier(text, later.end(), key, False)
        if span is None and key.value in ("id", "weak") and key.kind not in ("pin", "security_code"):
            span = _named_before(text, start, key.kind)  # "is 583920174 a valid format for a passport number?"
        if span is None and key.value == "secret":
            span = _told_next(text, at, key.kind)  # "is my wifi password strong enough? it's X"
        if span is None and key.value == "secret":
            span = _secret_near(text, at, key.kind)  # "wifi密码也记一下 lmy@2025home"
        if span is None and key.value in ("id", "weak"):
            # "do i need my insurance policy number for the follow up? its HX-4471-90832"
            span = _told_next(text, at, key.kind, key)
        if span is None and key.kind == "recovery_code":
            for code in _listed_codes(text, at):  # the codes on the lines that follow the key
                taken = code.end
                yield -1, code
            continue
        if span is not None:
            taken = span.end
            yield -1, span  # the key word knows better than a shape what the value is
            # "密码 Lanlan#0812 — 啊不对上周改了，现在是 Lanlan#0921": the corrected value too
            fix = _CORRECTION.match(text, span.end)
            if fix is not None and (again := _value(text, fix.end(), key, None, False)) is not None:
                taken = again.end
                yield -1, again


# An identifier said before its key word, in the same sentence: "A1234567 is my passport number".
_BEFORE_MAX = 48
_ID_BEFORE = re.compile(r"(?<![0-9A-Za-z])(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{4,}[0-9A-Za-z](?![0-9A-Za-z])")
# The value told right after a question about it: "…password strong enough? it's X", "…密码太简单了吧 是 X".
_NEXT_MAX = 80
_TOLD_NEAR = re.compile(r"[^\n。！？!?.;,，、]{0,8}?[ \t,，]+(?:就是|是|(?i:it['’]?s|its)(?![A-Za-z]))[ \t]*[:：]?[ \t]*")
_TOLD = re.compile(r"[ \t]*(?:(?i:and[ \t]+)?(?i:it['’]?s|it[ \t]+is|its|mine[ \t]+is|that['’]?s)(?![A-Za-z])|就是|是)[ \t]*[:：]?[ \t]*")


def _named_before(text: str, key_start: int, kind: str) -> SensitiveSpan | None:
    window = max(0, key_start - _BEFORE_MAX)
    found = [m for m in _ID_BEFORE.finditer(text, window, key_start) if not _SENTENCE_BREAK.search(text, m.end(), key_start)]
    if not found:
        return None
    m = found[-1]
    value = m.group(0)
    if _YEAR.fullmatch(value) or _AMOUNT_UNIT.match(text, m.end()) or sum(ch.isdigit() for ch in value) < 5:
        return None  # "2027 is when my passport expires", "300 yuan for the passport"
    return _span(kind, text, m.start(), m.end())


# A secret a few words after its key word in the same clause ("家里wifi密码也记一下 lmy@2025home 老忘",
# "password for the nas, I set it to Blue-Fox-77"): a run with a letter and a digit or a symbol.
_NEAR_MAX = 24
_NEAR_SECRET = re.compile(
    r"(?<![A-Za-z0-9@#$%^&*_\-])(?=[^\s]*[A-Za-z])(?=[^\s]*[\d@#$%^&*!?~+=])[^\s\u3000-\u303f\u3400-\u9fff\uff00-\uffef,，;；]{6,64}"
)
_NOT_NEAR = _SECRET_STOP | frozenset("manager managers app apps vault policy policies hint hints strength generator keeper rules".split())
_CLAUSE_BREAK = re.compile(r"[。！？!?\n，,;；]|[.](?=\s)")


def _secret_near(text: str, at: int, kind: str) -> SensitiveSpan | None:
    limit = min(len(text), at + _NEAR_MAX)
    brk = _CLAUSE_BREAK.search(text, at, limit)
    m = _NEAR_SECRET.search(text, at, brk.start() if brk else limit)
    if m is None or any(w.lower() in _NOT_NEAR for w in re.findall(r"[A-Za-z]+", text[at : m.start()])):
        return None  # "my password manager is 1Password"
    end = _trim(text, m.start(), m.end())
    return _span(kind, text, m.start(), end) if end - m.start() >= 6 else None


def _told_next(text: str, at: int, kind: str, key: _Key | None = None) -> SensitiveSpan | None:
    brk = _SENTENCE_BREAK.search(text, at, min(len(text), at + _NEXT_MAX))
    told = None if brk is None else _TOLD.match(text, brk.end())
    if told is None or told.end() == told.start():
        # "工行那张卡的密码老忘 是830527": a few words on, after a pause, in the same sentence
        told = _TOLD_NEAR.match(text, at)
        if told is None:
            return None
    if key is not None:
        return _identifier(text, told.end(), key, True)
    return _secret(text, told.end(), False, None, True, kind)


def _value(text: str, at: int, key: _Key, quote: str | None, bare: bool) -> SensitiveSpan | None:
    if key.value in ("secret", "phrase"):
        return _secret(text, at, key.value == "phrase", quote, bare, key.kind)
    return _identifier(text, at, key, bare)


_LATER_MAX = 32
_LATER_NUMBER = re.compile(r"(?:号码|(?<![A-Za-z])(?i:number|no\.)(?![A-Za-z]))[ \t]*(?:是|为|(?i:is)(?![A-Za-z])|[:：#])?[ \t]*")
_SENTENCE_BREAK = re.compile(r"[。！？!?\n]|[.;](?=\s)")
_CORRECTION = re.compile(
    r"[^\n。！？!?]{0,40}?(?:现在是|现在改成|改成了?|换成了?|改为|应该是|其实是|新的是"
    r"|(?<![A-Za-z])(?i:i\s+mean|i\s+meant|actually(?:\s+it'?s)?|now\s+it'?s|it'?s\s+now|new\s+one\s+is|changed\s+(?:it\s+)?to)(?![A-Za-z]))"
    r"[ \t:：]*"
)
# One code a line, the way a site lists them: "4f9a2-c81e7", "1. 8841 2290".
_CODE_LINE = re.compile(r"[ \t]*(?:\d{1,2}[.)][ \t]+)?(?P<code>(?=[A-Za-z0-9 -]{0,24}\d)[A-Za-z0-9]{3,12}(?:[ -][A-Za-z0-9]{3,12}){0,3})[ \t]*(?:\n|$)")


def _listed_codes(text: str, at: int) -> Iterator[SensitiveSpan]:
    """The codes listed one a line after a "recovery codes" line (blank lines allowed)."""
    newline = text.find("\n", at, at + 160)
    if newline < 0:
        return
    pos = newline + 1
    while pos < len(text):
        if text[pos] == "\n":
            pos += 1
            continue
        m = _CODE_LINE.match(text, pos)
        if m is None:
            return
        yield _span("recovery_code", text, m.start("code"), m.end("code"))
        pos = m.end()


# "the code, which you type on the keypad by the gate, is 73915": a code that opens something,
# named by a bare "code" with the thing it opens anywhere in the sentence.
_ACCESS_CODE = re.compile(
    r"(?<![A-Za-z])(?i:(?:the|my|our|its|their|a)\s+(?:entry\s+)?(?:code|passcode|combo|combination))"
    r"(?:,[^,\n]{1,80},|[ \t]+(?i:to|for|of|at)(?:[ \t]+[A-Za-z'’]{1,16}){1,3}?)?[ \t]+(?i:is|was|:)[ \t]+(?P<value>\d[\d -]{1,10}\d|\d{3,12})(?![\dA-Za-z])"
)
_OPENS = re.compile(
    r"(?i:gate|door|keypad|lock|locker|alarm|safe|garage|building|entry|intercom|lockbox|key\s?box|padlock"
    r"|apartment|flat|house|lobby|mailbox|storage|shed|cabin|unit)"
)


def _access_code_spans(text: str) -> Iterator[tuple[int, SensitiveSpan]]:
    if "code" not in text.lower() and "comb" not in text.lower():
        return
    for m in _ACCESS_CODE.finditer(text):
        lo = max(0, text.rfind("\n", 0, m.start()) + 1, m.start() - 160)
        if _OPENS.search(text, lo, min(len(text), m.end() + 60)):
            yield -1, _span("pin", text, m.start("value"), m.end("value"))


# ".env" and config lines: "STRIPE_SECRET_KEY=sk_test_…", "DB_PASSWORD: hunter2".
_ENV_LINE = re.compile(
    r"^[ \t]*(?:export[ \t]+)?(?P<name>[A-Za-z][A-Za-z0-9_]{0,40}(?i:key|secret|token|password|passwd|pwd|pass|credentials?|dsn)"
    r"[A-Za-z0-9_]{0,20})[ \t]*[=:][ \t]*[\"']?(?P<value>[^\s\"']{4,256})",
    re.MULTILINE,
)


# ... and such a line quoted inside a sentence: "我 config 里写的是 DB_PASSWORD=Xk9#pq2L77 没错啊".
_ENV_INLINE = re.compile(
    r"(?<![A-Za-z0-9_])(?P<name>[A-Z][A-Z0-9]*_[A-Z0-9_]*(?:KEY|SECRET|TOKEN|PASSWORD|PASSWD|PWD|PASS|DSN)[A-Z0-9_]*)"
    r"[ \t]*=[ \t]*[\"']?(?P<value>[^\s\"'，。；]{4,256})"
)


def _env_spans(text: str) -> Iterator[tuple[int, SensitiveSpan]]:
    if "=" not in text and ":" not in text:
        return
    for m in _ENV_INLINE.finditer(text):
        kind = "password" if re.search("PASS|PWD", m.group("name")) else "api_key"
        end = _trim(text, m.start("value"), m.end("value"))
        yield -1, _span(kind, text, m.start("value"), end)
    for m in _ENV_LINE.finditer(text):
        name, value = m.group("name"), m.group("value")
        if not (name.isupper() or "_" in name):
            continue  # a variable is UPPER_CASE or snake_case; "Turkey: roast it" is no config line
        if value.lower() in ("none", "null", "true", "false", "changeme", "xxx", "xxxx") or set(value) <= {"*"}:
            continue
        kind = "password" if re.search(r"(?i:pass|pwd)", m.group(0)[: m.start("value") - m.start()]) else "api_key"
        yield -1, _span(kind, text, m.start("value"), m.end("value"))


# "login for the router: admin / Tr0ub4dor&3", "账号密码 admin/Xy7#pq": a user name and its
# password, written as a pair after a word for logging in; the second half is the secret.
_CREDENTIAL_PAIR = re.compile(
    r"(?<![A-Za-z])(?i:log[\s-]?ins?|credentials|creds|sign[\s-]?in|wi-?fi|wlan|ssid|user(?:name)?\s*(?:and|&|/)\s*pass(?:word)?)(?![A-Za-z])"
    r"(?:[^\n:：。.!?]{0,30}?)(?:[:：]|\bis\b)[ \t]*"
    r"|(?:账号密码|用户名和?密码|登录信息|登录账号)(?:是|为|[:：])?[ \t]*"
)
_PAIR = re.compile(r"(?P<user>[^\s/|，。]{1,64})[ \t]*[/|][ \t]*(?P<secret>[^\s\u3000-\u303f\u3400-\u9fff\uff00-\uffef]{3,128})")


def _credential_spans(text: str) -> Iterator[tuple[int, SensitiveSpan]]:
    for m in _CREDENTIAL_PAIR.finditer(text):
        pair = _PAIR.match(text, m.end())
        if pair is None or not re.search(r"[\d\W_]", pair.group("secret")):
            continue  # "the wifi is slow / laggy": a password has a digit or a symbol
        end = _trim(text, pair.start("secret"), pair.end("secret"))
        if end > pair.start("secret"):
            yield -1, _span("password", text, pair.start("secret"), end)


def _secret(text: str, at: int, phrase: bool, quote: str | None, bare: bool, kind: str = "password") -> SensitiveSpan | None:
    if quote:  # 'password "abc def"': the whole quoted text
        close = text.find(_CLOSING_QUOTE[quote], at, at + 129)
        if close > at and "\n" not in text[at:close]:
            return _span(kind, text, at, close)
    run = _PHRASE_RUN if phrase else _SECRET_RUN
    end = at
    while (m := run.match(text, end)) is not None:
        end = m.end()
    end = _trim(text, at, end)
    value = text[at:end].rstrip()
    words = value.lower().split()
    if not words or set(value) <= {"*"}:  # nothing, or a stub already masked
        return None
    if words[0].rstrip("!?") in _SECRET_STOP and len(words) <= 2:  # "password is wrong"
        return None
    if bare and not any(ch.isdigit() for ch in value):  # "password manager", "密码忘了"
        return None
    if value.isdigit() and _AMOUNT_UNIT.match(text, at + len(value)):  # "密码是6位数字"
        return None
    return _span(kind, text, at, at + len(value))


def _trim(text: str, start: int, end: int) -> int:
    """`end` less the punctuation that ends the sentence rather than the value."""
    while end > start:
        ch = text[end - 1]
        opener = _CLOSERS.get(ch)
        if ch in _SENTENCE_END or (opener and text.count(opener, start, end) < text.count(ch, start, end)):
            end -= 1
        else:
            break
    return end


def _identifier(text: str, at: int, key: _Key, bare: bool) -> SensitiveSpan | None:
    m = _ID_VALUE.match(text, at)
    if m is None:
        return None
    value = m.group(0)
    shortest = 3 if key.kind == "security_code" else 4  # a CVV has three digits
    if len(value) < shortest or not any(ch.isdigit() for ch in value):  # "my account was suspended"
        return None
    number = value.replace(" ", "").isdigit()
    if key.kind not in ("pin", "security_code") and number:
        if key.value == "weak" and len(value) < 6:  # "insurance is 1500"
            return None
        if (bare and _YEAR.fullmatch(value)) or _AMOUNT_UNIT.match(text, m.end()):
            return None  # "insurance 2024", "account 3000 yuan"
    kind = key.kind
    if kind in ("iban", "account"):
        kind = "iban" if iban_ok(value) else "account"
    return _span(kind, text, m.start(), m.end())


def _zh_address_spans(text: str) -> Iterator[tuple[int, SensitiveSpan]]:
    last_end = 0
    for m in _ZH_ANCHOR.finditer(text):
        if m.start() < last_end:
            continue
        start = m.start()
        floor = max(last_end, m.start() - _ZH_BACK)
        while start > floor and ("\u4e00" <= text[start - 1] <= "\u9fff" or text[start - 1].isdigit()):
            start -= 1
        lead = _ZH_LEAD.match(text, start, m.start())
        if lead:
            start = lead.end()
        if start == m.start():
            continue  # a bare "路5号" with no street name is more likely a bus stop or a date
        end = m.end()
        units = _ZH_UNITS.match(text, end) or _ZH_ROOM.match(text, end)
        if units:
            end = units.end()
        last_end = end
        yield 5, _span("address", text, start, end)


_LONG_DIGITS = re.compile(r"(?<![\dA-Za-z])\d{4}(?:[ \-]?\d){8,15}(?![\dA-Za-z])")
_CARD_WORDS = re.compile(r"(?i:\bcard\b|\baccount\b|\bacct\b|\bbank\b|\bvisa\b|\bmastercard\b|\bamex\b)|卡|账号|账户|银行")


def _card_context_spans(text: str) -> Iterator[tuple[int, SensitiveSpan]]:
    """A 12–19 digit number in a sentence about a card or a bank account is that number, even
    when it fails the card checksum (people mistype them) and nothing joins it to the key word:
    "我的银行卡是工商银行的 6212 2611 0200 1234 567"."""
    for m in _LONG_DIGITS.finditer(text):
        before = text[max(0, m.start() - 40) : m.start()]
        if _CARD_WORDS.search(before) and not _NOT_SECRET_BEFORE.search(before):
            kind = "account" if re.search(r"(?i:account|acct)|账号|账户", before) else "bank_card"
            yield -1, _span(kind, text, m.start(), m.end())


def _raw_spans(text: str) -> Iterator[tuple[int, SensitiveSpan]]:
    """Yield (priority, span) for every candidate; lower priority wins a tie on start."""
    if "@" in text:
        for m in _EMAIL.finditer(text):
            yield 0, _span("email", text, m.start(), m.end())
    yield from _digit_spans(text)
    yield from _intl_phone_spans(text)
    yield from _shape_spans(text)
    yield from _keyed_spans(text)
    yield from _access_code_spans(text)
    yield from _env_spans(text)
    yield from _credential_spans(text)
    yield from _card_context_spans(text)
    yield from _zh_address_spans(text)
    yield from _en_address_spans(text)


def _non_overlapping(spans: Iterable[tuple[int, SensitiveSpan]]) -> list[SensitiveSpan]:
    ordered = sorted(spans, key=lambda ps: (ps[1].start, -(ps[1].end - ps[1].start), ps[0]))
    kept: list[SensitiveSpan] = []
    for _, span in ordered:
        if not kept or span.start >= kept[-1].end:
            kept.append(span)
    return kept


def find_sensitive(text: str) -> list[SensitiveSpan]:
    """Return the sensitive spans in `text`, sorted by position and non-overlapping."""
    return _non_overlapping(_raw_spans(text))


def redact(text: str, spans: Iterable[SensitiveSpan], repl: Callable[[SensitiveSpan], str]) -> str:
    """Replace each span in `text` with `repl(span)`; overlapping later spans are skipped."""
    out: list[str] = []
    pos = 0
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if span.start < pos:
            continue
        out.append(text[pos : span.start])
        out.append(repl(span))
        pos = span.end
    out.append(text[pos:])
    return "".join(out)


def redact_masked(text: str) -> str:
    """Return `text` with every sensitive span replaced by its mask."""
    return redact(text, find_sensitive(text), lambda s: s.masked)


__all__ = [
    "KINDS",
    "KIND_LABELS",
    "SensitiveSpan",
    "find_sensitive",
    "iban_ok",
    "id_number_ok",
    "luhn_ok",
    "mask",
    "redact",
    "redact_masked",
    "ssn_ok",
]

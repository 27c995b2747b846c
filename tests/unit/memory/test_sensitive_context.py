"""Values a key word names ("passport number is X1234567"), SSNs, IBANs, exact value boundaries."""

from __future__ import annotations

import time

import pytest

from assistant.memory.sensitive import (
    KIND_LABELS,
    KINDS,
    find_sensitive,
    iban_ok,
    mask,
    redact_masked,
    ssn_ok,
)
from tests.unit.memory.test_sensitive import kinds


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # passport
        ("Remember that my passport number is X1234567", [("passport", "X1234567")]),
        ("passport no. E1234567, expires 2030", [("passport", "E1234567")]),
        ("my passport #G12345678.", [("passport", "G12345678")]),
        ("我的护照号是E12345678", [("passport", "E12345678")]),
        ("护照号码：E12345678。", [("passport", "E12345678")]),
        ("港澳通行证 C12345678", [("passport", "C12345678")]),
        # ID
        ("my ID card number is G1234567", [("id_number", "G1234567")]),
        ("national ID: 7501011234", [("id_number", "7501011234")]),
        ("my ID is A123456789", [("id_number", "A123456789")]),
        ("身份证号码为110101199003077777", [("id_number", "110101199003077777")]),  # bad checksum, named
        # SSN
        ("my SSN is 078-05-1120", [("ssn", "078-05-1120")]),
        ("social security number: 123 45 6789", [("ssn", "123 45 6789")]),
        ("ssn 078051120", [("ssn", "078051120")]),
        ("national insurance number QQ 12 34 56 C", [("ssn", "QQ 12 34 56 C")]),
        # driver's licence
        ("driver's license number D1234-5678-9012", [("driver_license", "D1234-5678-9012")]),
        ("driving licence: MORGA753116SM9IJ", [("driver_license", "MORGA753116SM9IJ")]),
        ("驾照号是 440301199001011234", [("driver_license", "440301199001011234")]),
        ("驾驶证号码：D12345678", [("driver_license", "D12345678")]),
        # IBAN and accounts
        ("IBAN: DE89 3704 0044 0532 0130 00", [("iban", "DE89 3704 0044 0532 0130 00")]),
        ("bank account: GB82 WEST 1234 5698 7654 32", [("iban", "GB82 WEST 1234 5698 7654 32")]),
        ("iban de89370400440532013000", [("iban", "de89370400440532013000")]),
        ("IBAN DE89370400440532013001", [("account", "DE89370400440532013001")]),  # named, checksum off
        ("account number 12345678", [("account", "12345678")]),
        ("my bank account is 0123456789.", [("account", "0123456789")]),
        ("账号 6222021234567890", [("account", "6222021234567890")]),
        ("银行账户是 955880012345678", [("account", "955880012345678")]),
        ("卡号：6222 0212 3456 7890", [("bank_card", "6222 0212 3456 7890")]),
        # PIN
        ("my PIN is 4321", [("pin", "4321")]),
        ("pin code: 987654", [("pin", "987654")]),
        ("银行卡PIN码是 4321", [("pin", "4321")]),
        # passwords
        ("wifi password = s3cr3t-Wifi!", [("password", "s3cr3t-Wifi!")]),
        ("the password for the office wifi is Sunny2024?", [("password", "Sunny2024?")]),
        ('password "abc def" for the router', [("password", "abc def")]),
        ("my password is “correct horse”", [("password", "correct horse")]),
        ("passcode: 0000#", [("password", "0000#")]),
        ("passphrase is correct horse battery staple.", [("password", "correct horse battery staple")]),
        ("(password: hunter2).", [("password", "hunter2")]),
        ("password: a(b)c)", [("password", "a(b)c")]),
        ("password is hunter2; pin is 2468", [("password", "hunter2"), ("pin", "2468")]),
        ("密码是abc123。", [("password", "abc123")]),
        ("路由器密码：Ab#12345，别忘了", [("password", "Ab#12345")]),
        ("口令为 Tiger@88", [("password", "Tiger@88")]),
        ("支付密码“12 34 56”", [("password", "12 34 56")]),
        # licence plates
        ("车牌号是粤B12345", [("license_plate", "粤B12345")]),
        ("我的车牌京A·12345", [("license_plate", "京A·12345")]),
        ("车牌：沪AD12345", [("license_plate", "沪AD12345")]),
        ("my license plate is AB12 CDE", [("license_plate", "AB12 CDE")]),
        ("plate number 7ABC123", [("license_plate", "7ABC123")]),
        # insurance
        ("policy number POL-2023-88771", [("policy_number", "POL-2023-88771")]),
        ("my insurance policy is AXA-99812", [("policy_number", "AXA-99812")]),
        ("insurance ID: 88123456", [("policy_number", "88123456")]),
        ("保单号为 P2023889977", [("policy_number", "P2023889977")]),
        ("医保卡号：1234567890", [("policy_number", "1234567890")]),
        ("社保号是 31011219900101", [("policy_number", "31011219900101")]),
        # tax
        ("tax id: 12-3456789", [("tax_id", "12-3456789")]),
        ("VAT number GB123456789", [("tax_id", "GB123456789")]),
        ("税号 91310000MA1FL8X", [("tax_id", "91310000MA1FL8X")]),
        ("纳税人识别号是 91440300MA5D", [("tax_id", "91440300MA5D")]),
        # a value the sentence names with a verb, later, or again once corrected
        ("家里智能门锁密码我改成 #902716 了", [("pin", "902716")]),
        ("my password is now Hunter22", [("password", "Hunter22")]),
        ("PIN changed to 4410", [("pin", "4410")]),
        ("我的 combo 是 3-17-29，帮我记着", [("pin", "3-17-29")]),
        ("driver's license 要 renew 了，号码 F4829173，expires 6/30", [("driver_license", "F4829173")]),
        ("密码 Lanlan#0812 — 啊不对上周改了，现在是 Lanlan#0921。", [("password", "Lanlan#0812"), ("password", "Lanlan#0921")]),
        ("sort code 20-45-77\nacc 73019284", [("account", "20-45-77"), ("account", "73019284")]),
        # a code that opens something, named by a bare "code"
        ("a gate - the code, which you type on the keypad on the LEFT, is 73915 then #", [("pin", "73915")]),
        # config lines and listed codes
        ("STRIPE_SECRET_KEY=sk_test_51Hx9aQ2LmTpR8vKz3YwQe\nDEBUG=1", [("api_key", "sk_test_51Hx9aQ2LmTpR8vKz3YwQe")]),
        ("DB_PASSWORD: hunter2x", [("password", "hunter2x")]),
        ("my github recovery codes here\n\n4f9a2-c81e7\nb03d5-9e6a1\n\nalso a yubikey",
         [("recovery_code", "4f9a2-c81e7"), ("recovery_code", "b03d5-9e6a1")]),
        ("ring me (07700 900312) after six", [("phone", "07700 900312")]),
        # the value before its key word, or told right after a question about it
        ("is 583920174 a valid format for a US passport number? that's mine", [("passport", "583920174")]),
        ("A1234567 is my passport number", [("passport", "A1234567")]),
        ("is my wifi password strong enough? it's tangerine-Otter-88", [("password", "tangerine-Otter-88")]),
        ("我的wifi密码太简单了吧？是 qwer1234", [("password", "qwer1234")]),
        # …or a few words on, after a pause in the same sentence
        ("工行那张卡的密码老忘 是830527 你帮我记着", [("password", "830527")]),
        ("do i need my insurance policy number for the follow up? its HX-4471-90832 i think",
         [("policy_number", "HX-4471-90832")]),
    ],
)
def test_named_values_are_found_with_exact_boundaries(text: str, expected: list[tuple[str, str]]) -> None:
    assert kinds(text) == expected
    for span in find_sensitive(text):
        assert text[span.start : span.end] == span.value


@pytest.mark.parametrize(
    "text",
    [
        "my password manager is 1Password",
        "I passed the exam",
        "the pin on the map",
        "room 1204",
        "iPhone 15",
        "flight CA1234",
        "my account was suspended",
        "I'm 34",
        "我的密码忘了",
        "密码老忘 是不是该换了",
        "my insurance policy is fine, its the 2024 plan",
        "我的医保卡丢了 是上周的事",
        "身份证丢了",
        "my passport expires in 2030",
        "I renewed my passport in 2019",
        "passport photos cost 20 dollars",
        "my car insurance costs 1500",
        "insurance is 1500 a year",
        "account 2024 was a good year",
        "my password must be 12 characters",
        "密码是6位数字",
        "密码是多少",
        "身份证号码是多少？",
        "my passphrase is too short",
        "the password is wrong",
        "I lost my ID card yesterday",
        "the tax was 15%",
        "membership number 12345678",
        "member ID: 55512345",
        "会员卡号 88886666",
        "会员账号是 abc12345",
        "order ID 12345678",
        "tracking number 1Z999AA10123456784",
        "Ein 2024 gutes Jahr",
        "I pinned 3 photos",
        "passport password",
        "I ordered a combo meal",
        "the code is broken, see error 404",
        "the code is 404 lines long",
        "my password is fine, I mean it",
        "KEY_COUNT=none",
        "my password now has 12 characters",
        "the password is now longer",
        "Turkey: roast it for 3 hours",
        "Compass: north east",
        "my recovery codes are in the drawer\nthanks for the help",
        "my passport expires 2027, need to renew",
        "bought 3 passport photos for 12.50",
        "password manager recommendations? it's for work",
        "is my password too short? it's only eight letters",
    ],
)
def test_ordinary_sentences_give_no_span(text: str) -> None:
    assert find_sensitive(text) == []


def test_an_order_number_is_not_sensitive() -> None:
    assert find_sensitive("order number 113-4567890-1234567") == []
    assert find_sensitive("my order 123-45-6789 shipped") == []  # SSN-shaped, named as an order


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SSN on file: 078-05-1120", [("ssn", "078-05-1120")]),
        ("call about 123-45-6789 today", [("ssn", "123-45-6789")]),  # shape alone
        ("IBAN-free text DE89 3704 0044 0532 0130 00 end", [("iban", "DE89 3704 0044 0532 0130 00")]),
        ("pay to NL91ABNA0417164300 please", [("iban", "NL91ABNA0417164300")]),
        ("pay to NL91ABNA0417164301 please", []),  # checksum off: not an IBAN
        ("refs 000-12-3456 666-12-3456 912-12-3456 123-00-4567 123-45-0000", []),  # never issued
        ("version 123-45-67890", []),
    ],
)
def test_ssn_and_iban_by_shape(text: str, expected: list[tuple[str, str]]) -> None:
    assert kinds(text) == expected


def test_checksums() -> None:
    assert iban_ok("DE89 3704 0044 0532 0130 00") and iban_ok("gb82west12345698765432")
    assert not iban_ok("DE89 3704 0044 0532 0130 01") and not iban_ok("DE89")
    assert ssn_ok("078-05-1120") and not ssn_ok("900-05-1120") and not ssn_ok("078-05-112")


@pytest.mark.parametrize(
    ("kind", "value", "masked"),
    [
        ("passport", "X1234567", "*****567"),
        ("ssn", "078-05-1120", "***-**-1120"),
        ("iban", "DE89 3704 0044 0532 0130 00", "********3000"),
        ("pin", "4321", "****"),
        ("license_plate", "粤B12345", "****345"),
        ("id_number", "G1234567", "*****567"),
        ("account", "1234", "***34"),
        ("bank_card", "6222 0212", "*****212"),
    ],
)
def test_mask_keeps_at_most_the_tail(kind: str, value: str, masked: str) -> None:
    assert mask(kind, value) == masked


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("value", ["AB12", "X1234567", "DE89370400440532013000", "粤B12345"])
def test_no_mask_shows_the_whole_value(kind: str, value: str) -> None:
    if kind in ("email", "address", "phone"):
        return  # shaped values with their own masks (test_sensitive.py)
    shown = "".join(ch for ch in mask(kind, value) if ch.isalnum())
    assert len(shown) <= 4 and shown != value


def test_every_kind_has_labels() -> None:
    assert set(KINDS) == set(KIND_LABELS)
    assert all(en and zh for en, zh in KIND_LABELS.values())
    assert KIND_LABELS["passport"] == ("passport number", "护照号")


def test_the_masked_text_keeps_no_value() -> None:
    text = "my passport number is X1234567 and the wifi password = s3cr3t-Wifi!"
    masked = redact_masked(text)
    assert "1234" not in masked and "s3cr3t" not in masked and "!" not in masked
    assert find_sensitive(masked) == []  # a stub is not taken for a value


@pytest.mark.parametrize(
    "big",
    [
        "password " * 25_000,
        "password: " * 20_000,
        "password:" * 25_000,
        "123-45-" * 30_000,
        "1-" * 100_000,
        "pin 1234 " * 22_000,
        "密码是" * 70_000,
        "护照号码是" * 40_000,
        "DE89 " * 40_000,
        "account for the x " * 11_000,
        "password" + " " * 200_000 + "x1",
        'password "' * 20_000,
        "password: " + "a" * 200_000,
    ],
    ids=range(13),
)
def test_adversarial_input_is_linear(big: str) -> None:
    start = time.perf_counter()
    find_sensitive(big)
    # a hang guard (about 0.5 s here): quadratic work on 200k characters would take minutes
    assert time.perf_counter() - start < 20.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my licence is SMITH801125JJ9AB", [("driver_license", "SMITH801125JJ9AB")]),
        ("my social is 219 09 9999", [("ssn", "219 09 9999")]),
        ("the wifi pw is tacocat99", [("password", "tacocat99")]),
        ("my health insurance member ID is XGH123456789", [("policy_number", "XGH123456789")]),
        ("the door code is 2580", [("pin", "2580")]),
        ("locker combo is 12-34-56", [("pin", "12-34-56")]),
        ("CVV 331", [("security_code", "331")]),
        ("验证码是 482913", [("security_code", "482913")]),
        ("API key sk-proj-abc123def456ghi789", [("api_key", "sk-proj-abc123def456ghi789")]),
        ("seed phrase: apple banana cherry delta echo fox", [("recovery_code", "apple banana cherry delta echo fox")]),
        ("routing number 021000021", [("account", "021000021")]),
        # a card number that fails the checksum, named only somewhere before it
        ("我的银行卡是工商银行的 6212 2611 0200 1234 567", [("bank_card", "6212 2611 0200 1234 567")]),
        ("我的信用卡 4392 2500 1234 5678", [("bank_card", "4392 2500 1234 5678")]),
        # one-time codes, pickup codes, "pass" for a password, a user name / password pair
        ("one-time code 583920 for the login, it expires soon", [("security_code", "583920")]),
        ("OTP: 4471", [("security_code", "4471")]),
        ("Google sign-in code G-482913", [("security_code", "G-482913")]),
        ("快递柜取件码 552198", [("pin", "552198")]),
        # a parcel's code opens the locker, though a parcel's number is no secret
        ("快递验证码 683912 帮我记一下", [("security_code", "683912")]),
        # the key and the value a space apart: "表格要填身份证号 我的是…"
        ("表格要填身份证号 我的是330206199205184417 帮我看看", [("id_number", "330206199205184417")]),
        ("The wifi at the cabin: network Pinewood, pass pinecone77", [("password", "pinecone77")]),
        ("pass: x9!k", [("password", "x9!k")]),
        ("login for the router: admin / Tr0ub4dor&3", [("password", "Tr0ub4dor&3")]),
        ("my login is chen.wei / Hua2024!", [("password", "Hua2024!")]),
        ("wifi: CasaAzul / bacalhau2024!", [("password", "bacalhau2024!")]),
        ("the code to the apartment is 4471", [("pin", "4471")]),
        ("my SIN is 046 454 286", [("ssn", "046 454 286")]),
        ("car reg is AB12 CDE", [("license_plate", "AB12 CDE")]),
        ("amex 3471 592038 41176, exp 09/28, cid 5820", [("bank_card", "3471 592038 41176"), ("security_code", "5820")]),
        ("my honda civic, plate 8MXR417, how do i contest it", [("license_plate", "8MXR417")]),
        ("今天刚上的牌 浙A·D73K9 哈哈", [("license_plate", "浙A·D73K9")]),  # a Chinese plate by its shape
        # the last digits of a value are the value's too
        ("card ending 4242", [("bank_card", "4242")]),
        ("account number ending in 48213", [("account", "48213")]),
        ("my SSN's last four are 1120", [("ssn", "1120")]),
        ("护照号码后四位 5678", [("passport", "5678")]),
        ("my license plate reads 7ABC123", [("license_plate", "7ABC123")]),
        # what opens a door, named by the door alone
        ("小区门禁是736492，我老忘", [("pin", "736492")]),
        ("住在 Kyoto 的 Airbnb，门锁 code 是 827364", [("pin", "827364")]),
        # a code a bank sent, with no article before it
        ("my bank texted me code 774201 and then someone called", [("security_code", "774201")]),
        # other countries' national numbers, by their own names
        ("我的 NRIC 是 S8834521D, 这个 form 要填全部吗", [("id_number", "S8834521D")]),
        ("my aadhaar is 2345 6789 0123", [("id_number", "2345 6789 0123")]),
        ("my FIN is G1234567X", [("id_number", "G1234567X")]),
        ("PAN card number ABCDE1234F", [("tax_id", "ABCDE1234F")]),
    ],
)
def test_more_key_words(text: str, expected: list[tuple[str, str]]) -> None:
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    ["I love my social life", "the combination of rice and beans", "I got my license last year",
     "the token ring network", "my bank is Chase", "订单号 JD2026021088341207",
     "my boarding pass 12B3 is on the phone", "the bus pass costs 45 a month", "I'll pass 2day",
     "you pass the Exit 42 sign", "I passed the exam in 2024", "the login page is slow: it takes 30 s",
     "the wifi is slow / laggy", "the code for the discount is 2024", "I sin a lot",
     "a plate of pasta", "I ate 2 plates", "京A是北京的车牌前缀", "my account says 3 payments", "passport says Chinese",
     "小区门禁卡坏了，物业说2号门能进", "门锁坏了 明天10点来修", "门禁在3号楼旁边", "Fin is my cat", "he texted me code words lol"],
)
def test_ordinary_words_are_not_keys(text: str) -> None:
    assert kinds(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a secret a few words after its key word, with no "is" between
        ("家里路由器密码也帮我存一下 qz#2024home 老忘", [("password", "qz#2024home")]),
        # a config line quoted inside a sentence
        ("我 .env 里写的是 REDIS_PASSWORD=p4ss-W0rd 还是连不上", [("password", "p4ss-W0rd")]),
        # a code someone sent
        ("the pharmacy just texted me a code 448120 to confirm pickup", [("security_code", "448120")]),
    ],
)
def test_secrets_said_the_way_people_type_them(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(s.kind, s.value) for s in find_sensitive(text)] == expected


@pytest.mark.parametrize(
    "text", ["my password manager is 1Password", "my password app is Bitwarden 2024", "密码也太长了吧"]
)
def test_a_word_after_password_is_no_secret(text: str) -> None:
    assert find_sensitive(text) == []

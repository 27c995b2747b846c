"""The words the update decision reads: which pet a message says died, how long a state is
said to last, and what is only considered."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from assistant.memory.episodes import _lasts_for
from assistant.memory.topics import HOMETOWN, cue_topics, value_words
from assistant.memory.update import _pets_gone, _tentative, ended_names

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("豆豆走了，养了两年半", {"豆豆"}),
        ("we said goodbye to pepper on sunday 💔", {"pepper"}),
        ("we lost our dog Max last week", {"max"}),
        ("Biscuit passed away in his sleep", {"biscuit"}),
        ("lost my keys again", set()),
        ("we lost the match", set()),
        ("我们走了", set()),  # "we're off", not a death
        ("my sister's dog died last night", set()),  # a kind is no name
        ("他走了", set()),
        ("we lost our cat on tuesday. 16 years.", set()),  # the word after the kind is no name
        ("lost my dog last night", set()),
    ],
)
def test_the_pet_a_message_says_died(text: str, names: set[str]) -> None:
    assert _pets_gone(text) == names


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("physio says no running for like 6 weeks", 43),
        ("doc says cast for six weeks", 43),
        ("医生说石膏要打六周", 43),
        ("I'm staying with my parents for two weeks", 15),
        ("I've been vegan for 3 years", None),
        ("I've lived here for 2 months", None),
        ("我在成都住了两个月了", None),
        ("I run for 30 minutes every day", None),
    ],
)
def test_a_state_said_to_last_a_while(text: str, days: int | None) -> None:
    ends = _lasts_for(text, NOW)
    assert (None if ends is None else (ends - NOW).days) == days
    if ends is not None:
        assert ends - NOW == timedelta(days=days)


@pytest.mark.parametrize(
    ("clause", "slot"),
    [
        ("I GOT THE OFFER FROM KESSELWERK", "user.job"),  # shouted: capitals name nothing
        ("Fender Player Strat in 3-tone sunburst, sold the old one to my nephew", "user.device.instrument"),
        ("Biscuit has decided the case is his personal scratching post", "user.pet"),
        ("Pickle chewed up the remote again", "user.pet"),
        ("starting at Monzo on the 3rd", "user.job"),
        ("doc upped my dose to 40mg", "user.health"),
        ("新买了个文石Leaf3 还挺好用的", "user.device.reader"),
        ("also my router is a TP-Link Archer AX55 if that matters", "user.device.router"),
        ("also switched 2fa to a yubikey 5c today", "user.device.gadget"),
        ("just unboxed my framework 13", "user.device.computer"),
        ("I do UX at Dell", "user.job"),
        ("武汉今天又下雨了", "user.city"),  # a remark about the city's day: the user is there
        ("到大阪快两周了", "user.city"),  # how long the user has been there
        ("累瘫了 现在在厦门了", "user.city"),  # where the user is now, after a word of something else
        ("今天是我在网易的第一天", "user.job"),
        ("上周五是我 last day 了", "user.job"),
        ("下个月 join 小红书", "user.job"),
        ("doing evening workouts now", "user.health"),
        ("two months smoke-free", "user.health"),
        ("我从小在 HK 长大", "user.city"),  # where the user comes from
        ("down with covid this week", "user.health"),
    ],
)
def test_cue_words_put_a_clause_in_its_part_of_life(clause: str, slot: str) -> None:
    assert slot in [t.slot for t in cue_topics(clause)]


def test_where_the_user_grew_up_is_where_they_come_from() -> None:
    # so a move does not replace it, nor it where the user lives now (`update.replaces`)
    assert HOMETOWN.search("我从小在 HK 长大") and HOMETOWN.search("在成都长大的") and not HOMETOWN.search("我住在上海")


def test_a_move_and_a_new_role_in_one_clause_is_a_move() -> None:
    from assistant.memory.topics import TopicClassifier

    assert TopicClassifier(None).classify("relocated to Munich for a new role", None).slot == "user.city"  # type: ignore[arg-type,union-attr]


def test_moving_ones_things_to_a_new_phone_is_no_move() -> None:
    from assistant.memory.topics import cue_topics

    assert "user.city" not in {t.slot for t in cue_topics("moved everything over, kind of weird but I like it")}
    assert "user.city" in {t.slot for t in cue_topics("I moved to Denver last week")}


@pytest.mark.parametrize(
    ("clause", "slot"),
    [
        ("最后还是换了Pixel 9 Pro", "user.device.phone"),  # no space between 了 and the name
        ("上个月我quit了", "user.job"),
        ("卖了Civic，换了Model 3", "user.vehicle"),
    ],
)
def test_english_words_in_chinese_without_spaces(clause: str, slot: str) -> None:
    assert slot in [t.slot for t in cue_topics(clause)]


def test_a_known_city_where_the_user_is() -> None:
    assert "user.city" in [t.slot for t in cue_topics("i'm in leeds, rained all week obviously")]
    assert "user.city" not in [t.slot for t in cue_topics("im in new york this week for work")]  # a trip
    assert cue_topics("I'm in a meeting") == []


@pytest.mark.parametrize(
    ("said", "names"),
    [
        ("Iceland is off :( my partner's visa is stuck", {"iceland"}),
        ("ok keto is over", {"keto"}),
        ("Spotify我退订了", {"spotify"}),
        ("quit blue bottle", {"blue bottle"}),
        ("sold the civic", {"civic"}),
        # more than an end: a qualified habit, a sentence with a plan of its own, someone else's
        ("I stopped drinking coffee after 3pm because it wrecks my sleep", set()),
        ("I quit my job at Google to start my own company with two friends from college", set()),
        ("my sister quit Netflix", set()),
    ],
)
def test_ended_names(said: str, names: set[str]) -> None:
    assert ended_names(said) == names


@pytest.mark.parametrize(
    ("text", "values"),
    [
        # a Chinese character beside a Latin word is no part of it
        ("我在Vancouver 最近雨季", {"vancouver"}),
        ("Toronto这边的冬天是真的冷", {"toronto"}),
        ("我用的是一台老款的华为P30", {"p30"}),
        ("I moved to São Paulo", {"são", "paulo"}),
        ("CX 880 to Hong Kong", {"cx", "880", "hong", "kong"}),
    ],
)
def test_value_words_in_mixed_text(text: str, values: set[str]) -> None:
    assert value_words(text) == values


@pytest.mark.parametrize(
    ("text", "tentative"),
    [
        ("想去领养一只猫", True),
        ("thinking of moving closer to my sister", True),
        ("打算下个月换工作", True),
        ("以前那种恐怖片现在不想看了", False),  # no longer wanting ends something
        ("医生说过敏已经好了", False),
    ],
)
def test_what_is_only_considered(text: str, tentative: bool) -> None:
    assert _tentative(text) is tentative

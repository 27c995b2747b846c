"""Episodic capture: clauses kept in the user's words, dated when they speak of a day ahead."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from assistant.memory.clauses import split_clauses
from assistant.memory.embedder import SentenceTransformerEmbedder
from assistant.memory.episodes import Episode, EpisodeCapture
from assistant.memory.types import Category

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday


def capture(embedder: SentenceTransformerEmbedder, text: str, now: datetime = NOW) -> list[Episode]:
    return [e for e in EpisodeCapture(embedder).capture(split_clauses(text), now) if e.candidate is not None]


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Next Wednesday I fly to Berlin.", "2026-03-11"),
        ("下周三去上海出差", "2026-03-11"),
        ("I'm going to Tokyo on March 20", "2026-03-20"),
        ("明天要去杭州开会", "2026-03-05"),
        ("I have a dentist appointment tomorrow", "2026-03-05"),
        ("dentist appointment on thursday the 19th at 4pm", "2026-03-19"),
        ("I have to file my taxes by April", "2026-04-01"),
        ("这周六要考科目二了", "2026-03-07"),
    ],
)
def test_a_plan_is_dated_and_expires_after_its_day(embedder: SentenceTransformerEmbedder, text: str, day: str) -> None:
    (episode,) = capture(embedder, text)
    plan = episode.candidate
    assert plan is not None and plan.event_at is not None and plan.expires_at is not None
    assert plan.event_at.date().isoformat() == day and plan.category is Category.GOAL
    assert day in plan.content  # the day is written out for the user and the model


def test_what_happened_today_is_not_a_plan(embedder: SentenceTransformerEmbedder) -> None:
    for episode in capture(embedder, "I moved to Lisbon on March 3. 今天开会开了一下午，老板讲了三遍降本增效"):
        assert episode.candidate is not None and episode.candidate.event_at is None


@pytest.mark.parametrize(("text", "ahead"), [("我周二把车卖了", False), ("周六去爬山了", False), ("we lost our cat on tuesday", False),
                                             ("周五就放假了", True), ("I have a dentist appointment on friday", True),
                                             ("signed up for a pottery class on tuesday", True)])
def test_a_weekday_gone_by_is_no_plan(embedder: SentenceTransformerEmbedder, text: str, ahead: bool) -> None:
    (episode,) = capture(embedder, text)
    assert episode.candidate is not None and (episode.candidate.event_at is not None) is ahead, text


def test_the_rest_of_a_dated_sentence_shares_its_day(embedder: SentenceTransformerEmbedder) -> None:
    episodes = capture(embedder, "这周五 (6号) 有个 deadline，要交 quarterly report 给老板")
    assert [e.candidate.event_at.date().isoformat() for e in episodes if e.candidate and e.candidate.event_at] == ["2026-03-06", "2026-03-06"]


@pytest.mark.parametrize("text", ["现在改成周二四六晚上下班后去健身房", "我周一、三、五去游泳", "I swim Mon/Wed/Fri before work", "weeknights I tutor maths online",
                                  "周末有空就去水库钓鱼"])
def test_several_weekdays_are_a_routine_not_a_plan(embedder: SentenceTransformerEmbedder, text: str) -> None:
    (episode,) = capture(embedder, text)
    assert episode.candidate is not None and episode.candidate.event_at is None and episode.candidate.expires_at is None


def test_a_day_story_is_not_kept(embedder: SentenceTransformerEmbedder) -> None:
    kept = [e.body for e in capture(embedder, "ok what a day. woke up late, spilled coffee all over my shirt, lunch was a sad desk salad")]
    assert kept == []


def test_core_topics_last(embedder: SentenceTransformerEmbedder) -> None:
    (episode,) = capture(embedder, "我对海鲜过敏")
    assert episode.candidate is not None and episode.candidate.importance >= 4


@pytest.mark.parametrize(
    ("text", "kept", "dropped"),
    [
        ("ok so today was INSANE. then I spilled my flat white all over some guy's suede loafers. anyway BIG NEWS: I got the promotion!!!",
         "I got the promotion", "suede"),
        ("室友打呼噜跟打雷一样，我戴了耳塞都没用。正经事：我是武大计算机的，大三，在准备考研", "考研", "耳塞"),
        ("the vending machine ate my pound coin, someone brought their dog Kevin in. work stuff: we're moving desks to the 4th floor next monday",
         "4th floor", "Kevin"),
    ],
)
def test_what_comes_before_the_real_news_is_the_days_story(embedder: SentenceTransformerEmbedder, text: str, kept: str, dropped: str) -> None:
    bodies = " | ".join(e.body for e in capture(embedder, text))
    assert kept in bodies and dropped not in bodies
    assert "work stuff" not in bodies and "正经事" not in bodies and "BIG NEWS" not in bodies


def test_a_pivot_word_inside_a_statement_is_no_pivot(embedder: SentenceTransformerEmbedder) -> None:
    bodies = " | ".join(e.body for e in capture(embedder, "My sister Anna moved to Berlin in May. We only ever talk about work stuff"))
    assert "Anna" in bodies


def test_a_trip_lasts_until_the_day_the_sentence_says_it_ends(embedder: SentenceTransformerEmbedder) -> None:
    now = datetime(2026, 11, 20, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    trip, stay = capture(embedder, "下个月中旬我和老伴去三亚过冬，住到明年三月再回来。", now)
    assert trip.candidate is not None and stay.candidate is not None
    assert trip.candidate.expires_at is not None and trip.candidate.expires_at.date().isoformat() == "2027-04-01"
    assert "三亚" in trip.body  # still there at Chinese New Year


def test_a_new_job_from_a_day_on_does_not_expire(embedder: SentenceTransformerEmbedder) -> None:
    for text in ("officially Senior UX Designer from 1 March 🎉", "我下周一开始在新东方教雅思口语了"):
        (job, *_rest) = capture(embedder, text)
        assert job.candidate is not None and job.candidate.topic == "user.job", text
        assert job.candidate.expires_at is None and job.candidate.category is not Category.GOAL, text


def test_what_goes_with_a_new_job_lasts_with_it(embedder: SentenceTransformerEmbedder) -> None:
    for text, rest in (("offer定了！下周一入职美团，还是做产品，负责到店业务", ("还是做产品", "负责到店业务")),
                       ("下周一 start at Shopee, 做 payment backend", ("做 payment backend",))):
        kept = {e.body: e.candidate for e in capture(embedder, text) if e.candidate is not None}
        for body in rest:
            assert kept[body].expires_at is None and kept[body].category is not Category.GOAL, body
    # a trip is still a trip: what is said with it goes with its day
    for episode in capture(embedder, "下周六去杭州玩，住西湖边"):
        assert episode.candidate is not None and episode.candidate.expires_at is not None, episode.body


def test_an_illness_of_the_moment_passes_and_a_lasting_condition_stays(embedder: SentenceTransformerEmbedder) -> None:
    ends = {e.body: e.candidate.expires_at for e in capture(embedder, "这周感冒了 鼻塞头疼 请假在家躺着。我有哮喘，冬天最难受")}
    passing = ["这周感冒了", "鼻塞头疼", "请假在家躺着"]
    assert all(ends[body] is not None and ends[body].date().isoformat() == "2026-03-25" for body in passing), ends
    assert [body for body, end in ends.items() if end is None] == [b for b in ends if b not in passing] != []
    # beside it in one sentence, a condition of its own stays; one said to last ends when it says
    ends = {e.body: e.candidate.expires_at for e in capture(embedder, "I have asthma and I caught a cold")}
    assert ends["I have asthma"] is None and ends["I caught a cold"] is not None
    (crutches,) = capture(embedder, "sprained my ankle, on crutches for the next few weeks")
    assert crutches.candidate is not None and crutches.candidate.expires_at is not None
    assert crutches.candidate.expires_at.date().isoformat() == "2026-03-26"


@pytest.mark.parametrize("text", ["每年换季都感冒", "I always get a cold in winter", "小时候扭伤过脚踝，现在阴天还疼"])
def test_an_ailment_that_comes_back_or_is_history_does_not_pass(embedder: SentenceTransformerEmbedder, text: str) -> None:
    assert all(e.candidate is not None and e.candidate.expires_at is None for e in capture(embedder, text)), text


def test_a_clause_with_its_own_subject_does_not_borrow_the_topic_before_it(embedder: SentenceTransformerEmbedder) -> None:
    episodes = capture(embedder, "我是 vegetarian 但吃鸡蛋和奶，我在 Kestrel Partners 做 consultant，每个月要 fly to Jakarta 一周见 client")
    topics = {e.body: e.candidate.topic for e in episodes if e.candidate is not None}
    assert topics["我在 Kestrel Partners 做 consultant"] == "user.job"
    assert all(topic != "user.diet" for body, topic in topics.items() if "Jakarta" in body)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("been getting really into sourdough, my starter is named gary lol. why is my loaf so dense", "my starter is named gary lol"),
        ("新家终于 settle down 了, Brisbane 这边好热 🥵 有什么 furniture 租的 service 推荐吗", "Brisbane 这边好热 🥵"),
    ],
)
def test_a_name_given_or_a_place_named_is_kept(embedder: SentenceTransformerEmbedder, text: str, kept: str) -> None:
    assert kept in [e.body for e in capture(embedder, text)]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("yo. name's Desmond Okafor, 22, senior at UC Davis doing enology 🍇 can u explain malolactic fermentation",
         ["name's Desmond Okafor, 22, senior at UC Davis doing enology 🍇"]),
        # a wish about replies, said to the assistant
        ("你以后别老用emoji 看着累", ["你以后别老用emoji 看着累"]),
        ("your answers are too long", ["your answers are too long"]),
        # thanks after an acknowledgement, and a reaction to the reply, are no memory
        ("嗯嗯 谢谢安慰", []),
        ("ok thanks, that helps a lot", []),
        ("嗯 这样舒服多了", []),
        ("ok that's much better, thanks", []),
        ("你真聪明", []),
        ("names are hard to remember lol", []),
        # what is said after a wish that ends by itself is told, not imagined
        ("要是能去冰岛就好了，我护照下个月过期", ["我护照下个月过期"]),
        ("我要是中了五百万，立马辞职去环游世界", []),
        # news after thanks, and after a laugh that announces it
        ("ok thx 顺便说一下我自己是做 interior design 的", ["ok thx 顺便说一下我自己是做 interior design 的"]),
        ("嘿嘿 跟你说 我有新对象啦", ["我有新对象啦"]),
        ("哈哈哈哈今天520，单身狗瑟瑟发抖", []),
        # a polite if is no condition
        ("please keep your answers short, bullet points if possible", ["please keep your answers short, bullet points if possible"]),
    ],
)
def test_what_a_chat_message_keeps(embedder: SentenceTransformerEmbedder, text: str, kept: list[str]) -> None:
    assert [e.body for e in capture(embedder, text)] == kept


def test_saying_one_is_correcting_oneself_is_no_memory(embedder: SentenceTransformerEmbedder) -> None:
    kept = [e.body for e in capture(embedder, "更正一下 昨天说错了 我儿子是四年级 暑假刚升上去的")]
    assert kept == ["我儿子是四年级 暑假刚升上去的"]
    assert capture(embedder, "oops, my bad") == []


def test_the_weather_alone_is_still_small_talk(embedder: SentenceTransformerEmbedder) -> None:
    assert capture(embedder, "the weather is lovely today") == []


def test_a_pronoun_carries_whom_it_stands_for(embedder: SentenceTransformerEmbedder) -> None:
    episodes = capture(embedder, "my friend raj just got into med school. 但是他对 nuts 过敏")
    allergy = next(e for e in episodes if "nuts" in e.body)
    assert allergy.referent == "raj" and allergy.candidate is not None and allergy.candidate.entities[0] == "raj"
    (alone,) = EpisodeCapture(embedder).capture(split_clauses("she hates cilantro"), NOW, referent="Mei")
    assert alone.referent == "Mei"
    # someone unnamed in between is whom a later pronoun may mean
    later = EpisodeCapture(embedder).capture(split_clauses("my sister is visiting next week. she loves hiking"), NOW, referent="Mei")
    assert all(e.referent is None for e in later)


@pytest.mark.parametrize(
    ("text", "days"),
    [("现在改成周二四六", {2, 4, 6}), ("我 gym 是每周一三五", {1, 3, 5}), ("I swim Mon/Wed/Fri", {1, 3, 5}),
     ("saturdays and sundays I hike", {6, 7}), ("I sit in the sun every morning", set())],
)
def test_the_days_of_the_week_a_text_names(text: str, days: set[int]) -> None:
    from assistant.memory.episodes import weekdays_of

    assert weekdays_of(text) == days

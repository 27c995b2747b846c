"""Episodic capture: every clause about the user, kept in the user's words.

For one message: its clauses (`clauses.py`) are embedded in one batch; each gets a topic
(`topics.py`) and a noise verdict (`noise.py`); the kept ones become episodic candidates with
entities, importance, and — for a clause that names a day ahead ("下周三", "next Friday") —
the resolved date, so a later question finds the plan and the plan expires after its day.
The vectors are handed on: the update decision and the index use them, so nothing is
embedded twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np

from assistant.memory.clauses import Clause
from assistant.memory.embedder import Embedder
from assistant.memory.gate import importance as score_importance
from assistant.memory.noise import (
    CORRECTING,
    DAY_STORY,
    DURABLE,
    PIVOT,
    NoiseFilter,
    Verdict,
    strip_remember,
)
from assistant.memory.people import PEOPLE, about_someone_else, named_people, people_in, refers_back
from assistant.memory.timewords import PLAN_WORDS, en_number, future_date, month_span, zh_number
from assistant.memory.topics import (
    BY_SLOT,
    CHANGE,
    RESCHEDULED,
    Topic,
    TopicClassifier,
    cue_topics,
    located,
    value_words,
)
from assistant.memory.types import Candidate, Category, Kind, Source

MAX_EPISODE_CHARS = 600  # a longer clause is pasted material, not something said about oneself
_EXPLICIT = re.compile(r"(?i)^(?:(?:please|pls|ok|okay|hey|and|also)[\s,]+)*(?:remember|don't forget|keep in mind|note that)\b|^(?:请|麻烦)?(?:你)?(?:帮我)?(?:记住|记一下|记下|别忘了)")
# The least importance of an episode of each topic (lifecycle: an importance-3 memory nobody
# uses fades in about three months, a 4 in six, a 1 in weeks). Who the user is — their
# people and pets, where they live, work and study — lasts like their health does.
TOPIC_IMPORTANCE = {
    "user.allergy": 4, "user.health": 4, "user.diet": 4, "user.family": 4, "user.pet": 4, "user.city": 4,
    "user.job": 4, "user.school": 4, "user.reply_style": 4, "user.vehicle": 3, "user.device.phone": 2,
    "user.device.computer": 2, "user.device.instrument": 2, "user.likes": 2, "user.plan": 3, "user.finance": 3,
}
# A dated statement of these topics is a change that lasts (a new job, a move, a new school).
_LASTING = frozenset({"user.job", "user.city", "user.school"})
# What a dated clause says about these outlives the day it names; so does the name of one of
# the user's people or pets ("my cousin's wedding" names no one and goes with its day).
_OUTLIVES_ITS_DAY = frozenset({"user.health", "user.allergy", "user.diet"})
_NAMED = re.compile(
    rf"(?i:\b(?:my|our)\s+|我的?|我们家?的?|我家)\s*(?:{'|'.join(w for words in PEOPLE.values() for w in words[1] + words[0])})s?"
    r"\s*(?:叫|named|called)?\s*(?-i:[A-Z][a-z]{2,})|(?:叫|名叫|named|called)\s*[\u4e00-\u9fff]{2,3}"
)
_CATEGORY = {"user.likes": Category.PREFERENCE, "user.reply_style": Category.PREFERENCE, "user.plan": Category.GOAL}


@dataclass
class Episode:
    """One clause as the write path judges it."""

    clause: Clause
    body: str  # the clause without "remember that …"
    vector: np.ndarray | None
    topic: Topic | None
    verdict: Verdict
    values: set[str] = field(default_factory=set)
    also: list[Topic] = field(default_factory=list)  # the other topics its words name
    span: Span | None = None  # the day(s) ahead it speaks of, its own or its sentence's
    own_span: bool = False  # the clause names the day itself
    candidate: Candidate | None = None  # set when the clause is kept
    # who its pronoun stands for: the person named last before it ("my friend raj 拿到 offer 了"
    # … "但是他对 nuts 过敏"), so a question that names them finds it
    referent: str | None = None
    corrects: bool = False  # the statement a correcting message gives in place of an earlier one
    passes: datetime | None = None  # an illness of the moment ends then (`_passing_ailments`)


Span = tuple[datetime, datetime]

# A sentence that opens laughing is banter ("哈哈哈哈今天520，单身狗瑟瑟发抖").
# ... but not one that laughs to announce news ("嘿嘿 跟你说 我有新对象啦", "haha guess what")
_ANNOUNCES = re.compile(r"(?i)跟你说|告诉你|报告|宣布|官宣|好消息|\b(?:guess what|big news|good news)\b")
_LAUGH = re.compile(r"(?i)^(?:哈{2,}|呵{2,}|嘿{2,}|h{2,}|lol|lmao|rofl|haha+|hehe+|😂|🤣)")

# A clause that tells what happened names no day ahead, whatever its date words: "I moved to
# Lisbon on March 3", "上个月三号搬的家".
_PAST = re.compile(
    r"(?i)\b(?:was|were|did|went|moved|bought|sold|started|finished|left|ago|last|yesterday|used to|"
    # "we lost our cat on tuesday", "picked him up on saturday": a weekday gone by
    r"lost|had|came|took|saw|met|ate|found|died|passed away|broke|adopted|signed(?! up)|graduated|arrived|landed|returned|picked up|spent|visited)\b"
    r"|去年|上个?月|上个?周|上个?星期|以前|之前|昨天|前天|那年|当年"
    # "我周二把车卖了", "周六去爬山了": done, unless it is about to be ("周五就放假了", "快考试了")
    r"|^(?!.*(?:就|快|会|将|该|得))(?=.*(?:周|星期|礼拜)[一二三四五六日天]).*[\u4e00-\u9fff](?:了|过)[\s!！。.~～]*\W*$"
)
# How a weekday is written: "周二" / "星期二" / "礼拜二", and the English short forms (bare "sat"
# and "sun" only in a list like "Fri/Sat": alone they are "I sat down", "the sun").
_ZH_WEEK = "(?:周|星期|礼拜)"
_ZH_DAY = "[一二三四五六日天]"
_EN_DAY_ABBR = "mon|tue|tues|wed|thu|thur|thurs|fri"
# "周末一般去爬山", "I usually swim on Tuesdays": a habit, not a plan for that day.
_HABIT = re.compile(
    r"(?i)\b(?:usually|always|normally|generally|often|every|each|most|whenever)\b|一般|通常|平时|每(?:个|周|天|次|年|月)?|总是|经常|常常|老是"
    # "周末没事就去水库钓鱼", "有空就去": whenever there is time
    r"|没事就|没事儿就|有空就|一有空|有时间就|闲了就|得空就"
    # "pottery classes on wednesday nights", "I swim on Tuesdays": a weekday in the plural is a routine
    r"|(?i:\b(?:mon|tues|wednes|thurs|fri|satur|sun)day(?:s|\s+(?:nights|mornings|evenings|afternoons))\b)"
    # several weekdays in one breath, or the working week: "周二四六", "周一、三、五", "Mon/Wed/Fri",
    # "weeknights", "工作日"
    rf"|{_ZH_WEEK}{_ZH_DAY}(?:[、,，/]?{_ZH_DAY})+"
    rf"|(?i:\b(?:{_EN_DAY_ABBR}|sat|sun)(?:/(?:{_EN_DAY_ABBR}|sat|sun))+\b)"
    r"|(?i:\b(?:weekdays|weeknights|weekends|workdays)\b)|工作日"
)
_WEEKDAY = re.compile(
    rf"(?i)\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|{_EN_DAY_ABBR})\b|\bweek(?:ly|nights?|ends?|days?)?\b"
    r"|周[一二三四五六日天末]|星期|礼拜|工作日"
)


def weekly_routine(text: str) -> bool:
    """Whether `text` tells something the user does on days of the week ("pottery classes on
    wednesday nights", "我 gym 是每周一三五", "打算 Mon/Wed/Fri 早上 7 点去")."""
    return _HABIT.search(text) is not None and _WEEKDAY.search(text) is not None


_ZH_DAYS = "一二三四五六日"
_ZH_DAY_RUN = re.compile(rf"{_ZH_WEEK}({_ZH_DAY}(?:[、,，/和]?{_ZH_DAY})*)")
_EN_DAY = re.compile(r"(?i)\b(?:(mon|tue|wed|thu|fri)(?:s|days?|sdays?|nesdays?|rsdays?)?|(sat)urdays?|(sun)days?)\b")


def weekdays_of(text: str) -> frozenset[int]:
    """The days of the week `text` names, 1 = Monday ("周二四六" → {2, 4, 6}, "Mon/Wed" → {1, 3})."""
    days = {_ZH_DAYS.index("日" if ch == "天" else ch) + 1 for m in _ZH_DAY_RUN.finditer(text) for ch in m.group(1) if ch in _ZH_DAYS + "天"}
    days |= {("mon", "tue", "wed", "thu", "fri", "sat", "sun").index((m.group(1) or m.group(2) or m.group(3)).lower()) + 1 for m in _EN_DAY.finditer(text)}
    return frozenset(days)


# Something moved to another day ("moved the recital to saturday", "婚礼改到五一"), not the user
# moving home ("I moved to Lisbon on March 3").
_MOVED_A_DAY = re.compile(
    r"(?i)\b(?:bumped|moved|rescheduled|postponed|pushed(?: back)?|brought forward|shifted|changed)\s+(?!to\b)[^.!?]{1,40}?\b(?:to|until|till)\b"
    r"|改(?:到|在)|推迟到|延期到|提前到|挪到|延到"
)
_AHEAD = re.compile(
    r"(?i)\b(?:will|'ll|going to|gonna|next|upcoming|plan(?:ning)?|tomorrow|due|booked|need to|have to|got an?)\b"
    r"|要(?!是)|准备|打算|计划|下个?(?:月|周|星期|礼拜|年)|明天|后天"
)


def _ahead(body: str, now: datetime) -> Span | None:
    """The day or days ahead a clause names, if it speaks of what is to come ("今天开会开了一下午"
    tells of today, "今晚要去看演唱会" of what is to come)."""
    # "they moved the recital to saturday": moved, but to a day ahead
    if (_PAST.search(body) and not _AHEAD.search(body) and not _MOVED_A_DAY.search(body)) or _HABIT.search(body):
        return None
    span = future_date(body, now) or (month_span(body, now) if PLAN_WORDS.search(body) else None)
    if span is not None and span[1].date() <= now.date() and not _AHEAD.search(body):
        return None
    return span


def dated(body: str, span: Span | None) -> str:
    """The body with the day it names ahead written out ("（2026-04-22）")."""
    if span is None:
        return body
    start, end = span
    day = start.strftime("%Y-%m-%d") + ("" if end.date() == start.date() else "–" + end.strftime("%Y-%m-%d"))
    cjk = re.search(r"[\u4e00-\u9fff]", body) is not None
    return f"{body}（{day}）" if cjk else f"{body} ({day})"


_NAMES_SUBJECT = re.compile(r"(?i)^(?:i|i'm|i've|i'd|i'll|we|we're|my|our)\b|^(?:我|我们|咱)")
# An English clause that starts with its verb ("started couch to 5k", "on metformin now",
# "starting Monday as sous chef") or a Chinese one that starts with no pronoun or noun of its own.
_EN_VERB_FIRST = re.compile(
    r"(?i)^(?:(?:just|finally|also|and|so|then|recently|now|still|already|currently)\s+)*"
    r"(?:[a-z]+ed|[a-z]{3,}ing|got|went|took|made|ran|began|quit|left|bought|sold|gave|had|have|has|been|am|on|off|"
    r"back|into|over|done|headed|heading|next|gonna|going)\b"
    r"|^(?:at|with)\s+(?-i:[A-Z])"  # "… data analyst, at DBS": where, for the clause before
)
_ZH_PRONOUN_FIRST = re.compile(r"^(?:他|她|它|你|您|我|咱|大家|有人|别人|人家|这|那|哪)")


# A conjunction before the subject: "可我痛风啊", "但是我不吃辣".
_ZH_JOINER = re.compile(r"^(?:可是|可|但是|但|不过|而且|所以|因为|然后|还有|就是|只是)(?=[我他她它你咱])")


def _no_subject(body: str) -> bool:
    text = _ZH_JOINER.sub("", body.strip())
    if re.match(r"[\u4e00-\u9fff]", text):
        return _ZH_PRONOUN_FIRST.match(text) is None
    return _EN_VERB_FIRST.match(text) is not None


# "my son Teodor is 7 and obsessed with dinosaurs, any museum ideas near Hartford?": a
# statement before the question or request it leads into.
_LEAD_BREAK = re.compile(r"(?i)(?:[,，;；]|\s[-–—]\s|[\U0001F300-\U0001FAFF]\s*)\s*(?:anyway,?\s+|so\s+|but\s+|and\s+)?(?=\S)")


def _asks_anything(text: str) -> bool:
    from assistant.memory.extract.common import Sentence, is_question, language
    from assistant.memory.noise import REQUEST

    return is_question(Sentence(text, 0, language(text))) or REQUEST.match(text) is not None


def _lead_statement(clause: Clause) -> list[Clause]:
    """The clause, or — when it ends in a question or a request — the statement before it too;
    or — when it starts with a request — what the user tells after it ("can you find me a pad
    thai recipe, no peanuts tho, severe allergy")."""
    text = clause.text
    if _REQUEST_HEAD.match(text) and not text.rstrip().endswith(("?", "？")):
        comma = _TOLD_AFTER.search(text, 12)
        if comma is not None and _REQUEST_HEAD.match(text, comma.end()) is None:
            head = text[: comma.start()].rstrip()
            return [
                Clause(head, clause.start, clause.start + len(head), clause.lang, clause.sentence),
                Clause(text[comma.end():], clause.start + comma.end(), clause.end, clause.lang, clause.sentence),
            ]
    if not (text.rstrip().endswith(("?", "？")) or _REQUEST_TAIL.search(text)):
        return [clause]
    breaks = [m for m in _LEAD_BREAK.finditer(text) if 12 <= m.start()]
    if not breaks:
        return [clause]
    cut = breaks[-1]
    head = text[: cut.start()].rstrip()
    return [
        Clause(head, clause.start, clause.start + len(head), clause.lang, clause.sentence),
        Clause(text[cut.end():], clause.start + cut.end(), clause.end, clause.lang, clause.sentence),
    ]


# A request first, then what the user tells with it after a comma.
_REQUEST_HEAD = re.compile(
    r"(?i)^(?:(?:hey|hi|ok|okay|so|pls|please)[\s,]+)*(?:(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+)?)?"
    r"(?:find|give|get|make|suggest|recommend|write|plan|draft|help|show|tell|list)\b"
    r"|^(?:请|麻烦)?(?:你)?(?:帮我|给我|推荐|找)"
)
_TOLD_AFTER = re.compile(r"\s*[,，;；]\s*")
_REQUEST_TAIL = re.compile(
    r"(?i)[,，;；]\s*(?:anyway\s+)?(?:can|could|would) you\b|[,，]\s*(?:any|some) (?:ideas|tips|recs|suggestions)\b"
    r"|[,，;；]\s*(?:pls\s+|please\s+)?(?:give me|tell me|show me|suggest|recommend|help me)\b"  # "bored, give me some hobby ideas"
)


# A thing of the user's named inside a question or a request ("how do I turn off the display on
# my iPhone 15??", "我的 MacBook Air 越来越卡怎么办"): what they own is worth keeping.
_OWNED_EN = re.compile(
    r"(?<![\w'])my\s+(?P<thing>\d{4}\s+[\w-]+(?:\s+(?=[\w-]*[A-Z0-9])[\w-]+){0,2}"  # "my 2014 prius"
    r"|(?=[\w-]*[A-Z0-9])[\w-]+(?:\s+(?=[\w-]*[A-Z0-9])[\w-]+){0,3})"
    # "my cat (Biscuit)", "my son Leo": a pet or a child named in passing
    r"|(?<![\w'])my\s+(?:cat|dog|puppy|kitten|rabbit|bunny|hamster|parrot|son|daughter|kid|baby)\s+\(?[A-Z][a-z]{1,15}\)?"
)
_OWNED_ZH = re.compile(
    r"我(?:的|家的?|这台|那台|这把|那把|这辆|那辆|这部|那部|这款|那款|这只|那只)\s*"
    r"(?P<thing>(?:[\u4e00-\u9fff]{1,4}\s*)?[A-Za-z][\w-]*(?:\s+[A-Za-z0-9][\w-]*){0,3})"
    # "我家猫（叫团子）", "我儿子叫乐乐": a pet or a child named in passing
    r"|我(?:家|的)?的?(?P<who>猫|狗|猫咪|狗狗|兔子|仓鼠|鹦鹉|儿子|女儿|宝宝|闺女)\s*[（(]?\s*(?:叫|名叫|名字叫)\s*[\u4e00-\u9fff]{1,3}[）)]?"
)
_NOT_THINGS = re.compile(r"(?i)^(?:mom|mum|dad|wife|husband|boss|son|daughter|ex|bf|gf|[A-Z][a-z]+)$")


def _owned(clause: Clause) -> Clause | None:
    """The part of a question that names a thing of the user's, as a clause of its own."""
    rx = _OWNED_ZH if re.search(r"[\u4e00-\u9fff]", clause.text) else _OWNED_EN
    m = rx.search(clause.text)
    if m is None or (m.group("thing") is not None and _NOT_THINGS.match(m.group("thing"))):
        return None
    text = m.group(0)
    start = clause.start + m.start()
    return Clause(text, start, start + len(text), clause.lang, clause.sentence)


# "… from 1 March", "as of Monday", "下周一起": a change that holds from that day on
_FROM_DAY = re.compile(r"(?i)\b(?:from|as of|effective|starting)\s+(?:the\s+)?(?:\d|next|this|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|起(?:正式)?|正式"
    r"|(?<![回过])去[^\s，,。]{1,10}(?:做|当|上班)(?!饭|菜|作业|手术|检查|体检|客|东西)"
)
# "住到明年三月再回来", "staying until the 20th": the plan said just before lasts until then
_UNTIL = re.compile(r"(?i)\b(?:until|till|through|thru)\b|(?:住|待|呆|玩|一直)到|直到")


# "physio says no running for like 6 weeks", "cast for six weeks", "石膏要打六周": a state with
# an end. Not what has lasted so far ("I've been vegan for 3 years", "住了两个月了").
_FOR_SPAN = re.compile(
    r"(?i)\bfor\s+(?:(?:like|about|around|roughly|another|the next|at least|a good)\s+)*"
    r"(\d{1,2}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|couple of|a few|few|several)\s+(day|week|month)s?\b"
    r"|(?:要|得|需要|还要|先|至少)(?:[\u4e00-\u9fff]{0,4}?)([0-9一二两三四五六七八九十]{1,3})\s?(天|周|个?星期|个?礼拜|个月)(?![前了多])"
)
_SO_FAR = re.compile(r"(?i)\b(?:been|lived|worked|known|had|have|has|'ve|used to|did|ago|past|last)\b(?:\s+[\w'-]+){0,3}\s+for\s|(?:了|过)[0-9一二两三四五六七八九十]{1,3}\s?(?:天|周|个?星期|个?月)")
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "天": 1, "周": 7, "星期": 7, "个星期": 7, "礼拜": 7, "个礼拜": 7, "个月": 30}


def _lasts_for(body: str, now: datetime) -> datetime | None:
    """When a state said to last a while ends (a day after), or None."""
    m = _FOR_SPAN.search(body)
    if m is None or _SO_FAR.search(body):
        return None
    count, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    n = zh_number(count)
    n = en_number(count) if n is None else n
    if n is None or not 0 < n <= 24:
        return None
    return now + timedelta(days=n * _UNIT_DAYS[unit.lower()] + 1)



# A wish that is whole by itself; what follows it in the sentence is told, not imagined.
_WISH_DONE = re.compile(r"(?:就好了|该多好|多好啊?|就好啦)[\s!！。.~～]*$|(?i:\b(?:would be (?:nice|great|amazing)|i wish)\b)")


def _lasting(episode: Episode) -> bool:
    """A change of its own that lasts from the day it names ("starting at Target on Monday"),
    not a task on a dated day."""
    topic = episode.topic
    return (
        topic is not None and topic.slot in _LASTING and episode.own_span
        and (CHANGE.search(episode.body) is not None or _FROM_DAY.search(episode.body) is not None)
    )


# An illness or a small injury of the moment passes ("这周感冒了 鼻塞头疼", "down with covid this
# week", "sprained my ankle"): the asthma and the knee surgery stay, the cold does not.
_AILMENT = re.compile(
    r"(?i)\b(?:a (?:bad |nasty |heavy )?cold|the flu|flu|covid|a fever|fever|stomach bug|food poisoning|hangover|hungover|"
    r"sore throat|strep|sprained|twisted my (?:ankle|knee|wrist)|pulled (?:a|my) (?:muscle|hamstring|calf|back)|jet ?lagg?(?:ed)?)\b"
    r"|感冒|发烧|发热|拉肚子|腹泻|咳嗽|嗓子(?:疼|痛|哑)|喉咙(?:疼|痛)|扭伤|崴(?:了)?脚|落枕|中暑|食物中毒|肠胃炎|急性肠胃|宿醉|阳了|新冠|流感|倒时差"
)
# ... but not one that comes back, or that is told as history ("每年换季都感冒", "小时候扭伤过")
_AILMENT_KEEPS = re.compile(
    r"(?i)\b(?:always|chronic|every (?:winter|year|spring|autumn|fall|time|season)|keeps? (?:getting|coming)|prone to|"
    r"years|long[- ]covid|used to|whenever)\b|老是|总是|经常|一直|反复|慢性|每年|每次|每到|一到|容易|年前|前年|去年|以前|小时候|后遗症"
)
_AILMENT_DAYS = 21


def _passing_ailments(episodes: list[Episode], now: datetime) -> None:
    """A clause that tells of an illness or injury of the moment expires a few weeks on (or when
    its sentence says it ends), with the clauses beside it that name nothing of their own ("鼻塞头疼",
    "请假在家躺着"); not "I have asthma" beside "I caught a cold", nor an ailment that comes back."""
    sentences: dict[int, list[Episode]] = {}
    for episode in episodes:
        sentences.setdefault(episode.clause.sentence, []).append(episode)
    for group in sentences.values():
        text = " ".join(e.body for e in group)
        if not _AILMENT.search(text) or _AILMENT_KEEPS.search(text):
            continue
        ends = _lasts_for(text, now) or now + timedelta(days=_AILMENT_DAYS)
        for episode in group:
            cand = episode.candidate
            if cand is not None and cand.expires_at is None and (_AILMENT.search(episode.body) or not cue_topics(episode.body)):
                cand.expires_at = episode.passes = ends


def _extend_until(episodes: list[Episode]) -> None:
    """A clause that says how long the sentence's plan lasts ("下个月中旬去三亚过冬，住到明年三月
    再回来") moves the plan's expiry to its end: the trip is not over in December."""
    for j, later in enumerate(episodes):
        cand = later.candidate
        if cand is None or cand.expires_at is None or later.span is None or not _UNTIL.search(later.body):
            continue
        for earlier in episodes[:j]:
            plan = earlier.candidate
            if (plan is not None and earlier.clause.sentence == later.clause.sentence
                    and plan.expires_at is not None and plan.expires_at < cand.expires_at):
                plan.expires_at = cand.expires_at


class EpisodeCapture:
    """Turns clauses into episodic candidates.

    Args:
        embedder: the profile's model; clause vectors come from it in one batch per message.
    """

    def __init__(self, embedder: Embedder | None) -> None:
        self.embedder = embedder
        self.noise = NoiseFilter(embedder)
        self.topics = TopicClassifier(embedder) if embedder is not None else None

    def capture(
        self, clauses: list[Clause], now: datetime, *, explicit_message: bool = False, referent: str | None = None,
        correction: int | None = None,
    ) -> list[Episode]:
        """Judge every clause; kept ones carry an episodic `candidate`.

        Args:
            referent: the person the conversation named last before this message, whom a
                pronoun in it may stand for.
            correction: where the marker of a correcting message ends ("sorry typo, it's
                Kaitlyn"): the first statement from there on is kept as what the user meant.
        """
        clauses = [part for c in clauses for part in _lead_statement(c)]
        clauses += [owned for c in clauses if _asks_anything(c.text) and (owned := _owned(c)) is not None]
        clauses.sort(key=lambda c: c.start)
        bodies = [strip_remember(c.text)[:MAX_EPISODE_CHARS] for c in clauses]
        vectors = self.embedder.embed(bodies) if self.embedder is not None and bodies else None
        out: list[Episode] = []
        subject_is_user = True
        last_topic: Topic | None = None  # of the clause before, for one that has no subject
        kept_sentence = -1  # the sentence whose last clause was kept
        imagined: set[int] = set()  # sentences that began with a condition ("我要是中了五百万，立马辞职…")
        spans: dict[int, Span] = {}  # sentence -> the day ahead its first dated clause names
        day_story = bool(clauses) and DAY_STORY.search(" ".join(c.text for c in clauses[:2])) is not None
        pivot = next((c.start for c in clauses if PIVOT.search(c.text)), None)
        changes: set[int] = set()  # sentences with a change that lasts from a day ahead
        joking = {
            c.sentence for j, c in enumerate(clauses)
            if (j == 0 or clauses[j - 1].sentence != c.sentence) and _LAUGH.match(c.text) and not _ANNOUNCES.search(c.text)
        }
        for i, (clause, body) in enumerate(zip(clauses, bodies, strict=True)):
            vector = None if vectors is None else vectors[i]
            if self.topics is not None:
                topic = self.topics.classify(body, vector)
            else:
                cued = cue_topics(body)
                topic = cued[0] if cued else None
            # A clause with no subject continues the one before it: "我老婆是护士，在协和上班",
            # "娃今年上一年级了，叫小满", "I'm a line cook … starting Monday as sous chef".
            other = about_someone_else(body)
            implied = _no_subject(body)
            if other or _NAMES_SUBJECT.match(body.strip()):
                subject_is_user = not other
            # "这周五 (27号) 有个 deadline，要交 quarterly report 给老板": the report is due then too.
            span = _ahead(body, now)
            own = span is not None
            if span is not None:
                spans.setdefault(clause.sentence, span)
                if topic is None or (topic.slot == "user.city" and _MOVED_A_DAY.search(body)):
                    # a day ahead makes it a plan ("这周六要考科目二了"); "moved the recital to
                    # saturday" moves a day, not a home
                    topic = BY_SLOT["user.plan"]
            elif implied or _AHEAD.search(body):  # "… on 13 June, and I'm best man, I'll need speech help"
                span = spans.get(clause.sentence)
            # where the user is counts as what the clause is about ("对了我在西安，这边今天大暴雨",
            # "base 在新加坡"), though it supersedes no city (see `also` below)
            placed = topic is None and subject_is_user and located(body)
            corrects = correction is not None and clause.start + len(clause.text) >= correction and not CORRECTING.match(body.strip(" !！。.~～"))
            verdict = self.noise.judge(
                body, vector, BY_SLOT["user.city"] if placed else topic, user_subject=subject_is_user, implied_subject=implied,
                continues=implied and kept_sentence == clause.sentence,
                day_story=(day_story or clause.sentence in joking) and span is None and pivot is None,
                moved_day=own and RESCHEDULED.search(body) is not None, corrects=corrects,
            )
            if corrects:
                correction = None
            if pivot is not None and clause.start < pivot and span is None and verdict.keep and not DURABLE.search(body):
                verdict = Verdict(False, "the day's story, before what the user called the real news")
            elif verdict.keep and PIVOT.search(body) and len(re.findall(r"[A-Za-z]+|[\u4e00-\u9fff]", PIVOT.sub(" ", body))) <= 2:
                verdict = Verdict(False, "a lead-in ('work stuff:', '说正事：')")
            if verdict.reason == "hypothetical":
                if not _WISH_DONE.search(body):  # "我要是亿万富翁就好了，学生党预算很一般的": the wish ends there
                    imagined.add(clause.sentence)
            elif clause.sentence in imagined and verdict.keep:
                verdict = Verdict(False, "hypothetical (the condition comes first)")
            kept_sentence = clause.sentence if verdict.keep else -1
            if implied and topic is None and verdict.keep:
                topic = last_topic  # tags the episode; the clause alone did not show it
            # a clause with a subject of its own starts afresh: "我在 Kestrel Partners 做 consultant" after a
            # diet is not a diet, nor is the trip said after it
            last_topic = (topic or last_topic) if implied else topic
            also = [t for t in cue_topics(body) if t is not topic]
            city = BY_SLOT["user.city"]
            if topic is not city and city not in also and subject_is_user and located(body):
                also.append(city)  # "在大连一所中学教物理", "I teach at a comp in Headingley": where they are
            # a statement worth keeping that no cue word or prototype placed ("换到区图书馆的第一个礼拜"
            # is about work): filed under the topic the text classifier finds likely, for the read
            # path to find it by; not as its own topic, which would let a guess replace what the user
            # said of that part of life, or keep the statement from fading
            guess = self.topics.learned(body) if topic is None and verdict.keep and self.topics is not None else None
            if guess is not None and guess not in also:
                also.append(guess)
            episode = Episode(clause, body, vector, topic, verdict, value_words(body), also, span, own_span=own, corrects=corrects)
            if named := named_people(body):
                referent = named[-1]
            else:
                if referent is not None and refers_back(body):
                    episode.referent = referent
                if people_in(body):
                    referent = None  # someone else, unnamed, is whom a pronoun after this may mean
            if verdict.keep:
                # a change that lasts from its day on, of its own or continued from the sentence's
                # ("下周一入职美团，还是做产品，负责到店业务": the product work starts then too)
                changes_here = _lasting(episode)
                inherits = clause.sentence in changes and episode.topic is not None and episode.topic.slot in _LASTING and not episode.own_span
                episode.candidate = self._candidate(
                    episode, now, explicit_message or _EXPLICIT.match(clause.text) is not None, lasting=changes_here or inherits
                )
                if changes_here:
                    changes.add(clause.sentence)
            out.append(episode)
        _extend_until(out)
        _passing_ailments(out, now)
        return out

    def _candidate(self, episode: Episode, now: datetime, explicit: bool, *, lasting: bool) -> Candidate:
        """The episodic memory of a kept clause.

        Args:
            lasting: it tells of a change that lasts from the day it names (`_lasting`), or
                continues one in the same sentence: no plan that expires after its day.
        """
        content = dated(episode.body.strip(), episode.span)
        start, end = episode.span or (None, None)
        topic = episode.topic
        category = _CATEGORY.get(topic.slot, Category.FACT) if topic else Category.FACT
        # "我女儿 Emma 下周三有 piano recital", "可我痛风啊…（周五聚会）": the day passes, the
        # daughter and the gout stay
        slots = {t.slot for t in episode.also} | ({topic.slot} if topic else set())
        about_who = bool(slots & _OUTLIVES_ITS_DAY) or (bool(slots & {"user.family", "user.pet"}) and _NAMED.search(episode.body) is not None)
        if start is not None and not lasting:
            category = Category.GOAL
        # Who the user is lasts: "湖南岳阳人" is short and has no "I", and is no trivia.
        importance = max(score_importance(episode.body), TOPIC_IMPORTANCE.get(topic.slot, 2) if topic else 1)
        if explicit:
            importance = max(importance, 4)
        candidate = Candidate(
            content=content,
            category=category,
            kind=Kind.EPISODIC,
            entities=([episode.referent] if episode.referent else []) + sorted(episode.values)[: 7 if episode.referent else 8],
            importance=importance,
            confidence=0.7 if explicit else 0.6,
            source=Source.USER_EXPLICIT if explicit else Source.USER_IMPLIED,
            evidence=episode.clause.text,
            explicit=explicit,
            event_at=start,
            # "starting at Target on Monday" changes who the user is from that day on; a trip ends
            expires_at=end + timedelta(days=1) if end is not None and not lasting and not about_who else _lasts_for(episode.body, now),
            extractor="episodic",
            topic=topic.slot if topic else None,
            topics=[t.slot for t in episode.also],
        )
        return candidate


__all__ = ["MAX_EPISODE_CHARS", "Episode", "EpisodeCapture", "dated"]

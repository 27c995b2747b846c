"""The noise filter: is a clause something about the user worth keeping, or chatter?

Greetings, thanks, acknowledgements, questions and requests to the assistant, passing moods
and small talk are not kept; every other statement about the user is. The decision is a
local score, not a list of phrases:

- hard signals that a clause is addressed to the assistant or is not a statement (a question,
  a request, a greeting, an attempt to instruct the assistant, a hypothetical);
- soft features: a first-person subject, a topic of the user's life (`topics.py`), names and
  numbers, durable words ("always", "every week", "allergic"), transient words ("today",
  "right now", "累死了"), the cheap importance score of `gate.py`;
- the embedding's similarity to labelled prototypes of both kinds, in Chinese and English
  (the model the profile already loads), which carries the decision where no word does.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

import numpy as np

from assistant.memory.embedder import Embedder
from assistant.memory.extract.common import (
    Sentence,
    is_hypothetical,
    is_imagined,
    is_question,
    language,
    looks_like_injection,
)
from assistant.memory.people import FIRST_PERSON, about_someone_else
from assistant.memory.prototypes import DURABLE_PROTOTYPES, NOISE_PROTOTYPES
from assistant.memory.similarity import script, skill
from assistant.memory.things import arrived_kinds, gone_kinds, handles_renamed
from assistant.memory.topics import ABSTAINED, ENDED, REVERSED, SINGLE, Topic

GREETING = re.compile(
    r"(?i)^(?:hi|hello|hey|heya|yo|hiya|howdy|good (?:morning|afternoon|evening|night)|morning|night|gn|bye|goodbye|see you|see ya|later|cya|"
    r"thanks|thank you|thank u|thx|ty|tysm|cheers|appreciate it|ok|okay|k|kk|cool|nice|great|awesome|perfect|sure|yes|no|yep|nope|yeah|yup|nah|"
    r"lol|lmao|haha+|hehe+|hmm+|wow|omg|gotcha|got it|sounds good|makes sense|fair enough|np|no problem|no worries|alright|all right|right|true|exactly|indeed|oh|ah|oops|sorry|my bad)\b"
    r"[\s!.,~?]*(?:(?:there|so much|a lot|again|man|dude|buddy|mate|mnemo|you|then|too|for (?:that|this|the help|your help|everything))[\s!.,~?]*)*$"
    r"|^(?:你好|您好|嗨|哈喽|哈啰|早上好|早安|早|晚上好|晚安|午安|再见|拜拜|回见|谢谢|多谢|感谢|谢啦|谢了|好的|好滴|好嘞|好|行|成|嗯+|哦+|噢|喔|啊|哈+|呵呵|嘿嘿|好吧|"
    r"知道了|明白了|明白|懂了|收到|没问题|可以|对|对的|是的|不是|没事|算了|ok|OK|好叭|666|牛|厉害|太棒了|棒|不错)[\s!！。.,，~～?？]*(?:你|您|啦|了|呀|哈|喔|哦|嗯|啊|呢|哈哈|小助手|助手|(?i:mnemo))*[\s!！。.,，~～?？]*$"
)
# Thanks, also after an acknowledgement ("ok thanks for the help", "嗯嗯 谢谢安慰", "好的谢谢你").
_ACK = r"(?:(?:ok|okay|oh|ah|yeah|yes|sure|great|cool|alright|嗯+|好的|好滴|好嘞|好吧|好|哦+|噢|喔|行|收到|明白了?|懂了)[\s,，!！.。~～]*)?"
THANKS = re.compile(rf"(?i)^{_ACK}(?:thanks|thank you|thank u|thx|ty|much appreciated|appreciate)\b|^{_ACK}(?:谢谢|多谢|感谢|谢啦|谢了)")
# What turns from thanks to news: "顺便说一下", "对了", "btw", "also"
_BY_THE_WAY = re.compile(r"(?i)(?:顺便|对了|另外|还有|补充|btw\b|by the way\b|also\b|oh and\b|and also\b|fyi\b)")
# Cries: alone they are a mood (MOOD); before a statement they are skipped (_INTERJECTION).
_CRY_EN = "|".join(("ugh", "argh", "lol", "lmao", "haha+", "omg", "meh", "yay", "woo+", "phew"))
_CRY_ZH = "|".join(("哈哈+", "呵呵+", "嘿嘿+", "笑死", "啊啊+", "唉+", "烦死", "气死", "累死", "困死", "饿死", "热死", "冷死"))
MOOD = re.compile(
    r"(?i)^(?:ugh,?\s*|man,?\s*|omg,?\s*|today,?\s*|tonight,?\s*|right now,?\s*)?i(?:'m| am| feel| feel so| feel really)\s+(?:so\s+|really\s+|very\s+|kinda\s+|kind of\s+|a bit\s+|a little\s+|super\s+|pretty\s+|totally\s+)?"
    r"(?:tired|exhausted|sleepy|sad|bored|hungry|happy|angry|annoyed|stressed|anxious|grumpy|cranky|sick|down|upset|frustrated|excited|great|fine|good|okay|ok|meh|full|stuffed|cold|hot)\b"
    r"(?:\s+(?:today|tonight|right now|now|this morning|this week|lately))?[\s!.~]*$"
    rf"|^(?:{_CRY_EN})\b"
    rf"|^(?:{_CRY_ZH})"
    r"|^(?![\u4e00-\u9fff]{0,3}(?:老死|病死))[\u4e00-\u9fff]{1,3}死(?:了|我了)?[\s!！~～。😭😤😂]*$"  # "热死了", not "大黄老死了"
    r"|^(?:今天|刚才|刚刚|现在|这会儿|今晚)?(?:我)?(?:好|真|太|超|有点|特别)(?:烦|累|困|无聊|郁闷|气|丧|崩溃|难受|开心|高兴|饿|冷|热)(?:啊|了|呀|死了)?"
    r"|^(?:说实话|说真的|其实)?(?:我)?(?:好|真|太|超|有点|特别)(?:紧张|慌|激动|兴奋)(?:啊|了|呀|死了)?[\s!！~～。.]*$"
)
REQUEST = re.compile(
    r"(?i)^(?:please\s+|pls\s+|plz\s+|hey,?\s+|ok,?\s+|okay,?\s+|so,?\s+|now,?\s+|then,?\s+|and\s+|also,?\s+)*(?:(?:can|could|would|will)\s+you\b|write|tell me|give me|show me|help me|translate|summari[sz]e|explain|make|create|generate|"
    r"find|search|look up|list|draft|compose|fix|calculate|convert|rewrite|check|recommend|suggest|describe|compare|book|set|open|play|send|remind me|let me know|"
    r"any (?:[a-z]+\s+)?(?:ideas|tips|suggestions|recs|recommendations)|ideas for|what about|how about|i need (?:ideas|help|a|an|some)|i want (?:ideas|a list|you to)|i'd like (?:ideas|you to))\b"
    r"|^(?:想|我想|就是想)?(?:请|麻烦)?(?:你)?(?:帮我|帮忙|给我|替我|你能|你可以|能不能|可以帮|翻译|写一|写个|总结|解释|推荐|查一下|搜一下|算一下|讲个|说个|生成|画|来一|来个|讲讲|说说|介绍)"
)
# The user talking about the assistant, not about themself ("you're the best", "你真聪明").
ABOUT_YOU = re.compile(r"(?i)^(?:you|you're|you are|your|u r|ur)\b|^(?:你|您)(?!们家)")
SMALL_TALK = re.compile(
    r"(?i)\b(?:weather|raining|sunny|good night|goodnight|brb|ttyl|gtg|bedtime|off to bed|just kidding|jk|random question|quick question)\b"
    r"|天气|下雨|好热|好冷|笑死|晚安|睡了|先睡|先撤|去吃饭了|溜了|开玩笑|随便问问|问个问题|刚看到|刷到"
    r"|不想(?:聊|说|提)|不知道为啥|不知道为什么|说个事|说个秘密|再说吧|还好吧"
)
# "so bored at work today", "super tired lately": a passing mood wherever it stands
# A cry before a statement ("omg", "气死"), and the punctuation after it.
_INTERJECTION = re.compile(
    rf"(?i)^(?:{_CRY_EN}|{_CRY_ZH})"
    r"(?:了|我了)?(?:\b|(?<=[\u4e00-\u9fff]))[\s,，!！.。…~～😩😭😤😂🙃]*"
)
# What after a cry answers the assistant rather than tells anything: "meh idk none of those sound like me".
_HEDGE = re.compile(r"(?i)(?:idk|nah|yeah|yep|ok|okay|no|not really|none|whatever|好吧|算了|随便|不知道|嗯+)\b")
MOOD_INSIDE = re.compile(r"(?i)\b(?:so|really|super|kinda|sooo+|very)\s+(?:bored|tired|sleepy|hungry|stressed|annoyed|grumpy|exhausted)\b|无聊死了|困死了|累死了|饿死了")
_SIGH_FIRST = re.compile(r"(?i)^(?:ugh|argh|omg|man|welp|sigh|唉+|哎+|啊啊+)\b[\s,，!！.…~～]*(?![\s,，!！.…~～]*$)")
LAUGH = re.compile(r"(?i)\b(?:lol|lmao|haha+|hehe+|rofl)\b|哈哈|呵呵|嘿嘿")
TRANSIENT = re.compile(
    r"(?i)\b(?:today|tonight|this morning|this afternoon|right now|at the moment|atm|just now|currently eating|for lunch today|for dinner tonight)\b"
    r"|今天|今晚|刚才|刚刚|这会儿|此刻|现在好|中午吃了|晚饭吃了|早饭吃了"
)
DURABLE = re.compile(
    r"(?i)\b(?:always|never|usually|every|each|since|years?|allergic|vegetarian|vegan|live|lives|work|works|born|married|diagnosed|own|owns|"
    r"my (?:wife|husband|son|daughter|kids?|partner|dog|cat|mom|dad|job|boss|company)|next (?:week|month|year))\b"
    r"|总是|从不|从来|每天|每周|每年|一直|常年|多年|过敏|吃素|住在|工作|上班|结婚|生日|下个月|下周|明年|我(?:的)?(?:女儿|儿子|老婆|老公|猫|狗)"
    # an age lasts the year: "她五岁了", "he just turned 7", "my son is 4 years old"
    r"|(?<![\d.])[一二两三四五六七八九十\d]{1,3}岁(?!月)|(?i:\b\d{1,3}\s*(?:years? old|yo)\b|\bturned \d{1,3}\b)"
)
# "这句英语语法对吗 I has finished it": a question particle before a quoted bit.
# How a message that tells of the day opens: "what a day", "today was so long", "今天开会开了一下午".
DAY_STORY = re.compile(
    r"(?i)\b(?:what a day|long day|rough day|crazy day|weird day|busy day|today was|today has been|this morning was|tonight was|worst day)\b"
    # what a video or a post showed is not the user's
    r"|\b(?:saw|watched|watching) (?:a|this) (?:video|clip|tiktok|reel|post)\b|刷到|刚看到|看到个视频|看了个视频|抖音上|小红书上看到"
    r"|今天(?:真是|真|好|太|超)?(?:累|烦|忙|倒霉|郁闷|崩溃|离谱|无语|糟糕|惨)|今天.{0,8}(?:了一下午|了一天|了一上午|了一晚上)|累死了|烦死了|气死了|倒霉"
)
# "… spilled my flat white. anyway BIG NEWS: I got the promotion", "…一勺肉抖得只剩两块。正经事：我是武大
# 计算机的": the user says where the day's story ends and what matters begins.
PIVOT = re.compile(
    # "…, actual stuff: …", "some good stuff tho - …": the phrase and a colon or a dash
    r"(?i)\b(?:big|real|actual|good|important|serious|main|work|life|house|family)\s+(?:news|stuff|update)"
    r"(?:\s+(?:tho|though|first|now))?\s*(?:[:!]|\s[-–—]\s)"
    # or the phrase as a clause of its own ("anyway BIG NEWS", "work stuff"), not inside one
    # ("we only talk about work stuff")
    r"|^\W*(?:(?:anyway|but|ok|okay|so|and|also|oh)[,!]*\s+)*(?:some\s+)?(?:big|real|actual|good|important|serious|main|work|life)"
    r"\s+(?:news|stuff|update)(?:\s+(?:tho|though|first|now))?[\s!.:]*$"
    r"|\b(?:on a (?:serious|real|more serious) note|but seriously|seriously though|anyway,? the (?:real|main|big) (?:news|thing))\b"
    r"|说正事|说点正事|正经事|说回正题|言归正传|讲正事|正事[是：:]"
    r"|(?:跟你|和你|告诉你)(?:说|讲)?(?:个|一个)(?:好|坏|大)?消息|(?:有|宣布)(?:个|一个)(?:好|坏|大)消息"
)
_ZH_ASK = re.compile(r"(?:吗|么|嘛|呢)(?=\s+[A-Za-z0-9])")
# "好嘞 我去看看", "ok I'll try that": the user answering the assistant, not telling it anything.
_TRY_IT = re.compile(
    r"(?i)^(?:好|好的|好嘞|好滴|行|嗯|ok|okay|sure|cool)[\s,，!！~～]*(?:那)?(?:我)?(?:先|去|回头|等下|待会)?(?:看看|试试|研究一下|想想|收起来|记下了)[\s!！。.~～]*$"
    r"|^(?:ok|okay|sure|cool|great)[\s,!]*(?:i'?ll|will|let me|gonna)\s+(?:try|check|look|think about)\b"
)
# "my flask app keeps saying the key isnt set??": the user's own thing, told with a question
# mark but in a statement's order — what it says about them holds.
_PUZZLED = re.compile(
    r"(?i)^(?:(?:ugh|omg|so|and|but|also|btw)[\s,]+)?(?:my|our)\s+(?:[\w'-]+\s+){0,3}?"
    r"(?:keeps|kept|is|isn't|isnt|won't|wont|doesn't|doesnt|has|just|still|started|stopped|broke|died|failed)\b"
    r"(?!.*\b(?:what|how|why|which|where|when|who|should|could|can|any)\b)"
)
# a name, a number, an acronym; a name given ("my starter is named gary", "取名叫可乐")
_ENTITY = re.compile(
    r"(?<=\w\s)[A-Z][a-z]{2,}|\d|[A-Z]{2,}|(?:叫|名叫|名字是|取名|起名)[\u4e00-\u9fff]{2,3}|(?i:\b(?:named|called)\s+[a-z]{2,})"
)
# How the user finds the assistant's last reply: "嗯 这样舒服多了", "ok that's much better".
_REACTION = re.compile(
    r"^(?:(?:嗯+|好|哦+|噢|诶|哇)[\s,，!！~～]*)?(?:这样|这个|那样|这下|这回|这次)(?:就|确实|真的|果然|好像)?(?:舒服|好|顺眼|清楚|好看|顺|对|行|可以|不错|清爽)"
    r"[\u4e00-\u9fff]{0,2}(?:了|啊|呀|哈)?[\s!！。.~～]*$"
    r"|(?i:^(?:(?:ok|okay|yeah|oh|ah|wow)[\s,!]+)?(?:that's|thats|that is|this is|it's|its|now it's|much|way)\s+(?:(?:much|way|so much|a lot)\s+)?"
    r"(?:better|clearer|easier to read)[\s!.,~]*(?:thanks|thank you|ty|thx)?[\s!.~]*$)"
)
# "name's Desmond, 22, senior at UC Davis": the user introducing themself without an "I".
_NAME_GIVEN = re.compile(r"(?i)^(?:(?:hi|hey|hello|yo|so|ok)[\s,!.]+)*(?:the\s+)?(?:name's|name is|call me)\s+[a-z]")
_WORDS = re.compile(r"[\u4e00-\u9fff]|[A-Za-z0-9']+")
# A clause that only says the user is correcting themself ("昨天说错了", "sorry, I meant"): what
# they correct is in the clause that follows.
CORRECTING = re.compile(
    r"(?i)^(?:(?:sorry|oops|wait|actually|oh|ugh|hmm)[\s,!.]*)*(?:i meant|i misspoke|my bad|typo|correction|scratch that|i got (?:that|it) wrong|i said (?:that |it )?wrong"
    r"|i mixed (?:that|it|them|those) up|i got (?:that|it|them) mixed up|no|(?:that's |thats |that was )?wrong)"
    r"[\s,!.:~]*$"
    r"|^(?:更正|纠正|订正)(?:一下)?$|^(?:不好意思|抱歉|哦|噢|啊|诶|呃|额|sorry)?[，,\s]*(?:不对[，,\s]*)*我?(?:昨天|前天|刚才|刚刚|之前|上次|上回)?"
    r"(?:手滑)?(?:说错|记错|写错|打错|讲错|搞错)了?$|^(?:哦|噢|啊|诶|呃|额)?[，,\s]*(?:不对[，,\s]*)+$|^口误$"
)
# A message that corrects what the user just said ("wait no its april 21", "sorry typo, it's
# Kaitlyn", "啊不对我记错了 小满8岁了", "打错了，老板名字是Stephen"): the statement after the
# marker stands in for the one it corrects. Found near the start of a message only ("是不是
# header 写错了" asks about code).
CORRECTION = re.compile(
    r"(?i)\b(?:wait,?\s+no|no,?\s+wait|actually,?\s+no|(?:sorry|oops),?\s+(?:typo|wrong|i meant|i mean)|typo|autocorrect|i was wrong|i mixed (?:that|it|them|those) up"
    r"|got (?:that|it|them) mixed up|i meant|i misspoke|my bad|correction|scratch that|i got (?:that|it) wrong|i said (?:that |it )?wrong"
    r"|(?:wait|oops|sorry|no|ugh)[,.!\s]+(?:that's\s+|thats\s+)?wrong)\b"
    r"|(?<!对)不对(?![劲付称外口])|(?:说|记|写|打|讲)错了|口误|(?:更正|纠正)一下|手滑"
)
CORRECTION_WITHIN = 24  # characters from the start of the message


def corrects(text: str) -> int | None:
    """Where the correction marker of a correcting message ends, or None when it is no correction."""
    found = CORRECTION.search(text[: CORRECTION_WITHIN + 12])
    if found is None or found.start() > CORRECTION_WITHIN or about_someone_else(text[: found.start()]):
        return None  # "我同事今天把报表数字写错了" is no correction of the user's
    return found.end()


_REMEMBER = re.compile(
    r"(?i)^(?:(?:please|pls|ok|okay|hey|and|also|oh|btw)[\s,]+)*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:remember|don't forget|do not forget|note|keep in mind|make a note|save|memori[sz]e)"
    r"(?:\s+(?:this|that|for me))?\s*(?:that\b|:|,|-|：)?\s*"
    r"|^(?:请|麻烦|你)?(?:能|可以)?(?:要|帮我|给我|替我)?(?:记住|记一下|记下来|记下|记着|记好|备忘|别忘了|不要忘了|不要忘记|别忘记)(?:了|一下|好)?(?:[:：，,]|这件事[:：，,]?)?\s*"
)

# A question typed without its question mark: "quick q whats the difference between baking soda and
# baking powder", "hows the weather in lisbon in may".
_ASKS_FIRST = re.compile(
    r"(?i)^(?:(?:quick|random|silly|dumb)\s+(?:q|question)|q|question|ok|okay|so|also|btw|hey)?[\s:,-]*"
    r"(?:whats|what's|hows|how's|wheres|where's|whos|who's|whys|why's|what is|how do|how does|how can|how long|how much|how many"
    r"|why do|why does|why is|is there|are there|can i|could i|should i|do i|does it|is it|what do|what does|which is)\b"
)
# A short clause that ends in how the user feels ("最近项目好多好累😮‍💨", "压力超大", "真想辞职",
# "so stressed out rn"): the feeling passes; a name or a number in it may not.
_FEELING_TAIL = re.compile(
    r"(?:(?:好|真|太|超|很|有点|有些|特别|巨|贼|蛮|挺|快|要|都|又)?"
    r"(?:累|烦|困|丧|郁闷|崩溃|难受|心累|头大|无语|焦虑|紧张|激动|兴奋|开心|高兴|爽|忙|emo|抓狂|绝望|想哭|无聊|羡慕|心塞|窒息)"
    r"(?:死|坏|疯|炸|爆)?(?:了|啊|呀|哦|哈|呢|啦|惹|我了)*"
    r"|压力(?:好|太|超|很|有点|特别|山|巨)?大(?:了|啊|呀)*)"
    r"[\s!！。.~～…😭😩😫😮‍💨💨🥲😤😵😮]*$"
    r"|^(?:我)?(?:最近)?(?:真|好|超|太)想(?!.*(?:去|买|学|考|养|搬|换|回))[\u4e00-\u9fff]{1,4}[\s!！。.~～…]*$"
    r"|^(?:我)?(?:今天|最近)?(?:完全|真|真的|好|超|太|一点也|一点都|根本)?不想(?:上班|上学|起床|动|干活|工作|出门|学习|做饭|说话)(?:了|啊|呀)?[\s!！。.~～…😩😭😫🥲😮‍💨]*$"
    r"|(?i:\b(?:so|really|super|kinda|very|totally|completely)\s+(?:stressed(?: out)?|burnt out|burned out|overwhelmed|drained|done)(?:\s+(?:rn|lately|today|atm))?[\s!.~]*$)"
)


def _ended_names(text: str) -> set[str]:
    from assistant.memory.update import ended_names

    return ended_names(text)


def _feeling_only(text: str) -> bool:
    """A passing feeling: the feeling ends the clause, and what comes before it is a few words
    ("最近项目好多" before "好累"), with no name or number in them."""
    from assistant.memory.topics import value_words

    tail = _FEELING_TAIL.search(text)
    if tail is None or value_words(text) or _ENTITY.search(text):
        return False
    before = text[: tail.start()]
    return len(re.findall(r"[\u4e00-\u9fff]", before)) <= 6 and len(re.findall(r"[A-Za-z]+", before)) <= 3


@dataclass(frozen=True)
class Verdict:
    keep: bool
    reason: str
    score: float = 0.0


def strip_remember(text: str) -> str:
    """The statement inside "remember that …" / "记住…" (the text itself when there is none)."""
    m = _REMEMBER.match(text)
    rest = text[m.end():] if m else text
    return rest if rest.strip() else text


def _size(text: str) -> int:
    return len(_WORDS.findall(text))


class NoiseFilter:
    """Scores clauses; keeps statements about the user.

    Args:
        embedder: the profile's model (None: words only).
        threshold: the least score a kept clause has.
    """

    _cache: dict[str, dict[str, tuple[np.ndarray, np.ndarray, float]]] = {}
    _lock = threading.Lock()

    def __init__(self, embedder: Embedder | None, threshold: float = 0.7, min_skill: float = 0.8) -> None:
        self.embedder = embedder
        self.threshold = threshold
        self.min_skill = min_skill

    def _prototypes(self) -> dict[str, tuple[np.ndarray, np.ndarray, float]]:
        """Per script: noise and durable prototype vectors, and how well the model tells them apart."""
        assert self.embedder is not None
        name = self.embedder.vector_space
        with self._lock:
            if name not in self._cache:
                texts = list(NOISE_PROTOTYPES) + list(DURABLE_PROTOTYPES)
                labels = ["noise"] * len(NOISE_PROTOTYPES) + ["durable"] * len(DURABLE_PROTOTYPES)
                vectors = self.embedder.embed(texts)
                skills = skill(texts, labels, vectors)
                by_script: dict[str, tuple[np.ndarray, np.ndarray, float]] = {}
                for lang, value in skills.items():
                    noise = [i for i, t in enumerate(texts) if labels[i] == "noise" and script(t) == lang]
                    durable = [i for i, t in enumerate(texts) if labels[i] == "durable" and script(t) == lang]
                    by_script[lang] = (vectors[noise], vectors[durable], value)
                self._cache[name] = by_script
            return self._cache[name]

    def margin(self, vector: np.ndarray, lang: str) -> float:
        """Mean similarity to the 3 nearest durable prototypes of the clause's script minus to
        the 3 nearest noise ones; 0 where the model cannot tell the two apart in that script."""
        found = self._prototypes().get(lang)
        if found is None or found[2] < self.min_skill:
            return 0.0
        noise, durable, _ = found
        near_noise = np.sort(noise @ vector)[-3:].mean()
        near_durable = np.sort(durable @ vector)[-3:].mean()
        return float(near_durable - near_noise)

    def judge(
        self, clause: str, vector: np.ndarray | None, topic: Topic | None, *, user_subject: bool = True,
        implied_subject: bool = False, continues: bool = False, day_story: bool = False, moved_day: bool = False,
        corrects: bool = False,
    ) -> Verdict:
        """Whether one clause is kept.

        Args:
            clause: the clause, "remember that …" already unwrapped.
            vector: its embedding (None: words only).
            topic: its topic (topics.py), if any.
            user_subject: False when the subject is known to be someone other than the user
                (their people still count, as part of the user's life).
            implied_subject: the clause has no subject of its own and continues the one
                before it ("在大连一所中学教物理" after "我是阿雯").
            continues: it continues a kept statement of the same sentence ("我是个大三学生，
                在武汉读书，学的土木"): the statement goes on, unless a hard signal says otherwise.
            day_story: the message tells how a day went ("ok what a day. woke up late, spilled
                coffee …"): its events are passing unless one says something lasting.
            moved_day: the clause moves something to a day ahead ("ugh they pushed the wedding
                to the 21st"): a sigh before it is no passing mood.
            corrects: it is what a correcting message gives instead of an earlier statement
                ("sorry typo, it's Kaitlyn"): the user speaks of what they told before.
        """
        text = clause.strip()
        if not _WORDS.search(text):
            return Verdict(False, "no words")
        if looks_like_injection(text):
            return Verdict(False, "instruction to the assistant (possible prompt injection)")

        def judged_as_said(rest: str) -> Verdict:
            return self.judge(
                rest, vector, topic, user_subject=user_subject, implied_subject=implied_subject,
                continues=continues, day_story=day_story, moved_day=moved_day, corrects=corrects,
            )

        thanks = THANKS.match(text)
        if thanks is not None and _BY_THE_WAY.match(rest := text[thanks.end():].lstrip(" ,，.。!！~～:：")) and FIRST_PERSON.search(rest):
            return judged_as_said(rest)  # "ok thx 顺便说一下我自己是做 interior design 的": the thanks is said, then the news
        if GREETING.match(text) or thanks is not None:
            return Verdict(False, "greeting, thanks or acknowledgement")
        if _REACTION.match(text):
            return Verdict(False, "a reaction to the reply")
        if CORRECTING.match(text.strip(" !！。.~～")):
            return Verdict(False, "says only that a correction follows")
        lang = language(text)
        lead = _INTERJECTION.match(text)
        if lead is not None and _size(text[lead.end():]) >= (6 if lang == "zh" else 4) and not _HEDGE.match(text, lead.end()):
            # "omg Biscuit chewed up my airpods case", "气死 我家橘猫年糕又把耳机线咬断了": the cry
            # is a passing mood, what follows it is judged as said ("lol ok", "唉 好累" stay moods)
            return judged_as_said(text[lead.end():])
        if (is_question(Sentence(text, 0, lang)) or _ASKS_FIRST.match(text)) and not _PUZZLED.match(text) \
                and not (REVERSED.search(text) and not text.rstrip().endswith(("?", "？"))):  # "…, who even am i"
            return Verdict(False, "question")
        if _ZH_ASK.search(text) or _TRY_IT.match(text):
            return Verdict(False, "question or acknowledgement")
        if REQUEST.match(text):
            return Verdict(False, "request to the assistant")
        # "你以后别老用emoji" is about the assistant and says how the user wants replies
        if ABOUT_YOU.match(text) and not FIRST_PERSON.search(text) and (topic is None or topic.slot != "user.reply_style"):
            return Verdict(False, "about the assistant")
        if is_hypothetical(text) and (topic is None or topic.slot != "user.plan" or is_imagined(text)):
            return Verdict(False, "hypothetical")
        mood = MOOD.match(text) is not None or MOOD_INSIDE.search(text) is not None or _feeling_only(text)
        if mood and moved_day and _SIGH_FIRST.match(text) and MOOD_INSIDE.search(text) is None:
            mood = False
        if mood and (topic is None or topic.slot not in ("user.health", "user.allergy", "user.reply_style")):
            return Verdict(False, "passing mood")
        size = _size(text)
        if size < (3 if lang == "zh" else 2):
            return Verdict(False, "too short")
        score = 0.0
        if topic is not None:
            score += 1.0
        if FIRST_PERSON.search(text) or _NAME_GIVEN.match(text):
            score += 0.8
        elif (implied_subject or corrects) and user_subject:
            score += 0.8  # "住在武汉", "started couch to 5k", "it's Kaitlyn": the speaker is the subject
        elif lang == "zh" and user_subject:
            score += 0.3  # Chinese often leaves the subject out
        if _ENTITY.search(text):
            score += 0.4
        if DURABLE.search(text) or ENDED.search(text):
            score += 0.4  # "tough mudder's off", "黄山不去了": what ended is news about the user
        # "Norway is off" (a named thing of theirs ended); "打脸了", "who even am i" (a change of heart)
        named_end = user_subject and ((ENDED.search(text) is not None and bool(_ended_names(text))) or REVERSED.search(text) is not None
                                       or ABSTAINED.search(text) is not None or SINGLE.search(text) is not None)
        if named_end:
            score += 0.8  # "Norway is off, the flights doubled": a named thing of theirs ended, as they say
        if user_subject and (gone_kinds(text, text) or arrived_kinds(text) or handles_renamed(text)):
            score += 0.8  # "电驴被偷了", "the framework laptop arrived": a thing of theirs went or came
        if SMALL_TALK.search(text) and (topic is None or topic.slot != "user.city"):
            score -= 0.8  # the weather is small talk; "Brisbane 这边好热" also says where the user is
        if LAUGH.search(text):
            score -= 0.3  # "meanwhile I'll be stuck in Phoenix melting lol" still says where they are
        if TRANSIENT.search(text) and topic is None:
            score -= 0.6
        if size < (5 if lang == "zh" else 4) and topic is None and not named_end:
            score -= 0.4  # "Yellowstone is off" is short and says all it needs
        if continues or corrects:
            score += 0.5  # a correction is short by nature: "是初三", "it's CX 880"
        if day_story and not DURABLE.search(text) and (topic is None or topic.slot != "user.city"):
            score -= 1.2
        if vector is not None and self.embedder is not None:
            score += 2.0 * self.margin(vector, script(text))
        keep = score >= self.threshold
        return Verdict(keep, f"score {score:.2f}" + ("" if keep else " (below threshold)"), score)


__all__ = ["CORRECTING", "CORRECTION", "DAY_STORY", "GREETING", "MOOD", "PIVOT", "REQUEST", "NoiseFilter", "Verdict", "corrects", "strip_remember"]

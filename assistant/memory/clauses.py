"""Split a user message into clauses: the units the write path keeps as episodic memories.

"我叫王磊，住在武汉，对海鲜过敏" is three facts; "Hi! I'm Priya Raman, I teach chemistry at a
school in Leeds" is a greeting and two facts. A clause is cut at sentence ends (via
`extract.common.sentences`), then at commas and connectives where a new statement starts:
in Chinese at every comma (subjects are usually left out), in English where a pronoun or
"my …" starts the next part. Pieces that cannot stand alone are joined back:

- a short lead-in ("上个月，", "In March,", "说实话，") or a day alone ("10 月 2 号，") joins the
  clause after it (a day said last joins the one before);
- a part that only points back ("I love it here", "还没习惯", "那边房租太贵") joins the clause
  before it, so a memory never says "User likes it here" with nothing to say where "here" is.

Every clause keeps its offsets in the message, so evidence stays an exact substring.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from assistant.memory.extract.common import Sentence, is_question, language, sentences
from assistant.memory.people import BEINGS as _BEINGS
from assistant.memory.people import about_someone_else

# Where a Chinese sentence may be cut: commas, enumeration marks, and connectives that start
# a new statement. The connective stays with the clause it opens.
_ZH_CUT = re.compile(
    r"[，：～~]+\s*|(?<!\d)[,:](?!\d)\s*|(?<=[\U0001F300-\U0001FAFF\u2600-\u27BF])\s+"  # not "16:8", "1,450"
    # an enumeration mark, not between the days of "周一、三、五"
    r"|(?<![一二三四五六日天])、+\s*|、+(?!\s*[一二三四五六日天])\s*"
    # a space between two Chinese words ("好嘞 我去看看"), not around a Latin word in mixed text
    # ("一家叫 Lumora 的电商公司")
    r"|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])"
    r"|(?<=[\u4e00-\u9fff])(?=(?:而且|然后|但是|不过|可是|另外|还有就是|所以|因此|同时)[\u4e00-\u9fff])"
)
# In an English sentence, Chinese punctuation still ends a clause (mixed messages).
_CJK_PUNCT_CUT = re.compile(r"[，、；：]+\s*|\s*,\s*(?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff])\s*,\s*|(?<=[\U0001F300-\U0001FAFF\u2600-\u27BF])\s+(?=[\u4e00-\u9fff]|(?:I|I'm|My|We)\b)")
# An English cut: a comma/semicolon/dash or "and/but/so/because" followed by a new subject.
_EN_SUBJECT = r"(?:i|i'm|im|i've|i'll|i'd|my|we|we're|we've|our|me|he|she|they|he's|she's|they're|his|her|their)\b"
# What opens a request or a question after an emoji ("… enology 🍇 can u explain …").
_EN_ASK = r"(?i:(?:can|could|would)\s+(?:u|you)\b|(?:pls|please|how|what|why|any)\b)"
# "I live in Duluth and work as a physical therapist": a second predicate of the same subject.
EN_PREDICATE = r"(?:work|live|teach|study|run|own|drive|play|use|have|am|do|speak|grew up|moved|started|just (?:moved|started|got))\b"
_EN_CUT = re.compile(
    rf"(?i)\s*(?:[,;:]|\s[-–—])\s*(?:(?:and|but|so|plus|also|because|cause|cuz|since|though|although|while)\s+)?(?={_EN_SUBJECT})"
    # "whats a good stretch — training for Boston in April": a spaced dash starts a new thought
    r"|\s+[–—]+\s+|\s+-\s+(?=[A-Za-z])"
    # "officially Senior UX Designer from 1 March 🎉 also my sister's coming": an emoji ends a thought
    # (not "love it here 😍 Paris is amazing": what comes next says where "here" is)
    r"|(?<=[\U0001F300-\U0001FAFF\u2600-\u27BF])(?<!(?i:here) [\U0001F300-\U0001FAFF\u2600-\u27BF])(?<!(?i:there) [\U0001F300-\U0001FAFF\u2600-\u27BF])(?<!(?i:it) [\U0001F300-\U0001FAFF\u2600-\u27BF])"
    rf"\s+(?:(?:also|and|plus|btw|oh)\s+)?(?={_EN_SUBJECT}|[A-Z]|{_EN_ASK})"
    # "senior at UC Davis doing viticulture can u explain malolactic fermentation": a request
    # typed straight after a statement, with no stop between them
    rf"|(?<=\w)\s+(?:so\s+|and\s+|but\s+|anyway\s+)?(?=(?:can|could|would)\s+(?:u|you)\s+(?:pls\s+|please\s+)?(?:help|explain|tell|give|show|write|make|suggest|recommend|check|find)\b)"
    # "can you make this sound less awkward: 'hi all, bbq at mine sat 13th'": what is quoted
    # after a request is a text of its own
    r"|\s*:\s*(?=['\"“‘])"
    # ("he's a huge f1 fan so maybe i'll bribe him": the fan is told, the bribe imagined)
    rf"|\s+(?:and|but|so|plus|because|cause|cuz|since|though|although|while|whereas)\s+(?=(?:maybe|probably|then|now)\s+{_EN_SUBJECT}|{_EN_SUBJECT})"
    rf"|\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?={EN_PREDICATE})"
    # "I'm allergic to shellfish, so if I ever ask for recipes keep that in mind": the condition
    # after the comma is a clause of its own (and no statement), "ok did it, got an iPhone 15":
    # what was got is one too
    r"|(?i:\s*,\s*(?:so\s+|and\s+)?(?=if\s+(?:i|we|you)\b))"
    r"|(?i:\s*,\s*(?:and\s+)?(?=(?:got|bought|grabbed|ordered|picked up|switched to|went with|signed up)\b))"
    # "i feel kinda nauseous in the mornings, is that normal or should i call my doc": the
    # question after the comma is asked, not told
    r"|(?i:\s*,\s*(?:so\s+|and\s+|but\s+)?(?=(?:is (?:that|it|this|there)|are (?:there|they|those)|should (?:i|we)|do (?:i|you)|can (?:i|we)|"
    r"what|how|why|which|any \w+ (?:ideas|tips|suggestions|recs))\b))"
    # ", so please …", ", anyway can you …": what follows is addressed to the assistant
    r"|(?i:\s*,\s*(?:so\s+|and\s+|but\s+|anyway\s+)?(?=(?:please|pls|can you|could you|would you|any (?:ideas|tips))\b))"
    # "sorry if I'm slow to reply, Biscuit (my beagle) keeps …": a name starts a new statement
    r"|\s*,\s*(?=[A-Z][a-z]+\s+(?:\([^)]{1,40}\)\s+)?(?:is|was|has|had|keeps|kept|loves|likes|hates|just|got|works|lives|turned|started|needs|can't|won't|doesn't)\b)"
)
# A clause that only refers back to the one before it.
_EN_BACK = re.compile(r"(?i)^(?:i|we)(?:'m|'re| am| are)?\s+(?:really\s+|so\s+|totally\s+|absolutely\s+)?(?:love|like|enjoy|hate|miss|adore|dislike)\s+(?:it|this|that|them|the place)(?:\s+(?:here|there|so much|a lot))?\W*$"
                      r"|^(?:it|it's|its|this|that|that's|there|here|which)\b"
                      r"|(?i:^.{0,40}\b(?:it|there|here)\W*$)")
_ZH_BACK = re.compile(r"^(?:还|也|就|都|又|可|挺|真|太|好|蛮|特别|有点)?(?:没|不|挺|很|太|超|还|真)?(?:习惯|适应|喜欢|讨厌|好|棒|不错|方便|麻烦|舒服|难受|开心)[\u4e00-\u9fff]{0,4}$"
                      r"|^(?:那边|这边|那里|这里|那儿|这儿|它|这个|那个|这家|那家|这样|那样)")
# What points back but tells of the moment stays a clause of its own, for the noise filter to
# judge: "对了我在西安，这边今天大暴雨" is where the user is, and then the day's weather.
_TODAY = re.compile(r"(?i)\b(?:today|tonight|right now|this morning)\b|今天|今晚|今早|刚才|刚刚|这会儿|此刻")
# Lead-ins that carry no statement of their own: join the next clause.
_ZH_LEAD = re.compile(r"^(?:说实话|说真的|其实|对了|话说|顺便说一下|顺便说|顺便|另外|然后|而且|不过|但是|所以|哦对|诶|嗯|哈哈|哎)$"
                      r"|^(?:上|下|这|本|去|今|明|前|后|每)(?:个)?(?:月|周|星期|礼拜|年|天)(?:初|底|末|中)?$"
                      r"|^(?:昨天|今天|明天|最近|前几天|前阵子|去年|今年|明年|后来|当时|刚才|刚刚|现在|目前|平时|周末)$"
                      r"|(?:的时候|以后|之后|以前|之前|的话|因为|虽然|如果|自从|当时)$")
_EN_LEAD = re.compile(r"(?i)^(?:so|well|also|oh|btw|by the way|anyway|honestly|actually|fun fact|fyi|ps|plus|and|but|ok|okay|also fyi|in \w+|last \w+|this \w+|next \w+|since \w+|as of \w+|for context)$")
_CJK = re.compile(r"[\u4e00-\u9fff]")
# A day and nothing else ("10 月 2 号", "下周三", "on March 3rd", "next friday"): it belongs
# with what happens then — the clause after it, or the one before when it comes last.
_N = r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})"
_MONTH_EN = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DAY_EN = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_DATE_ONLY = re.compile(
    rf"^(?:(?:\d{{4}}\s*年\s*)?{_N}\s*月\s*{_N}\s*[号日]?|(?:下|这|本)?个?(?:周|星期|礼拜)[一二三四五六日天])"
    r"(?:\s*(?:早上|上午|中午|下午|晚上))?(?:\s*\d{1,2}\s*点(?:半)?)?$"
    rf"|(?i:^(?:on\s+)?(?:(?:this|next)\s+)?(?:{_MONTH_EN}\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_EN}|{_DAY_EN})"
    r"(?:\s+at\s+\d{1,2}(?::\d\d)?\s*(?:am|pm)?)?$)"
)


@dataclass(frozen=True)
class Clause:
    """One clause of a message: `message[start:end] == text`."""

    text: str
    start: int
    end: int
    lang: str  # "zh" | "en"
    sentence: int  # index of the sentence it came from


def _size(text: str) -> int:
    """Length that compares across scripts: CJK characters, or 2 per Latin word."""
    cjk = len(_CJK.findall(text))
    return cjk + 2 * len(re.findall(r"[A-Za-z0-9]+", text))


def _cuts(s: Sentence) -> list[tuple[int, int]]:
    """Where a sentence is cut: (start, end) of each separator, in order."""
    if s.lang == "zh":
        return [m.span() for m in _ZH_CUT.finditer(s.text)]
    found = [m.span() for m in _EN_CUT.finditer(s.text)]
    if _CJK.search(s.text):
        found += [m.span() for m in _CJK_PUNCT_CUT.finditer(s.text)]
    return sorted(found)


def _pieces(s: Sentence) -> list[tuple[int, int]]:
    """(start, end) of the parts of one sentence, relative to the sentence."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for start, end in _cuts(s):
        if start > pos:
            spans.append((pos, start))
        pos = max(pos, end)
    if pos < len(s.text):
        spans.append((pos, len(s.text)))
    return [(a, b) for a, b in spans if s.text[a:b].strip(" \t,，、;；:：")]


def _leads_in(text: str, lang: str) -> bool:
    bare = text.strip(" ,，、;；:：!！.")
    if lang == "zh":
        return _size(bare) <= 2 or _ZH_LEAD.search(bare) is not None
    return _size(bare) <= 2 or _EN_LEAD.match(bare) is not None


def _points_back(text: str, lang: str) -> bool:
    bare = text.strip(" ,，、;；:：!！.~～")
    if lang == "zh":
        return _ZH_BACK.search(bare) is not None
    return _EN_BACK.search(bare) is not None


def clauses_of(s: Sentence, index: int = 0) -> list[Clause]:
    """The clauses of one sentence (offsets relative to the message the sentence came from)."""
    parts = _pieces(s)
    merged: list[list[int]] = []
    carry: int | None = None  # start of a lead-in waiting for its clause
    for a, b in parts:
        piece = s.text[a:b]
        if carry is None and merged and (a, b) == parts[-1] and _DATE_ONLY.match(piece.strip(" ,，、;；:：!！.")):
            merged[-1][1] = b  # "我们要去成都玩, next friday"
            continue
        if carry is None and (_leads_in(piece, s.lang) or _DATE_ONLY.match(piece.strip(" ,，、;；:：!！."))) and (a, b) != parts[-1]:
            carry = a
            continue
        if carry is not None:
            a, carry = carry, None
        elif merged and _points_back(piece, s.lang) and not _TODAY.search(piece):
            merged[-1][1] = b
            continue
        merged.append([a, b])
    if carry is not None:
        if merged:
            merged[-1][1] = len(s.text)
        else:
            merged.append([carry, len(s.text)])
    out: list[Clause] = []
    for a, b in merged:
        raw = s.text[a:b]
        body = raw.strip(" \t,，、;；:：")
        lead = len(raw) - len(raw.lstrip(" \t,，、;；:："))
        start = s.start + a + lead
        out.append(Clause(body, start, start + len(body), language(body) if body else s.lang, index))
    return [c for c in out if c.text]


def split_clauses(text: str) -> list[Clause]:
    """Every clause of a message, in order."""
    out: list[Clause] = []
    for index, s in enumerate(sentences(text)):
        out.extend(clauses_of(s, index))
    return _join_continuations(text, out)


# "My wife Priya and I …", "Tom and I …": one subject, not two clauses.
_EN_VERB = re.compile(
    r"(?i)\b(?:is|am|are|was|were|be|been|'s|'m|'re|have|has|had|do|does|did|got|get|live|lives|work|works|"
    r"love|loves|like|likes|need|needs|want|wants|went|go|goes|moved|just|started|use|uses|make|made)\b|n't\b"
)


# A time said first ("下个月我们要去京都"): the subject comes after it.
_ZH_TIME_FIRST = re.compile(
    r"^(?:(?:上|下|这|本|今|明|去|前|后)个?(?:月|周|星期|礼拜|年)(?:初|底|末|中)?|昨天|今天|明天|后天|最近|前几天|去年|今年|明年|后来|现在|目前|平时|周末)[，,\s]*"
)


def _own_subject(clause: Clause) -> bool:
    if clause.lang == "zh":
        text = _ZH_TIME_FIRST.sub("", clause.text)
        return _ZH_SUBJECT.match(text) is not None or about_someone_else(text)
    return re.match(rf"(?i)^(?:(?:maybe|probably|then|now)\s+)?{_EN_SUBJECT}", clause.text) is not None or about_someone_else(clause.text) or (
        re.match(r"^[A-Z][a-z]+\b", clause.text) is not None and _EN_VERB.search(clause.text) is not None
    )


def _asks(clause: Clause) -> bool:
    """A question or a request to the assistant: never part of a statement."""
    from assistant.memory.noise import REQUEST

    return is_question(Sentence(clause.text, 0, clause.lang)) or REQUEST.match(clause.text) is not None


def _join_continuations(text: str, clauses: list[Clause]) -> list[Clause]:
    """Join a clause with no subject of its own to the one before it when that one is about
    someone else (a person or a pet) in the same sentence: "娃今年上一年级了，叫小满，数学还行"
    is one memory about the child, "叫小满" alone says nothing. A compound subject ("My wife
    Priya and I just closed on a townhouse") is joined too. The user's own clauses stay apart:
    each can be superseded by itself ("我叫王磊，住在武汉" — a move replaces only the city)."""
    out: list[Clause] = []
    other = False
    introduced = False  # the clause before ends on a pet or a person the user has: "我养了只玄凤鹦鹉"
    for clause in clauses:
        prev = out[-1] if out and out[-1].sentence == clause.sentence else None
        between = text[prev.end:clause.start] if prev is not None else ""
        compound = (
            prev is not None and clause.lang == "en" and re.fullmatch(r"\s+and\s+", between) is not None
            and len(prev.text.split()) <= 4 and _EN_VERB.search(prev.text) is None
        )
        if prev is not None and introduced and _ABOUT_THE_ONE_BEFORE.match(clause.text):
            out[-1] = Clause(text[prev.start:clause.end], prev.start, clause.end, prev.lang, prev.sentence)
            continue  # "…，叫黄豆", "…，三岁了": its name and age, not the user's
        introduced = _introduces(clause.text)
        if _own_subject(clause) and not compound:
            other = about_someone_else(clause.text)
        elif prev is not None and (compound or (other and not _asks(clause))):
            out[-1] = Clause(text[prev.start:clause.end], prev.start, clause.end, prev.lang, prev.sentence)
            if compound:
                other = about_someone_else(out[-1].text) and not re.search(r"(?i)\band\s+I\b", out[-1].text)
            continue
        out.append(clause)
    return out


# What a clause says of the pet or person the clause before it ended on: a name, an age, a kind.
_ABOUT_THE_ONE_BEFORE = re.compile(
    r"(?:(?:今年|现在|已经|才|都|快)?[\d一二三四五六七八九十两半]{1,3}(?:岁|个月|周)(?:多|半)?了?"
    r"|(?:名字|小名|大名)?叫[^\s，,。]|名叫|取名|起名|是(?:一?[只条个位])"
    r"|(?i:named|called)\s|(?i:(?:he|she|it)(?:'s|\s+is)\s+\d)"
    r"|[\u4e00-\u9fff]{2,3}(?:和|、)[\u4e00-\u9fff]{2,3}$)"  # "我家养了两只狗，大黄和小白": their names
)
_NAMED_LAST = re.compile(r"\s*(?:叫|名叫)[\u4e00-\u9fffA-Za-z]{1,8}$|(?i:\s*,?\s+(?:named|called)\s+[A-Za-z]+)$")
_BEING_LAST = re.compile(
    r"(?:(?:有|养了?|领养了?|收养了?|生了|添了)(?:一?[只条个位]|两[只条个位]|几[只条个位])?[\u4e00-\u9fff]{0,4}"
    r"|(?i:(?:have|has|got|adopted|rescued)\s+(?:a|an|two|three)\s+(?:\w+\s+)?))$"
)


def _introduces(clause: str) -> bool:
    """Whether a clause ends on a pet or a person the user has just brought in ("家里有只猫",
    "我有个女儿", "we adopted a rescue greyhound")."""
    bare = clause.rstrip(" !！.。~～")
    bare = bare[: (m.start() if (m := _NAMED_LAST.search(bare)) else len(bare))]  # "家里有只仓鼠叫芒果"
    last = next(reversed(list(_BEINGS.finditer(bare))), None)
    return last is not None and last.end() == len(bare) and _BEING_LAST.search(bare, 0, last.start()) is not None


_ZH_SUBJECT = re.compile(r"^(?:我|咱|你|您|他|她|它|[\u4e00-\u9fff]{0,3}(?:老婆|老公|妻子|丈夫|媳妇|爱人|对象|男朋友|女朋友|儿子|女儿|闺女|孩子|娃|爸|妈|哥|姐|弟|妹|朋友|同事|老板|室友)(?:是|在|叫|也|今年|现在|最近|每天|[^\u4e00-\u9fff]))")


_EN_PREDICATE_FIRST = re.compile(rf"(?i)^{EN_PREDICATE}")


_GREETING_FIRST = re.compile(r"^(?:(?i:hi|hello|hey|hiya|ok|okay|btw|so)\b|嗨|你好|您好|哈喽|大家好|对了|另外|其实)[\s,，!！~～。.]*")


def subjectless(clauses: list[Clause]) -> list[bool]:
    """For each clause: True when it names no subject of its own and continues a clause about
    the user (or opens the message): "我叫王磊，住在武汉" — 住在武汉 is the user's; "I live in
    Duluth and work as a nurse" — "work as a nurse" is too."""
    out: list[bool] = []
    user = True
    for clause in clauses:
        if clause.lang != "zh":
            if re.match(r"(?i)^(?:i|i'm|i've|my|we|we're|our)\b", clause.text):
                user = not re.match(r"(?i)^(?:my|our)\s", clause.text)
            elif re.match(rf"(?i)^{_EN_SUBJECT}", clause.text):
                user = False
            out.append(user and _EN_PREDICATE_FIRST.match(clause.text) is not None)
            continue
        own = _ZH_SUBJECT.match(_GREETING_FIRST.sub("", clause.text)) is not None  # "Hi 我叫 Chloe 陈"
        if own:
            user = clause.text.startswith(("我", "咱")) and not re.match(r"^我(?:的|家)?[\u4e00-\u9fff]{0,3}(?:老婆|老公|妻子|丈夫|媳妇|爱人|对象|男朋友|女朋友|儿子|女儿|闺女|孩子|娃|爸|妈|哥|姐|弟|妹|朋友|同事|老板|室友)", clause.text)
        out.append(not own and user)
    return out


def iter_sentences(text: str) -> Iterator[tuple[int, Sentence]]:
    """The message's sentences with their index (the `Clause.sentence` numbers)."""
    yield from enumerate(sentences(text))


__all__ = ["Clause", "clauses_of", "iter_sentences", "split_clauses", "subjectless"]

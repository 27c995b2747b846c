"""The write gate: a cheap local importance score and the keep/drop decisions.

No model call: everything here is a few regexes, so it can run on every message.
"""

from __future__ import annotations

import re

from assistant.memory.extract.common import MAX_CHARS, language, looks_like_injection
from assistant.memory.types import Candidate, Category

KEEP_THRESHOLD = 2  # candidates scoring below this are trivia

_FIRST_PERSON_EN = re.compile(r"(?i)\b(?:i|i'm|i've|i'll|i'd|my|mine|me|we|our|we're|we've)\b")
_DECISION = re.compile(
    r"(?i)\b(?:decided|decision|agreed|went with|settled on|chose|going with|switched to)\b"
    r"|决定|定了|敲定|拍板|结论|选定|就定|改用|换成"
)
_EXPLICIT = re.compile(r"(?i)\b(?:remember|don't forget|keep in mind|note that)\b|记住|记一下|记下|别忘了|帮我记")
_ENTITY = re.compile(r"\b[A-Z][a-z]{2,}\b|\d{3,}|[A-Z]{2,}[-\d]")
_DURABLE = re.compile(
    r"(?i)\b(?:always|never|usually|every|my (?:wife|husband|son|daughter|sister|brother|mom|dad|mother|father|kid|kids|partner|dog|cat|boss|job|work|company|team|birthday)|allergic|vegetarian|vegan|live|work|born|married|moving|wedding|next (?:week|month|year)|in (?:january|february|march|april|may|june|july|august|september|october|november|december))\b"
    r"|总是|从不|每天|每周|一直|我(?:的)?(?:女儿|儿子|老婆|老公|妻子|丈夫|爸|妈|父亲|母亲|哥|姐|弟|妹|孩子|猫|狗|老板|公司|工作|生日)|过敏|吃素|住在|在.{1,8}工作|结婚|下个月|下周|明年|上小学|上大学|毕业|搬家"
)

_GREETING = re.compile(
    r"(?i)^(?:hi|hello|hey|yo|hiya|howdy|good (?:morning|afternoon|evening|night)|bye|goodbye|see you|see ya|thanks|thank you|thx|ty|cheers|ok|okay|k|cool|nice|great|sure|yes|no|yep|nope|yeah|lol|haha+|hehe|hmm+|wow|gotcha|got it|sounds good|np|no problem)\b[\s!.,~]*(?:(?:there|so much|a lot|again|man|dude|buddy|mnemo)[\s!.,~]*)*$"
    r"|^(?:你好|您好|嗨|哈喽|早上好|早安|晚上好|晚安|午安|再见|拜拜|谢谢|多谢|感谢|谢啦|好的|好|行|嗯+|哦+|噢|哈+|呵呵|嘿嘿|好吧|知道了|明白了|收到|没问题|可以|对|是的|不是|ok|OK)[\s!！。.,，~～]*(?:你|啦|了|呀|哈|喔|哦|嗯)*[\s!！。.,，~～]*$"
)
_MOOD = re.compile(
    r"(?i)^(?:ugh,?\s*|man,?\s*|omg,?\s*|today,?\s*|tonight,?\s*|right now,?\s*)?i(?:'m| am| feel| feel so| feel really)\s+(?:so\s+|really\s+|very\s+|kinda\s+|kind of\s+|a bit\s+|a little\s+|super\s+|pretty\s+|totally\s+)?(?:tired|exhausted|sleepy|sad|bored|hungry|happy|angry|annoyed|stressed|anxious|grumpy|cranky|sick|down|upset|frustrated|excited|great|fine|good|okay|ok|meh)\b(?:\s+(?:today|tonight|right now|now|this morning|this week|lately))?[\s!.~]*$"
    r"|^(?:今天|现在|刚才|最近|好|真|太|有点|有些|我(?:今天|现在)?(?:好|真|太|有点|很)?)(?:好|真|太|有点|很|超)?(?:烦|累|困|无聊|开心|高兴|难过|郁闷|饿|气|爽|丧|emo|崩溃|焦虑)(?:啊|了|死了|哦|呀)?[\s!！。.~～]*$"
)
# A message that opens with a passing feeling or a laugh is venting or chatter, even when it
# goes on to say why ("今天好烦啊 老板又骂我", "哈哈哈刚看到一个视频笑死我了", "ugh my boss yelled again").
_MOOD_START = re.compile(
    r"(?i)^(?:ugh|argh|lol|lmao|haha+|hahaha+|omg|meh)\b"
    r"|^(?:哈哈+|呵呵+|嘿嘿+|笑死|啊啊+|唉+|烦死|气死|累死|困死)"
    r"|^(?:今天|刚才|刚刚|现在|这会儿)?(?:我)?(?:好|真|太|超|有点|特别)(?:烦|累|困|无聊|郁闷|气|丧|崩溃|难受|开心|高兴)(?:啊|了|呀|死了)?"
)
_REQUEST = re.compile(
    r"(?i)^(?:please\s+|pls\s+|hey,?\s+)?(?:(?:can|could|would|will)\s+you\b|write|tell me|give me|show me|help me|translate|summari[sz]e|explain|make|create|generate|find|search|look up|list|draft|compose|fix|calculate|convert|rewrite|check|recommend|suggest|describe|compare|plan|book|set|open|play|send)\b"
    r"|^(?:请|麻烦)?(?:你)?(?:帮我|帮忙|给我|替我|你能|你可以|能不能|可以帮|翻译|写一|写个|总结|解释|推荐|查一下|搜一下|算一下|讲个|说个|生成|画)"
)
_ZH_QUESTION = re.compile(r"[吗嘛呢么]\s*[？?]?$|怎么样|什么|哪里|哪儿|为什么|怎么|多少|几点|是不是|有没有|谁")
_EN_QUESTION = re.compile(
    r"(?i)^(?:what|where|who|whom|whose|when|why|how|which|do|does|did|is|are|am|was|were|can|could|would|will|should|shall|have|has)\b"
)


def _first_person(text: str) -> bool:
    return "我" in text or _FIRST_PERSON_EN.search(text) is not None


def importance(text: str, candidate: Candidate | None = None) -> int:
    """Score 1–5 from cheap signals: explicitness, decisions, entities, first person, length.

    Args:
        text: the user's words (a message or a candidate's evidence).
        candidate: when given, its own importance, category and flags count too.
    """
    text = text[:MAX_CHARS]
    score = 2
    if _first_person(text):
        score += 1
    if _ENTITY.search(text) or (candidate is not None and candidate.entities):
        score += 1
    if _DECISION.search(text):
        score += 1
    if _DURABLE.search(text):
        score += 1
    if _EXPLICIT.search(text):
        score = max(score, 4)
    size = len(text) if language(text) == "zh" else len(text.split()) * 3
    if size < 6:
        score -= 1
    if candidate is not None:
        if candidate.explicit or candidate.forget:
            score = max(score, 4)
        if candidate.category in (Category.CONCLUSION, Category.IDENTIFIER):
            score = max(score, 4)
        score = max(score, candidate.importance)
    return max(1, min(5, score))


_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])|(?<=[.])\s+")
_MIND_REQUEST = re.compile(r"(?i)^(?:keep in mind|bear in mind|take into account|consider|remember what|别忘了我|考虑到|注意)")


def _statements(text: str) -> list[str]:
    """The sentences of `text` that state something (not questions, requests or moods)."""
    out = []
    for part in _SENTENCE_END.split(text):
        sentence = part.strip()
        if not sentence or _is_question(sentence) or _REQUEST.match(sentence) or _MIND_REQUEST.match(sentence):
            continue
        if _MOOD.match(sentence) or _GREETING.match(sentence):
            continue
        out.append(sentence)
    return out


def _is_question(text: str) -> bool:
    if text.rstrip().endswith(("?", "？")):
        return True
    if language(text) == "zh":
        return _ZH_QUESTION.search(text) is not None
    return _EN_QUESTION.match(text) is not None


def episodic_worthy(text: str) -> tuple[bool, str]:
    """Decide whether a raw user message is worth keeping verbatim as an episodic memory.

    Returns:
        (worthy, reason). Greetings, acks, one-off moods, questions, requests to the
        assistant and injection attempts are not worthy.
    """
    body = text[:MAX_CHARS].strip()
    if not body:
        return False, "empty"
    if looks_like_injection(body):
        return False, "instruction to the assistant (possible prompt injection)"
    if _GREETING.match(body):
        return False, "greeting or acknowledgement"
    if _EXPLICIT.match(body) or re.match(r"^(?:请|麻烦)?(?:你)?(?:帮我)?(?:记住|记一下|记下)", body):
        return True, "explicit request to remember"
    if _MOOD.match(body) or _MOOD_START.match(body):
        return False, "passing mood"
    if _REQUEST.match(body):
        return False, "request to the assistant"
    if _is_question(body):
        return False, "question"
    statements = _statements(body)
    if not statements:
        return False, "questions and requests only"
    body = " ".join(statements)
    zh = language(body) == "zh"
    size = len(re.sub(r"\s", "", body)) if zh else len(body.split())
    if size < (5 if zh else 4):
        return False, "too short"
    if not _first_person(body):
        return False, "not about the user"
    if len(body) > 2000:
        return False, "too long (pasted material)"
    return True, "first-person statement"


def keep(candidate: Candidate, user_text: str) -> tuple[bool, str]:
    """Gate one candidate: grounded in the user's words, not an instruction, important enough.

    Returns:
        (keep, reason).
    """
    if not candidate.content.strip():
        return False, "empty content"
    if not candidate.evidence or candidate.evidence not in user_text:
        return False, "not grounded in the user's words"
    if looks_like_injection(candidate.content) or looks_like_injection(candidate.evidence):
        return False, "instruction to the assistant (possible prompt injection)"
    if candidate.forget:
        return True, "forget request"
    score = importance(candidate.evidence, candidate)
    if score < KEEP_THRESHOLD:
        return False, f"importance {score} below {KEEP_THRESHOLD}"
    return True, f"importance {score}"


__all__ = ["KEEP_THRESHOLD", "episodic_worthy", "importance", "keep"]

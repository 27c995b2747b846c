"""Is a rule's value a real value? Is a stored memory garbage?

A slot rule that fires on a fragment builds broken memories ("用户的工作是的…" from a clause
that was not about a job, "User likes it here."). A value must pass `value_problem` before a
rule's semantic memory is stored; when it does not, the rule stores nothing semantic and the
episodic memory of the clause still holds the user's words. `garbage_problem` applies the
same test to any stored memory's text; `mnemo eval` reports the share that fails it.
"""

from __future__ import annotations

import re

from assistant.memory.text import normalize

# Words that cannot begin or end a value ("的", "and", "the"): a value cut in the wrong place.
_ZH_DANGLING_END = re.compile(r"[的了和与或跟及在是把被给向对从就都也还很又才吧呢吗啊呀哦嘛着过得地]$")
_ZH_DANGLING_START = re.compile(r"^[的了和与或及是把被给向就都也还很又才着过得地]")
_ZH_MEASURE_END = re.compile(r"[一两几每这那某哪][家所个名位只条间座台部本张]$")
_EN_FUNCTION = frozenset(
    "a an the and or but of to in on at by for with from as is are was were be been am do does did "
    "that this these those it its it's there here which who whom what when where why how if so than then "
    "my your his her their our me you him them us i we they he she not no very too just".split()
)
_PRONOUN_VALUE = frozenset(
    "it this that these those here there them him her me you us something anything everything nothing one "
    "it here there 它 这 那 这个 那个 这里 那里 这边 那边 这儿 那儿 他 她 他们 她们 你 我 一切 东西 什么".split()
)
_FILLER = re.compile(
    r"(?i)^(?:[\s\W_]|lol|haha+|hehe+|hmm+|ok|okay|yeah|yes|no|um+|uh+|oh|ah|well|so|like|just|really|"
    r"嗯+|哦+|啊+|哈+|呵+|嘿+|好的?|是的|对|行|额|呃|唉|诶|吧|了|呢|嘛)+$"
)
_CJK = re.compile(r"[\u4e00-\u9fff]")
MAX_VALUE_CHARS = 40
MAX_VALUE_WORDS = 6


def value_problem(value: str, message: str) -> str | None:
    """Why `value` is not a usable slot value taken from `message`; None when it is.

    A value is non-empty, occurs in the message, is not only a pronoun or a function word,
    does not begin or end with a dangling particle or function word, and has a plausible
    length (a Chinese value of 1–12 characters, an English one of 1–6 words).
    """
    text = value.strip()
    if not text:
        return "empty"
    if normalize(text) not in normalize(message):
        return "not in the message"
    if text.lower() in _PRONOUN_VALUE:
        return "a pronoun"
    if _FILLER.match(text):
        return "filler"
    if _CJK.search(text):
        han = len(_CJK.findall(text))
        if han > 12 or len(text) > MAX_VALUE_CHARS:
            return "too long"
        if _ZH_DANGLING_END.search(text) or _ZH_DANGLING_START.search(text):
            return "dangling particle"
        if _ZH_MEASURE_END.search(text):
            return "cut before its noun"  # "成都一家" from "在成都一家做游戏的公司上班"
        return None
    words = re.findall(r"[A-Za-z0-9'+#.\-]+", text)
    if not words:
        return "no words"
    if len(words) > MAX_VALUE_WORDS or len(text) > MAX_VALUE_CHARS:
        return "too long"
    if words[0].lower() in _EN_FUNCTION - {"i", "my"} or words[-1].lower() in _EN_FUNCTION:
        return "dangling function word"
    return None


_SLOT_TEMPLATE_VALUE = re.compile(
    r"^(?:用户(?:的)?(?:名字|职业|工作)是|用户(?:住在|来自|在)|User(?:'s name is| lives in| is from| works (?:as an?|at)| likes| uses))\s*(?P<value>.*?)(?:工作)?[。.]?$"
)


def garbage_problem(content: str) -> str | None:
    """Why a stored memory's text is garbage (filler only, or a template around a broken
    value); None when it reads as a statement."""
    text = content.strip()
    if not text or _FILLER.match(text):
        return "filler only"
    m = _SLOT_TEMPLATE_VALUE.match(text)
    if m:
        value = m.group("value").strip()
        problem = value_problem(value, value) if value else "empty value"
        return None if problem == "too long" else problem  # a long value is not a broken one
    return None


__all__ = ["MAX_VALUE_CHARS", "garbage_problem", "value_problem"]

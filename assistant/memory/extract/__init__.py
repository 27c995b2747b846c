"""Rule-based candidate extraction for one user message (Chinese and English, mixed allowed).

Cheap and local: no model, no database. The LLM extractor (when available) adds to this.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from assistant.memory.extract import rules_en, rules_zh
from assistant.memory.extract.common import (
    Sentence,
    is_hypothetical,
    is_question,
    is_reported,
    looks_like_injection,
    sentences,
    strip_quotes,
)
from assistant.memory.types import Candidate

# "Can you remember that …?" / "你能记住…吗？" are requests, not questions.
_POLITE = re.compile(
    r"(?i)^(?:please\s+)?(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:remember|forget|note|delete|erase|keep in mind)\b"
    r"|^(?:你)?(?:能|可以|能不能|可不可以|麻烦)(?:你)?(?:帮我)?(?:记住|记一下|记下|忘掉|忘记|删掉|删除|把)"
)


_CJK = re.compile(r"[\u4e00-\u9fff]")


def _mixed_zh(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """An English-majority sentence with Chinese in it ("我叫 Kevin Zhou，做 product manager 的"):
    the Chinese rules read it too (duplicates are dropped by `_dedupe`)."""
    if _CJK.search(s.text) is None:
        return
    zh = Sentence(s.text, s.start, "zh")
    for rule in rules_zh.RULES:
        yield from rule(zh, now)


_EN_RULES = (*rules_en.RULES, _mixed_zh)


def _rules(s: Sentence) -> tuple[tuple[rules_en.Rule, ...], tuple[rules_en.Rule, ...]]:
    if s.lang == "zh":
        return rules_zh.EXPLICIT, rules_zh.RULES
    if _CJK.search(s.text):
        # code-switched and mostly Latin ("Hi 我叫 Chloe 陈"): the Chinese rules read it too
        return rules_en.EXPLICIT + rules_zh.EXPLICIT, _EN_RULES + rules_zh.RULES
    return rules_en.EXPLICIT, _EN_RULES


def _dedupe(found: list[Candidate]) -> list[Candidate]:
    seen: set[tuple[object, ...]] = set()
    out: list[Candidate] = []
    for c in found:
        key = (c.category, c.slot, c.value, c.content, c.forget)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def extract_rules(text: str, now: datetime) -> list[Candidate]:
    """Return the rule candidates for one user message.

    Args:
        text: the user's message, as typed.
        now: the current aware time (dates like "下周三" resolve against it).

    Returns:
        Candidates with `evidence` an exact substring of `text`. Questions, hypotheticals,
        greetings, other people's words and injection attempts give none.
    """
    found: list[Candidate] = []
    for s in sentences(text):
        if looks_like_injection(s.text):
            continue
        visible = Sentence(strip_quotes(s.text), s.start, s.lang)
        explicit_rules, rules = _rules(s)
        polite = _POLITE.match(s.text) is not None
        if polite or not is_question(s):
            unwrapped = Sentence(
                re.sub(r"(?i)^(?:please\s+)?(?:can|could|would|will)\s+you\s+(?:please\s+)?", "", s.text)
                if polite else s.text,
                s.start,
                s.lang,
            )
            explicit = [c for rule in explicit_rules for c in rule(unwrapped, now)]
            for c in explicit:
                c.evidence = s.text
            found.extend(explicit)
            if any(c.forget for c in explicit):
                continue
            if explicit:
                # "remember that my daughter is called Lily": the structured facts count as explicit too.
                for rule in rules:
                    for c in rule(visible, now):
                        c.evidence, c.explicit = s.text, True
                        c.importance = min(5, c.importance + 1)
                        found.append(c)
                continue
        if is_question(s) or is_hypothetical(visible.text) or is_reported(visible):
            # An order or ticket number is the user's own even inside a frustrated question
            # ("amazon order 113-… still not here??") or a reported sentence ("系统给了个工单
            # IT-58213，说是网络问题"): keep the identifier, nothing else.
            if not is_hypothetical(visible.text):
                module = rules_zh if s.lang == "zh" else rules_en
                for c in module._identifier(visible, now):
                    c.evidence = s.text
                    found.append(c)
            continue
        for rule in rules:
            for c in rule(visible, now):
                c.evidence = s.text
                found.append(c)
    return _dedupe(found)


__all__ = ["extract_rules"]

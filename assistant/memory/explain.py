"""Why a memory was chosen, in words a user reads: the "memories used" view under a reply,
`mnemo memory search --explain` and the MCP `search_memories` result.

The read path (recall.py) gives each hit the routes that found it, its relevance (what had to
reach the threshold) and its ordering score. `Why` keeps those with what of the question
matched — a name, some words — so it can be stored with a reply and read back when the chat
is reopened (`to_json` / `from_json`). `Origin` says where a memory came from: a chat message
(still there or deleted), the memory panel, an import, a connected app.

The sentences are English templates (`TEXTS`, `TOPICS`) filled through a `translate`
function: plain formatting here, the window's `tr` in ui/ (zh.json holds their Chinese).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from assistant.clock import iso
from assistant.memory.text import has_cjk, normalize, tokens
from assistant.memory.types import Hit, Memory, Source

Translate = Callable[..., str]
"""`translate(template, **values)`: the template in the reader's language, filled."""

TEXTS: dict[str, str] = {
    "pinned": "Pinned by you: always given to the model",
    "semantic": "Found by meaning (similarity {similarity})",
    "keyword_words": "Found by the words {words}",
    "keyword": "Found by shared words (coverage {coverage})",
    "identifier": "Found by the number or code you asked about",
    "entity_names": "Found by the name {names}",
    "entity": "Found by a name in your question",
    "time": "Found by the time you asked about",
    "plans": "Found as an upcoming plan",
    "cue_topic": "Found by the topic of your question: {topic}",
    "cue": "Found by the topic of your question",
    "profile_topic": "Part of who you are: {topic}",
    "profile": "Part of who you are",
    "context": "Said next to another memory that was found",
    "score": "Relevance {relevance}, threshold {threshold} (rank score {score})",
    "no_why": "Why it was chosen was not recorded for this reply (it is older than this view).",
}

ROUTE_ORDER = ("pinned", "semantic", "keyword", "identifier", "entity", "time", "plans", "cue", "profile", "context")
"""The routes in the order they are told (recall.py names them)."""

TOPICS: dict[str, str] = {
    "user.name": "your name",
    "user.age": "your age",
    "user.birthday": "your birthday",
    "user.city": "where you live",
    "user.address": "where you live",
    "user.hometown": "where you come from",
    "user.job": "your work",
    "user.employer": "your work",
    "user.salary": "your work",
    "user.school": "your studies",
    "user.family": "your family",
    "user.pet": "your pets",
    "user.diet": "what you eat",
    "user.allergy": "allergies",
    "user.health": "your health",
    "user.likes": "what you like",
    "user.favorite": "what you like",
    "user.vehicle": "your car",
    "user.device": "your devices",
    "user.tool": "your tools",
    "user.finance": "money matters",
    "user.plan": "your plans",
    "user.reply_style": "how you like answers",
}
"""Parts of life (a memory's topic or slot, by prefix) as the explanation names them."""

ORIGIN_TEXTS: dict[str, str] = {
    "chat": "From your message in the chat “{title}”, {when}",
    "chat_untitled": "From your message in a chat, {when}",
    "chat_deleted": "The chat it came from was deleted.",
    "manual": "Added by hand (memory panel or mnemo memory add), not from a chat.",
    "imported": "Imported from a file, not from a chat.",
    "app": "Written by the connected app {who}, not from a chat.",
    "other": "From {who}, not from a chat.",
    "unknown": "It did not come from a chat message.",
}

MAX_SHOWN = 4  # names or words told per memory
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Why:
    """Why one memory was used: its routes, its numbers, and what of the question matched.

    `relevance`, `threshold` and `score` are None for a pinned memory the read path did not
    score (it is given whatever the question).
    """

    routes: tuple[str, ...]
    relevance: float | None = None
    threshold: float | None = None
    score: float | None = None
    similarity: float = 0.0
    keyword: float = 0.0
    names: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    topic: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        return {key: list(value) if isinstance(value, tuple) else value for key, value in data.items()}

    @classmethod
    def from_json(cls, data: object) -> Why | None:
        """A `Why` from what `to_json` stored; None for anything else (a damaged column)."""
        if not isinstance(data, dict):
            return None
        try:
            return cls(
                routes=_strings(data.get("routes")),
                relevance=_number(data.get("relevance")),
                threshold=_number(data.get("threshold")),
                score=_number(data.get("score")),
                similarity=_number(data.get("similarity")) or 0.0,
                keyword=_number(data.get("keyword")) or 0.0,
                names=_strings(data.get("names")),
                words=_strings(data.get("words")),
                topic=data["topic"] if isinstance(data.get("topic"), str) else None,
            )
        except (TypeError, ValueError):
            return None


def _strings(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError("a list of strings was expected")
    return tuple(value[:20])


def _number(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError("a number was expected")
    return float(value)


def why_of(hit: Hit, query: str) -> Why:
    """The explanation of one hit of `query` (the text recall was given)."""
    memory = hit.memory
    routes = sorted(set(hit.routes), key=lambda r: ROUTE_ORDER.index(r) if r in ROUTE_ORDER else len(ROUTE_ORDER))
    return Why(
        routes=tuple(routes),
        relevance=hit.relevance,
        threshold=hit.threshold,
        score=hit.score if hit.relevance is not None else None,
        similarity=round(hit.similarity, 4),
        keyword=round(hit.keyword, 4),
        names=matched_names(query, memory.entities) if "entity" in routes else (),
        words=matched_words(query, memory.content) if "keyword" in routes else (),
        topic=memory.topic or memory.slot,
    )


def pinned_hit(memory: Memory) -> Hit:
    """A pinned memory given without being scored (the read path did not find it)."""
    return Hit(memory=memory, score=0.0, routes=["pinned"])


def matched_names(query: str, entities: Iterable[str]) -> tuple[str, ...]:
    """The memory's names the question says (as the read path's entity route matches them)."""
    folded = normalize(query)
    return tuple(dict.fromkeys(e for e in entities if len(e) >= 2 and normalize(e) in folded))[:MAX_SHOWN]


def matched_words(query: str, content: str) -> tuple[str, ...]:
    """The words of the question the memory holds: whole Latin words as typed, and for
    Chinese the longest runs of characters whose bigrams the memory holds ("住在北京")."""
    have = set(tokens(content))
    found: list[str] = []
    for run in _WORD.findall(query):
        if has_cjk(run[0]) and all(has_cjk(ch) for ch in run):
            found += _cjk_spans(run, have)
        elif (terms := tokens(run, query=True)) and all(t in have for t in terms):
            found.append(run)
    return tuple(dict.fromkeys(found))[:MAX_SHOWN]


def _cjk_spans(run: str, have: set[str]) -> list[str]:
    covered = [False] * len(run)
    for i in range(len(run) - 1):
        gram = run[i : i + 2]
        if normalize(gram) in have and tokens(gram, query=True):  # not two function characters
            covered[i] = covered[i + 1] = True
    spans, start = [], None
    for i, hit in enumerate([*covered, False]):
        if hit and start is None:
            start = i
        elif not hit and start is not None:
            spans.append(run[start:i])
            start = None
    return spans


def topic_label(key: str | None) -> str | None:
    """The words for a topic or slot (`user.job.language` → "your work"), None if unknown."""
    while key:
        if key in TOPICS:
            return TOPICS[key]
        key = key.rpartition(".")[0]
    return None


def fill(template: str, **values: object) -> str:
    """The English `translate`: the template as it is, filled."""
    return template.format(**values) if values else template


def reasons(why: Why | None, translate: Translate = fill) -> list[str]:
    """One sentence per route that found the memory, then its numbers."""
    if why is None:
        return [translate(TEXTS["no_why"])]
    out = [_route_text(route, why, translate) for route in why.routes if _counted(route, why)]
    if why.relevance is not None and why.threshold is not None and why.score is not None:
        out.append(translate(TEXTS["score"], relevance=f"{why.relevance:.2f}",
                             threshold=f"{why.threshold:.2f}", score=f"{why.score:.2f}"))
    return out


def _counted(route: str, why: Why) -> bool:
    """Whether a route is worth telling: a known one that added something. The vector route
    brings every near candidate, also one whose similarity is below the model's floor (0 on
    the calibrated scale: what the model says of unrelated texts); that one was not found by
    meaning."""
    if route == "semantic":
        return why.similarity >= 0.01
    if route == "keyword":
        return why.keyword > 0 or bool(why.words)
    return route in ROUTE_ORDER


def _route_text(route: str, why: Why, translate: Translate) -> str:
    topic = topic_label(why.topic)
    if route == "semantic":
        return translate(TEXTS["semantic"], similarity=f"{why.similarity:.2f}")
    if route == "keyword":
        if why.words:
            return translate(TEXTS["keyword_words"], words=_quoted(why.words))
        return translate(TEXTS["keyword"], coverage=f"{why.keyword:.2f}")
    if route == "entity" and why.names:
        return translate(TEXTS["entity_names"], names=_quoted(why.names))
    if route in ("cue", "profile"):
        if topic is not None:
            return translate(TEXTS[f"{route}_topic"], topic=translate(topic))
        return translate(TEXTS[route])
    return translate(TEXTS[route])


def _quoted(values: Sequence[str]) -> str:
    return " ".join(f"“{v}”" for v in values)


def summary(why: Why | None, translate: Translate = fill) -> str:
    """The reasons in one line (the CLI, the MCP result)."""
    return ". ".join(reasons(why, translate)) + "."


def why_fields(why: Why) -> dict[str, Any]:
    """The explanation as JSON fields beside a memory (`mnemo memory search --json --explain`,
    the MCP result): the sentence, the routes and the numbers."""
    return {"why": summary(why), "routes": list(why.routes), "relevance": why.relevance,
            "threshold": why.threshold, "score": why.score}


# -- where a memory came from -----------------------------------------------------------


@dataclass(frozen=True)
class Origin:
    """Where a memory came from.

    `kind`: "chat" (the message is there: `session_id`, `message_id`), "chat_deleted",
    "manual", "imported", "app" (an MCP client, `who`), "other" (`who` says), "unknown".
    """

    kind: str
    session_id: str | None = None
    message_id: int | None = None
    title: str = ""
    at: float | None = None
    who: str = ""

    @property
    def linked(self) -> bool:
        return self.kind == "chat" and self.session_id is not None and self.message_id is not None


def origin_of(
    memory: Memory, history: Sequence[dict[str, Any]], message: tuple[str, int, float] | None, title: str = "",
) -> Origin:
    """Where `memory` came from.

    Args:
        history: its events (`MemoryStore.history`): an "added" event may name who wrote it.
        message: (session id, message id, time) of its source message, None when it has none
            or it is gone.
        title: that chat's title.
    """
    if memory.source_message_id is not None:
        if message is None:
            return Origin("chat_deleted")
        session_id, message_id, at = message
        return Origin("chat", session_id, message_id, title, at)
    for event in history:
        detail = event.get("detail")
        who = detail.get("origin") if isinstance(detail, dict) else None
        if event.get("event") == "added" and isinstance(who, str) and who:
            return Origin("app", who=who[5:]) if who.startswith("MCP: ") else Origin("other", who=who)
        if event.get("event") == "imported":
            return Origin("imported")
    return Origin("manual") if memory.source is Source.MANUAL else Origin("unknown")


def _when(ts: float) -> str:
    return iso(ts) or ""


def origin_text(origin: Origin, translate: Translate = fill, when: Callable[[float], str] = _when) -> str:
    """Where it came from, in words (`when` writes the message's time)."""
    if origin.kind == "chat":
        at = when(origin.at) if origin.at is not None else ""
        if origin.title:
            return translate(ORIGIN_TEXTS["chat"], title=origin.title, when=at)
        return translate(ORIGIN_TEXTS["chat_untitled"], when=at)
    if origin.kind in ("app", "other"):
        return translate(ORIGIN_TEXTS[origin.kind], who=origin.who)
    return translate(ORIGIN_TEXTS.get(origin.kind, ORIGIN_TEXTS["unknown"]))

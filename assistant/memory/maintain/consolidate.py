"""Consolidate repeated episodic memories about one entity into one semantic memory.

Five or more active episodes naming the same entity, spread over more than a week, become
one semantic memory (slot ``topic.<entity>``); a later batch folds into that memory. With an
LLM (`Summarize`) the summary is written by the model and kept only when it is grounded in
the sources; otherwise, and as the fallback, a rule-based summary quotes the sources.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from assistant.memory.maintain.context import StepContext, log
from assistant.memory.store import NewMemory, clean_content
from assistant.memory.text import has_cjk, normalize, tokens
from assistant.memory.types import Category, Kind, Memory, Source, Status

MIN_EPISODES = 5
MIN_SPAN_S = 7 * 86400.0
MAX_SUMMARY_CHARS = 700
GROUNDING = 0.7  # share of the summary's words that must occur in the sources


def consolidate(ctx: StepContext) -> dict[str, int]:
    store = ctx.store
    episodes = [
        m for m in store.list(status=Status.ACTIVE, limit=10**9, order="id ASC")
        if m.kind is Kind.EPISODIC and m.id not in ctx.gone and not m.pinned
        and m.expires_at is None and m.category is not Category.IDENTIFIER
    ]
    by_entity: dict[str, list[Memory]] = defaultdict(list)
    names: dict[str, Counter[str]] = defaultdict(Counter)
    for memory in episodes:
        for entity in dict.fromkeys(memory.entities):
            key = _entity_key(entity)
            if key:
                by_entity[key].append(memory)
                names[key][entity] += 1
    counts = {"groups": 0, "sources": 0, "created": 0, "updated": 0, "llm": 0, "rules": 0, "llm_rejected": 0}
    used: set[int] = set()
    for key, members in sorted(by_entity.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        members = [m for m in members if m.id not in used]
        if len(members) < MIN_EPISODES:
            continue
        times = [_when(m) for m in members]
        if max(times) - min(times) <= MIN_SPAN_S:
            continue
        members.sort(key=lambda m: (_when(m), m.id))
        used.update(m.id for m in members)
        ctx.gone.update(m.id for m in members)
        counts["groups"] += 1
        counts["sources"] += len(members)
        existing = _topic(ctx, key)
        counts["created" if existing is None else "updated"] += 1
        if ctx.dry_run:
            continue
        label = names[key].most_common(1)[0][0]
        content, how = _summary(ctx, label, members, existing)
        counts[how] += 1
        _commit(ctx, key, label, content, members, existing)
    return counts


def _topic(ctx: StepContext, key: str) -> Memory | None:
    """The active semantic memory that consolidates `key` already, if any."""
    memory_id = ctx.db.scalar(
        "SELECT id FROM memories WHERE profile_id = ? AND slot = ? AND status = 'active' ORDER BY id DESC LIMIT 1",
        (ctx.profile_id, f"topic.{key}"),
    )
    return None if memory_id is None else ctx.store.get_many([int(memory_id)]).get(int(memory_id))


def _entity_key(entity: str) -> str:
    key = "_".join(normalize(entity).split())
    return key if len(key) >= 2 else ""


def _when(memory: Memory) -> float:
    return memory.event_at if memory.event_at is not None else memory.created_at


def _summary(ctx: StepContext, label: str, members: Sequence[Memory], existing: Memory | None) -> tuple[str, str]:
    sources = ([existing.content] if existing else []) + [m.content for m in members]
    lang = "zh" if sum(has_cjk(s) for s in sources) * 2 > len(sources) else "en"
    if ctx.summarize is not None:
        answer = ctx.summarize(list(sources), lang)
        text = _grounded(answer, sources)
        if text is not None:
            return text, "llm"
        if answer is not None:
            return _rule_summary(ctx, label, members, existing, lang), "llm_rejected"
    return _rule_summary(ctx, label, members, existing, lang), "rules"


def _grounded(answer: dict[str, Any] | None, sources: Sequence[str]) -> str | None:
    """The LLM's summary when it follows the schema and only says what the sources say."""
    if not isinstance(answer, dict) or not isinstance(answer.get("summary"), str):
        return None
    text = " ".join(answer["summary"].split())[:MAX_SUMMARY_CHARS]
    words = set(tokens(text, query=True))
    if not text or not words:
        return None
    known = set(tokens(" ".join(sources)))
    if len(words & known) / len(words) < GROUNDING:
        log.info("LLM summary rejected: not grounded in its sources")
        return None
    return text


def _rule_summary(ctx: StepContext, label: str, members: Sequence[Memory], existing: Memory | None, lang: str) -> str:
    """The sources themselves, newest first, de-duplicated, under a dated heading."""
    first = min([_when(m) for m in members] + ([_when(existing)] if existing else []))
    last = max(_when(m) for m in members)
    total = len(members) + (_source_count(ctx, existing) if existing else 0)
    d0, d1 = (datetime.fromtimestamp(t, ctx.tz).date().isoformat() for t in (first, last))
    parts: list[str] = []
    seen: set[str] = set()
    for text in [m.content for m in reversed(members)] + (_quotes(existing.content) if existing else []):
        key = normalize(text).strip(" .。;；")
        if key and key not in seen:
            seen.add(key)
            parts.append(text.strip().rstrip(".。;；"))
    if lang == "zh":
        head, sep, end = f"关于{label}（{d0}至{d1}共提到{total}次）：", "；", "。"
    else:
        head, sep, end = f"About {label} ({total} mentions, {d0} to {d1}): ", "; ", "."
    body = ""
    for part in parts:
        candidate = body + (sep if body else "") + part
        if len(head) + len(candidate) > MAX_SUMMARY_CHARS:
            break
        body = candidate
    return clean_content(head + body + end)


def _quotes(summary: str) -> list[str]:
    """The quoted sources of an earlier rule-based summary (its text after the heading)."""
    for marker in ("): ", "）："):
        if marker in summary:
            summary = summary.split(marker, 1)[1]
            break
    return [p for p in summary.replace("；", "; ").rstrip(".。").split("; ") if p.strip()]


def _source_count(ctx: StepContext, memory: Memory) -> int:
    return int(ctx.db.scalar(
        "SELECT COUNT(*) FROM memories WHERE profile_id = ? AND superseded_by = ? AND status = 'merged'",
        (ctx.profile_id, memory.id),
    ))


def _commit(ctx: StepContext, key: str, label: str, content: str, members: Sequence[Memory], existing: Memory | None) -> None:
    """One transaction: the semantic memory is written and its sources point to it; then index."""
    store = ctx.store
    category = Counter(m.category for m in members).most_common(1)[0][0]
    entities = list(dict.fromkeys([label, *(e for m in members for e in m.entities)]))[:20]
    importance = max(m.importance for m in members)
    with ctx.db.atomic():
        if existing is None:
            target = store.add(NewMemory(
                content=content, category=category, kind=Kind.SEMANTIC, slot=f"topic.{key}",
                entities=entities, importance=importance, confidence=max(m.confidence for m in members),
                source=Source.USER_IMPLIED, event_at=max(_when(m) for m in members),
                source_message_id=members[-1].source_message_id,
            ), ctx.now)
        else:
            merged_entities = list(dict.fromkeys([*existing.entities, *entities]))[:20]
            target = store.edit(existing.id, ctx.now, content=content, entities=merged_entities,
                                importance=max(importance, existing.importance))
        store.log_event(target.id, "updated", ctx.now, {"consolidated_from": [m.id for m in members]})
        for member in members:
            store.set_status(member.id, Status.MERGED, ctx.now, superseded_by=target.id)
    _index(ctx, target.id, content)
    ctx.unindex([m.id for m in members])


def _index(ctx: StepContext, memory_id: int, content: str) -> None:
    service = ctx.parts.service
    try:
        service.index.upsert([memory_id], service.embedder.embed([content]), service.profile_id)
    except Exception:  # noqa: BLE001 - the reconcile step indexes what is missing
        log.exception("index write failed; the reconcile step repairs it")

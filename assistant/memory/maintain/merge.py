"""Merge near-duplicate active memories into one.

Two memories are duplicates when they fill the same slot, say the same words, or (same
category and kind) their calibrated vector similarity is above `MERGE_SIMILARITY` and no
guard tells them apart (a negation on one side only, different numbers). The survivor keeps
the most complete and most recent wording and absorbs the others' importance, use and
provenance; the others become `merged` and point to it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from assistant.memory.maintain.context import StepContext, chunks
from assistant.memory.similarity import floors, script
from assistant.memory.text import normalize, tokens
from assistant.memory.types import Category, Memory, Status

# Calibrated similarity (rescaled above the model's floor, as recall does) from which two
# memories of one category say the same thing. Measured with all-MiniLM-L6-v2 on paraphrase
# pairs (0.89–0.99) against related-but-different statements ("tea" vs "coffee",
# "blue" vs "green": 0.69–0.81). Numbers and negations are told apart by `distinct`.
MERGE_SIMILARITY = 0.88
# Re-check a margin before the last successful run: a re-check costs little, a miss lasts.
WINDOW_MARGIN_S = 86400.0
# Below 1/NEIGHBOUR_SHARE of the active set changed, new memories are checked against their
# NEIGHBOURS nearest in the index; above, every bucket is scanned in full.
NEIGHBOUR_SHARE = 20
NEIGHBOURS = 8
_NEGATION_RE = re.compile(
    r"\b(?:not|no|never|none|nothing|neither|nor|without|anymore|stopped|quit)\b|n't\b|[不没别未無无非]"
)
_NUMBER_RE = re.compile(r"\d+(?:[.,:]\d+)*")
# Where the model's similarity means little for a pair of scripts (the bundled English model on
# Chinese: similarity.py), two memories must also share this much of their words (of the
# shorter one's; numbers and dates aside) to say the same thing.
MERGE_WORDS = 0.6


class _Groups:
    """Union-find over memory ids."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, x: int) -> int:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)

    def groups(self) -> list[list[int]]:
        out: dict[int, list[int]] = defaultdict(list)
        for x in self.parent:
            out[self.find(x)].append(x)
        return [sorted(g) for g in out.values() if len(g) > 1]


def distinct(a: str, b: str) -> bool:
    """Guards against merging statements that embed alike but differ in meaning."""
    na, nb = normalize(a), normalize(b)
    if bool(_NEGATION_RE.search(na)) != bool(_NEGATION_RE.search(nb)):
        return True
    numbers_a, numbers_b = set(_NUMBER_RE.findall(na)), set(_NUMBER_RE.findall(nb))
    return bool(numbers_a and numbers_b and numbers_a != numbers_b)


def shared_words(a: str, b: str) -> float:
    """The share of the shorter text's words (Chinese bigrams, other words) the other holds."""
    words_a, words_b = ({t for t in tokens(x) if not t.isdigit()} for x in (a, b))
    if not words_a or not words_b:
        return 0.0
    return len(words_a & words_b) / min(len(words_a), len(words_b))


def _text_key(memory: Memory) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", normalize(memory.content)).split())


def merge(ctx: StepContext) -> dict[str, int]:
    """Merge near-duplicate active memories; returns how many groups and members."""
    store = ctx.store
    active = [
        m
        for m in store.list(status=Status.ACTIVE, limit=10**9, order="id ASC")
        if m.id not in ctx.gone
    ]
    by_id = {m.id: m for m in active}
    groups = _Groups()
    reasons = {"by_slot": 0, "by_text": 0, "by_vector": 0}

    def join(a: int, b: int, reason: str) -> None:
        if groups.find(a) != groups.find(b):
            groups.union(a, b)
            reasons[reason] += 1

    slots: dict[str, list[int]] = defaultdict(list)
    texts: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for memory in active:
        if memory.slot and not memory.slot.startswith("topic."):
            slots[memory.slot].append(memory.id)
        texts[(memory.category.value, memory.kind.value, _text_key(memory))].append(memory.id)
    for ids in slots.values():
        for other in ids[1:]:
            join(ids[0], other, "by_slot")
    for ids in texts.values():
        for other in ids[1:]:
            join(ids[0], other, "by_text")

    since = ctx.last_success.get("merge")
    window = None if since is None else since - WINDOW_MARGIN_S
    checked = _vector_pairs(ctx, active, window, lambda a, b: join(a, b, "by_vector"))

    absorbed: list[int] = []
    found = groups.groups()
    for group in found:
        members = [by_id[i] for i in group]
        survivor = _survivor(
            members,
            by_slot=len({m.slot for m in members if m.slot}) == 1 and all(m.slot for m in members),
        )
        others = [m for m in members if m.id != survivor.id]
        absorbed += [m.id for m in others]
        ctx.gone.update(m.id for m in others)
        if not ctx.dry_run:
            _absorb(ctx, survivor, others)
    # One index delete for the step, not one per group: Chroma's cost is mostly per call.
    # Until then a merged memory's vector is filtered out at read time (reconcile removes
    # strays a crash leaves).
    ctx.unindex(absorbed)
    merged = len(absorbed)
    return {"checked": checked, "groups": len(found), "merged": merged, **reasons}


def _vector_pairs(
    ctx: StepContext,
    active: Sequence[Memory],
    window: float | None,
    join: Callable[[int, int], None],
) -> int:
    """Join vector near-duplicates; only memories changed since `window` are compared (to all)."""
    service = ctx.parts.service
    by_bucket: dict[tuple[str, str], list[Memory]] = defaultdict(list)
    for memory in active:
        if memory.category is not Category.IDENTIFIER:  # identifiers differ by a character
            by_bucket[(memory.category.value, memory.kind.value)].append(memory)
    fresh = {m.id for m in active if window is None or max(m.created_at, m.updated_at) >= window}
    if not any(len(b) > 1 and any(m.id in fresh for m in b) for b in by_bucket.values()):
        return 0
    fl = floors(service.embedder)
    # The least cosine any pair of scripts needs (a first filter); each pair then needs its own.
    raw_threshold = min(fl.raw(MERGE_SIMILARITY, a, b) for a in ("en", "zh") for b in ("en", "zh"))
    bucket_of = {m.id: key for key, bucket in by_bucket.items() for m in bucket}
    by_id = {m.id: m for m in active}

    def consider(a: Memory, b: Memory, sim: float) -> None:
        if a.id == b.id or bucket_of.get(a.id) != bucket_of.get(b.id):
            return
        scripts = script(a.content), script(b.content)
        if sim < fl.raw(MERGE_SIMILARITY, *scripts):
            return
        if a.slot and b.slot and a.slot != b.slot:
            return
        if fl.words_trust(*scripts) < 1.0 and shared_words(a.content, b.content) < MERGE_WORDS:
            return  # the model cannot judge this pair: "还是做产品（3-23）" and "负责到店业务（3-23）" are two facts
        if not distinct(a.content, b.content):
            join(a.id, b.id)

    if len(fresh) * NEIGHBOUR_SHARE < len(active):
        # A normal night: few new memories; ask the index for each one's nearest neighbours.
        new = [m for m in active if m.id in fresh and m.id in bucket_of]
        vectors = _vectors(ctx, new)
        for memory, vector in zip(new, vectors, strict=True):
            for other_id, sim in service.index.query(vector, NEIGHBOURS, ctx.profile_id):
                other = by_id.get(other_id)
                if other is not None and sim >= raw_threshold:
                    consider(memory, other, sim)
        return len(new)
    checked = 0
    for bucket in by_bucket.values():  # a first run or a big import: one scan per bucket
        candidates = [i for i, m in enumerate(bucket) if m.id in fresh]
        if len(bucket) < 2 or not candidates:
            continue
        matrix = _vectors(ctx, bucket)
        checked += len(candidates)
        for block in chunks(candidates, 512):
            sims = matrix[list(block)] @ matrix.T
            rows, cols = np.nonzero(sims >= raw_threshold)
            for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
                consider(bucket[block[r]], bucket[c], float(sims[r, c]))
    return checked


def _vectors(ctx: StepContext, memories: Sequence[Memory]) -> np.ndarray:
    """Unit vectors of `memories` (from the index; embedded when the index lacks one)."""
    service = ctx.parts.service
    ids = [m.id for m in memories]
    found: dict[int, np.ndarray] = {}
    for batch in chunks(ids, 5000):
        found.update(service.index.vectors(list(batch)))
    missing = [m for m in memories if m.id not in found]
    if missing:
        for memory, vector in zip(
            missing, service.embedder.embed([m.content for m in missing]), strict=True
        ):
            found[memory.id] = np.asarray(vector, dtype=np.float32)
    matrix = np.stack([found[i] for i in ids]).astype(np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _survivor(members: Sequence[Memory], *, by_slot: bool) -> Memory:
    pool = [m for m in members if m.pinned] or list(members)
    if by_slot:  # one slot holds one value: the newest statement of it wins
        return max(pool, key=lambda m: (m.created_at, m.id))
    longest = max(len(_text_key(m)) for m in pool)
    complete = [m for m in pool if len(_text_key(m)) >= 0.85 * longest]
    return max(complete, key=lambda m: (m.created_at, len(m.content), m.id))


def _absorb(ctx: StepContext, survivor: Memory, others: Sequence[Memory]) -> None:
    """One transaction: the survivor takes the group's use and provenance; the others point to it."""
    group = [survivor, *others]
    entities = list(dict.fromkeys(e for m in group for e in m.entities))[:20]
    expiries = [m.expires_at for m in group]
    expires_at = (
        max(e for e in expiries if e is not None)
        if all(e is not None for e in expiries)
        else survivor.expires_at
    )
    accessed = [m.last_accessed_at for m in group if m.last_accessed_at is not None]
    provenance = {
        "merged_from": [m.id for m in others],
        "messages": sorted({m.source_message_id for m in group if m.source_message_id is not None}),
        "sessions": sorted({m.session_id for m in group if m.session_id}),
    }
    with ctx.db.atomic():
        if entities != survivor.entities:
            ctx.store.edit(survivor.id, ctx.now, entities=entities)
        ctx.db.execute(
            "UPDATE memories SET importance = ?, confidence = ?, access_count = ?, last_accessed_at = ?,"
            " updated_at = ?, pinned = ?, expires_at = ? WHERE id = ? AND profile_id = ?",
            (
                max(m.importance for m in group),
                max(m.confidence for m in group),
                sum(m.access_count for m in group),
                max(accessed) if accessed else None,
                max(m.updated_at for m in group),
                int(any(m.pinned for m in group)),
                expires_at,
                survivor.id,
                ctx.profile_id,
            ),
        )
        ctx.store.log_event(survivor.id, "updated", ctx.now, provenance)
        for other in others:
            ctx.store.set_status(other.id, Status.MERGED, ctx.now, superseded_by=survivor.id)

"""A proposed ranking for the read path: relative fusion plus conversation context.

Measured on the LoCoMo development split (see docs/benchmarks.md), two changes to how the
read path *orders* candidates matter most; neither needs anything but the store and index:

1. **Relative fusion.** Each route's evidence is scaled against the best candidate of this
   query before mixing — similarity min–max over the candidates, keyword coverage divided
   by the best coverage — then mixed half and half. Absolute scores mix badly: a model's
   cosine range and a query's keyword coverage move independently from query to query.
   The absolute features still gate what may be injected; this only orders.
2. **Context spread.** An episodic memory is one turn of a conversation; the turn that
   answers a question is often next to the one that names its subject ("What did you paint?"
   → "A sunset."). A memory gains a share of the best score among its neighbours in the same
   session (0.35 at distance 1, 0.30 at distance 2), and those neighbours join the candidates.

Self-contained (memory core imports only) so `memory/recall.py` can call it or absorb it;
measured today by `mnemo bench locomo --hybrid context` through `memory/bench.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from assistant.memory.context import session_neighbours as context_neighbours
from assistant.memory.context import spread
from assistant.memory.service import MemoryService
from assistant.memory.text import idf, match_expression, tokens


@dataclass(frozen=True)
class FusionOptions:
    similarity: float = 0.5
    keyword: float = 0.5
    neighbours: tuple[float, ...] = (0.35, 0.30)  # weight by distance 1, 2, … in the session
    candidates: int = 100  # per route
    max_terms: int = 24


def relative_fusion(similarity: Mapping[int, float], keyword: Mapping[int, float], ids: Sequence[int], options: FusionOptions) -> dict[int, float]:
    """One score per id from route evidence scaled to this query's candidates."""
    sims = [similarity.get(i, 0.0) for i in ids]
    low, high = (min(sims), max(sims)) if sims else (0.0, 0.0)
    best_kw = max((keyword.get(i, 0.0) for i in ids), default=0.0)
    out: dict[int, float] = {}
    for i, sim in zip(ids, sims, strict=True):
        s = (sim - low) / (high - low) if high > low else 0.0
        k = keyword.get(i, 0.0) / best_kw if best_kw > 0 else 0.0
        out[i] = options.similarity * s + options.keyword * k
    return out


def spread_context(scores: Mapping[int, float], neighbours: Mapping[int, Sequence[tuple[int, int]]], weights: Sequence[float]) -> dict[int, float]:
    """Each memory gains weights[d-1] × the best score among its distance-d session neighbours."""
    return spread(scores, neighbours, weights)


def session_neighbours(service: MemoryService, ids: Sequence[int], reach: int) -> dict[int, list[tuple[int, int]]]:
    """For each id, the active memories within `reach` places of it in its session, by time."""
    return context_neighbours(service.db, service.profile_id, ids, reach)


def keyword_coverage(service: MemoryService, query: str, ids: Sequence[int], max_terms: int = 24) -> dict[int, float]:
    """IDF-weighted share of the query's terms each memory holds (the read path's keyword feature)."""
    store = service.store
    terms = list(dict.fromkeys(tokens(query, query=True)))[:max_terms]
    total = max(1, store.total())
    freq = {t: store.doc_freq(t) for t in terms}
    # A term no memory holds still counts in the denominator: the query asks about it.
    weights = {t: idf(df, total) for t, df in freq.items()}
    denominator = sum(weights.values())
    if denominator <= 0 or not ids:
        return {}
    present = store.term_hits([t for t, df in freq.items() if df > 0], list(ids))
    out: dict[int, float] = {}
    for term, holders in present.items():
        for memory_id in holders:
            out[memory_id] = out.get(memory_id, 0.0) + weights[term] / denominator
    return out


def context_rank(service: MemoryService, query: str, depth: int, options: FusionOptions | None = None) -> list[tuple[int, float]]:
    """Rank active memories for `query`: relative fusion of both routes, then context spread."""
    opts = options or FusionOptions()
    store = service.store
    vector = service.embedder.embed_one(query)
    similarity = dict(service.index.query(vector, opts.candidates, store.profile_id))
    ids = list(similarity)
    match = match_expression(list(dict.fromkeys(tokens(query, query=True))))
    if match is not None:
        ids += [i for i, _ in store.keyword_search(match, opts.candidates) if i not in similarity]
    reach = len(opts.neighbours)
    near = session_neighbours(service, ids, reach)
    extra = sorted({j for pairs in near.values() for j, _ in pairs} - set(ids))
    ids += extra
    missing = [i for i in ids if i not in similarity]
    if missing:
        for memory_id, vec in service.index.vectors(missing).items():
            similarity[memory_id] = float(np.dot(vec, vector))
    keyword = keyword_coverage(service, query, ids, opts.max_terms)
    fused = relative_fusion(similarity, keyword, ids, opts)
    if extra:
        near.update(session_neighbours(service, extra, reach))
    final = spread_context(fused, near, opts.neighbours)
    return sorted(final.items(), key=lambda item: (-item[1], item[0]))[:depth]

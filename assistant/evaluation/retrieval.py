"""Rankers the benchmarks compare: the product's read path and two pure baselines.

A ranker turns a question into memory ids, best first. The baselines use the same store,
index and embedder as the read path, so the gain of the hybrid is measured side by side:

- ``vector``: the nearest neighbours in the vector index, by cosine similarity only;
- ``bm25``: FTS5's BM25 over the same tokens the read path searches with, nothing else;
- ``hybrid``: `Recaller.recall` with its threshold and relative cut off, so it ranks
  ``depth`` memories instead of choosing the few to inject;
- ``context``: the proposed ranking of `evaluation/fusion.py`, measured as the hybrid with
  ``mnemo bench locomo --hybrid context``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from assistant.evaluation.fusion import FusionOptions, context_rank
from assistant.memory.recall import Recaller, RecallOptions
from assistant.memory.service import MemoryService
from assistant.memory.text import match_expression, tokens

Ranker = Callable[[str], list[int]]


def vector_ranker(service: MemoryService, depth: int) -> Ranker:
    def rank(question: str) -> list[int]:
        vector = service.embedder.embed_one(question)
        return [memory_id for memory_id, _sim in service.index.query(vector, depth, service.profile_id)]

    return rank


def bm25_ranker(service: MemoryService, depth: int) -> Ranker:
    def rank(question: str) -> list[int]:
        match = match_expression(list(dict.fromkeys(tokens(question, query=True))))
        if match is None:
            return []
        return [memory_id for memory_id, _score in service.store.keyword_search(match, depth)]

    return rank


def ranking_options(base: RecallOptions, depth: int) -> RecallOptions:
    """The read path's options, set to rank `depth` memories rather than pick a few."""
    return replace(base, k=depth, threshold=0.0, relative_cut=0.0, candidates=max(base.candidates, 2 * depth))


def hybrid_ranker(recaller: Recaller, now: datetime, depth: int) -> Ranker:
    def rank(question: str) -> list[int]:
        return [hit.memory.id for hit in recaller.recall(question, now, k=depth, threshold=0.0)]

    return rank


def context_ranker(service: MemoryService, depth: int, options: FusionOptions | None = None) -> Ranker:
    """The proposed ranking (relative fusion + context spread, see evaluation/fusion.py)."""

    def rank(question: str) -> list[int]:
        return [memory_id for memory_id, _score in context_rank(service, question, depth, options)]

    return rank

"""Rankers the benchmarks compare: the product's read path and two pure baselines.

A ranker turns a question into memory ids, best first. The baselines use the same store,
index and embedder as the read path (one `BenchMemory`), so the gain of the hybrid is
measured side by side:

- ``vector``: the nearest neighbours in the vector index, by cosine similarity only;
- ``bm25``: FTS5's BM25 over the same tokens the read path searches with, nothing else;
- ``hybrid``: `Recaller.recall` with its threshold and relative cut off, so it ranks
  ``depth`` memories instead of choosing the few to inject;
- ``context``: the proposed ranking of `memory/fusion.py`, measured as the hybrid with
  ``mnemo bench locomo --hybrid context``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from assistant.memory.api import BenchMemory, RecallOptions

Ranker = Callable[[str], list[int]]


def vector_ranker(bench: BenchMemory, depth: int) -> Ranker:
    def rank(question: str) -> list[int]:
        return [memory_id for memory_id, _sim in bench.nearest(question, depth)]

    return rank


def bm25_ranker(bench: BenchMemory, depth: int) -> Ranker:
    def rank(question: str) -> list[int]:
        return bench.keyword(question, depth)

    return rank


def ranking_options(base: RecallOptions, depth: int) -> RecallOptions:
    """The read path's options, set to rank `depth` memories rather than pick a few."""
    return replace(base, k=depth, threshold=0.0, relative_cut=0.0, candidates=max(base.candidates, 2 * depth))


def hybrid_ranker(bench: BenchMemory, now: datetime, depth: int) -> Ranker:
    """The read path, built with `ranking_options` (see `BenchMemory(recall=...)`)."""

    def rank(question: str) -> list[int]:
        return [hit.memory.id for hit in bench.recall(question, now, k=depth, threshold=0.0)]

    return rank


def context_ranker(bench: BenchMemory, depth: int) -> Ranker:
    """The proposed ranking (relative fusion + context spread, see memory/fusion.py)."""

    def rank(question: str) -> list[int]:
        return bench.context_rank(question, depth)

    return rank

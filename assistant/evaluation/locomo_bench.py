"""`mnemo bench locomo`: ingest each conversation once, rank every question three ways.

One fresh store + index per conversation (in a temporary folder), its turns embedded once
and shared by every ranker; the query vector is computed once and shared too (the embedder's
cache). The result per split is ``{"hybrid": M, "vector": M, "bm25": M}``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from assistant.evaluation import retrieval
from assistant.evaluation.locomo import DEPTH, LocomoConversation, Scores, embed_turns, ingest
from assistant.memory.api import BenchMemory, Embedder, RecallOptions

METHODS = ("hybrid", "vector", "bm25")
HYBRIDS = ("recall", "context")


@dataclass
class LocomoRun:
    scores: dict[str, dict[str, Scores]] = field(default_factory=dict)  # split → method → scores
    questions: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    embed_seconds: float = 0.0
    query_ms: dict[str, float] = field(default_factory=dict)  # method → mean ms per question
    seconds: float = 0.0

    def result(self) -> dict[str, Any]:
        """The ``--json`` document: ``{"dev": R, "heldout": R}``."""
        return {split: {m: s.result() for m, s in by.items()} for split, by in self.scores.items()}

    def curves(self) -> dict[str, dict[str, list[float]]]:
        return {split: {m: s.curve_means() for m, s in by.items()} for split, by in self.scores.items()}


def run_locomo(
    conversations: list[LocomoConversation],
    embedder: Embedder,
    *,
    hybrid: str = "recall",
    recall_options: RecallOptions | None = None,
    progress: Callable[[str], None] | None = None,
) -> LocomoRun:
    """Score hybrid (the read path, or the proposed `context` ranking) against both baselines."""
    if hybrid not in HYBRIDS:
        raise ValueError(f"unknown hybrid ranking {hybrid!r}")
    report = progress or (lambda _text: None)
    run = LocomoRun()
    spent = dict.fromkeys(METHODS, 0.0)
    asked = 0
    started = time.perf_counter()
    for split in ("dev", "heldout"):
        run.scores[split] = {m: Scores() for m in METHODS}
        run.questions[split] = 0
    for conversation in conversations:
        t0 = time.perf_counter()
        vectors = embed_turns(embedder.embed, conversation)
        run.embed_seconds += time.perf_counter() - t0
        run.skipped += conversation.skipped
        now = max(t.at for t in conversation.turns) + timedelta(days=1)
        options = retrieval.ranking_options(recall_options or RecallOptions(), DEPTH)
        with BenchMemory(embedder, now, name="locomo", recall=options, prefix="mnemo-locomo-") as bench:
            turns = ingest(bench, conversation, vectors)
            rankers: dict[str, retrieval.Ranker] = {
                "hybrid": retrieval.hybrid_ranker(bench, now, DEPTH)
                if hybrid == "recall"
                else retrieval.context_ranker(bench, DEPTH),
                "vector": retrieval.vector_ranker(bench, DEPTH),
                "bm25": retrieval.bm25_ranker(bench, DEPTH),
            }
            scores = run.scores[conversation.split]
            for question in conversation.questions:
                embedder.embed_one(question.question)  # computed once, shared by the rankers
                for method, rank in rankers.items():
                    t1 = time.perf_counter()
                    ranked = [turns[i].dia_id for i in rank(question.question) if i in turns]
                    spent[method] += time.perf_counter() - t1
                    scores[method].add(question.category, question.evidence, ranked)
                asked += 1
            run.questions[conversation.split] += len(conversation.questions)
        report(f"conversation {conversation.index} ({conversation.split}): {len(conversation.turns)} turns, "
               f"{len(conversation.questions)} questions, {time.perf_counter() - started:.0f} s")
    run.query_ms = {m: round(1000 * spent[m] / max(1, asked), 2) for m in METHODS}
    run.seconds = round(time.perf_counter() - started, 1)
    run.embed_seconds = round(run.embed_seconds, 1)
    return run

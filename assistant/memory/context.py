"""Conversation context for episodic memories: the turns next to a turn in its session.

An episodic memory is one turn of a conversation; the turn that answers a question is often
next to the one that names its subject ("What did you paint?" → "A sunset."). The read path
lets a memory borrow a share of its neighbours' relevance (measured on LoCoMo's development
split: turn recall@10 0.70 → 0.78 with MiniLM).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assistant.memory.db import Database


def session_neighbours(db: Database, profile_id: str, ids: Sequence[int], reach: int) -> dict[int, list[tuple[int, int]]]:
    """For each episodic id, the active episodic memories within `reach` places in its session."""
    if not ids or reach <= 0:
        return {}
    marks = ",".join("?" * len(ids))
    sessions = [r[0] for r in db.query(
        f"SELECT DISTINCT session_id FROM memories WHERE id IN ({marks}) AND +profile_id = ?"
        " AND kind = 'episodic' AND session_id IS NOT NULL",
        (*ids, profile_id),
    )]
    if not sessions:
        return {}
    order: dict[str, list[int]] = {}
    smarks = ",".join("?" * len(sessions))
    for row in db.query(
        f"SELECT id, session_id FROM memories WHERE profile_id = ? AND session_id IN ({smarks})"
        " AND +status = 'active' AND +kind = 'episodic' ORDER BY session_id, event_at, id",
        (profile_id, *sessions),
    ):
        order.setdefault(row[1], []).append(row[0])
    wanted = set(ids)
    out: dict[int, list[tuple[int, int]]] = {}
    for members in order.values():
        for position, memory_id in enumerate(members):
            if memory_id in wanted:
                lo, hi = max(0, position - reach), min(len(members), position + reach + 1)
                out[memory_id] = [(members[j], abs(j - position)) for j in range(lo, hi) if j != position]
    return out


def spread(scores: Mapping[int, float], neighbours: Mapping[int, Sequence[tuple[int, int]]], weights: Sequence[float]) -> dict[int, float]:
    """Each memory gains weights[d-1] × the best score among its distance-d session neighbours."""
    out = dict(scores)
    for memory_id, near in neighbours.items():
        if memory_id not in out:
            continue
        best: dict[int, float] = {}
        for other, distance in near:
            if 1 <= distance <= len(weights):
                best[distance] = max(best.get(distance, 0.0), scores.get(other, 0.0))
        out[memory_id] += sum(weights[d - 1] * value for d, value in best.items())
    return out

"""`MemoryService.add_many` (imports, benchmarks) against real SQLite, Chroma and embeddings:
it must leave exactly what `add` one by one leaves — rows, FTS, audit, index."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest

from assistant.app import Profile
from assistant.clock import ManualClock, to_ts
from assistant.errors import InputError
from assistant.memory.store import NewMemory
from assistant.memory.text import match_expression, tokens
from assistant.memory.types import Category, Kind, Memory

T0 = 1_700_000_000.0


def _news() -> list[NewMemory]:
    return [
        NewMemory(
            "I moved to Lisbon in March",
            Category.FACT,
            slot="user.city",
            entities=["Lisbon", " Lisbon "],
        ),
        NewMemory(
            "我最近在学钢琴，我妈说挺适合我",
            Category.GOAL,
            kind=Kind.EPISODIC,
            entities=["我妈"],
            importance=9,
        ),
        NewMemory(
            "  my sister   hates oat milk ",
            Category.PREFERENCE,
            confidence=1.5,
            event_at=T0 - 86400,
        ),
        NewMemory(
            "remember the ticket ZX-90210",
            Category.PROJECT,
            pinned=True,
            expires_at=T0 + 86400,
            session_id="s1",
        ),
    ]


def _same(memory: Memory) -> dict[str, object]:
    fields = asdict(memory)
    del fields["id"]
    return fields


def test_bulk_add_leaves_what_add_one_by_one_leaves(profile: Profile) -> None:
    service, store = profile.service, profile.store
    one_by_one = [service.add(new, now=T0 + i).id for i, new in enumerate(_news())]
    bulk = service.add_many([(new, T0 + i) for i, new in enumerate(_news())])

    assert len(bulk) == 4 and store.count() == 8
    singles, bulks = store.get_many(one_by_one), store.get_many(bulk)
    for a, b in zip(one_by_one, bulk, strict=True):
        assert _same(bulks[b]) == _same(singles[a])
        assert (
            [e["event"] for e in store.history(b)]
            == [e["event"] for e in store.history(a)]
            == ["added"]
        )
    fts = {
        r[0]: (r[1], r[2])
        for r in profile.db.query("SELECT rowid, text, entities FROM memories_fts")
    }
    for a, b in zip(one_by_one, bulk, strict=True):
        assert fts[b] == fts[a]
    hits = {
        h[0] for h in store.keyword_search(match_expression(tokens("钢琴", query=True)) or "", 10)
    }
    assert hits == {one_by_one[1], bulk[1]}

    # The index holds every new memory with the same vector as the one-by-one path.
    index = service.index
    assert index.ids(service.profile_id) == set(one_by_one) | set(bulk)
    vectors = index.vectors(one_by_one + bulk)
    for a, b in zip(one_by_one, bulk, strict=True):
        assert float(vectors[a] @ vectors[b]) > 0.999
    report = service.reconcile()
    assert (report.indexed, report.removed) == (0, 0)


def test_bulk_add_with_given_vectors_and_a_reopened_profile(
    profile: Profile, clock: ManualClock
) -> None:
    texts = [f"synthetic memory number {i} about topic {i % 7}" for i in range(300)]
    vectors = profile.embedder.embed(texts)
    seen: list[tuple[int, int]] = []
    ids = profile.service.add_many(
        [(NewMemory(t, Category.FACT), to_ts(clock.now())) for t in texts],
        vectors=vectors,
        batch=128,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen == [(128, 300), (256, 300), (300, 300)]
    got = profile.service.index.vectors(ids)
    assert np.allclose(np.stack([got[i] for i in ids]), vectors, atol=1e-5)
    top = profile.service.index.query(
        profile.embedder.embed_one(texts[42]), 1, profile.service.profile_id
    )
    assert top[0][0] == ids[42]
    hits = profile.recaller.recall("synthetic memory number 42", clock.now())
    assert ids[42] in [h.memory.id for h in hits]
    report = profile.service.reconcile()
    assert (report.indexed, report.removed) == (0, 0)


def test_bulk_add_checks_everything_before_writing(profile: Profile) -> None:
    good = (NewMemory("I like tea", Category.PREFERENCE), T0)
    with pytest.raises(InputError):
        profile.service.add_many([good, (NewMemory("   ", Category.FACT), T0)])
    with pytest.raises(ValueError):
        profile.service.add_many(
            [good], vectors=np.zeros((2, profile.embedder.dimension), dtype=np.float32)
        )
    assert profile.store.total() == 0
    assert profile.service.add_many([]) == []
    assert profile.service.index.count() == 0

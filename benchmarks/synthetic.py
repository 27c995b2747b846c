"""Synthetic but varied memories for benchmarks (English and Chinese, many topics), and the
one way the benchmarks fill a profile with them (`fill`, through `MemoryService.add_many`).

Percentiles come from `assistant.evaluation.latency.percentiles`, shared with `mnemo bench latency`.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assistant.evaluation.latency import percentiles, pooled_vectors
from assistant.memory.store import NewMemory
from assistant.memory.types import Category, Kind

if TYPE_CHECKING:
    from pathlib import Path

    from assistant.app import Profile
    from assistant.clock import Clock
    from assistant.memory.embedder import Embedder

__all__ = ["Filled", "bench_profile", "fill", "memories", "paired_ms", "percentiles", "queries"]


def bench_profile(folder: Path, name: str, embedder: Embedder, clock: Clock) -> Profile:
    """A profile in `folder` with the bundled test embedder's settings, warnings silenced."""
    from assistant.app import Profile
    from assistant.config import Settings
    from assistant.memory.embedder import BUNDLED_MODEL

    return Profile(
        folder,
        name,
        Settings(embedding_model=BUNDLED_MODEL),
        embedder=embedder,
        clock=clock,
        warn=lambda _t: None,
    )


_PEOPLE = [
    "my sister",
    "my boss",
    "Anna",
    "my son Leo",
    "our neighbour",
    "Dr. Wu",
    "my dad",
    "Priya",
    "Tom",
    "my wife",
]
_PLACES = [
    "Berlin",
    "Hangzhou",
    "Lisbon",
    "Osaka",
    "Denver",
    "Chengdu",
    "Toronto",
    "Nairobi",
    "Lyon",
    "Xi'an",
]
_THINGS = [
    "sourdough",
    "climbing",
    "PostgreSQL",
    "jazz",
    "the Kindle",
    "oat milk",
    "Rust",
    "watercolour",
    "tennis",
    "ramen",
    "the garden",
    "a used Corolla",
    "the piano",
    "Kubernetes",
    "bird watching",
    "marathon training",
]
_EN = [
    "I started {t} last {m} and {p} thinks it's great",
    "{p} is moving to {c} in {m}",
    "we decided to go with {t} for the new project",
    "I really don't enjoy {t} anymore",
    "{p} recommended a place in {c} for {t}",
    "remember that {p} hates {t}",
    "my flight to {c} got moved to {m}",
    "I spent the weekend on {t} with {p}",
]
_ZH_PLACES = ["北京", "杭州", "成都", "上海", "深圳", "西安", "南京", "厦门", "武汉", "苏州"]
_ZH_THINGS = [
    "跑步",
    "咖啡",
    "钢琴",
    "摄影",
    "火锅",
    "登山",
    "Python",
    "羽毛球",
    "书法",
    "烘焙",
    "游泳",
    "茶",
]
_ZH_PEOPLE = ["我妈", "我老婆", "小王", "我同事", "我儿子", "张老师", "我哥", "室友"]
_ZH = [
    "我最近在学{t}，{p}说挺适合我",
    "{p}下个月要去{c}出差",
    "我们最后决定用{t}",
    "我现在不太喜欢{t}了",
    "{p}推荐我去{c}看看",
    "记住{p}不吃{t}",
    "周末和{p}一起去{c}玩了",
]
_MONTHS = ["January", "March", "May", "July", "September", "November"]


def memories(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if rng.random() < 0.5:
            text = rng.choice(_EN).format(
                p=rng.choice(_PEOPLE),
                c=rng.choice(_PLACES),
                t=rng.choice(_THINGS),
                m=rng.choice(_MONTHS),
            )
        else:
            text = rng.choice(_ZH).format(
                p=rng.choice(_ZH_PEOPLE), c=rng.choice(_ZH_PLACES), t=rng.choice(_ZH_THINGS)
            )
        out.append(f"{text} (#{i})" if rng.random() < 0.3 else text)
    return out


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    pool = [
        "what does {p} think about {t}?",
        "any plans in {c}?",
        "what did we decide for the project?",
        "{p}最近怎么样",
        "我在{c}有什么安排",
        "推荐点和{t}有关的",
        "where is {p} moving?",
        "上次说的{t}是什么",
    ]
    return [
        rng.choice(pool).format(
            p=rng.choice(_PEOPLE + _ZH_PEOPLE),
            c=rng.choice(_PLACES + _ZH_PLACES),
            t=rng.choice(_THINGS + _ZH_THINGS),
        )
        for _ in range(n)
    ]


@dataclass
class Filled:
    """What `fill` wrote and how long each part took."""

    ids: list[int]
    embedded: int
    embed_s: float
    write_s: float

    def describe(self) -> str:
        n = len(self.ids)
        rate = f"{self.embedded / self.embed_s:.0f} texts/s" if self.embed_s else "-"
        shared = (
            ""
            if self.embedded == n
            else f"; the other {n - self.embedded} reuse those vectors with noise"
        )
        return (
            f"{n} memories: {self.embedded} texts embedded in {self.embed_s:.1f}s ({rate}){shared}; "
            f"store + index bulk write {self.write_s:.1f}s ({n / max(self.write_s, 1e-9):.0f}/s)"
        )


def paired_ms(
    profile: Profile, asks: Sequence[str], tag: object, measured: Callable[[str], object]
) -> tuple[list[float], list[float]]:
    """Per question, in ms: the bare cost (one embedding + the read path's own vector query),
    then `measured` on the same question; each text made unique so no cache serves either."""
    index, embedder = profile.service.index, profile.embedder
    bare: list[float] = []
    full: list[float] = []
    for i, ask in enumerate(asks):
        text = f"{ask} ({tag}-{i})"
        t0 = time.perf_counter()
        index.query(embedder.embed([text])[0], 40, profile.name)
        t1 = time.perf_counter()
        measured(text + " ")
        t2 = time.perf_counter()
        bare.append((t1 - t0) * 1000)
        full.append((t2 - t1) * 1000)
    return bare, full


def fill(
    profile: Profile, n: int, now: float, *, embed_limit: int | None = None, seed: int = 3
) -> Filled:
    """Write n synthetic memories (half episodic, importance 1-5, ten minutes apart going back
    from `now`) in one transaction, then index them in large batches.

    With `embed_limit`, only that many texts are embedded; the other memories reuse one of
    those vectors with small noise (their text stays their own): embedding every text of a
    100k store takes tens of minutes on a small machine.
    """
    texts = memories(n)
    items = [
        (
            NewMemory(
                text,
                Category.FACT,
                kind=Kind.EPISODIC if i % 2 else Kind.SEMANTIC,
                importance=1 + i % 5,
            ),
            now - i * 600,
        )
        for i, text in enumerate(texts)
    ]
    t0 = time.perf_counter()
    vectors, embedded = pooled_vectors(
        profile.embedder.embed, texts, n if embed_limit is None else embed_limit, seed
    )
    embed_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ids = profile.service.add_many(items, vectors=vectors, progress=_progress)
    filled = Filled(ids, embedded, embed_s, time.perf_counter() - t0)
    print(f"  {filled.describe()}", file=sys.stderr)
    return filled


def _progress(done: int, total: int) -> None:
    print(f"  indexed {done}/{total}", file=sys.stderr, end="\r" if done < total else "\n")

"""`mnemo bench latency`: how fast the read and write paths are, beside their bare cost.

Each size runs in its own process (so its peak RSS is its own): N synthetic memories are
written to a fresh store + index, then the read path answers unseen questions. Beside every
figure stands the *bare* cost measured in the same process: one embedding plus one vector
query (read), one embedding plus one index upsert (write) — what no memory system can avoid.

Every memory has its own text, but embedding 100k texts with the test model on 2 shared CPU
cores takes 15-50 minutes (35-100 texts/s measured, by load), so at most ``embed_limit`` distinct
texts are embedded and the remaining vectors reuse them with small Gaussian noise
(renormalised); the output says how many were embedded and at what rate. The store is filled
through `MemoryService.add_many` (one transaction, index writes in batches of 5,000).

The children run torch with ``threads`` threads (default 1, as the test suite does): on a
shared 2-core machine two OpenMP threads contending with other work made one query
embedding ~10x slower (36 ms vs 480 ms), which drowned every other cost. Both sides of each
comparison run with the same setting, and the output records it.
"""

from __future__ import annotations

import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # the memory core is imported where it is used: the start-up probes import
    # this module for `peak_rss_mb` before they report ready, and must not pay for the core
    from assistant.memory.api import BenchMemory, Embedder

SIZES = (1_000, 10_000, 100_000)
_SUBJECTS = [
    "my sister",
    "our team",
    "the landlord",
    "my doctor",
    "Grandma",
    "the new manager",
    "my friend Alex",
    "我妈",
    "老板",
    "室友",
    "我同事小王",
    "女朋友",
    "the kids",
    "my neighbour",
    "我哥",
]
_VERBS = [
    "booked",
    "recommended",
    "cancelled",
    "moved",
    "prefers",
    "asked about",
    "forgot",
    "paid for",
    "喜欢",
    "讨厌",
    "提到了",
    "订了",
    "推荐了",
    "换成了",
]
_OBJECTS = [
    "the dentist appointment",
    "a flight to Lisbon",
    "vegetarian ramen",
    "the gym membership",
    "the car insurance",
    "a trip to Hangzhou",
    "piano lessons",
    "the quarterly report",
    "hiking boots",
    "一家川菜馆",
    "周末的音乐会",
    "新的笔记本电脑",
    "去成都的高铁票",
    "瑜伽课",
    "房租",
    "咖啡豆",
]
_WHEN = [
    "on Monday",
    "next week",
    "in March",
    "last summer",
    "tomorrow",
    "上周五",
    "月底",
    "明年春天",
    "每天早上",
]


def synthetic_texts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {rng.choice(_WHEN)} (#{i})"
        for i in range(n)
    ]


def synthetic_queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [
        f"what did {rng.choice(_SUBJECTS)} say about {rng.choice(_OBJECTS)}? ({i})"
        for i in range(n)
    ]


def percentiles(values_ms: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values_ms)
    if not ordered:
        return {"p50": 0.0, "p95": 0.0, "p99": 0.0}

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {"p50": round(statistics.median(ordered), 2), "p95": at(0.95), "p99": at(0.99)}


def peak_rss_mb() -> float:
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return round(kb / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def pooled_vectors(
    embed: Callable[[Sequence[str]], np.ndarray],
    texts: Sequence[str],
    embed_limit: int,
    seed: int = 3,
) -> tuple[np.ndarray, int]:
    """Vectors of `texts`: the first `embed_limit` embedded, each other one a copy of one of
    those with Gaussian noise (sigma 0.02, renormalised). Returns them and how many were embedded."""
    embedded = embed(list(texts[:embed_limit]))
    if len(texts) <= embed_limit:
        return embedded, len(texts)
    rng = np.random.default_rng(seed)
    picks = embedded[rng.integers(0, len(embedded), len(texts) - len(embedded))]
    noisy = picks + rng.normal(0.0, 0.02, picks.shape).astype(np.float32)
    noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
    return np.vstack([embedded, noisy.astype(np.float32)]), len(embedded)


def measure_size(
    n: int,
    *,
    queries: int = 100,
    writes: int = 100,
    embed_limit: int = 5_000,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """Build a store of `n` memories in a temp folder and time the read and write paths."""
    from assistant.memory.api import (
        BUNDLED_MODEL,
        BenchMemory,
        NewMemory,
        SentenceTransformerEmbedder,
    )
    from assistant.memory.types import Category

    if embedder is None:
        model = SentenceTransformerEmbedder(os.environ.get("MNEMO_EMBEDDING_MODEL", BUNDLED_MODEL))
        model.load()
        embedder = model
    rss_model = peak_rss_mb()
    texts = synthetic_texts(n)
    t0 = time.perf_counter()
    vectors, embedded = pooled_vectors(embedder.embed, texts, embed_limit)
    embed_s = time.perf_counter() - t0
    now = datetime(2026, 3, 2, 20, 0, tzinfo=UTC)
    with BenchMemory(embedder, now, prefix="mnemo-latency-") as bench:
        t0 = time.perf_counter()
        bench.load([(NewMemory(content=text, category=Category.FACT), now.timestamp()) for text in texts], vectors)
        load_s = time.perf_counter() - t0
        recall_ms, bare_ms = _read_ms(bench, now, queries)
        write_s, bare_write_s = _write_seconds(bench, writes)
        write_path_ms = _write_path_ms(bench, now, writes)
    return {
        "memories": n,
        "vectors": f"{embedded} embedded"
        + ("" if embedded == n else f", {n - embedded} reused with noise"),
        "setup_s": {"embed": round(embed_s, 1), "load": round(load_s, 1)},
        "setup_per_s": {"embed": round(embedded / embed_s, 1), "load": round(n / load_s, 1)},
        "recall_ms": percentiles(recall_ms),
        "bare_ms": percentiles(bare_ms),
        "write_per_s": round(writes / write_s, 1),
        "bare_write_per_s": round(writes / bare_write_s, 1),
        "write_path_ms": write_path_ms,
        "rss_after_model_mb": rss_model,
        "peak_rss_mb": peak_rss_mb(),
    }


def _read_ms(bench: BenchMemory, now: datetime, queries: int) -> tuple[list[float], list[float]]:
    """Milliseconds of the read path for each of `queries` unseen questions, and of the bare
    cost (one embedding, one vector query for as many candidates) for as many others."""
    from assistant.memory.api import RecallOptions

    asks = synthetic_queries(2 * queries)
    candidates = RecallOptions().candidates
    bench.recall("warm-up question", now)
    recall_ms: list[float] = []
    bare_ms: list[float] = []
    for i in range(queries):
        t1 = time.perf_counter()
        bench.recall(asks[2 * i], now)
        recall_ms.append((time.perf_counter() - t1) * 1000)
        t1 = time.perf_counter()
        bench.nearest(asks[2 * i + 1], candidates)
        bare_ms.append((time.perf_counter() - t1) * 1000)
    return recall_ms, bare_ms


def _write_seconds(bench: BenchMemory, writes: int) -> tuple[float, float]:
    """Seconds for `writes` stored memories (row, embedding, index), and for as many bare
    index writes (one embedding, one upsert) of other texts."""
    fresh = synthetic_texts(2 * writes, seed=99)
    t1 = time.perf_counter()
    for text in fresh[:writes]:
        bench.add(f"new: {text}")
    write_s = time.perf_counter() - t1
    t1 = time.perf_counter()
    for j, text in enumerate(fresh[writes:]):
        bench.index_only(10_000_000 + j, text)
    return write_s, time.perf_counter() - t1


# What people say in one message: introductions, compound sentences, updates, plans, small
# talk, questions, in both languages (the write path's cost depends on the clauses it judges).
_MESSAGES = (
    "我叫林晓雨，住在成都，对花生过敏。", "Hi! I'm Priya, I teach chemistry at a school in Leeds.",
    "I just moved from Boston to Denver last week and I love it here", "谢谢你昨天陪我聊天，晚安啦",
    "next Friday I fly to Tokyo for a conference, can you help me pack?", "我下周三要去上海出差，顺便见个老同学",
    "my wife Priya is a vet and we've got a 3 year old named Arjun", "what's a good recipe for dinner tonight?",
    "我老婆是护士，在协和上班，最近天天夜班", "ugh what a day. woke up late, spilled coffee, traffic was awful",
    "I'm vegetarian and I can't stand cilantro, also I drive a 2014 Subaru Outback", "搬到苏州快一个月了，还没习惯。",
)


def _write_path_ms(bench: BenchMemory, now: datetime, count: int) -> dict[str, float]:
    """Percentiles of one user message through the whole write path (`MemoryWriter.remember`)."""
    from assistant.memory.types import Turn

    bench.remember([Turn("user", "warm-up: I like tea")], now)
    times: list[float] = []
    for i in range(count):
        text = _MESSAGES[i % len(_MESSAGES)] + ("" if i < len(_MESSAGES) else f" ({i})")
        at = now + timedelta(minutes=i + 1)  # one message a minute, as a chat would send them
        t0 = time.perf_counter()
        bench.remember([Turn("user", text, at)], at)
        times.append((time.perf_counter() - t0) * 1000)
    return percentiles(times)


_READY_SNIPPET = """
import os, sys, tempfile, time
from pathlib import Path
os.environ.setdefault("HF_HUB_OFFLINE", "1"); os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
from assistant.app import Profile
from assistant.config import Settings
from assistant.memory.api import BUNDLED_MODEL
base = Path(sys.argv[1])
profile = Profile(base, "default", Settings(embedding_model=os.environ.get("MNEMO_EMBEDDING_MODEL", BUNDLED_MODEL)), warn=lambda t: None)
profile.memories.recall("what do I like to eat?", profile.clock.now())
from assistant.evaluation.latency import peak_rss_mb
print("READY", peak_rss_mb(), flush=True)
profile.close()
"""
# The bare cost: the model alone, without the memory core (so not through its API).
_BARE_SNIPPET = """
import os
os.environ.setdefault("HF_HUB_OFFLINE", "1")
from assistant.memory.embedder import BUNDLED_MODEL, SentenceTransformerEmbedder
e = SentenceTransformerEmbedder(os.environ.get("MNEMO_EMBEDDING_MODEL", BUNDLED_MODEL)); e.embed_one("what do I like to eat?")
from assistant.evaluation.latency import peak_rss_mb
print("READY", peak_rss_mb(), flush=True)
"""


def _child_env(threads: int) -> dict[str, str]:
    return {
        **os.environ,
        "OMP_NUM_THREADS": str(threads),
        "HF_HUB_OFFLINE": os.environ.get("HF_HUB_OFFLINE", "1"),
    }


def _time_to_ready(snippet: str, *args: str, threads: int = 1) -> tuple[float, float]:
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", snippet, *args],
        stdout=subprocess.PIPE,
        text=True,
        env=_child_env(threads),
    )
    assert proc.stdout is not None
    rss = 0.0
    for line in proc.stdout:
        if line.startswith("READY"):
            ready = time.perf_counter() - started
            rss = float(line.split()[1])
            break
    else:
        proc.wait()
        raise RuntimeError(f"start-up probe failed (exit {proc.returncode})")
    proc.wait()
    return round(ready, 2), rss


def measure_startup(threads: int = 1) -> dict[str, float]:
    """Process start → profile open, model loaded, first recall done; beside model-only."""
    with tempfile.TemporaryDirectory(prefix="mnemo-startup-") as tmp:
        ready, rss = _time_to_ready(_READY_SNIPPET, tmp, threads=threads)
    bare, bare_rss = _time_to_ready(_BARE_SNIPPET, threads=threads)
    return {
        "ready_s": ready,
        "peak_rss_mb": rss,
        "bare_ready_s": bare,
        "bare_peak_rss_mb": bare_rss,
    }


def run_latency(
    sizes: Sequence[int] = SIZES,
    *,
    queries: int = 100,
    writes: int = 100,
    embed_limit: int = 5_000,
    startup: bool = True,
    threads: int = 1,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every size in a child process (its own peak RSS), then the start-up probe."""
    report = progress or (lambda _text: None)
    out: dict[str, Any] = {"sizes": [], "machine": {**machine(), "torch_threads": threads}}
    for n in sizes:
        t0 = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "assistant.evaluation.latency",
                str(n),
                str(queries),
                str(writes),
                str(embed_limit),
            ],
            capture_output=True,
            text=True,
            check=False,
            env=_child_env(threads),
        )
        if proc.returncode != 0:
            raise RuntimeError(f"latency run at {n} memories failed:\n{proc.stderr[-2000:]}")
        out["sizes"].append(json.loads(proc.stdout.strip().splitlines()[-1]))
        report(f"{n} memories: {time.perf_counter() - t0:.0f} s")
    if startup:
        out["startup"] = measure_startup(threads)
    return out


def machine() -> dict[str, Any]:
    import platform

    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "gpu": False,
    }


if __name__ == "__main__":  # the child process of run_latency
    size, n_queries, n_writes, limit = (int(a) for a in sys.argv[1:5])
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    print(json.dumps(measure_size(size, queries=n_queries, writes=n_writes, embed_limit=limit)))

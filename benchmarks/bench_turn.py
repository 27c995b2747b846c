"""Memory overhead of one chat turn (recall + prompt build) at 10k memories, beside the bare
cost of one query embedding plus the read path's vector query, measured in the same run.

The turn overhead is `ChatEngine.prepare_prompt`: pinned memories, recall, rolling summary,
recent turns and the num_ctx budget — everything a turn adds before the model is called.

    HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.bench_turn [--sizes 10000] [--queries 200]
"""

from __future__ import annotations

import argparse
import tempfile
from datetime import datetime
from functools import partial
from pathlib import Path

from assistant.app import Profile
from assistant.chat.background import BackgroundRunner, ManualTimer
from assistant.chat.engine import ChatEngine
from assistant.clock import ManualClock, to_ts
from assistant.config import Settings
from assistant.llm.ollama_backend import OllamaBackend
from assistant.memory.embedder import BUNDLED_MODEL, SentenceTransformerEmbedder
from benchmarks.synthetic import fill, paired_ms, percentiles, queries

HISTORY_TURNS = 8


def run(sizes: list[int], n_queries: int) -> None:
    embedder = SentenceTransformerEmbedder(BUNDLED_MODEL, allow_fallback=False)
    embedder.load()
    clock = ManualClock(datetime.fromisoformat("2026-06-01T12:00:00+08:00"))
    qs = queries(n_queries)
    print(
        f"model {embedder.model_name}, {n_queries} distinct queries per size, {HISTORY_TURNS} turns of history"
    )
    print(
        f"{'memories':>9} | {'bare p50':>8} {'bare p95':>8} | {'turn p50':>8} {'turn p95':>8} | p50 ratio | p95 ratio"
    )
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(embedding_model=BUNDLED_MODEL)
            profile = Profile(
                Path(tmp), "bench", settings, embedder=embedder, clock=clock, warn=lambda _t: None
            )
            fill(profile, size, to_ts(clock.now()))
            # The backend is never called: prepare_prompt stops before the model.
            with OllamaBackend(settings) as backend:
                engine = ChatEngine(
                    profile,
                    backend,
                    runner=BackgroundRunner(synchronous=True),
                    idle_timer=ManualTimer(),
                )
                session = engine.new_session()
                for i in range(HISTORY_TURNS):
                    asked = engine.history.add_message(
                        session.id, "user", f"{qs[i]} — earlier turn {i}", to_ts(clock.now())
                    )
                    engine.history.mark_extracted(
                        [asked.id]
                    )  # nothing for close() to send to a model
                    engine.history.add_message(
                        session.id, "assistant", "Here is a short answer. " * 6, to_ts(clock.now())
                    )
                for q in qs[:10]:  # warm up both paths
                    engine.prepare_prompt(session.id, q, clock.now())
                bare, turn = paired_ms(
                    profile, qs, size, partial(engine.prepare_prompt, session.id, now=clock.now())
                )
                engine.close()
            profile.close()
        b50, b95 = percentiles(bare)["p50"], percentiles(bare)["p95"]
        t50, t95 = percentiles(turn)["p50"], percentiles(turn)["p95"]
        print(
            f"{size:>9} | {b50:7.1f}ms {b95:7.1f}ms | {t50:7.1f}ms {t95:7.1f}ms | {t50 / b50:8.2f}× | {t95 / b95:8.2f}×"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    run(args.sizes, args.queries)


if __name__ == "__main__":
    main()

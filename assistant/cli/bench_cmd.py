"""`mnemo bench locomo|latency`: retrieval quality on LoCoMo, and read/write speed."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from assistant.config import load_settings
from assistant.evaluation.report import latency_markdown, locomo_markdown, recall_svg


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def cmd_locomo(args: argparse.Namespace) -> int:
    from assistant.evaluation.locomo import load_locomo
    from assistant.evaluation.locomo_bench import run_locomo
    from assistant.memory.api import SentenceTransformerEmbedder

    conversations = load_locomo(Path(args.data))
    settings = load_settings()
    embedder = SentenceTransformerEmbedder(
        settings.embedding_model, warn=lambda t: print(f"warning: {t}", file=sys.stderr)
    )
    run = run_locomo(conversations, embedder, hybrid=args.hybrid, progress=_progress)
    result = run.result()
    print(
        f"LoCoMo evidence recall — embedder {embedder.model_name}, hybrid = {args.hybrid}; "
        f"{run.questions.get('dev', 0)} dev + {run.questions.get('heldout', 0)} held-out questions "
        f"({run.skipped} without usable evidence skipped)\n"
    )
    print(locomo_markdown(result))
    print(
        f"\nturn embedding {run.embed_seconds} s; mean ms per question: "
        + ", ".join(f"{m} {v}" for m, v in run.query_ms.items())
        + f"; total {run.seconds} s"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2), encoding="utf-8")
    if args.markdown:
        Path(args.markdown).write_text(locomo_markdown(result) + "\n", encoding="utf-8")
    if args.plot:
        Path(args.plot).write_text(recall_svg(run.curves()), encoding="utf-8")
    if args.curves:
        Path(args.curves).write_text(
            json.dumps(
                {
                    "curves": run.curves(),
                    "query_ms": run.query_ms,
                    "embed_seconds": run.embed_seconds,
                    "seconds": run.seconds,
                },
                indent=2,
            ),
            encoding="utf-8",
        )
    return 0


def cmd_latency(args: argparse.Namespace) -> int:
    from assistant.evaluation.latency import run_latency

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    result = run_latency(
        sizes,
        queries=args.queries,
        writes=args.writes,
        embed_limit=args.embed_limit,
        startup=not args.no_startup,
        threads=args.threads,
        progress=_progress,
    )
    print(latency_markdown(result))
    print(f"torch threads: {result['machine']['torch_threads']}")
    for size in result["sizes"]:
        rate = size.get("setup_per_s", {})
        print(
            f"{size['memories']} memories: vectors {size['vectors']} (embedded at {rate.get('embed', '?')} texts/s); "
            f"bulk write of the store + index {size['setup_s']['load']} s ({rate.get('load', '?')} memories/s)"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    bench = sub.add_parser("bench", help="benchmarks: LoCoMo retrieval, latency")
    bsub = bench.add_subparsers(dest="bench_command", metavar="BENCH", required=True)
    p = bsub.add_parser(
        "locomo", help="turn/session evidence recall on LoCoMo, hybrid vs baselines"
    )
    p.add_argument("--data", required=True, help="path of locomo10.json")
    p.add_argument("--json", metavar="OUT", help='write {"dev": R, "heldout": R}')
    p.add_argument("--markdown", metavar="OUT", help="write the tables as Markdown")
    p.add_argument("--plot", metavar="OUT.svg", help="write recall@k curves as SVG")
    p.add_argument("--curves", metavar="OUT", help="write recall@1..20 curves and timings as JSON")
    p.add_argument(
        "--hybrid",
        choices=("recall", "context"),
        default="recall",
        help="recall: the read path as shipped; context: the proposed ranking (memory/fusion.py)",
    )
    p.set_defaults(handler=cmd_locomo)
    p = bsub.add_parser("latency", help="recall p50/p95/p99, write throughput, start-up, peak RSS")
    p.add_argument("--sizes", default="1000,10000,100000", help="memory counts, comma-separated")
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--writes", type=int, default=100)
    p.add_argument(
        "--embed-limit",
        type=int,
        default=5000,
        help="embed at most this many texts; reuse the rest with noise",
    )
    p.add_argument("--no-startup", action="store_true", help="skip the start-up probe")
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads in the measured processes (OMP_NUM_THREADS)",
    )
    p.add_argument("--json", metavar="OUT")
    p.set_defaults(handler=cmd_latency)

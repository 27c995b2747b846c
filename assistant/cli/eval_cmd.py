"""`mnemo eval --dataset FILE.jsonl`: replay memory scenarios and score what gets injected.
`mnemo eval --updates FILE.jsonl`: score update pairs (does a later message replace what an
earlier one said, and only that; see `assistant.evaluation.updates`).

It measures; it does not judge: the exit code is 0 whatever the scores, and non-zero only
when the file is malformed (the line number and the reason are printed; nothing is run).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from assistant.app import Profile
from assistant.chat.history import ConversationStore
from assistant.config import Settings, load_settings
from assistant.evaluation.report import eval_markdown, table
from assistant.evaluation.runner import ScenarioRunner, default_maintenance, summarize
from assistant.evaluation.scenarios import load_scenarios
from assistant.evaluation.updates import UpdateRunner, load_pairs, summarize_pairs
from assistant.memory.api import SentenceTransformerEmbedder


def _llm_flush(settings: Settings) -> Callable[[Profile, ConversationStore, datetime], None]:
    """Flush pending user messages through the configured Ollama model (as the chat engine does)."""
    from assistant.llm.extraction import LLMExtractor, SourceMessage
    from assistant.llm.ollama_backend import OllamaBackend
    from assistant.memory.types import Turn

    extractor = LLMExtractor(OllamaBackend(settings), model=settings.chat_model, num_ctx=settings.num_ctx)

    def flush(profile: Profile, history: ConversationStore, now: datetime) -> None:
        pending = history.pending_extraction()
        if not pending:
            return
        outcome = extractor.extract([SourceMessage(m.id, m.session_id, m.content) for m in pending], now)
        profile.memories.extracted(
            [(g.candidate, g.message.text,
              Turn("user", g.message.text, session_id=g.message.session_id, message_id=g.message.id))
             for g in outcome.candidates],
            [],  # the harness scores what is remembered; the model's small-talk verdicts are not replayed
            now,
            then=lambda: history.mark_extracted([m.id for m in pending]),
        )

    return flush


def _updates(args: argparse.Namespace) -> int:
    pairs = load_pairs(Path(args.updates))  # ScenarioFormatError → exit 2 with the line
    settings = load_settings()
    embedder = SentenceTransformerEmbedder(settings.embedding_model, warn=lambda t: print(f"warning: {t}", file=sys.stderr))
    runner = UpdateRunner(embedder, settings)
    results = []
    for pair in pairs:
        results.append(runner.run(pair))
        if not (args.quiet or args.blind):
            print(f"{'ok  ' if results[-1].passed else '--  ' if not results[-1].tested else 'FAIL'} {pair.id}", file=sys.stderr)
    summary = summarize_pairs(results)
    summary["dataset"] = str(args.updates)
    summary["embedding_model"] = embedder.vector_space
    if args.blind:  # scores only, as for a blind scenario file
        for key in ("pair_results", "by_kind"):
            summary.pop(key)
    heads = ["pairs", "tested", "not_stored", "accuracy", "update_recall", "false_update_rate", "collateral_rate"]
    def row(name: str, scores: dict[str, Any]) -> list[object]:
        return [name, *("–" if scores[h] is None else scores[h] for h in heads)]

    rows = [row("all", summary)] + [row(lang, b) for lang, b in summary["by_lang"].items()]
    rows += [row(f"kind {kind}", b) for kind, b in summary.get("by_kind", {}).items()]
    print(table(["set", *heads], rows))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, ensure_ascii=False, indent=2), encoding="utf-8")
    if not args.blind:
        for r in summary["pair_results"]:
            if r["tested"] and not r["passed"]:
                what = [f"still active {', '.join(r['stale'])}"] if r["stale"] else []
                what += [f"lost {', '.join(r['lost'])}"] if r["lost"] else []
                print(f"- {r['id']}: {'; '.join(what)}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    if args.updates:
        return _updates(args)
    scenarios = load_scenarios(Path(args.dataset))  # ScenarioFormatError → exit 2 with the line
    settings = load_settings()
    embedder = SentenceTransformerEmbedder(settings.embedding_model, warn=lambda t: print(f"warning: {t}", file=sys.stderr))
    hook = _llm_flush(settings) if args.llm else None
    runner = ScenarioRunner(embedder, settings, maintain=default_maintenance(), llm_extract=hook, k=args.k)
    results = []
    for scenario in scenarios:
        results.append(runner.run(scenario))
        if not (args.quiet or args.blind):
            print(f"{'ok  ' if results[-1].passed else 'FAIL'} {scenario.id}", file=sys.stderr)
    summary = summarize(results)
    summary["dataset"] = str(args.dataset)
    summary["extractors"] = "rules+llm" if args.llm else "rules"
    summary["embedding_model"] = embedder.vector_space
    if args.blind:  # scores only: a blind file's probes are not to be read (docs/eval-format.md)
        summary.pop("scenario_results")
        summary.pop("by_category")
    print(eval_markdown(summary))
    print()
    print(table(["lang", "probes", "probe_pass_rate", "expect_recall", "forbid_leak_rate"],
                [[lang, *b.values()] for lang, b in summary["by_lang"].items()]))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, ensure_ascii=False, indent=2), encoding="utf-8")
    if args.blind:
        return 0
    print()
    rows = [[name, b["scenarios"], b["failed"], b["probes"], b["probes_failed"]] for name, b in sorted(summary["by_category"].items())]
    print(table(["category", "scenarios", "failed", "probes", "probes failed"], rows))
    failures = [r for r in summary["scenario_results"] if not r["passed"]]
    if failures:
        print("\nFailures:")
    for r in failures:
        print(f"- {r['id']} (line {r['line']})" + (f": sensitive on disk {r['sensitive_leaks']}" if r["sensitive_leaks"] else ""))
        for p in r["probes"]:
            if not p["passed"]:
                why = []
                if p["missing"]:
                    why.append("missing " + " ; ".join("/".join(alts) for alts in p["missing"]))
                if p["leaked"]:
                    why.append("forbidden " + ", ".join(p["leaked"]))
                if p["over_limit"]:
                    why.append(f"{p['injected']} injected, over max_injected")
                print(f"    {p['query']!r}: {'; '.join(why)}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("eval", help="replay memory scenarios and score what would be injected")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--dataset", help="scenario file (JSON Lines, see docs/eval-format.md)")
    what.add_argument("--updates", metavar="PAIRS", help="update-pair file (JSON Lines, see docs/eval-format.md)")
    p.add_argument("--k", type=int, default=None, help="at most this many memories per probe (default from settings)")
    p.add_argument("--json", metavar="OUT", help="write the scores and per-scenario results here")
    p.add_argument("--llm", action="store_true", help="also extract with the configured Ollama model")
    p.add_argument("-q", "--quiet", action="store_true", help="no per-scenario progress on stderr")
    p.add_argument(
        "--blind", action="store_true",
        help="scores only, for a blind file: no scenario ids, probes or failures on screen or in the JSON (implies -q)",
    )
    p.set_defaults(handler=cmd_eval)

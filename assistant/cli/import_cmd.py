"""`mnemo import chatgpt|claude|text FILE`: bring history over from another assistant.

The file is read and checked whole first (a hostile or broken one is refused, nothing
written); then each conversation is replayed through the write path at its own time, and
what it gives waits in the review queue (`mnemo memory list --status all`, the window's
panel) unless `--accept` or the setting "accept imported memories without review" says
otherwise. Ctrl+C stops between two conversations; importing again goes on where it stopped.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from assistant.cli.common import print_json, profile_from_env, stderr_progress
from assistant.importers import KINDS, load
from assistant.memory.api import HistoryReport


def cmd_import(args: argparse.Namespace) -> int:
    with profile_from_env() as profile:
        conversations = load(args.kind, Path(args.file).expanduser(), profile.clock.now())
        stop = threading.Event()
        previous = _on_interrupt(stop)
        try:
            report = profile.memories.import_history(
                conversations, review=False if args.accept else None,
                progress=None if args.json else stderr_progress("importing"), cancel=stop.is_set,
            )
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        profile.memories.checkpoint()
    if args.json:
        print_json(report.as_dict())
    else:
        print(summary(args.kind, report))
    return 130 if report.cancelled else 0


def _on_interrupt(stop: threading.Event) -> signal.Handlers | None:
    """Ctrl+C asks the import to stop after the conversation under way (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(_signum: int, _frame: FrameType | None) -> None:
        stop.set()
        print("\nstopping after this conversation…", file=sys.stderr)

    previous = signal.signal(signal.SIGINT, handler)
    return previous if isinstance(previous, signal.Handlers) else signal.Handlers.SIG_DFL


def summary(kind: str, report: HistoryReport) -> str:
    what = "lines" if kind == "text" else "conversations"
    if not report.conversations and report.skipped and not report.cancelled:
        return f"Nothing new: all {report.skipped} {what} were imported before."
    parts = [f"{report.memories} memories from {report.conversations} {what}"]
    parts[0] += " waiting for your review" if report.in_review else " stored"
    if report.skipped:
        parts.append(f"{report.skipped} {what} imported before (skipped)")
    if report.forget_requests:
        parts.append(f"{report.forget_requests} forget requests not acted on")
    if report.cancelled:
        parts.append(f"stopped after {report.conversations + report.skipped} of {report.total}; import again to go on")
    return "; ".join(parts) + "."


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("import", help="import your history from ChatGPT or Claude, or a list of memories")
    p.add_argument("kind", choices=KINDS, help="chatgpt (the export .zip or conversations.json), "
                   "claude (its conversations.json or .zip), text (one memory per line)")
    p.add_argument("file", help="the file to import")
    p.add_argument("--accept", action="store_true", help="store without the review queue")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=cmd_import)

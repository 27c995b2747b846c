"""The `mnemo` command: gui (default), chat, memory …, import, mcp, maintain, doctor, eval, bench.

Every command module has `register(subparsers)`; each subcommand handler returns an exit
code. User-facing failures (`MnemoError`) print a message and what to do, never a traceback;
anything else is a bug and goes to `crash_report`.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import logging
import os
import signal
import sys
import threading
import traceback
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from assistant import __version__
from assistant.errors import MnemoError

COMMAND_MODULES = ["memory", "import", "chat", "mcp", "doctor", "maintain", "eval", "bench"]
# Clients of the library (the desktop window in ui/) add commands through this entry-point
# group, so the core never imports them.
PLUGIN_GROUP = "mnemo.commands"

log = logging.getLogger("mnemo.cli")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or with `only` just that command's (importing a command's module
    costs time: the chat client, the core; `mnemo gui` should not wait for all of them)."""
    parser = argparse.ArgumentParser(
        prog="mnemo", description="Mnemo — a local-first assistant that remembers you."
    )
    parser.add_argument("--version", action="version", version=f"mnemo {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more (never memory text)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(f"assistant.cli.{name}_cmd")
        except ModuleNotFoundError as exc:
            if exc.name != f"assistant.cli.{name}_cmd":
                raise
            continue
        module.register(sub)
    for entry in importlib.metadata.entry_points(group=PLUGIN_GROUP):
        if only is not None and entry.name != only:
            continue
        try:
            register = entry.load()
        except ImportError as exc:
            log.debug("command plugin %s unavailable: %s", entry.name, exc)
            continue
        register(sub)
    return parser


def sub_names(parser: argparse.ArgumentParser) -> set[str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return set(action.choices)
    return set()


def crash_report(exc: BaseException) -> Path | None:
    """Write the stack (frames only: an exception message may quote user text) to the log dir.

    Each crash gets its own file (time to the microsecond, the process id, and a counter
    when even that is taken): two crashes in one second keep both reports.
    """
    from assistant.config import data_dir

    frames = "".join(traceback.format_tb(exc.__traceback__))
    body = f"mnemo {__version__}\n{type(exc).__module__}.{type(exc).__qualname__}\n{frames}"
    try:
        folder = data_dir() / "logs"
        folder.mkdir(parents=True, exist_ok=True)
        stem = f"crash-{datetime.now():%Y%m%d-%H%M%S-%f}-{os.getpid()}"
        for attempt in range(100):
            path = folder / (f"{stem}.log" if attempt == 0 else f"{stem}-{attempt}.log")
            try:
                with open(path, "x", encoding="utf-8") as handle:
                    handle.write(body)
                return path
            except FileExistsError:
                continue
        return None
    except OSError:
        return None


class Terminated(BaseException):
    """SIGTERM arrived: unwind like Ctrl+C, so the profile closes as on a normal exit."""


def _on_sigterm(_signum: int, _frame: object) -> None:
    raise Terminated


def quiet_third_party() -> None:
    """No progress bars of the libraries under us ("Loading weights: 100%|…|") on a command
    that downloads nothing; a download shows its own progress (memory/embedder.py)."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    first = next((w for w in words if not w.startswith("-")), None)
    known = set(COMMAND_MODULES) | {e.name for e in importlib.metadata.entry_points(group=PLUGIN_GROUP)}
    parser = build_parser(first if first in known and "-h" not in words and "--help" not in words else None)
    args = parser.parse_args(words)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach the hub unless the user asks
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    quiet_third_party()
    if args.command is None:
        if "gui" not in sub_names(parser):
            print("error: the desktop window is not installed (package 'ui').", file=sys.stderr)
            print("  → Reinstall Mnemo with its GUI, or use `mnemo chat` in a terminal.", file=sys.stderr)
            return 2
        parser = build_parser("gui")
        args = parser.parse_args(["gui", *words])
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    trap = args.command != "gui" and threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if trap else None  # the window has its own
    try:
        return _run(handler, args)
    finally:
        if trap:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def _run(handler: Any, args: argparse.Namespace) -> int:
    """Run a command; what the user can act on is printed with its hint, a bug is reported."""
    try:
        return int(handler(args) or 0)
    except MnemoError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"  → {exc.hint}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("\nterminated", file=sys.stderr)
        return 143
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - the one handler for bugs
        where = crash_report(exc)
        print(f"error: Mnemo hit an internal error ({type(exc).__name__}). This is a bug.", file=sys.stderr)
        if where:
            print(f"  → Details (no personal data) were saved to {where}; please report it.", file=sys.stderr)
        return 70

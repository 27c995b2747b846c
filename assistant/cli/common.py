"""Helpers the command modules share: opening the profile, argument types, printing, asking."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from assistant.app import Profile, open_profile
from assistant.clock import parse_iso_ts
from assistant.errors import InputError

MAX_STDIN_BYTES = 256 * 1024  # a message or a question, not a file (use `import` for those)
MAX_ID = 2**63 - 1  # SQLite's largest integer
PASSPHRASE_ENV = "MNEMO_EXPORT_PASSPHRASE"


def stderr_progress(label: str) -> Callable[[int, int], None]:
    """A progress line on standard error ("importing 120/500"), redrawn in place on a
    terminal; in a pipe or log only the last count is written."""

    def report(done: int, total: int) -> None:
        last = done >= total
        if last or sys.stderr.isatty():
            print(f"\r{label} {done}/{total}", end="\n" if last else "", file=sys.stderr, flush=True)

    return report


def repair_progress(what: str, done: int, total: int) -> None:
    """How a start-up repair (after a crash, of a damaged index) shows its progress."""
    stderr_progress(what)(done, total)


@contextmanager
def profile_from_env() -> Iterator[Profile]:
    """Open the profile named by MNEMO_DATA_DIR / MNEMO_PROFILE; warnings and the progress
    of a repair go to standard error."""
    profile = open_profile(
        warn=lambda text: print(f"warning: {text}", file=sys.stderr),
        progress=repair_progress,
    )
    try:
        yield profile
    finally:
        profile.close()


def print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def confirm(question: str, *, assume_yes: bool) -> bool:
    """Ask y/n on the terminal; with no terminal (a pipe) the answer is no unless --yes."""
    if assume_yes:
        return True
    if not sys.stdin or not sys.stdin.isatty():
        print(f"{question} — not confirmed (no terminal); add --yes to confirm.", file=sys.stderr)
        return False
    try:
        answer = input(f"{question} [y/N] ").strip().lower()
    except EOFError:
        return False
    return answer in {"y", "yes", "是", "好"}


def clean_arg(value: str) -> str:
    """An argument as text SQLite and the model can take: bytes that were not UTF-8 (Python
    keeps them as lone surrogates) become U+FFFD."""
    return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def read_text_arg(value: str) -> str:
    """A TEXT argument, or standard input (at most 256 KB) when it is '-'."""
    if value != "-":
        return clean_arg(value)
    data = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1) if sys.stdin else b""
    if len(data) > MAX_STDIN_BYTES:
        raise InputError(
            f"Standard input is longer than {MAX_STDIN_BYTES // 1024} KB.",
            "Give one message or question; for a file of memories use `mnemo memory import`.",
        )
    return data.decode("utf-8", errors="replace")


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer from `low` to `high` (a bad one is a usage error, exit 2)."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip()) if len(text) <= 25 else None
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text[:30]!r} is not a whole number from {low} to {high}")
        return value

    parse.__name__ = "number"
    return parse


memory_id = bounded_int(1, MAX_ID)


def iso_time(text: str) -> float:
    """An argparse type: an ISO 8601 time with an offset, as epoch seconds."""
    try:
        return parse_iso_ts(clean_arg(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not a time with an offset, e.g. 2026-12-01T09:00:00+08:00"
        ) from exc


def ask_passphrase(purpose: str, *, twice: bool, missing: str) -> str:
    """A passphrase from $MNEMO_EXPORT_PASSPHRASE, else asked on the terminal (hidden).

    Raises:
        InputError: there is neither (a script without the variable); `missing` says why
            a passphrase was needed.
    """
    if env := os.environ.get(PASSPHRASE_ENV):
        return env
    if sys.stdin and sys.stdin.isatty():
        try:
            first = getpass.getpass(f"Passphrase {purpose}: ")
            if twice and getpass.getpass("The same passphrase again: ") != first:
                raise InputError("The two passphrases differ.", "Type the same passphrase twice.")
            return first
        except EOFError:
            pass
    raise InputError(missing, f"Run on a terminal to type it, or set {PASSPHRASE_ENV}.")

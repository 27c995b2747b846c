"""Helpers the command modules share: opening the profile, printing, confirming."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from assistant.app import Profile, open_profile


@contextmanager
def profile_from_env() -> Iterator[Profile]:
    """Open the profile named by MNEMO_DATA_DIR / MNEMO_PROFILE, warnings to stderr."""
    profile = open_profile(warn=lambda text: print(f"warning: {text}", file=sys.stderr))
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


def read_text_arg(value: str) -> str:
    """A TEXT argument, or standard input when it is '-'."""
    if value == "-":
        data = sys.stdin.buffer.read()
        return data.decode("utf-8", errors="replace")
    return value

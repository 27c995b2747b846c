"""A cheap, conservative token estimate for budgeting prompts before they are sent.

Real tokenizers differ per model; this never loads one. It errs on the high side so that a
prompt budgeted with it fits: a CJK character (Han, kana, Hangul, full-width punctuation)
counts as one token, anything else as a quarter of a token, rounded up.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_CJK = re.compile(
    "["
    "\u1100-\u11ff"  # Hangul Jamo
    "\u2e80-\u2fdf"  # CJK radicals, Kangxi radicals
    "\u3000-\u303f"  # CJK symbols and punctuation
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u31ff"  # Bopomofo, Hangul compatibility Jamo, Katakana extensions
    "\u3400-\u4dbf"  # CJK Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\ufe30-\ufe4f"  # CJK compatibility forms
    "\uff00-\uffef"  # half-width and full-width forms
    "\U00020000-\U0003134f"  # CJK Extensions B–H
    "]"
)

CHARS_PER_TOKEN = 4
"""Characters per token for text that is not CJK (English averages a little above 4)."""

MESSAGE_OVERHEAD_TOKENS = 4
"""What a chat template adds around each message (role markers, separators)."""


def estimate_tokens(text: str) -> int:
    """Estimate how many tokens `text` costs, rounding up.

    Args:
        text: Any text, mixed scripts allowed.

    Returns:
        0 for the empty string, otherwise at least 1.
    """
    if not text:
        return 0
    cjk = len(_CJK.findall(text))
    other = len(text) - cjk
    return cjk + -(-other // CHARS_PER_TOKEN)


def estimate_messages_tokens(contents: Iterable[str]) -> int:
    """Estimate a whole chat prompt: each message's text plus the template's overhead."""
    return sum(estimate_tokens(text) + MESSAGE_OVERHEAD_TOKENS for text in contents)

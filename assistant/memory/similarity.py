"""Calibrated similarity: one scale for every embedding model and both scripts.

Cosine similarity means different things for different models and languages. Measured on the
unrelated sentences below with the bundled all-MiniLM-L6-v2 (an English model): two unrelated
English sentences score 0.07 on average, two unrelated Chinese ones 0.65 — its tokenizer sees
Chinese as a few shared pieces — and a Chinese–English pair 0.06. A multilingual model such as
BGE has a higher English floor and a much lower Chinese one. So each pair of scripts has its
own *floor* (the mean similarity of unrelated sentences), and a similarity is rescaled above
the floor of its pair: 0 is "as similar as unrelated text", 1 is identical. Every threshold in
the memory core (recall, duplicates, merges, topics, noise) is on this scale.

`skill` measures whether a model tells labelled groups of sentences apart in a language (the
leave-one-out accuracy of nearest neighbours); the topic classifier and the noise filter use
a model's embeddings only in the languages it passes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from assistant.memory.embedder import Embedder
from assistant.memory.text import has_han

log = logging.getLogger("mnemo.similarity")


# Sentences about unrelated things, in both scripts.
_CALIBRATION_EN = (
    "The train to the airport leaves every twenty minutes.",
    "Photosynthesis turns sunlight into chemical energy.",
    "Remember to water the tomatoes before the weekend.",
    "My laptop battery drains quickly when gaming.",
    "The museum is closed on Mondays.",
    "Stock prices fell sharply after the announcement.",
    "She painted the fence a bright shade of blue.",
    "The recipe needs two cups of flour and a pinch of salt.",
    "Our team lost the final in extra time.",
    "The library extended its opening hours for exams.",
    "A storm knocked out power across the valley.",
    "He learned to play the violin as an adult.",
)
_CALIBRATION_ZH = (
    "我昨天买了一双新的跑鞋。",
    "这家餐厅的红烧肉很好吃。",
    "他们在会议上讨论了明年的预算。",
    "今晚的月亮特别圆。",
    "我妹妹在学钢琴。",
    "周末我们去爬山吧。",
    "地铁二号线早上特别挤。",
    "这本小说的结局出人意料。",
    "楼下新开了一家花店。",
    "台风让航班全部取消了。",
    "老师布置了很多数学作业。",
    "冰箱里的牛奶已经过期了。",
)
CALIBRATION = _CALIBRATION_EN + _CALIBRATION_ZH


def script(text: str) -> str:
    """"zh" when the text has Chinese characters, else "en"."""
    return "zh" if has_han(text) else "en"


@dataclass(frozen=True)
class Floors:
    """A model's similarity of unrelated text, per pair of scripts, and how far its
    similarities can be trusted in each script (1: fully, 0: they say nothing)."""

    en: float
    zh: float
    cross: float
    trust_en: float = 1.0
    trust_zh: float = 1.0
    # How far the model reads Chinese *as written*: below trust_zh when it reads Chinese through
    # an English gloss (gloss.py), which carries dictionary words only — a name, a new word or
    # slang ("多肉", "raj") reaches its vectors untranslated, so the words must still carry them.
    words_zh: float | None = None

    def of(self, a: str, b: str) -> float:
        """The floor for a pair of scripts ("zh"/"en")."""
        if a != b:
            return self.cross
        return self.zh if a == "zh" else self.en

    def trust(self, a: str, b: str) -> float:
        """How much a similarity between texts of scripts `a` and `b` means."""
        return self._least(self.trust_zh, a, b)

    def words_trust(self, a: str, b: str) -> float:
        """How much a similarity between scripts `a` and `b` says about the words themselves."""
        return self._least(self.trust_zh if self.words_zh is None else self.words_zh, a, b)

    def _least(self, zh: float, a: str, b: str) -> float:
        """The lower of the two scripts' trust, Chinese counting as `zh`."""
        return min(zh if "zh" in (a, b) else 1.0, self.trust_en if "en" in (a, b) else 1.0)

    def rescale(self, sim: float, a: str, b: str) -> float:
        """`sim` (a cosine) on the calibrated scale, for texts of scripts `a` and `b` (0 where
        the model cannot tell related text from unrelated in that script)."""
        floor = self.of(a, b)
        return max(0.0, (sim - floor) / (1.0 - floor)) * self.trust(a, b)

    def raw(self, calibrated: float, a: str, b: str) -> float:
        """The cosine at which texts of scripts `a` and `b` reach `calibrated`."""
        floor = self.of(a, b)
        return floor + calibrated * (1.0 - floor)


_cache: dict[str, Floors] = {}
_lock = threading.Lock()


def floors(embedder: Embedder) -> Floors:
    """The embedder's floors, measured once per model."""
    name = embedder.vector_space
    with _lock:
        if name not in _cache:
            vectors = embedder.embed(list(CALIBRATION))
            n = len(_CALIBRATION_EN)
            sims = vectors @ vectors.T
            en, zh = sims[:n, :n], sims[n:, n:]
            skills = _topic_skill(embedder)
            _cache[name] = Floors(
                en=_mean_off_diagonal(en), zh=_mean_off_diagonal(zh), cross=_cap(float(sims[:n, n:].mean())),
                trust_en=_trust(skills.get("en", 0.0)), trust_zh=_trust(skills.get("zh", 0.0)),
                words_zh=None if (written := getattr(embedder, "chinese_as_written", None)) is None else _trust(written),
            )
            log.info("similarity floors for %s: %s", name, _cache[name])
        return _cache[name]


# Leave-one-out accuracy on the labelled topic prototypes (chance is 1 in 15) at which a model's
# similarities start to count, and at which they count fully. The bundled English MiniLM
# scores about 0.65 on the English ones and under 0.2 on the Chinese ones.
_TRUST_FROM, _TRUST_FULL = 0.3, 0.5


def _trust(accuracy: float) -> float:
    return min(1.0, max(0.0, (accuracy - _TRUST_FROM) / (_TRUST_FULL - _TRUST_FROM)))


def _topic_skill(embedder: Embedder) -> dict[str, float]:
    from assistant.memory.prototypes import TOPIC_PROTOTYPES

    texts = [t for protos in TOPIC_PROTOTYPES.values() for t in protos]
    labels = [slot for slot, protos in TOPIC_PROTOTYPES.items() for _ in protos]
    return skill(texts, labels, prototype_vectors(embedder, texts))


_prototype_cache: dict[str, dict[str, np.ndarray]] = {}
_prototype_lock = threading.Lock()


def prototype_vectors(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """The vectors of labelled prototype sentences, embedded once per model however many parts
    ask (the floors here and the topic classifier read the same topic prototypes)."""
    name = embedder.vector_space
    with _prototype_lock:
        known = _prototype_cache.setdefault(name, {})
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            known.update(zip(missing, embedder.embed(missing), strict=True))
        return np.stack([known[t] for t in texts])


def _mean_off_diagonal(block: np.ndarray) -> float:
    n = len(block)
    return _cap(float((block.sum() - np.trace(block)) / (n * n - n)))


def _cap(value: float) -> float:
    return min(0.9, max(0.0, value))


def skill(texts: Sequence[str], labels: Sequence[str], vectors: np.ndarray) -> dict[str, float]:
    """Per script, the share of `texts` whose nearest other text of that script has its label."""
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    scripts = [script(t) for t in texts]
    out: dict[str, float] = {}
    for lang in sorted(set(scripts)):
        idx = [i for i, s in enumerate(scripts) if s == lang]
        if len(idx) < 2:
            continue
        hits = 0
        for i in idx:
            nearest = max((j for j in idx if j != i), key=lambda j: sims[i, j])
            hits += labels[nearest] == labels[i]
        out[lang] = hits / len(idx)
    return out


__all__ = ["CALIBRATION", "Floors", "floors", "script", "skill"]

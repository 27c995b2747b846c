"""Calibrated similarity: each pair of scripts has its own floor."""

from __future__ import annotations

from assistant.memory.embedder import BUNDLED_MODEL, SentenceTransformerEmbedder
from assistant.memory.similarity import Floors, floors, script, skill


def test_the_english_model_finds_any_two_chinese_texts_alike() -> None:
    plain = SentenceTransformerEmbedder(BUNDLED_MODEL, allow_fallback=False, gloss_chinese=False)
    fl = floors(plain)
    # all-MiniLM-L6-v2 sees Chinese as a few shared pieces: unrelated Chinese pairs score high,
    # and its similarities say nothing there
    assert fl.zh > fl.en + 0.3 and fl.trust_zh < 0.2
    unrelated = float(plain.embed_one("一只柯基摔进雪里了") @ plain.embed_one("怎么写周报比较有条理"))
    assert fl.rescale(unrelated, "zh", "zh") < 0.2


def test_through_the_gloss_the_english_model_tells_chinese_texts_apart(embedder: SentenceTransformerEmbedder) -> None:
    fl = floors(embedder)
    assert embedder.glosses_chinese and fl.zh < fl.en + 0.2 and fl.trust_zh > 0.8
    related = float(embedder.embed_one("我对花生过敏") @ embedder.embed_one("花生过敏的人能吃沙爹吗"))
    unrelated = float(embedder.embed_one("一只柯基摔进雪里了") @ embedder.embed_one("怎么写周报比较有条理"))
    assert fl.rescale(related, "zh", "zh") > fl.rescale(unrelated, "zh", "zh") + 0.3


def test_rescale_and_raw_are_inverse() -> None:
    fl = Floors(en=0.1, zh=0.6, cross=0.05)
    for a, b in (("en", "en"), ("zh", "zh"), ("zh", "en")):
        assert abs(fl.rescale(fl.raw(0.7, a, b), a, b) - 0.7) < 1e-9
    assert fl.rescale(0.0, "en", "en") == 0.0


def test_skill_per_script() -> None:
    import numpy as np

    texts = ["a", "b", "c", "d", "甲", "乙"]
    labels = ["x", "x", "y", "y", "x", "y"]
    vectors = np.array([[1, 0], [1, 0.1], [0, 1], [0.1, 1], [1, 0], [1, 0]], dtype=float)
    assert skill(texts, labels, vectors) == {"en": 1.0, "zh": 0.0}
    assert script("I live in 成都") == "zh" and script("I live in Chengdu") == "en"

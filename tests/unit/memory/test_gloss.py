"""The English gloss of Chinese text, and when an embedding model is given it (gloss.py)."""

from __future__ import annotations

import sys

import pytest

from assistant.memory.embedder import BUNDLED_MODEL, SentenceTransformerEmbedder
from assistant.memory.gloss import gloss, measure


def test_chinese_words_become_their_english_sense_and_the_rest_is_kept() -> None:
    assert gloss("我有恐高症") == "I have acrophobia"
    assert "birthday" in gloss("老公下个月生日") and "husband" in gloss("老公下个月生日")
    mixed = gloss("戒奶茶了 doctor说我血糖有点高")
    assert "milk tea" in mixed and "doctor" in mixed and "blood sugar" in mixed
    assert gloss("I moved to Denver") == "I moved to Denver"  # no Chinese: as it is


def test_particles_go_and_an_unknown_name_stays_as_written() -> None:
    text = gloss("嗨 我叫林晓雯啦")
    assert "林晓雯" in text and "啦" not in text


def test_a_word_the_dictionary_lacks_is_glossed_by_its_known_parts() -> None:
    text = gloss("想提高效率")
    assert "raise" in text and "efficien" in text


def test_the_bundled_english_model_reads_chinese_better_through_the_gloss(embedder: SentenceTransformerEmbedder) -> None:
    assert embedder.glosses_chinese and embedder.vector_space == f"{BUNDLED_MODEL}+zh-gloss"
    assert embedder.chinese_as_written is not None and embedder.chinese_as_written < 0.3
    plain = SentenceTransformerEmbedder(BUNDLED_MODEL, allow_fallback=False, gloss_chinese=False)
    assert plain.vector_space == BUNDLED_MODEL
    note, question = "我对花生过敏", "can I eat satay with peanut sauce?"
    glossed_sim = float(embedder.embed_one(note) @ embedder.embed_one(question))
    plain_sim = float(plain.embed_one(note) @ plain.embed_one(question))
    assert glossed_sim > plain_sim + 0.2


def test_a_model_that_tells_chinese_apart_as_written_is_not_glossed_for() -> None:
    import numpy as np

    from assistant.memory.prototypes import TOPIC_PROTOTYPES

    # an "encoder" that puts each Chinese prototype on its topic's axis reads Chinese perfectly
    axis = {t: i for i, protos in enumerate(TOPIC_PROTOTYPES.values()) for t in protos}

    def reads_chinese(texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), len(TOPIC_PROTOTYPES)), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, axis.get(text, 0)] = 1.0
        return out

    verdict = measure(reads_chinese)
    assert verdict.as_written == 1.0 and verdict.glossed is None and not verdict.helps


def test_without_jieba_the_model_serves_chinese_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    from assistant.memory import gloss as module

    monkeypatch.setattr(module, "_loaded", None)
    monkeypatch.setitem(sys.modules, "jieba", None)  # an install without it: import fails
    plain = SentenceTransformerEmbedder(BUNDLED_MODEL, allow_fallback=False, gloss_chinese=False)
    verdict = measure(plain.embed)
    assert verdict.glossed is None and not verdict.helps and verdict.as_written < 0.3

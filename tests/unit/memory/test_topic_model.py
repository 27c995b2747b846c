"""The topic classifier (`memory/topic_model.py`): its examples, and how the write path files a
kept clause that cue words and prototypes placed nowhere under its answer."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from assistant.memory.clauses import split_clauses
from assistant.memory.embedder import SentenceTransformerEmbedder
from assistant.memory.episodes import EpisodeCapture
from assistant.memory.topic_model import examples, likely_topic, likely_topics
from assistant.memory.topics import BY_SLOT, TopicClassifier


def test_the_examples_are_labelled_with_known_topics_in_both_scripts() -> None:
    labelled = examples()
    assert len(labelled) > 3000
    assert {topic for _, topic in labelled} <= set(BY_SLOT)
    assert len({t for t, _ in labelled}) == len(labelled)  # each message once
    assert any("\u4e00" <= ch <= "\u9fff" for t, _ in labelled for ch in t)


NOW = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)

# Written for this test (none is among the examples, checked below): each says what part of life
# it is about with no cue word, the way people tell it.
UNCUED = [
    ("换到区图书馆的第一个礼拜", "user.job"),  # ("调去…的第一个礼拜" is cued now)
    ("最近改喝豆浆了", "user.diet"),
]


@pytest.mark.parametrize(("clause", "slot"), UNCUED)
def test_a_kept_statement_no_cue_word_places_is_filed_under_the_learned_topic(
    embedder: SentenceTransformerEmbedder, clause: str, slot: str
) -> None:
    assert clause not in {t for t, _ in examples()}
    topics = TopicClassifier(embedder)
    assert topics.classify(clause, embedder.embed([clause])[0]) is None  # no cue word, no prototype near
    (episode,) = EpisodeCapture(embedder).capture(split_clauses(clause), NOW)
    assert episode.candidate is not None and slot in episode.candidate.topics
    # filed under it, not of it: a guess replaces nothing the user said of that part of life
    assert episode.candidate.topic is None


@pytest.mark.parametrize("message", ["谢谢你", "哈哈哈好吧", "lol ok", "ok thanks, good night"])
def test_small_talk_is_filed_under_no_topic(embedder: SentenceTransformerEmbedder, message: str) -> None:
    # the classifier knows no "none of these" ("lol ok" is likely about what one likes): it is
    # asked only about what the noise filter kept
    assert all(e.candidate is None and not e.also for e in EpisodeCapture(embedder).capture(split_clauses(message), NOW))


def test_nothing_said_has_no_topic() -> None:
    assert likely_topic("  ") == (None, 0.0)


def test_many_texts_in_one_prediction_get_what_each_gets_alone() -> None:
    texts = [text for text, _ in UNCUED] + ["", "lol ok"]
    together = likely_topics(texts)
    assert together[len(UNCUED)] == (None, 0.0)
    for text, (slot, likelihood) in zip(texts, together, strict=True):
        alone = likely_topic(text)
        assert slot == alone[0]
        assert likelihood == pytest.approx(alone[1])
    assert likely_topics([]) == []

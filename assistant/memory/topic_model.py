"""Which part of life a clause is about, when no cue word and no prototype decides.

`topics.TopicClassifier` knows a topic by its cue words ("搬", "job", "过敏") and, in a script
the embedding model can tell topics apart in, by the nearest labelled prototype sentences. The
bundled English model cannot tell them apart in Chinese, and cue words miss most of how people
say things: "转去社区卫生服务中心的第一周" is about work, "最近改喝豆浆了" about what the user
eats and drinks. Filed under no topic, such a clause is found by no question about that part of
life.

So, as for changes (`changes.py`), a small text classifier reads the clause: character n-grams
(one to three, within words) weighted by TF-IDF, then a logistic regression over the topics.
It is fitted at first use on `topics.json` — messages of the update pairs written by people who
never read this code, labelled by the part of life their pair is about — and on the prototype
sentences (`prototypes.py`). It reads text, so it is the same whichever embedding model the
profile uses. It is asked only about a clause the noise filter kept and the cue words and the
prototypes placed nowhere (`episodes.EpisodeCapture`), and its answer is one more topic the
memory is filed under, never the memory's own: a guess does not replace what the user said.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from assistant.memory.prototypes import TOPIC_PROTOTYPES

# The labelled messages (a package file, so the frozen app carries it).
EXAMPLES = "topics.json"

_LOCK = threading.Lock()


def examples() -> list[tuple[str, str]]:
    """The labelled messages of `topics.json`: (text, topic slot)."""
    raw = json.loads(resources.files(__package__).joinpath(EXAMPLES).read_text(encoding="utf-8"))
    return [(e["text"], e["topic"]) for e in raw["examples"]]


@cache
def _fitted() -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import SGDClassifier
    from sklearn.pipeline import make_pipeline

    labelled = examples() + [(text, slot) for slot, texts in TOPIC_PROTOTYPES.items() for text in texts]
    model = make_pipeline(
        TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 3), min_df=2, sublinear_tf=True),
        # a logistic regression fitted by stochastic gradient descent: over some twenty topics
        # the exact solvers take ten times as long for the same accuracy
        SGDClassifier(loss="log_loss", alpha=1e-5, max_iter=30, tol=None, random_state=0),
    )
    return model.fit([t for t, _ in labelled], [s for _, s in labelled])


def likely_topics(texts: Sequence[str]) -> list[tuple[str | None, float]]:
    """For each text, the topic slot it is most likely about and how likely (0..1); (None, 0)
    for an empty one. One prediction for all of them."""
    said = [i for i, text in enumerate(texts) if text.strip()]
    out: list[tuple[str | None, float]] = [(None, 0.0)] * len(texts)
    if not said:
        return out
    with _LOCK:  # fitted once, even when two threads write at the same time
        model = _fitted()
    probabilities = model.predict_proba([texts[i] for i in said])
    for i, row in zip(said, probabilities, strict=True):
        best = int(row.argmax())
        out[i] = (str(model.classes_[best]), float(row[best]))
    return out


def likely_topic(text: str) -> tuple[str | None, float]:
    """The topic slot `text` is most likely about, and how likely (0..1); (None, 0) for no text."""
    return likely_topics([text])[0]


__all__ = ["EXAMPLES", "examples", "likely_topic", "likely_topics"]

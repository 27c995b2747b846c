"""Whether a message tells of a change: a small text classifier fitted on labelled messages.

The rules of `update.py` find a change by its words ("moved to", "不再", "sold the old tablet").
People mostly tell one by what it is like afterwards: "first week at the new firm has been
brutal", "钥匙拿到了 下周搬", "the vet said she went peacefully". Those words are many and
varied, and rules written against one writer's messages reached another writer's only in part.

So a classifier reads the message: character n-grams (one to three, within words — they work
alike for Chinese, English and the two mixed, and for typos) weighted by TF-IDF, then a
logistic regression. It is fitted at first use on `changes.json`: chat messages written by
people who never read this code, each labelled whether it makes something the same user said
before no longer current ("after" messages of update pairs), or states what is simply so
(their "before" messages, and "after" messages that add to what was said, are about someone
else, or only consider a change). Fitting takes about a second and needs no model file to
keep in step with the embedder: whichever embedding model the profile uses, this reads text.

It says only *that* something changed, not what: `update.UpdateDecision.changed_by_meaning`
finds the older statement nearest in meaning to the message, and the rules still decide every
change they recognise.
"""

from __future__ import annotations

import json
import threading
from functools import cache
from importlib import resources
from typing import Any

# The examples the classifier is fitted on (a package file, so the frozen app carries it).
EXAMPLES = "changes.json"

_LOCK = threading.Lock()


def examples() -> list[tuple[str, bool]]:
    """The labelled messages: (text, whether it tells of a change)."""
    raw = json.loads(resources.files(__package__).joinpath(EXAMPLES).read_text(encoding="utf-8"))
    return [(e["text"], bool(e["changes"])) for e in raw["examples"]]


@cache
def _fitted() -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    pairs = examples()
    model = make_pipeline(
        TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 3), min_df=2, sublinear_tf=True),
        LogisticRegression(C=10.0, solver="liblinear"),
    )
    return model.fit([t for t, _ in pairs], [c for _, c in pairs])


def change_likelihood(message: str) -> float:
    """How likely `message` tells that something the user said before no longer holds (0..1)."""
    if not message.strip():
        return 0.0
    with _LOCK:  # fitted once, even when two threads write at the same time
        model = _fitted()
    return float(model.predict_proba([message])[0, 1])


__all__ = ["EXAMPLES", "change_likelihood", "examples"]

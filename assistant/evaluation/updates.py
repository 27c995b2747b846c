"""Update pairs: does a later message replace what an earlier one said, and only that?

A scenario file measures the whole product (write path, forgetting, read path) through what
reaches a prompt; a stale value that leaks there may have been stored, left active, or ranked
in. An update pair isolates the decision that causes most of those leaks: the write path is
given one message, then another some days later, and the pair is scored on which memories of
the first are still active.

Each non-blank line of a pair file is a JSON object::

    {"id": "pa-0001", "lang": "en", "kind": "city",
     "before": "I'm Tomás, I live in Leeds with my dog Pico",
     "after": "first week in the Lyon flat, boxes everywhere",
     "replaces": true, "gone": ["Leeds"], "kept": ["Pico"]}

- ``replaces``: whether ``after`` makes part of ``before`` no longer current.
- ``gone``: terms of ``before`` that must no longer be in an active memory of ``before``
  (required when ``replaces``, empty otherwise).
- ``kept``: terms of ``before`` that must still be in an active memory (required when not
  ``replaces``: what a hard negative must leave alone).

Terms match case-insensitively as substrings and must occur in ``before``. A term the write
path never stored is counted apart ("not stored"): the pair says nothing about the update.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from assistant.app import Profile
from assistant.clock import ManualClock, to_ts
from assistant.config import Settings
from assistant.errors import InputError
from assistant.evaluation.scenarios import LANGS, ScenarioFormatError
from assistant.memory.api import Embedder, device_named
from assistant.memory.types import Memory, Status, Turn

_KEYS = frozenset({"id", "lang", "kind", "before", "after", "replaces", "gone", "kept"})
_START = datetime.fromisoformat("2026-03-02T19:30:00+08:00")
_GAP = timedelta(days=9, hours=2)


@dataclass(frozen=True, slots=True)
class UpdatePair:
    id: str
    lang: str
    kind: str
    before: str
    after: str
    replaces: bool
    gone: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    line: int = field(default=0, compare=False)


def _terms(obj: dict[str, Any], key: str, line: int, before: str) -> list[str]:
    value = obj.get(key, [])
    if not isinstance(value, list) or not all(isinstance(t, str) and t.strip() for t in value):
        raise ScenarioFormatError(line, f"{key!r} must be a list of non-empty strings")
    for term in value:
        if term.lower() not in before.lower():
            raise ScenarioFormatError(line, f"{key} term {term!r} does not occur in 'before'")
    return value


def _pair(obj: Any, line: int) -> UpdatePair:
    if not isinstance(obj, dict):
        raise ScenarioFormatError(line, "a pair must be a JSON object")
    unknown = set(obj) - _KEYS
    if unknown:
        raise ScenarioFormatError(line, f"unknown keys {sorted(unknown)}")
    for key in ("id", "lang", "before", "after"):
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            raise ScenarioFormatError(line, f"{key!r} must be a non-empty string")
    if obj["lang"] not in LANGS:
        raise ScenarioFormatError(line, f"'lang' must be one of {', '.join(LANGS)}")
    if not isinstance(obj.get("replaces"), bool):
        raise ScenarioFormatError(line, "'replaces' must be true or false")
    gone = _terms(obj, "gone", line, obj["before"])
    kept = _terms(obj, "kept", line, obj["before"])
    if obj["replaces"] and not gone:
        raise ScenarioFormatError(line, "a pair that replaces names what is gone ('gone')")
    if not obj["replaces"] and (gone or not kept):
        raise ScenarioFormatError(line, "a pair that replaces nothing names what is kept ('kept') and nothing gone")
    kind = obj.get("kind", "")
    if not isinstance(kind, str):
        raise ScenarioFormatError(line, "'kind' must be a string")
    return UpdatePair(obj["id"], obj["lang"], kind, obj["before"], obj["after"], obj["replaces"], gone, kept, line)


def load_pairs(path: Path) -> list[UpdatePair]:
    """The pairs of a file; `ScenarioFormatError` names the first bad line."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read update-pair file {path}: {exc.strerror or exc}", "Check the path given to --updates.") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path} is not UTF-8 text", "Save the update-pair file as UTF-8 JSON Lines.") from exc
    pairs: list[UpdatePair] = []
    ids: set[str] = set()
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ScenarioFormatError(n, f"not JSON: {exc.msg}") from exc
        pair = _pair(obj, n)
        if pair.id in ids:
            raise ScenarioFormatError(n, f"duplicate id {pair.id!r}")
        ids.add(pair.id)
        pairs.append(pair)
    if not pairs:
        raise InputError(f"{path} holds no update pairs", "Each non-blank line is one pair (docs/eval-format.md).")
    return pairs


@dataclass(frozen=True, slots=True)
class PairResult:
    id: str
    lang: str
    kind: str
    replaces: bool
    checked: list[str]  # what the pair is about: the gone terms of a change, the kept ones of a negative
    unstored: list[str]  # terms of `before` no active memory held after it was said
    stale: list[str]  # gone terms still active afterwards
    lost: list[str]  # kept terms no longer active afterwards

    @property
    def tested(self) -> bool:
        """Whether what the pair checks was stored at all."""
        return bool(set(self.checked) - set(self.unstored))

    @property
    def passed(self) -> bool:
        return self.tested and not self.stale and not self.lost


def _holds(memories: Sequence[Memory], term: str) -> bool:
    low = term.lower()
    return any(low in m.content.lower() for m in memories)


def _active(profile: Profile) -> list[Memory]:
    return [m for m in profile.memories.list(status=None, limit=100_000, order="id ASC") if m.status is Status.ACTIVE]


class UpdateRunner:
    """Runs pairs through the write path, one fresh profile each, with one shared model."""

    def __init__(self, embedder: Embedder, settings: Settings) -> None:
        self.embedder = embedder
        self.settings = settings

    def run(self, pair: UpdatePair) -> PairResult:
        base = Path(tempfile.mkdtemp(prefix="mnemo-pairs-"))
        clock = ManualClock(_START)
        profile = Profile(base, "default", self.settings, embedder=self.embedder, clock=clock, warn=lambda _t: None)
        try:
            profile.memories.remember([Turn("user", pair.before, _START, session_id="s1")], _START, confirm_forget=True)
            first = _active(profile)
            unstored = [t for t in pair.gone + pair.kept if not _holds(first, t)]
            later = _START + _GAP
            clock.set(later)
            profile.memories.remember([Turn("user", pair.after, later, session_id="s2")], later, confirm_forget=True)
            now = _active(profile)
            of_before = [m for m in now if m.created_at < to_ts(later)]
        finally:
            profile.close()
            shutil.rmtree(base, ignore_errors=True)
        stale = [t for t in pair.gone if t not in unstored and _holds(of_before, t)]
        lost = [t for t in pair.kept if t not in unstored and not _holds(now, t)]
        checked = list(pair.gone if pair.replaces else pair.kept)
        return PairResult(pair.id, pair.lang, pair.kind, pair.replaces, checked, unstored, stale, lost)


# The pair files the change and topic classifiers (`memory/changes.py`, `memory/topic_model.py`) are
# fitted on, in this order. The others in tests/scenarios/updates (updates-b to updates-k) never are.
TRAINING_PAIRS = (
    "updates-a.jsonl", "train-ta.jsonl", "train-tb.jsonl", "train-td.jsonl", "train-te.jsonl", "train-tf.jsonl", "train-tg.jsonl",
)


def change_examples(pairs: Sequence[UpdatePair]) -> list[dict[str, Any]]:
    """The change classifier's examples from update pairs: each `before` says what is so (not a
    change), each `after` changes something or not as its pair says; every text once."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for pair in pairs:
        for text, changes in ((pair.before, False), (pair.after, pair.replaces)):
            if text not in seen:
                seen.add(text)
                out.append({"text": text, "changes": changes})
    return out


# The part of life a pair's `kind` names, for the topic classifier (`memory/topic_model.py`); a
# device's topic is the one its words name ("我弹古筝" an instrument, "my Brompton" a vehicle).
# Corrections and "other" name no one part of life.
_KIND_TOPICS = {
    "job": "user.job", "employer": "user.job", "city": "user.city", "home": "user.city", "health": "user.health",
    "medication": "user.health", "allergy": "user.allergy", "diet": "user.diet", "pet": "user.pet",
    "family": "user.family", "relationship": "user.family", "plan": "user.plan", "schedule": "user.plan",
    "school": "user.school", "finance": "user.finance", "preference": "user.likes", "habit": "user.likes",
    "hobby": "user.likes", "sport": "user.likes",
}
_DEVICE_KINDS = frozenset({"device", "vehicle"})
_ONE_STATEMENT = 40  # a `before` this short says one thing, the one its kind names


def topic_examples(pairs: Sequence[UpdatePair]) -> list[dict[str, Any]]:
    """The topic classifier's examples from update pairs: each `after` (and each short `before`)
    labelled with the part of life its pair is about; every text once."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for pair in pairs:
        topic = device_named(pair.before) if pair.kind in _DEVICE_KINDS else _KIND_TOPICS.get(pair.kind)
        if topic is None:
            continue
        texts = [pair.after] + ([pair.before] if len(pair.before) <= _ONE_STATEMENT else [])
        for text in texts:
            if text not in seen:
                seen.add(text)
                out.append({"text": text, "topic": topic})
    return out


_ABOUT = {
    "changes.json": (
        "Chat messages labelled whether each makes something the same user said before no longer current: "
        "the update pairs of tests/scenarios/updates/ named in sources, written by people who never read the code. "
        "'before' messages are labelled false, 'after' messages by their pair's 'replaces'. "
        "Fitted by assistant/memory/changes.py; written by assistant.evaluation.updates.write_examples."
    ),
    "topics.json": (
        "Chat messages labelled with the part of life each is about: the update pairs of tests/scenarios/updates/ "
        "named in sources, written by people who never read the code; each 'after' message, and each 'before' of at "
        "most 40 characters, labelled by its pair's kind. Fitted by assistant/memory/topic_model.py; written by "
        "assistant.evaluation.updates.write_examples."
    ),
}


def write_examples(pair_dir: Path, memory_dir: Path) -> dict[str, int]:
    """Writes the classifiers' examples, `changes.json` and `topics.json` in `memory_dir`, from
    the training pair files in `pair_dir`; returns how many examples each file holds.

    ``python -c "from pathlib import Path; from assistant.evaluation.updates import
    write_examples as w; print(w(Path('tests/scenarios/updates'), Path('assistant/memory')))"``
    """
    pairs = [p for name in TRAINING_PAIRS for p in load_pairs(pair_dir / name)]
    made = {"changes.json": change_examples(pairs), "topics.json": topic_examples(pairs)}
    for name, examples in made.items():
        head = {"about": _ABOUT[name], "sources": list(TRAINING_PAIRS)}
        body = ",\n".join(json.dumps(e, ensure_ascii=False) for e in examples)
        text = json.dumps(head, ensure_ascii=False)[:-1] + ', "examples": [\n' + body + "\n]}\n"
        (memory_dir / name).write_text(text, encoding="utf-8")
    return {name: len(examples) for name, examples in made.items()}


def _rates(results: Sequence[PairResult]) -> dict[str, Any]:
    changes = [r for r in results if r.replaces and r.tested]
    others = [r for r in results if not r.replaces and r.tested]
    tested = changes + others

    def share(n: int, of: int) -> float | None:
        return round(n / of, 3) if of else None  # nothing to measure it on

    return {
        "pairs": len(results),
        "tested": len(tested),
        "not_stored": len(results) - len(tested),
        "accuracy": share(sum(r.passed for r in tested), len(tested)),
        # of the changes: how many took (the old value is no longer active)
        "update_recall": share(sum(not r.stale for r in changes), len(changes)),
        # of the hard negatives: how many lost what they should have kept
        "false_update_rate": share(sum(bool(r.lost) for r in others), len(others)),
        # of the changes: how many took more than the old value (a kept fact went too)
        "collateral_rate": share(sum(bool(r.lost) for r in changes), len(changes)),
    }


def summarize_pairs(results: Sequence[PairResult]) -> dict[str, Any]:
    """Scores over all pairs, by language and by kind, and each pair's result."""
    by_lang = {lang: _rates([r for r in results if r.lang == lang]) for lang in LANGS if any(r.lang == lang for r in results)}
    kinds = sorted({r.kind for r in results})
    return {
        **_rates(results),
        "by_lang": by_lang,
        "by_kind": {kind: _rates([r for r in results if r.kind == kind]) for kind in kinds},
        "pair_results": [
            {"id": r.id, "lang": r.lang, "kind": r.kind, "replaces": r.replaces, "passed": r.passed,
             "tested": r.tested, "not_stored": r.unstored, "stale": r.stale, "lost": r.lost}
            for r in results
        ],
    }


__all__ = [
    "TRAINING_PAIRS", "PairResult", "UpdatePair", "UpdateRunner", "change_examples", "load_pairs", "summarize_pairs",
    "topic_examples", "write_examples",
]

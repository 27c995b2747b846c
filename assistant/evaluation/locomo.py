"""The LoCoMo long-conversation benchmark: load the file, ingest turns, score evidence recall.

LoCoMo (Maharana et al., 2024) has ten long two-speaker conversations; each question names
the turns (``dia_id`` such as ``D1:3``) that hold its answer. We score *retrieval of that
evidence*, not answers: a few gold answers are wrong, the evidence is what recall must find.

Each turn becomes one episodic memory, written through the store and the vector index (not
the rule write path: every turn is kept), with the speaker's name in the text and the
session date as its time. The ``dia_id`` of each memory is kept in a mapping beside it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from assistant.errors import InputError
from assistant.memory.api import BenchMemory, NewMemory
from assistant.memory.types import Category, Kind, Source

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
TURN_KS = (5, 10, 20)
SESSION_KS = (1, 3)
METRICS = tuple(f"turn_recall@{k}" for k in TURN_KS) + tuple(f"session_recall@{k}" for k in SESSION_KS)
DEV_SPLIT = range(0, 5)  # conversations by position in the file; tune on these only
DEPTH = max(TURN_KS)

_DIA_RE = re.compile(r"D(\d+):(\d+)")
_SESSION_RE = re.compile(r"session_(\d+)")


@dataclass(frozen=True)
class LocomoTurn:
    dia_id: str
    session: int
    speaker: str
    text: str
    at: datetime

    @property
    def content(self) -> str:
        """The memory text: who said it, what they said, and the photo they shared if any."""
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class LocomoQuestion:
    question: str
    evidence: tuple[str, ...]
    category: str


@dataclass
class LocomoConversation:
    index: int
    sample_id: str
    speakers: tuple[str, str]
    turns: list[LocomoTurn]
    questions: list[LocomoQuestion]
    skipped: int = 0  # questions without a usable evidence list

    @property
    def split(self) -> str:
        return "dev" if self.index in DEV_SPLIT else "heldout"


def _session_date(text: str) -> datetime:
    """LoCoMo writes dates as ``1:56 pm on 8 May, 2023``; the time zone is not given (UTC)."""
    cleaned = " ".join(str(text).replace(",", ", ").split()).replace(" ,", ",")
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise InputError(f"unreadable LoCoMo session date {text!r}", "Use the original locomo10.json.")


def parse_evidence(raw: Iterable[Any], known: set[str]) -> tuple[str, ...] | None:
    """The evidence ``dia_id``s, or None when any entry is unusable.

    A few entries join ids with ``;`` or spaces (``"D8:6; D9:17"``): those are split. An
    entry that is not an id of this conversation (``"D"``, ``"D:11:26"``) makes the whole
    question unusable: scoring it against part of its evidence would be wrong.
    """
    out: list[str] = []
    for entry in raw:
        if not isinstance(entry, str):
            return None
        for piece in re.split(r"[;,\s]+", entry.strip()):
            if not piece:
                continue
            if not _DIA_RE.fullmatch(piece) or piece not in known:
                return None
            out.append(piece)
    return tuple(dict.fromkeys(out)) or None


def _turn_text(raw: dict[str, Any]) -> str:
    text = str(raw.get("text", "")).strip()
    caption = raw.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        text = f"{text} [shares {caption.strip()}]" if text else f"[shares {caption.strip()}]"
    return text


def load_locomo(path: Path) -> list[LocomoConversation]:
    """Read ``locomo10.json`` (or a file of the same shape)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}", "Pass the path of locomo10.json to --data.") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path} is not a JSON file: {exc}", "Pass the path of locomo10.json to --data.") from exc
    if not isinstance(data, list) or not data:
        raise InputError(f"{path} is not a LoCoMo file (expected a list of conversations)", "Pass locomo10.json.")
    return [_conversation(i, raw) for i, raw in enumerate(data)]


def _conversation(index: int, raw: Any) -> LocomoConversation:
    where = f"conversation {index}"
    if not isinstance(raw, dict) or not isinstance(raw.get("conversation"), dict) or not isinstance(raw.get("qa"), list):
        raise InputError(f"{where}: expected an object with 'conversation' and 'qa'", "Pass locomo10.json.")
    conv = raw["conversation"]
    sessions = sorted(
        (int(m.group(1)), key) for key in conv if (m := _SESSION_RE.fullmatch(key)) and isinstance(conv[key], list)
    )
    turns: list[LocomoTurn] = []
    for number, key in sessions:
        date_key = f"{key}_date_time"
        if date_key not in conv:
            raise InputError(f"{where}: {key} has no {date_key}", "Pass locomo10.json.")
        start = _session_date(conv[date_key])
        for position, item in enumerate(conv[key]):
            if not isinstance(item, dict) or "dia_id" not in item or "speaker" not in item:
                raise InputError(f"{where}: a turn of {key} lacks dia_id or speaker", "Pass locomo10.json.")
            text = _turn_text(item)
            if text:
                # Turns of a session keep their order: one second apart from the session's time.
                turns.append(LocomoTurn(str(item["dia_id"]), number, str(item["speaker"]), text, start + timedelta(seconds=position)))
    known = {t.dia_id for t in turns}
    questions: list[LocomoQuestion] = []
    skipped = 0
    for qa in raw["qa"]:
        evidence = parse_evidence(qa.get("evidence") or [], known) if isinstance(qa, dict) else None
        code = qa.get("category") if isinstance(qa, dict) else None
        category = CATEGORIES.get(code) if isinstance(code, int) else None
        if evidence is None or category is None or not str(qa.get("question", "")).strip():
            skipped += 1
            continue
        questions.append(LocomoQuestion(str(qa["question"]).strip(), evidence, category))
    speakers = (str(conv.get("speaker_a", "")), str(conv.get("speaker_b", "")))
    return LocomoConversation(index, str(raw.get("sample_id", index)), speakers, turns, questions, skipped)


# -- ingestion ------------------------------------------------------------------------------


def ingest(bench: BenchMemory, conversation: LocomoConversation, vectors: np.ndarray) -> dict[int, LocomoTurn]:
    """Write every turn as an episodic memory and index its precomputed vector.

    Returns memory id → turn (the ``dia_id`` mapping).
    """
    items = [
        (
            NewMemory(
                content=turn.content,
                category=Category.FACT,
                kind=Kind.EPISODIC,
                entities=[turn.speaker],
                source=Source.USER_IMPLIED,
                event_at=turn.at.timestamp(),
                session_id=f"session_{turn.session}",
            ),
            turn.at.timestamp(),
        )
        for turn in conversation.turns
    ]
    ids = bench.add_each(items, vectors)
    return dict(zip(ids, conversation.turns, strict=True))


def embed_turns(embed: Callable[[Sequence[str]], np.ndarray], conversation: LocomoConversation) -> np.ndarray:
    return embed([t.content for t in conversation.turns])


# -- scoring --------------------------------------------------------------------------------


@dataclass
class Scores:
    """Sums of per-question recalls, overall and per category."""

    sums: dict[str, dict[str, float]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    curve: dict[str, list[float]] = field(default_factory=dict)  # turn recall@1..DEPTH

    def add(self, category: str, evidence: Sequence[str], ranked: Sequence[str]) -> None:
        values = question_recall(evidence, ranked)
        curve = [len(set(evidence) & set(ranked[:k])) / len(set(evidence)) for k in range(1, DEPTH + 1)]
        for key in ("overall", category):
            bucket = self.sums.setdefault(key, dict.fromkeys(METRICS, 0.0))
            for name, value in values.items():
                bucket[name] += value
            self.counts[key] = self.counts.get(key, 0) + 1
            line = self.curve.setdefault(key, [0.0] * DEPTH)
            for i, value in enumerate(curve):
                line[i] += value

    def result(self) -> dict[str, Any]:
        """``{"overall": {metric: x}, "by_category": {name: {metric: x}}}`` (the issue's M)."""

        def mean(key: str) -> dict[str, float]:
            n = self.counts.get(key, 0)
            return {m: round(self.sums[key][m] / n, 4) if n else 0.0 for m in METRICS}

        return {
            "overall": mean("overall"),
            "by_category": {name: mean(name) for name in CATEGORIES.values() if name in self.counts},
        }

    def curve_means(self, key: str = "overall") -> list[float]:
        n = self.counts.get(key, 0)
        return [round(v / n, 4) for v in self.curve.get(key, [])] if n else []


def question_recall(evidence: Sequence[str], ranked: Sequence[str]) -> dict[str, float]:
    """Turn recall@k: share of evidence turns in the top k. Session recall@k: share of the
    evidence's sessions among the first k distinct sessions of the ranking."""
    gold = set(evidence)
    gold_sessions = {_session_of(d) for d in gold}
    sessions = list(dict.fromkeys(_session_of(d) for d in ranked))
    out = {f"turn_recall@{k}": len(gold & set(ranked[:k])) / len(gold) for k in TURN_KS}
    out.update({f"session_recall@{k}": len(gold_sessions & set(sessions[:k])) / len(gold_sessions) for k in SESSION_KS})
    return out


def _session_of(dia_id: str) -> str:
    return dia_id.split(":", 1)[0]

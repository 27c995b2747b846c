"""`mnemo eval`: replay scenarios through the real memory pipeline and score what is injected.

Replay rules (docs: eval-format.md), per scenario, in a fresh temporary data directory:

- the clock (`ManualClock`) is set to each event's ``at`` before the event is handled;
- before an event, if a local midnight (in that event's offset) has passed since the last
  maintenance run, maintenance runs once as of that midnight, as the scheduler would;
- a message is stored as the chat engine stores it (user text masked, sensitive values to
  the vault) and each user message runs the write path at once, with the assistant message
  before it in the same session as context ("forget …" requests are confirmed);
- with ``--llm``, pending user messages go to the LLM extractor when a session ends and
  before each probe;
- a probe runs the read path in a fresh conversation and renders the memory block exactly as
  the prompt would get it; expect/forbid are matched (case-insensitive) against the memory
  lines of that block (the fixed header and delimiters are left out, so a header word never
  counts as a found memory);
- after the last event, every file under the data directory (including the vector index) is
  scanned for each ``sensitive`` string in UTF-8, and for strings with digits also with
  separators removed on both sides;
- the precision audit lists every memory the scenario left in the store (any status) and
  counts those that are garbage: a template around a value that fails the rules' value
  validator, or filler only (`extract/validate.py`);
- the recall audit says, for each expected item a probe missed, where it was at the probe's
  time: in no memory (the write path dropped it), only in memories no longer active (an
  update or forget took it), or in an active memory the read path did not inject; and the leak
  audit, for each forbidden string injected, what carried it (`memory/audit.py`): scores about
  where a file fails that need no look at its probes (for blind files).
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from assistant.app import Profile
from assistant.chat.history import ConversationStore
from assistant.clock import ManualClock, to_ts
from assistant.config import Settings
from assistant.evaluation.scenarios import Message, Probe, Scenario
from assistant.memory.api import (
    LEAKED_FROM,
    Embedder,
    asks_to_forget,
    block_language,
    garbage_problem,
    leaked_from,
    render_block,
)
from assistant.memory.types import Status, Turn

Maintain = Callable[[Profile, datetime], None]
# "- [fact · 2026-09-08] "she's homesick" (about: "anneke")": the about part is optional
_LINE_RE = re.compile(r'^- \[(?P<meta>[^\]]*)\] (?P<quoted>"(?:[^"\\]|\\.)*")(?: \((?P<word>[^:()]+): (?P<about>"(?:[^"\\]|\\.)*")\))?$')
_SEPARATORS = rb"[\s\-./_,:()\xc2\xa0]+"


@dataclass
class ProbeResult:
    query: str
    at: str
    passed: bool
    injected: int
    missing: list[list[str]] = field(default_factory=list)
    leaked: list[str] = field(default_factory=list)
    over_limit: bool = False
    expected: int = 0
    found: int = 0
    has_forbid: bool = False
    recall_ms: float = 0.0
    block: str = ""
    # per missing item, where it was at the probe's time (`MISSED_WHERE`)
    missed_where: list[str] = field(default_factory=list)
    # per leaked string, what the memory that carried it was (`memory.audit.LEAKED_FROM`)
    leaked_from: list[str] = field(default_factory=list)


# Where a missed expected item was when the probe ran (the recall audit).
MISSED_WHERE = ("not_stored", "not_active", "not_injected")


def missed_where(missing: Sequence[Sequence[str]], memories: Sequence[tuple[str, bool]]) -> list[str]:
    """For each missing item (its alternatives), where it was among `memories` ((content, active)):
    "not_injected" if an active memory holds it, "not_active" if only others do, else "not_stored"."""
    folded = [(content.casefold(), active) for content, active in memories]
    out: list[str] = []
    for alts in missing:
        holders = [active for text, active in folded if any(a.casefold() in text for a in alts)]
        out.append("not_injected" if any(holders) else "not_active" if holders else "not_stored")
    return out


@dataclass
class StoredMemory:
    """One memory a scenario left in the store, for the precision audit."""

    content: str
    kind: str
    status: str
    slot: str | None
    topic: str | None
    garbage: str | None  # why it is garbage, or None


@dataclass
class ScenarioResult:
    id: str
    lang: str
    line: int
    probes: list[ProbeResult]
    sensitive_leaks: list[str]
    maintenance_runs: int = 0
    stored: list[StoredMemory] = field(default_factory=list)
    user_messages: int = 0

    @property
    def passed(self) -> bool:
        return all(p.passed for p in self.probes) and not self.sensitive_leaks

    @property
    def category(self) -> str:
        """The scenario's topic from its id (``zh-update-001`` → ``update``)."""
        parts = self.id.split("-")
        return parts[1] if len(parts) >= 3 else self.id


def _unquoted(quoted: str) -> str:
    try:
        return str(json.loads(quoted))
    except json.JSONDecodeError:
        return quoted


def memory_text(block: str) -> str:
    """The memory lines of a rendered block, each JSON-quoted content decoded."""
    out: list[str] = []
    for line in block.splitlines():
        match = _LINE_RE.match(line.strip())
        if match is None:
            continue
        content = _unquoted(match.group("quoted"))
        if match.group("about"):
            content += f" ({match.group('word')}: {_unquoted(match.group('about'))})"
        out.append(f"[{match.group('meta')}] {content}")
    return "\n".join(out)


def score_probe(probe: Probe, block: str, injected: int) -> ProbeResult:
    text = memory_text(block).casefold()
    missing = [alts for alts in probe.expect if not any(a.casefold() in text for a in alts)]
    leaked = [f for f in probe.forbid if f.casefold() in text]
    over = probe.max_injected is not None and injected > probe.max_injected
    return ProbeResult(
        query=probe.query, at=probe.at.isoformat(), passed=not missing and not leaked and not over,
        injected=injected, missing=missing, leaked=leaked, over_limit=over,
        expected=len(probe.expect), found=len(probe.expect) - len(missing), has_forbid=bool(probe.forbid),
        block=block,
    )


def scan_sensitive(root: Path, values: Sequence[str], empty: Sequence[bytes] = ()) -> list[str]:
    """The `values` found as plaintext under `root` (UTF-8; digits also without separators).

    `empty` holds the files of a data directory the app made before any user text: a value
    counts only where it occurs more often than there ("123456789" is in the vector store's
    own schema, whatever the user said).
    """
    if not values:
        return []
    blobs = read_files(root)
    squeezed = [_squeeze(b) for b in blobs]
    empty_squeezed = [_squeeze(b) for b in empty]
    found: list[str] = []
    for value in values:
        needle = value.encode("utf-8")
        hit = _count(blobs, needle) > _count(empty, needle)
        if not hit and re.search(r"\d", value):
            digits = re.sub(r"(?<=\d)[\s\-./_,:()\u00a0]+(?=\d)", "", value).encode("utf-8")
            hit = _count(squeezed, digits) > _count(empty_squeezed, digits)
        if hit:
            found.append(value)
    return found


def read_files(root: Path) -> list[bytes]:
    """Every regular file under `root`, as bytes."""
    blobs: list[bytes] = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            try:
                blobs.append(path.read_bytes())
            except OSError:
                continue
    return blobs


def _squeeze(blob: bytes) -> bytes:
    return re.sub(rb"(?<=\d)" + _SEPARATORS + rb"(?=\d)", b"", blob)


def _count(blobs: Sequence[bytes], needle: bytes) -> int:
    """How often `needle` occurs in `blobs`; a short one (a CVV, a PIN) only standing alone:
    "907" inside a random id or a timestamp of the vector store's files is not the user's CVV."""
    if len(needle) >= 6:
        return sum(b.count(needle) for b in blobs)
    alone = re.compile(rb"(?<![0-9A-Za-z])" + re.escape(needle) + rb"(?![0-9A-Za-z])")
    return sum(len(alone.findall(b)) for b in blobs)


def _last_midnight(at: datetime) -> datetime:
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


def default_maintenance() -> Maintain:
    """The nightly job as the app runs it (`Memories.maintain`), as of `at`."""

    def run(profile: Profile, at: datetime) -> None:
        profile.memories.maintain(at)

    return run


class ScenarioRunner:
    """Replays scenarios with one shared embedding model.

    Args:
        embedder: the loaded model every scenario shares.
        settings: recall k, threshold and token budget as the app would use them.
        maintain: the nightly job (None: skipped).
        llm_extract: builds an LLM extractor for a profile (``--llm``), or None for rules only.
        k: at most this many memories per probe (default: the settings' recall_k).
    """

    def __init__(
        self,
        embedder: Embedder,
        settings: Settings,
        *,
        maintain: Maintain | None = None,
        llm_extract: Callable[[Profile, ConversationStore, datetime], None] | None = None,
        k: int | None = None,
    ) -> None:
        self.embedder = embedder
        self.settings = settings
        self.maintain = maintain
        self.llm_extract = llm_extract
        self.k = k
        self._forgets: list[float] = []  # the replayed scenario's forget requests, when (the leak audit)
        self._empty: list[bytes] | None = None

    def _empty_store(self) -> list[bytes]:
        """The files of a profile that was opened and closed with nothing said (made once)."""
        if self._empty is None:
            tmp = Path(tempfile.mkdtemp(prefix="mnemo-eval-empty-"))
            try:
                profile = Profile(tmp, "default", self.settings, embedder=self.embedder, warn=lambda _t: None)
                try:
                    profile.service.index.count()  # the vector store opens on first use
                finally:
                    profile.close()
                self._empty = read_files(tmp)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return self._empty

    def run(self, scenario: Scenario) -> ScenarioResult:
        tmp = Path(tempfile.mkdtemp(prefix="mnemo-eval-"))
        try:
            return self._replay(scenario, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _replay(self, scenario: Scenario, base: Path) -> ScenarioResult:
        self._forgets = []
        first = scenario.events[0].at
        clock = ManualClock(first)
        profile = Profile(base, "default", self.settings, embedder=self.embedder, clock=clock, warn=lambda _t: None)
        probes: list[ProbeResult] = []
        runs = 0
        leaks: list[str] = []
        try:
            history = ConversationStore(profile.db, profile.name)
            last_maintenance = first
            session: str | None = None
            previous_assistant: dict[str, Turn] = {}
            sessions: set[str] = set()
            for event in scenario.events:
                midnight = _last_midnight(event.at)
                if self.maintain is not None and midnight > last_maintenance:
                    clock.set(midnight)
                    self.maintain(profile, midnight)
                    runs += 1
                    last_maintenance = midnight
                clock.set(event.at)
                if isinstance(event, Message):
                    if session is not None and event.session != session and self.llm_extract:
                        self.llm_extract(profile, history, event.at)  # the previous session ended
                    session = event.session
                    sid = f"{scenario.id}/{event.session}"
                    if sid not in sessions:
                        history.create_session(sid, event.session, False, to_ts(event.at))
                        sessions.add(sid)
                    self._message(profile, history, event, sid, previous_assistant)
                else:
                    if self.llm_extract:
                        self.llm_extract(profile, history, event.at)
                    probes.append(self._probe(profile, event))
            leaks = scan_sensitive(base, scenario.sensitive, self._empty_store())
            stored = [
                StoredMemory(m.content, m.kind.value, m.status.value, m.slot, m.topic, garbage_problem(m.content))
                for m in profile.memories.list(status=None, limit=1_000_000, order="id ASC")
            ]
        finally:
            profile.close()
        leaks = sorted(set(leaks) | set(scan_sensitive(base, scenario.sensitive, self._empty_store())), key=scenario.sensitive.index)
        users = sum(1 for e in scenario.events if isinstance(e, Message) and e.role == "user")
        return ScenarioResult(scenario.id, scenario.lang, scenario.line, probes, leaks, runs, stored, users)

    def _message(self, profile: Profile, history: ConversationStore, event: Message, sid: str, previous: dict[str, Turn]) -> None:
        if event.role == "assistant":
            stored = history.add_message(sid, "assistant", profile.memories.mask_known(event.content), to_ts(event.at))
            previous[sid] = Turn("assistant", event.content, at=event.at, session_id=sid, message_id=stored.id)
            return
        if asks_to_forget(event.content):
            self._forgets.append(to_ts(event.at))
        masked = profile.memories.protect(event.content, event.at)
        stored = history.add_message(sid, "user", masked, to_ts(event.at))
        turns = [t for t in (previous.pop(sid, None),) if t is not None]
        turns.append(Turn("user", event.content, at=event.at, session_id=sid, message_id=stored.id))
        profile.memories.remember(turns, event.at, confirm_forget=True)
        if not self.llm_extract:
            history.mark_extracted([stored.id])

    def _probe(self, profile: Profile, probe: Probe) -> ProbeResult:
        started = time.perf_counter()
        hits = profile.memories.search(probe.query, probe.at, k=self.k)
        lang = block_language(probe.query, self.settings.language)
        block, ids = render_block(hits, lang=lang, token_budget=self.settings.recall_token_budget, tz=probe.at.tzinfo)
        elapsed = (time.perf_counter() - started) * 1000
        result = score_probe(probe, block, len(ids))
        result.recall_ms = round(elapsed, 2)
        if result.missing or result.leaked:  # after the timing: the audits are not part of the read path
            memories = profile.memories.list(status=None, limit=1_000_000, order="id ASC")
            result.missed_where = missed_where(result.missing, [(m.content, m.status is Status.ACTIVE) for m in memories])
            shown = set(ids)
            result.leaked_from = leaked_from(
                result.leaked, [h.memory for h in hits if h.memory.id in shown],
                [m for m in memories if m.status is Status.ACTIVE], self._forgets,
            )
        return result


def _scores(probes: Sequence[ProbeResult]) -> dict[str, Any]:
    """A set of probes' pass rate, expect recall and forbid leak rate (no ids: blind-safe)."""
    with_forbid = [p for p in probes if p.has_forbid]
    expected = sum(p.expected for p in probes)
    return {
        "probes": len(probes),
        "probe_pass_rate": round(sum(p.passed for p in probes) / len(probes), 4) if probes else 0.0,
        "expect_recall": round(sum(p.found for p in probes) / expected, 4) if expected else 1.0,
        "forbid_leak_rate": round(sum(bool(p.leaked) for p in with_forbid) / len(with_forbid), 4) if with_forbid else 0.0,
    }


def summarize(results: Sequence[ScenarioResult]) -> dict[str, Any]:
    """The file's scores (the format's names) plus per-scenario pass/fail."""
    probes = [p for r in results for p in r.probes]
    latencies = sorted(p.recall_ms for p in probes)

    def pct(q: float) -> float:
        return round(latencies[min(len(latencies) - 1, int(q * len(latencies)))], 2) if latencies else 0.0

    stored = [m for r in results for m in r.stored]
    messages = sum(r.user_messages for r in results)
    by_category: dict[str, dict[str, int]] = {}
    for r in results:
        bucket = by_category.setdefault(r.category, {"scenarios": 0, "failed": 0, "probes": 0, "probes_failed": 0})
        bucket["scenarios"] += 1
        bucket["failed"] += int(not r.passed)
        bucket["probes"] += len(r.probes)
        bucket["probes_failed"] += sum(not p.passed for p in r.probes)
    by_lang = {
        lang: _scores([p for r in results if r.lang == lang for p in r.probes])
        for lang in sorted({r.lang for r in results})
    }
    return {
        "scenarios": len(results),
        **_scores(probes),
        "mean_injected": round(statistics.fmean(p.injected for p in probes), 3) if probes else 0.0,
        "sensitive_leaks": sum(len(r.sensitive_leaks) for r in results),
        "recall_ms_p50": round(statistics.median(latencies), 2) if latencies else 0.0,
        "recall_ms_p95": pct(0.95),
        "stored_per_message": round(len(stored) / messages, 3) if messages else 0.0,
        "garbage_rate": round(sum(m.garbage is not None for m in stored) / len(stored), 4) if stored else 0.0,
        **{f"missed_{where}": sum(p.missed_where.count(where) for p in probes) for where in MISSED_WHERE},
        "missed_empty_block": sum(1 for p in probes if p.missing and p.injected == 0),
        **{f"leaked_{kind}": sum(p.leaked_from.count(kind) for p in probes) for kind in LEAKED_FROM},
        "by_category": by_category,
        "by_lang": by_lang,
        "scenario_results": [
            {
                "id": r.id, "line": r.line, "lang": r.lang, "passed": r.passed,
                "sensitive_leaks": r.sensitive_leaks, "maintenance_runs": r.maintenance_runs,
                "stored_per_message": round(len(r.stored) / r.user_messages, 3) if r.user_messages else 0.0,
                "garbage": sum(m.garbage is not None for m in r.stored),
                "stored": [
                    {"content": m.content, "kind": m.kind, "status": m.status, "slot": m.slot, "topic": m.topic, "garbage": m.garbage}
                    for m in r.stored
                ],
                "probes": [
                    {"query": p.query, "at": p.at, "passed": p.passed, "injected": p.injected,
                     "missing": p.missing, "leaked": p.leaked, "over_limit": p.over_limit,
                     "recall_ms": p.recall_ms, "block": p.block, "missed_where": p.missed_where,
                     "leaked_from": p.leaked_from}
                    for p in r.probes
                ],
            }
            for r in results
        ],
    }


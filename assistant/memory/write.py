"""The write path: turns → candidates → gate → sensitive split → update decision → commit.

`MemoryWriter.remember(turns, now)` is what the chat engine, the CLI and the evaluation
harness call after each user message; it returns every change it made.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from assistant.clock import to_ts
from assistant.memory.extract import extract_rules
from assistant.memory.gate import episodic_worthy, keep
from assistant.memory.gate import importance as score_importance
from assistant.memory.sensitive import SensitiveSpan, find_sensitive, redact
from assistant.memory.service import MemoryService
from assistant.memory.store import MAX_CONTENT_CHARS, NewMemory
from assistant.memory.text import has_cjk, normalize
from assistant.memory.types import (
    Action,
    Candidate,
    Category,
    Change,
    Kind,
    Memory,
    Source,
    Status,
    Turn,
)
from assistant.memory.vault import Vault

log = logging.getLogger("mnemo.write")

CandidateSource = Callable[[str, datetime], list[Candidate]]

_ACCEPT_RE = re.compile(
    r"^\s*(yes|yeah|yep|yup|right|exactly|correct|that'?s right|that'?s correct|sure|indeed|true|"
    r"对|对的|对啊|是的|是啊|没错|嗯|嗯嗯|正确|就是|对对)[\s,.!，。！~]*",
    re.IGNORECASE,
)
_SECOND_PERSON = [
    (re.compile(r"\byou are\b", re.I), "I am"), (re.compile(r"\byou're\b", re.I), "I'm"),
    (re.compile(r"\byou were\b", re.I), "I was"), (re.compile(r"\byou've\b", re.I), "I've"),
    (re.compile(r"\byour\b", re.I), "my"), (re.compile(r"\byours\b", re.I), "mine"),
    (re.compile(r"\byou\b", re.I), "I"), (re.compile("您"), "我"), (re.compile("你"), "我"),
]
_TAG_QUESTION_RE = re.compile(r"(,?\s*(right|correct|isn't it|aren't you|don't you)\s*\?|[，,]?\s*(对吧|是吧|对吗|是吗|吧)\s*[？?])\s*$", re.I)
_KIND_LABEL = {
    "phone": ("phone number", "手机号"), "id_number": ("ID number", "身份证号"),
    "bank_card": ("bank card", "银行卡号"), "email": ("e-mail", "邮箱"),
    "address": ("address", "住址"), "password": ("password", "密码"),
}
_FORGET_ALSO = {"user.address": ("user.address", "user.city"), "user.city": ("user.city", "user.address")}
# Near-duplicates by rescaled similarity: above this a candidate repeats a memory.
DUPLICATE_SIMILARITY = 0.9
OVERRIDE_SIMILARITY = 0.5


@dataclass
class ForgetRequest:
    """A "forget …" the user said, with the memories it matches (confirm before deleting)."""

    target: str
    slot: str | None
    matches: list[Memory] = field(default_factory=list)


@dataclass
class WriteResult:
    changes: list[Change] = field(default_factory=list)
    forget_requests: list[ForgetRequest] = field(default_factory=list)

    @property
    def stored(self) -> list[Change]:
        return [c for c in self.changes if c.action in (Action.ADD, Action.UPDATE)]


@dataclass
class Protected:
    """A text with its sensitive values moved to the vault."""

    text: str
    spans: list[tuple[SensitiveSpan, int]]  # (span in the original, vault id)


class MemoryWriter:
    """Runs the write path for one profile.

    Args:
        service: store + index of the profile.
        vault: where sensitive values go (None: they are masked and dropped).
        extractors: candidate sources run on each user message (rules by default; the
            LLM extractor plugs in here with the same signature).
    """

    def __init__(self, service: MemoryService, vault: Vault | None, extractors: Sequence[CandidateSource] | None = None) -> None:
        self.service = service
        self.vault = vault
        self.extractors: list[CandidateSource] = list(extractors) if extractors is not None else [extract_rules]

    # -- public ---------------------------------------------------------------------------

    def remember(self, turns: Sequence[Turn], now: datetime, *, confirm_forget: bool = False) -> WriteResult:
        """Run the write path over `turns` (user turns are judged; assistant turns give context).

        Args:
            confirm_forget: delete what a "forget …" request matches right away (the
                evaluation harness and scripts); otherwise the matches are returned in
                `forget_requests` for the caller to confirm.
        """
        result = WriteResult()
        previous_assistant: Turn | None = None
        for turn in turns:
            if turn.role == "assistant":
                previous_assistant = turn
                continue
            if turn.role != "user" or not isinstance(turn.content, str) or not turn.content.strip():
                continue
            at = turn.at or now
            self._remember_user_turn(turn, previous_assistant, at, result, confirm_forget)
            previous_assistant = None
        self.service.store.flush_access()
        return result

    def protect(self, text: str, now: datetime) -> Protected:
        """Move sensitive values of `text` into the vault; the text keeps masked stubs."""
        spans = find_sensitive(text)
        if not spans:
            return Protected(text, [])
        stored: list[tuple[SensitiveSpan, int]] = []
        once: dict[tuple[str, str], int] = {}  # a value repeated in one message is one vault item
        for span in spans:
            key = (str(span.kind), span.value)
            if key not in once:
                once[key] = self.vault.put(span.kind, span.value, span.masked, to_ts(now)) if self.vault else 0
            stored.append((span, once[key]))
        ids = {id(span): vault_id for span, vault_id in stored}
        masked = redact(text, spans, lambda s: f"{s.masked}" + (f" [vault #{ids[id(s)]}]" if ids[id(s)] else ""))
        return Protected(masked, stored)

    def apply(self, candidate: Candidate, user_text: str, now: datetime, turn: Turn | None = None) -> Change:
        """Gate one candidate and run the update decision (used by the LLM extractor too)."""
        ok, reason = keep(candidate, user_text)
        if not ok:
            return Change(Action.DROPPED, None, candidate.content, candidate.category, reason=reason)
        return self._decide(candidate, now, turn)

    def forget_matches(self, target: str, slot: str | None = None, limit: int = 10) -> list[Memory]:
        """Active memories a "forget X" request points at, by slot first, then by search."""
        store = self.service.store
        found: dict[int, Memory] = {}
        # "Forget my address" covers where the user lives at all, not only a street address.
        for prefix in _FORGET_ALSO.get(slot, (slot,)) if slot else ():
            for memory in store.active_by_slot_prefix(prefix):
                found[memory.id] = memory
        target = target.strip()
        if target:
            from assistant.memory.recall import Recaller

            hits = Recaller(self.service).recall(target, self.service.clock.now(), k=limit, threshold=0.35)
            for hit in hits:
                if hit.keyword > 0 or hit.similarity >= 0.45 or slot and hit.memory.slot == slot:
                    found.setdefault(hit.memory.id, hit.memory)
        return list(found.values())[:limit]

    def forget(self, memory_ids: Sequence[int]) -> list[Change]:
        changes = []
        for memory_id in memory_ids:
            memory = self.service.store.get(memory_id)
            self.service.delete(memory_id, self.vault.delete if self.vault else None)
            changes.append(Change(Action.DELETE, memory_id, memory.content, memory.category, reason="forget request"))
        return changes

    # -- one user message -----------------------------------------------------------------

    def _remember_user_turn(self, turn: Turn, assistant: Turn | None, at: datetime, result: WriteResult, confirm_forget: bool) -> None:
        raw = turn.content
        if len(raw) > 200_000:
            raw = raw[:200_000]  # beyond this a message is a paste, not a statement about the user
        protected = self.protect(raw, at)
        text = protected.text
        candidates: list[Candidate] = []
        for extractor in self.extractors:
            candidates.extend(extractor(text, at))
        candidates.extend(self._sensitive_candidates(protected, at))
        if assistant is not None and _ACCEPT_RE.match(text):
            candidates.extend(self._accepted_claims(assistant.content, at))
        candidates = _fold_explicit(candidates)

        covered = 0
        for candidate in candidates:
            if candidate.forget:
                request = ForgetRequest(candidate.content, candidate.slot, self.forget_matches(candidate.content, candidate.slot))
                if confirm_forget and request.matches:
                    result.changes.extend(self.forget([m.id for m in request.matches]))
                result.forget_requests.append(request)
                covered += len(text)
                continue
            source_text = text if candidate.source is not Source.ASSISTANT else _first_person(assistant.content if assistant else "")
            change = self.apply(candidate, source_text, at, turn)
            result.changes.append(change)
            if change.action is not Action.DROPPED:
                covered += len(candidate.evidence) or len(text)

        # Keep the user's own words when no rule understood most of the message.
        if covered < 0.6 * len(text.strip()):
            worthy, reason = episodic_worthy(text)
            if worthy:
                episode = Candidate(
                    content=text.strip()[:MAX_CONTENT_CHARS],
                    category=Category.FACT,
                    kind=Kind.EPISODIC,
                    importance=score_importance(text),
                    confidence=0.6,
                    source=Source.USER_IMPLIED,
                    evidence=text.strip()[:MAX_CONTENT_CHARS],
                    event_at=at,
                    extractor="episodic",
                )
                result.changes.append(self._decide(episode, at, turn))
            else:
                log.debug("message not kept: %s", reason)

    def _sensitive_candidates(self, protected: Protected, at: datetime) -> list[Candidate]:
        """One identifier memory per vaulted value: the clause it was in, masked."""
        out = []
        for span, vault_id in protected.spans:
            en, zh = _KIND_LABEL.get(span.kind, (span.kind, span.kind))
            clause = _clause_around(protected.text, span.masked)
            label = zh if has_cjk(clause) else en
            content = clause if clause else f"{label}: {span.masked}"
            candidate = Candidate(
                content=content,
                category=Category.IDENTIFIER,
                kind=Kind.SEMANTIC,
                entities=[label, span.masked],
                importance=4,
                confidence=0.9,
                source=Source.USER_EXPLICIT,
                evidence=content,
                extractor="sensitive",
            )
            candidate.vault_ids = [vault_id] if vault_id else []
            out.append(candidate)
        return out

    def _accepted_claims(self, assistant_text: str, at: datetime) -> list[Candidate]:
        """Facts the assistant stated about the user and the user just confirmed."""
        claim = _first_person(assistant_text)
        found = []
        for extractor in self.extractors:
            for candidate in extractor(claim, at):
                if not candidate.forget:
                    candidate.source = Source.ASSISTANT
                    candidate.confidence = min(candidate.confidence, 0.7)
                    found.append(candidate)
        return found

    # -- the update decision ----------------------------------------------------------------

    def _decide(self, candidate: Candidate, at: datetime, turn: Turn | None) -> Change:
        store = self.service.store
        now = to_ts(at)
        replaced: list[Memory] = []
        if candidate.slot:
            existing = store.active_by_slot(candidate.slot)
            for memory in existing:
                if _same_value(memory, candidate):
                    store.bump(memory.id, now, importance=candidate.importance)
                    return Change(Action.NOOP, memory.id, memory.content, memory.category, reason="already known")
            replaced = existing
        else:
            similar = self._similar(candidate.content, limit=3)
            for memory, sim in similar:
                if sim >= DUPLICATE_SIMILARITY or normalize(memory.content) == normalize(candidate.content):
                    store.bump(memory.id, now, importance=candidate.importance)
                    return Change(Action.NOOP, memory.id, memory.content, memory.category, reason="near-duplicate")
            if candidate.override:
                replaced = [m for m, sim in similar if sim >= OVERRIDE_SIMILARITY and m.category is candidate.category][:1]

        new = NewMemory(
            content=candidate.content,
            category=candidate.category,
            kind=candidate.kind,
            slot=candidate.slot,
            entities=candidate.entities,
            importance=candidate.importance,
            confidence=candidate.confidence,
            source=candidate.source,
            review=candidate.confidence < 0.5,
            expires_at=to_ts(candidate.expires_at) if candidate.expires_at else None,
            event_at=to_ts(candidate.event_at) if candidate.event_at else now,
            session_id=turn.session_id if turn else None,
            source_message_id=turn.message_id if turn else None,
            vault_ids=candidate.vault_ids,
        )
        memory = self.service.add(new, replacing=[m.id for m in replaced], now=now)
        if replaced:
            return Change(Action.UPDATE, memory.id, memory.content, memory.category, replaced_id=replaced[0].id, reason="replaces an older memory")
        return Change(Action.ADD, memory.id, memory.content, memory.category)

    def _similar(self, content: str, limit: int) -> list[tuple[Memory, float]]:
        from assistant.memory.recall import similarity_floor

        service = self.service
        if service.index.count() == 0:
            return []
        floor = similarity_floor(service.embedder)
        hits = service.index.query(service.embedder.embed_one(content), limit, service.profile_id)
        found = service.store.get_many([i for i, _ in hits])
        out = []
        for memory_id, sim in hits:
            memory = found.get(memory_id)
            if memory is not None and memory.status is Status.ACTIVE:
                out.append((memory, max(0.0, (sim - floor) / (1 - floor))))
        return out


def _fold_explicit(candidates: list[Candidate]) -> list[Candidate]:
    """"Remember that I like X" gives a verbatim and a slotted candidate for one fact: keep the
    slotted one (it can be updated later), marked explicit and as important as the other."""
    slotted = [c for c in candidates if c.slot and not c.forget]
    out = []
    for candidate in candidates:
        twins = [c for c in slotted if c is not candidate and c.evidence and c.evidence == candidate.evidence]
        if candidate.explicit and not candidate.slot and not candidate.forget and twins:
            for twin in twins:
                twin.explicit = True
                twin.importance = max(twin.importance, candidate.importance)
            continue
        out.append(candidate)
    return out


def _same_value(memory: Memory, candidate: Candidate) -> bool:
    if normalize(memory.content) == normalize(candidate.content):
        return True
    value = (candidate.value or "").strip()
    return bool(value) and normalize(value) in normalize(memory.content) and memory.kind is Kind.SEMANTIC


def _first_person(text: str) -> str:
    """An assistant's claim about the user, turned into the user's voice."""
    out = _TAG_QUESTION_RE.sub(".", text.strip())
    for pattern, repl in _SECOND_PERSON:
        out = pattern.sub(repl, out)
    return out


_CLAUSE_SPLIT_RE = re.compile(r"[。！？!?\n；;]|(?<=[a-z])\.\s")


def _clause_around(text: str, needle: str) -> str:
    at = text.find(needle)
    if at < 0:
        return ""
    start = 0
    for match in _CLAUSE_SPLIT_RE.finditer(text, 0, at):
        start = match.end()
    end_match = _CLAUSE_SPLIT_RE.search(text, at + len(needle))
    end = end_match.start() if end_match else len(text)
    return text[start:end].strip()[:300]

"""The memory core's value types: what is stored, what extractors propose, what recall returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class Kind(StrEnum):
    EPISODIC = "episodic"  # what the user said, in their words, with its time
    SEMANTIC = "semantic"  # a distilled fact or preference, often with a slot


class Category(StrEnum):
    FACT = "fact"
    PREFERENCE = "preference"
    GOAL = "goal"  # plans, intentions, dated events
    PROJECT = "project"
    CONCLUSION = "conclusion"  # decisions reached
    EMOTION = "emotion"
    IDENTIFIER = "identifier"  # order numbers, ticket ids, vaulted values


class Source(StrEnum):
    USER_EXPLICIT = "user_explicit"  # "remember that …" / a direct statement
    USER_IMPLIED = "user_implied"
    ASSISTANT = "assistant"  # stated by the assistant and accepted by the user
    MANUAL = "manual"  # added or edited by hand


class Status(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    MERGED = "merged"
    ARCHIVED = "archived"


class Action(StrEnum):
    """What the update decision did with a candidate."""

    ADD = "add"
    UPDATE = "update"  # an older memory became superseded
    NOOP = "noop"  # already known; bumped
    DELETE = "delete"  # the user asked to forget
    DROPPED = "dropped"  # the gate refused it


@dataclass(frozen=True)
class Turn:
    """One message of a conversation, as the write path sees it."""

    role: str  # "user" | "assistant"
    content: str
    at: datetime | None = None
    session_id: str | None = None
    message_id: int | None = None


@dataclass
class Candidate:
    """A memory an extractor proposes; the gate and update decision judge it.

    `evidence` is the span of the user's own words it rests on (grounding).
    `forget` marks a request to delete matching memories instead of storing.
    """

    content: str
    category: Category
    kind: Kind = Kind.SEMANTIC
    slot: str | None = None
    value: str | None = None  # the slot's value, normalised ("杭州", "Berlin")
    entities: list[str] = field(default_factory=list)
    importance: int = 3
    confidence: float = 0.8
    source: Source = Source.USER_EXPLICIT
    expires_at: datetime | None = None
    event_at: datetime | None = None
    evidence: str = ""
    explicit: bool = False  # "remember that …"
    override: bool = False  # "moved to", "不再", "换成": supersede the old value
    forget: bool = False
    extractor: str = "rules"
    vault_ids: list[int] = field(default_factory=list)
    topic: str | None = None  # the slot family (topics.py); episodes get one from their clause
    topics: list[str] = field(default_factory=list)  # every part of life it touches, `topic` first


@dataclass
class Memory:
    id: int
    profile_id: str
    kind: Kind
    category: Category
    content: str
    summary: str | None
    slot: str | None
    entities: list[str]
    importance: int
    confidence: float
    source: Source
    status: Status
    superseded_by: int | None
    pinned: bool
    created_at: float
    updated_at: float
    last_accessed_at: float | None
    access_count: int
    expires_at: float | None
    event_at: float | None
    session_id: str | None
    source_message_id: int | None
    review: bool = False
    vault_ids: list[int] = field(default_factory=list)
    topic: str | None = None  # the slot family it is mainly about (user.city, user.job …)
    topics: list[str] = field(default_factory=list)  # every part of life it touches, `topic` first
    derived_from: int | None = None  # for a semantic fact: the episode it was distilled from


@dataclass
class Change:
    """One effect of the write path, reported back to the caller (and the UI's undo)."""

    action: Action
    memory_id: int | None
    content: str
    category: Category | None = None
    replaced_id: int | None = None  # for UPDATE: the memory that became superseded
    reason: str = ""


@dataclass
class Hit:
    """A recalled memory with its fused score and the routes that found it.

    `score` orders the hits; `relevance` is what had to reach `threshold` for the memory to be
    used at all (see recall.py; explain.py puts both in words).
    """

    memory: Memory
    score: float
    routes: list[str]
    similarity: float = 0.0
    keyword: float = 0.0
    relevance: float | None = None  # None: not scored by recall (a pinned memory given anyway)
    threshold: float | None = None


class TimelineKind(StrEnum):
    """What one entry of the timeline (`Memories.timeline`) says changed."""

    SUPERSEDED = "superseded"  # a newer statement replaced `before` with `after`
    MERGED = "merged"  # a duplicate folded into another memory
    EXPIRED = "expired"  # a plan's day passed
    ARCHIVED = "archived"  # set aside (by the user, or faded unused)
    RESTORED = "restored"
    EDITED = "edited"  # the wording changed by hand: `before` → `after`
    FORGOTTEN = "forgotten"  # the user asked to forget it; no text is kept
    DELETED = "deleted"  # deleted by hand; no text is kept
    REJECTED = "rejected"  # taken out of the review queue as wrong; no text is kept
    PURGED = "purged"  # a retired memory past its retention; no text is kept
    IMPORTED = "imported"  # `count` memories from a file
    PROPOSED = "proposed"  # another app wrote it (`origin`)


@dataclass(frozen=True)
class TimelineEntry:
    """One change about the user, for the memory panel's timeline.

    `before`/`after` are the texts involved (None when the memory is gone: deleted text is
    never shown); `memory_ids` are the memories it is about that still exist, the first the
    one to open. `undo_blocked` is "" when `Memories.undo_timeline` can revert it, else why
    not: "gone" (the text was deleted), "changed" (changed again since), "none" (nothing to undo).
    """

    kind: TimelineKind
    at: float
    key: str  # stable identity of the entry (its events)
    memory_ids: tuple[int, ...] = ()
    before: str | None = None
    after: str | None = None
    count: int = 1
    origin: str | None = None
    undo_blocked: str = "none"
    replaced_by: int | None = None  # SUPERSEDED / MERGED: the memory that took the place

    @property
    def undoable(self) -> bool:
        return not self.undo_blocked


@dataclass(frozen=True)
class TimelinePage:
    """Entries of the timeline, newest first; `more` when older ones follow, from `next_offset`
    (offsets count groups of events, and a page may leave one out)."""

    entries: list[TimelineEntry]
    next_offset: int
    more: bool

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

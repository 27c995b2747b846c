"""What the memory table asks the core for: one filtered, ordered page at a time.

These functions run on a worker thread; they only call `MemoryStore`'s public methods.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from assistant.memory.text import match_expression, tokens
from assistant.memory.types import Category, Memory, Status

SEARCH_LIMIT = 2000
ORDERS = {
    # column key → (descending order, ascending order) the store accepts
    "created": ("created_at DESC", "created_at ASC"),
    "importance": ("importance DESC", "importance ASC"),
    "last_used": ("last_accessed_at DESC", "last_accessed_at ASC"),
    "use_count": ("access_count DESC", "access_count ASC"),
    "updated": ("updated_at DESC", "updated_at DESC"),
    "id": ("id DESC", "id ASC"),
}


@dataclass(frozen=True)
class MemoryQuery:
    """The table's filter. `status` None means every status; `review` True is the review queue."""

    status: Status | None = Status.ACTIVE
    category: Category | None = None
    review: bool | None = None
    order: str = "updated_at DESC"
    search: str = ""

    def with_(self, **changes: Any) -> MemoryQuery:
        return replace(self, **changes)


@dataclass
class Page:
    total: int
    offset: int
    memories: list[Memory]


def fetch_page(store: Any, query: MemoryQuery, offset: int, limit: int) -> Page:
    """One page of memories matching `query` (the total is counted on every call)."""
    if query.search.strip():
        found = _search(store, query)
        return Page(len(found), offset, found[offset : offset + limit])
    total = store.count(status=query.status, category=query.category, review=query.review)
    memories = store.list(
        status=query.status,
        category=query.category,
        review=query.review,
        limit=limit,
        offset=offset,
        order=query.order,
    )
    return Page(total, offset, memories)


def _search(store: Any, query: MemoryQuery) -> list[Memory]:
    """Full-text search through the store's FTS index (CJK split the same way as stored)."""
    match = match_expression(tokens(query.search, query=True)) or match_expression(
        tokens(query.search)
    )
    if match is None:
        return []
    hits = store.keyword_search(match, SEARCH_LIMIT, active_only=False)
    found = store.get_many([memory_id for memory_id, _score in hits])
    out = []
    for memory_id, _score in hits:
        memory = found.get(memory_id)
        if memory is None:
            continue
        if query.status is not None and memory.status is not query.status:
            continue
        if query.category is not None and memory.category is not query.category:
            continue
        if query.review is not None and memory.review != query.review:
            continue
        out.append(memory)
    return out

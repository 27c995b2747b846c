"""Pages of memories for a table or a list: a filter, an order and a full-text search.

The memory panel pages through 100k memories with these, and the CLI lists with them; both
reach them through `Memories.page` (assistant/memory/api.py), never the store directly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from assistant.memory.store import MemoryStore
from assistant.memory.text import match_expression, tokens
from assistant.memory.types import Category, Memory, Status

SEARCH_LIMIT = 2000  # a search shows at most this many hits: past it, the user narrows it


@dataclass(frozen=True)
class MemoryQuery:
    """A filter. `status` None means every status; `review` True is the review queue."""

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


def fetch_page(store: MemoryStore, query: MemoryQuery, offset: int, limit: int) -> Page:
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


def _search(store: MemoryStore, query: MemoryQuery) -> list[Memory]:
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

"""The memory table's sort keys; the filter and the pages are the core's (`assistant.memory.api`)."""

from __future__ import annotations

from assistant.memory.api import MemoryQuery, Page

__all__ = ["ORDERS", "MemoryQuery", "Page"]

ORDERS = {
    # column key → (descending order, ascending order) the store accepts
    "created": ("created_at DESC", "created_at ASC"),
    "importance": ("importance DESC", "importance ASC"),
    "last_used": ("last_accessed_at DESC", "last_accessed_at ASC"),
    "use_count": ("access_count DESC", "access_count ASC"),
    "updated": ("updated_at DESC", "updated_at DESC"),
    "id": ("id DESC", "id ASC"),
}

"""What the memory panel offers: its views, its actions, and what an empty view says."""

from __future__ import annotations

from assistant.memory.types import Status
from ui.i18n import tr
from ui.memory_panel.queries import MemoryQuery

ViewChanges = dict[str, Status | bool | None]
"""The `MemoryQuery` fields a view sets (status, review)."""

VIEWS: list[tuple[str, ViewChanges]] = [
    # (label, query changes)
    ("Active", {"status": Status.ACTIVE, "review": None}),
    ("Review queue", {"status": Status.ACTIVE, "review": True}),
    ("Superseded", {"status": Status.SUPERSEDED, "review": None}),
    ("Merged", {"status": Status.MERGED, "review": None}),
    ("Archived", {"status": Status.ARCHIVED, "review": None}),
    ("All", {"status": None, "review": None}),
]
REVIEW_VIEW = 1
TIMELINE_VIEW = len(VIEWS)
"""The last entry of the view list: the timeline of changes instead of the table."""

BUTTONS = {  # action → label (English; translated when shown)
    "edit": "Edit…",
    "pin": "Pin",
    "details": "History…",
    "delete": "Delete",
    "accept": "Accept",
    "reject": "Reject",
    "restore": "Restore",
    "vault": "Sensitive…",
    "export": "Export…",
    "import": "Import…",
}

TOOLTIPS = {
    "edit": "Change what this memory says, its category, importance or expiry",
    "pin": "A pinned memory is always given to the model and never forgotten by decay",
    "details": "Where this memory came from and how it changed",
    "delete": "Delete the selected memories for good",
    "accept": "Keep these memories: they are right",
    "reject": "Delete these memories: they are wrong",
    "restore": "Make these memories active again",
    "vault": "Phone numbers, card numbers and other sensitive values, kept encrypted",
    "export": "Save your memories to a file",
    "import": "Add memories from an exported file",
}

OPTIONAL_COLUMNS = (4, 5, 6)
"""Last used, Uses, Source: left out of a narrow window, so the content keeps its room."""
NARROW_PX = 900

REVIEW_HINT = (
    "The review queue holds memories Mnemo was not sure about: accept the ones that are right, "
    "reject the others."
)


def empty_text(query: MemoryQuery, view: int) -> str:
    """Why view `view` shows nothing for `query`."""
    if query.search.strip():
        return tr("No memories match “{query}”.", query=query.search.strip())
    if view == REVIEW_VIEW:
        return tr("Nothing to review: Mnemo was sure about everything it kept.")
    if query.category is not None:
        return tr("No memories in this category.")
    if view == 0:
        return tr(
            "No memories yet. Tell Mnemo about yourself in a chat — what it keeps shows "
            "up here, and you can change or delete any of it."
        )
    return tr("No memories here.")

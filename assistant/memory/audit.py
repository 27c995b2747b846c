"""Audits of what the read path injected, for the evaluation harness (`mnemo eval`).

What the memory that carried a forbidden string was, and whether a message asks to forget
something: judged with the write and read paths' own rules, so the harness needs no memory
internals beyond the API.
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.memory.forget_request import find_forget_request
from assistant.memory.people import about_someone_else
from assistant.memory.recall import tells_history
from assistant.memory.types import Memory

# What the injected memory that carried a forbidden string was (the leak audit), the first that
# holds: older than a forget request of the scenario (which may have meant it and not taken it);
# about someone else; one that tells what was before or ended ("moved from Boston to Denver": the
# old value inside the new statement); of no part of life (a loose note, small talk: no update by
# meaning reaches it); older than another active memory of its part of life (an update that did
# not supersede it); the only one of its part of life (a change nothing recognised); or none (the
# string is in a line's date or "(about: …)").
LEAKED_FROM = (
    "after_forget", "about_others", "tells_history", "no_topic", "older_of_topic", "sole_of_topic", "unattributed",
)


def leaked_from(
    leaked: Sequence[str], injected: Sequence[Memory], active: Sequence[Memory], forgets: Sequence[float] = ()
) -> list[str]:
    """For each leaked string, what the first injected memory holding it was (`LEAKED_FROM`).

    Args:
        forgets: when the user asked to forget something (timestamps of those messages).
    """
    out: list[str] = []
    for needle in leaked:
        memory = next((m for m in injected if needle.casefold() in m.content.casefold()), None)
        if memory is None:
            out.append("unattributed")  # in a line's date or "(about: …)", not in a memory's text
        elif any(at > memory.created_at for at in forgets):
            out.append("after_forget")
        elif about_someone_else(memory.content):
            out.append("about_others")
        elif tells_history(memory.content):
            out.append("tells_history")
        elif memory.topic is None:
            out.append("no_topic")
        elif any(m.topic == memory.topic and m.id != memory.id and m.created_at > memory.created_at for m in active):
            out.append("older_of_topic")
        else:
            out.append("sole_of_topic")
    return out


def asks_to_forget(message: str) -> bool:
    """Whether a user message holds a forget request ("把跟李浩有关的都忘了吧")."""
    return find_forget_request(message) is not None


__all__ = ["LEAKED_FROM", "asks_to_forget", "leaked_from"]

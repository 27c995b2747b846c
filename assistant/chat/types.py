"""What the chat engine hands its clients: sessions, stored messages and turn results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from assistant.errors import MnemoError
from assistant.memory.types import Change, Memory

if TYPE_CHECKING:
    from assistant.memory.api import ForgetRequest, Origin, Why

MessageStatus = Literal["complete", "partial", "error"]


@dataclass(frozen=True)
class Session:
    """One conversation. A temporary one lives only in memory and never touches long-term memory."""

    id: str
    title: str
    temporary: bool
    created_at: float
    updated_at: float


@dataclass(frozen=True)
class StoredMessage:
    """A message as stored: `content` has its sensitive values masked (the vault holds them).

    `status` is 'partial' when the reply was cut or cancelled, 'error' when the backend
    failed before any text arrived (the content is then empty). `injected_why` says why each
    injected memory was chosen (empty for replies stored before it was kept).
    """

    id: int
    session_id: str
    role: str
    content: str
    status: MessageStatus
    injected_ids: list[int]
    created_at: float
    injected_why: dict[int, Why] = field(default_factory=dict)


@dataclass(frozen=True)
class UsedMemory:
    """One memory under a reply ("memories used"): why it was chosen (None when the reply
    did not record it) and where it came from."""

    memory: Memory
    why: Why | None
    origin: Origin


@dataclass
class TurnResult:
    """What one `ChatEngine.send` did.

    Attributes:
        user_message_id: The stored user message (kept even when the backend fails).
        assistant_message_id: The stored reply; its status says whether it is whole.
        reply: The reply text as the model wrote it (what was streamed).
        partial: The reply was cut (stream broke) or cancelled.
        injected: The memories placed in the prompt ("memories used").
        injected_why: Why each of them was chosen, by memory id (see `UsedMemory`).
        changes: What rule extraction stored or changed from the user's message.
        forget_request: The user asked to forget something: the matches, to confirm.
        error: The backend failure, if any (with a message and a hint).
        truncated_prompt: Ollama probably cut the start of the prompt (its evaluated token
            count was far below what was sent); the user's message itself is never cut.
        dropped_turns: Older turns left out of the prompt to fit num_ctx.
    """

    user_message_id: int
    assistant_message_id: int | None
    reply: str
    partial: bool = False
    injected: list[Memory] = field(default_factory=list)
    injected_why: dict[int, Why] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    forget_request: ForgetRequest | None = None
    error: MnemoError | None = None
    truncated_prompt: bool = False
    dropped_turns: int = 0

"""The chat backend contract: what the chat turn and the extractor need from a model.

`stream_chat` returns a `ChatStream`: iterate it for the reply's text pieces, then read
`.result` for the totals. Errors are the classes in `assistant.llm.errors` (re-exported here).
"""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from assistant.llm.errors import (
    BackendError,
    BackendTimeout,
    CloudModelRefused,
    InvalidJSONReply,
    LLMError,
    ModelNotInstalled,
    ModelPullFailed,
    OllamaUnavailable,
    StreamInterrupted,
)

__all__ = [
    "BackendError",
    "BackendTimeout",
    "ChatBackend",
    "ChatMessage",
    "ChatResult",
    "ChatStream",
    "CloudModelRefused",
    "HealthStatus",
    "InvalidJSONReply",
    "LLMError",
    "ModelNotInstalled",
    "ModelPullFailed",
    "OllamaUnavailable",
    "PullProgress",
    "Role",
    "StreamInterrupted",
]

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True)
class ChatResult:
    """How a reply ended.

    Attributes:
        text: The whole reply (on cancel: what was streamed before it).
        done_reason: Ollama's reason (`stop`, `length`, …); None when cancelled.
        prompt_eval_count: Prompt tokens Ollama evaluated, if it said.
        eval_count: Reply tokens generated, if it said.
        truncated_prompt: Ollama evaluated clearly fewer prompt tokens than expected, so
            it probably dropped the start of an over-long prompt.
        partial: The caller cancelled; `text` is incomplete.
    """

    text: str
    done_reason: str | None = None
    prompt_eval_count: int | None = None
    eval_count: int | None = None
    truncated_prompt: bool = False
    partial: bool = False

    @property
    def hit_length_limit(self) -> bool:
        """The reply stopped because it reached num_predict (max_reply_tokens)."""
        return self.done_reason == "length"


@dataclass(frozen=True)
class HealthStatus:
    """Whether chatting can work now. `code` is an error code ("" when ok)."""

    ok: bool
    version: str | None
    message: str
    hint: str = ""
    code: str = ""


@dataclass(frozen=True)
class PullProgress:
    """One step of a model download: Ollama's status line and, while a layer downloads, the
    bytes of all layers seen so far (`completed` of `total`)."""

    status: str
    completed: int = 0
    total: int = 0

    @property
    def fraction(self) -> float | None:
        """0–1 while bytes are known, None for the steps that have none (verifying…)."""
        return self.completed / self.total if self.total else None


class ChatStream(Iterator[str]):
    """The text pieces of one reply, then its `ChatResult`.

    Wraps a generator that yields text and returns the result, so any backend (or test
    double) can build one. Errors surface from iteration; `StreamInterrupted.partial`
    holds what had arrived.
    """

    def __init__(self, pieces: Generator[str, None, ChatResult]) -> None:
        self._pieces = pieces
        self._result: ChatResult | None = None

    def __iter__(self) -> ChatStream:
        return self

    def __next__(self) -> str:
        try:
            return next(self._pieces)
        except StopIteration as stop:
            self._result = stop.value
            raise

    @property
    def result(self) -> ChatResult:
        """The totals; only available once iteration has finished without error."""
        if self._result is None:
            raise RuntimeError("ChatStream.result read before the stream finished")
        return self._result

    def close(self) -> None:
        """Stop early and release the connection (the result stays unavailable)."""
        self._pieces.close()

    def __enter__(self) -> ChatStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ChatBackend(Protocol):
    """A chat model provider. Every method may raise an `LLMError` subclass."""

    def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        model: str,
        num_ctx: int,
        fmt: dict[str, Any] | None = None,
        cancel: threading.Event | None = None,
        expected_prompt_tokens: int | None = None,
    ) -> ChatStream:
        """Start a reply; nothing is sent until the stream is first iterated."""
        ...

    def complete_json(
        self,
        messages: Sequence[ChatMessage],
        schema: dict[str, Any],
        *,
        model: str,
        num_ctx: int,
        expected_prompt_tokens: int | None = None,
    ) -> dict[str, Any]:
        """Ask for one JSON object that follows `schema` (temperature 0, not streamed)."""
        ...

    def list_models(self) -> list[str]:
        """Names of the models that can be used."""
        ...

    def health(self) -> HealthStatus:
        """Check the server and the configured chat model; never raises an LLMError."""
        ...

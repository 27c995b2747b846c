"""`ChatBackend` on a local Ollama server, through the official `ollama` client (/api/chat).

Why the error mapping looks the way it does (ollama-python 0.6):
- a refused connection is `ConnectionError` from non-streaming calls, but a raw
  `httpx.ConnectError` from a stream, which the client opens lazily on first iteration;
- HTTP errors before the stream starts are `ResponseError` with the status (404: model
  missing); an error after streaming began arrives as an `{"error": …}` line in a 200
  response and surfaces as `ResponseError` with status_code -1;
- timeouts and broken connections are raw `httpx` exceptions.
Connection failures are retried a few times before anything is streamed, never after.
"""

from __future__ import annotations

import functools
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any, TypeVar

import httpx
import ollama

from assistant.config import Settings
from assistant.llm.backend import ChatMessage, ChatResult, ChatStream, HealthStatus, PullProgress
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

log = logging.getLogger("mnemo.llm")

T = TypeVar("T")

DEFAULT_BACKOFF_S: tuple[float, ...] = (0.5, 1.5)
"""Pause before each retry of a refused connection; its length is the retry cap."""

TRUNCATION_RATIO = 0.6
"""Ollama evaluating fewer than this share of the expected prompt tokens means truncation.

The estimate runs high (see `tokens.py`), so the margin is wide; Ollama, when it
truncates, keeps about half of num_ctx."""

_CONNECT_ERRORS = (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout)

CANCEL_POLL_S = 0.1
"""How soon a cancelled pull closes its connection."""


def is_cloud_model(model: str) -> bool:
    """Ollama's cloud models are named `…-cloud` or `…:cloud`."""
    name = model.strip().lower()
    return name.endswith("-cloud") or name.endswith(":cloud")


def _same_model(installed: str, wanted: str) -> bool:
    return installed == wanted or (":" not in wanted and installed == f"{wanted}:latest")


class OllamaBackend:
    """Chat through Ollama. Thread-safe; close it (or use `with`) to free the connections.

    Args:
        settings: Host, timeouts, reply cap, keep_alive and the cloud policy.
        sleep: How to wait between connection retries (tests pass a recorder).
        backoff: Seconds to wait before each retry; `len(backoff)` retries at most.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        sleep: Callable[[float], None] = time.sleep,
        backoff: Sequence[float] = DEFAULT_BACKOFF_S,
    ) -> None:
        self._settings = settings
        self._sleep = sleep
        self._backoff = tuple(backoff)
        # The client's own default timeout is None: a dead server would hang us forever.
        self._client = ollama.Client(
            host=settings.ollama_host,
            timeout=httpx.Timeout(settings.request_timeout_s, connect=settings.connect_timeout_s),
        )

    def close(self) -> None:
        self._client.close()  # type: ignore[no-untyped-call]

    def __enter__(self) -> OllamaBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the ChatBackend protocol -------------------------------------------------------

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
        """Start a streamed reply. Raises CloudModelRefused at once; other errors on iteration.

        `cancel` is checked between pieces: a wait for the next piece (e.g. while Ollama
        loads the model) is bounded by request_timeout_s, not interrupted.
        """
        self._refuse_cloud(model)
        return ChatStream(
            self._stream(messages, model, num_ctx, fmt, cancel, expected_prompt_tokens)
        )

    def complete_json(
        self,
        messages: Sequence[ChatMessage],
        schema: dict[str, Any],
        *,
        model: str,
        num_ctx: int,
        expected_prompt_tokens: int | None = None,
    ) -> dict[str, Any]:
        """One JSON object following `schema`; a bad or cut answer is asked for once more.

        The retry adds a short reminder and doubles the reply cap, because at temperature 0
        the same request would give the same answer.
        """
        self._refuse_cloud(model)
        payload = _payload(messages)
        num_predict = self._settings.max_reply_tokens
        raw, reason = "", ""
        for attempt in range(2):
            if attempt:
                payload.append(
                    {
                        "role": "user",
                        "content": "Your previous answer was not valid. "
                        "Answer again with only the JSON object.",
                    }
                )
                num_predict *= 2
            options = {"num_ctx": num_ctx, "num_predict": num_predict, "temperature": 0}
            reply = self._call(
                model,
                functools.partial(
                    self._client.chat,
                    model,
                    list(payload),
                    stream=False,
                    format=schema,
                    options=options,
                    keep_alive=self._settings.keep_alive,
                ),
            )
            self._check_truncation(reply.prompt_eval_count, expected_prompt_tokens, num_ctx, model)
            raw = reply.message.content or ""
            value, reason = parse_json_object(raw, schema)
            if reply.done_reason == "length":
                reason = "the answer hit the reply length limit"
            elif value is not None:
                return value
            log.warning("invalid JSON from %s (attempt %d): %s", model, attempt + 1, reason)
        raise InvalidJSONReply(model, raw, reason)

    def list_models(self) -> list[str]:
        """Installed model names; cloud models only when the settings allow them."""
        listing = self._call("", self._client.list)
        names = [m.model for m in listing.models if m.model]
        if not self._settings.allow_cloud_models:
            names = [name for name in names if not is_cloud_model(name)]
        return names

    def health(self) -> HealthStatus:
        """Is Ollama up, and is the configured chat model installed and allowed?"""
        model = self._settings.chat_model
        version: str | None = None
        try:
            version = self._version()
            self._refuse_cloud(model)
            listing = self._call("", self._client.list, retry=False)
        except LLMError as exc:
            return HealthStatus(False, version, exc.message, exc.hint, exc.code)
        installed = [m.model or "" for m in listing.models]
        if not any(_same_model(name, model) for name in installed):
            missing = ModelNotInstalled(model)
            return HealthStatus(False, version, missing.message, missing.hint, missing.code)
        return HealthStatus(True, version, f"Ollama {version} is running with {model}.")

    def pull_model(
        self,
        model: str,
        on_progress: Callable[[PullProgress], None],
        cancel: threading.Event | None = None,
    ) -> bool:
        """Download `model` into Ollama, reporting progress; False when `cancel` stopped it.

        The pull has a connection of its own, shut as soon as `cancel` is set (not at the next
        progress line, which may be long in coming): that ends Ollama's download, which keeps
        the layers it has, so a later pull goes on from there.

        Raises:
            OllamaUnavailable: Nothing answers at the address.
            ModelPullFailed: Ollama refused or broke off (unknown name, network, disk).
        """
        self._refuse_cloud(model)
        transport = _InterruptibleTransport()
        client = ollama.Client(
            host=self._settings.ollama_host,
            timeout=httpx.Timeout(
                self._settings.request_timeout_s, connect=self._settings.connect_timeout_s
            ),
            transport=transport,
        )
        cancel = cancel or threading.Event()
        finished = threading.Event()

        def close_on_cancel() -> None:
            while not finished.wait(CANCEL_POLL_S):
                if cancel.is_set():
                    transport.interrupt()
                    return

        watcher = threading.Thread(target=close_on_cancel, name="mnemo-pull-cancel", daemon=True)
        watcher.start()
        try:
            return self._pull(client, model, on_progress, cancel)
        except (httpx.TransportError, RuntimeError) as exc:
            if cancel.is_set():  # our own close() broke the read off
                log.info("pull of %s cancelled", model)
                return False
            raise ModelPullFailed(model, f"the connection broke ({type(exc).__name__})") from exc
        finally:
            finished.set()
            watcher.join()
            client.close()  # type: ignore[no-untyped-call]

    def _pull(
        self,
        client: ollama.Client,
        model: str,
        on_progress: Callable[[PullProgress], None],
        cancel: threading.Event,
    ) -> bool:
        def first() -> tuple[Iterator[ollama.ProgressResponse], ollama.ProgressResponse | None]:
            chunks = client.pull(model, stream=True)
            return chunks, next(chunks, None)

        layers: dict[str, tuple[int, int]] = {}  # digest → (completed, total)
        try:
            chunks, part = self._call(model, first, retry=False)
        except ModelNotInstalled as exc:  # a 404 from /api/pull: no such model to pull
            raise ModelPullFailed(model, "no model of that name") from exc
        except (BackendError, StreamInterrupted) as exc:
            if cancel.is_set():
                return False
            raise ModelPullFailed(model, exc.message) from exc
        try:
            while part is not None:
                if cancel.is_set():
                    log.info("pull of %s cancelled", model)
                    return False
                if part.digest and part.total:
                    layers[part.digest] = (part.completed or 0, part.total)
                done = sum(c for c, _t in layers.values())
                total = sum(t for _c, t in layers.values())
                on_progress(PullProgress(part.status or "", done, total))
                if part.status == "success":
                    return True
                part = next(chunks, None)
        except ollama.ResponseError as exc:  # an {"error": …} line in the stream
            raise ModelPullFailed(model, exc.error) from exc
        finally:
            _close(chunks)
        if cancel.is_set():
            return False
        raise ModelPullFailed(model, "the download ended before it was complete")

    # -- streaming ----------------------------------------------------------------------

    def _stream(
        self,
        messages: Sequence[ChatMessage],
        model: str,
        num_ctx: int,
        fmt: dict[str, Any] | None,
        cancel: threading.Event | None,
        expected_prompt_tokens: int | None,
    ) -> Generator[str, None, ChatResult]:
        if cancel is not None and cancel.is_set():
            return ChatResult(text="", partial=True)
        payload = _payload(messages)
        options = {"num_ctx": num_ctx, "num_predict": self._settings.max_reply_tokens}

        def open_stream() -> Iterator[ollama.ChatResponse]:
            return self._client.chat(
                model,
                payload,
                stream=True,
                format=fmt,
                options=options,
                keep_alive=self._settings.keep_alive,
            )

        parts: list[str] = []
        chunks, reply = self._open_stream(model, open_stream)
        try:
            while True:
                if reply is None:
                    raise StreamInterrupted("".join(parts), "the stream ended without finishing")
                if text := reply.message.content:
                    parts.append(text)
                    yield text
                if reply.done:
                    break
                if cancel is not None and cancel.is_set():
                    log.info("reply from %s cancelled after %d pieces", model, len(parts))
                    return ChatResult(text="".join(parts), partial=True)
                reply = self._next_chunk(chunks, model, "".join(parts))
        finally:
            _close(chunks)
        if reply.done_reason == "length":
            log.info("reply from %s stopped at num_predict=%d", model, options["num_predict"])
        return ChatResult(
            text="".join(parts),
            done_reason=reply.done_reason,
            prompt_eval_count=reply.prompt_eval_count,
            eval_count=reply.eval_count,
            truncated_prompt=self._check_truncation(
                reply.prompt_eval_count, expected_prompt_tokens, num_ctx, model
            ),
        )

    def _open_stream(
        self, model: str, open_stream: Callable[[], Iterator[ollama.ChatResponse]]
    ) -> tuple[Iterator[ollama.ChatResponse], ollama.ChatResponse | None]:
        """Send the request and wait for the first chunk, retrying refused connections.

        The client opens a stream lazily, so its connection errors come from the first
        `next()`: until that chunk arrives this is a request like any other (`_call`).
        """

        def first_chunk() -> tuple[Iterator[ollama.ChatResponse], ollama.ChatResponse | None]:
            chunks = open_stream()
            return chunks, next(chunks, None)

        return self._call(model, first_chunk)

    def _next_chunk(
        self, chunks: Iterator[ollama.ChatResponse], model: str, partial: str
    ) -> ollama.ChatResponse | None:
        try:
            return next(chunks, None)
        except Exception as exc:
            if (error := self._translate(exc, model, partial=partial, started=True)) is None:
                raise
            raise error from exc

    # -- non-streaming calls ------------------------------------------------------------

    def _call(self, model: str, request: Callable[[], T], *, retry: bool = True) -> T:
        """Run one request, retrying refused connections, and translate its failures.

        Every call goes through here, streamed or not (a stream until its first chunk);
        failures after that come from `_next_chunk`. Both map errors with `_translate`.
        """
        retries = len(self._backoff) if retry else 0
        for attempt in range(retries + 1):
            try:
                return request()
            except _CONNECT_ERRORS as exc:
                if attempt == retries:
                    raise OllamaUnavailable(self._settings.ollama_host) from exc
                log.info("Ollama refused the connection; retry %d", attempt + 1)
                self._sleep(self._backoff[attempt])
            except Exception as exc:
                if (error := self._translate(exc, model, partial="", started=False)) is None:
                    raise
                raise error from exc
        raise AssertionError("unreachable")

    def _version(self) -> str:
        # The client has no version() call; _request_raw is its own helper for raw GETs
        # and maps errors like the public calls do. Pinned by ollama<0.7 and a test.
        raw_get: Callable[..., httpx.Response] = self._client._request_raw
        response = self._call("", lambda: raw_get("GET", "/api/version"), retry=False)
        try:
            return str(response.json()["version"])
        except (ValueError, KeyError, TypeError) as exc:
            raise BackendError(response.status_code, "not an Ollama server (no version)") from exc

    # -- helpers ------------------------------------------------------------------------

    def _translate(
        self, exc: Exception, model: str, *, partial: str, started: bool
    ) -> LLMError | None:
        """Map a client/transport failure to an LLMError; None for what is not one."""
        if isinstance(exc, _CONNECT_ERRORS):
            return OllamaUnavailable(self._settings.ollama_host)
        if isinstance(exc, ollama.ResponseError):
            if exc.status_code == 404:
                return ModelNotInstalled(model)
            if exc.status_code == -1:
                return StreamInterrupted(partial, f"Ollama reported an error: {exc.error}")
            return BackendError(exc.status_code, exc.error)
        if isinstance(exc, httpx.TimeoutException):
            timeout_s = self._settings.request_timeout_s
            if started:
                return StreamInterrupted(partial, f"no data for {timeout_s:g} s")
            return BackendTimeout(model, timeout_s)
        if isinstance(exc, httpx.TransportError):
            return StreamInterrupted(partial, f"the connection broke ({type(exc).__name__})")
        if isinstance(exc, ValueError):  # a line that is not JSON or not a chat chunk
            return StreamInterrupted(partial, "Ollama sent a malformed reply")
        return None

    def _refuse_cloud(self, model: str) -> None:
        if is_cloud_model(model) and not self._settings.allow_cloud_models:
            raise CloudModelRefused(model)

    @staticmethod
    def _check_truncation(
        evaluated: int | None, expected: int | None, num_ctx: int, model: str
    ) -> bool:
        """Did Ollama silently drop the start of an over-long prompt?"""
        if evaluated is None or not expected or expected <= num_ctx // 2:
            return False  # a prompt under half the window cannot have been cut
        if evaluated >= expected * TRUNCATION_RATIO:
            return False
        log.warning(
            "%s evaluated %d prompt tokens, about %d were sent (num_ctx=%d): "
            "Ollama probably dropped the start of the prompt",
            model,
            evaluated,
            expected,
            num_ctx,
        )
        return True


class _InterruptibleTransport(httpx.HTTPTransport):
    """An HTTP transport whose open connections another thread can shut.

    Closing a socket does not wake a thread blocked reading it; shutting it down does (and
    tells the server at once). httpcore hands each response's socket out as "network_stream".
    """

    def __init__(self) -> None:
        super().__init__()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            with self._lock:
                self._sockets.append(sock)
        return response

    def interrupt(self) -> None:
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:  # closed already
                pass


def _payload(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.content} for m in messages]


def _close(chunks: Iterator[Any]) -> None:
    if isinstance(chunks, Generator):
        chunks.close()


def parse_json_object(raw: str, schema: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """(the JSON object in `raw`, "") if it has the schema's required keys, else (None, a reason)."""
    try:
        value = json.loads(raw)
    except ValueError:
        return None, "not JSON" if raw.strip() else "empty answer"
    except RecursionError:  # the C decoder recurses once per level of nesting
        return None, "nested too deeply"
    if not isinstance(value, dict):
        return None, f"a JSON {type(value).__name__}, not an object"
    missing = [key for key in schema.get("required", ()) if key not in value]
    if missing:
        return None, f"missing {', '.join(missing)}"
    return value, ""

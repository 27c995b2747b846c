"""A real HTTP fake of the Ollama API on 127.0.0.1, for tests of everything that chats.

It speaks what Mnemo uses: GET /api/version, GET /api/tags, POST /api/chat (NDJSON stream
over chunked HTTP/1.1, or one JSON body with "stream": false) and POST /api/pull (a model
download, streamed as Ollama does: "pulling manifest", per-layer byte counts, "verifying
sha256 digest", "writing manifest", "success"; the model is then installed). Every POST body
is kept in `requests` so a test can assert on the exact prompt and options sent.

Replies come from a queue of `ScriptedReply` (one per /api/chat call), else from
`default_reply` (an echo: "OK: <last user message>"). A scripted reply can also fail:
stop the stream after N chunks by closing the socket, send an `{"error": …}` line inside
the 200, answer with an HTTP error, or hold back its first byte until a test sets an Event.

Usage:
    with FakeOllama(models=["qwen2.5:7b"]) as server:
        settings = Settings(ollama_host=server.host)
        server.script(ScriptedReply("Hello there", chunk_size=3))

or the `fake_ollama` pytest fixture below.
"""

from __future__ import annotations

import hashlib
import json
import select
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

DEFAULT_MODELS = ("qwen2.5:7b",)
GATE_TIMEOUT_S = 10.0
"""A held-back reply gives up waiting for its Event after this long (a stuck test)."""


@dataclass
class ScriptedReply:
    """What the fake answers to one /api/chat request.

    Attributes:
        text: The reply (in format mode: the JSON string to return, valid or not).
        chunk_size: Characters per streamed chunk.
        done_reason: Sent on the final line ("stop", "length", …).
        prompt_eval_count: Override; by default the prompt's character count, which never
            looks like a truncated prompt.
        eval_count: Override; by default the number of chunks.
        break_after: Close the socket after this many content chunks (no final line).
        error_after: After this many chunks send `{"error": error_message}` (status 200).
        error_message: The text of that error line.
        http_status: Answer with this status and `{"error": error_message}` instead.
        gate: Send nothing until this Event is set (a model that takes long to load).
        omit_done: End the HTTP body cleanly but without the final `"done": true` line.
        interval_s: Pause between chunks (a model generating at a given speed; 0: as fast
            as the fake can send).
    """

    text: str = "OK"
    chunk_size: int = 4
    done_reason: str = "stop"
    prompt_eval_count: int | None = None
    eval_count: int | None = None
    break_after: int | None = None
    error_after: int | None = None
    error_message: str = "an error was encountered while running the model"
    http_status: int = 200
    gate: threading.Event | None = None
    omit_done: bool = False
    interval_s: float = 0.0


def echo_reply(body: dict[str, Any]) -> str:
    """The default answer: "OK: " and the last user message; "{}" to a structured request."""
    if body.get("format"):
        return "{}"
    users = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"]
    return f"OK: {users[-1] if users else ''}"


class FakeOllama:
    """The fake server. Start it with `with` (or start()/stop()); `host` is its URL.

    Args:
        models: Installed model names, as /api/tags lists them; others get a 404.
        version: What /api/version says.
        port: A fixed port (0: a free one).
    """

    def __init__(
        self,
        models: Iterable[str] = DEFAULT_MODELS,
        *,
        version: str = "0.12.6",
        port: int = 0,
    ) -> None:
        self.models: list[str] = list(models)
        self.version = version
        self.requests: list[dict[str, Any]] = []
        """Parsed JSON body of every POST, in arrival order."""
        self.paths: list[tuple[str, str]] = []
        """(method, path) of every request, in arrival order."""
        self.default_reply: Callable[[dict[str, Any]], str] = echo_reply
        self.chat_received = threading.Event()
        """Set when a /api/chat request arrives (lets a test wait for it without sleeping)."""
        self.handler_errors: list[BaseException] = []
        self.library: dict[str, int] | None = None
        """Models /api/pull can fetch, with their sizes in bytes (None: any name, 4.7 GB)."""
        self.pull_steps = 8
        """Progress lines per pull (the bytes grow evenly over them)."""
        self.pull_gate: threading.Event | None = None
        """When set, a pull sends `pull_hold_after` progress lines, then waits for this Event
        (a test cancels or lets it finish)."""
        self.pull_hold_after = 2
        self.pull_outcomes: list[str] = []
        """How each pull ended: "success", "cancelled" (the client hung up) or "error"."""
        self.pull_finished = threading.Event()
        self._replies: deque[ScriptedReply] = deque()
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._gates: list[threading.Event] = []
        self._stopping = threading.Event()  # ends a paced stream's wait between chunks
        self._port = port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeOllama is not running")
        return int(self._server.server_address[1])

    @property
    def host(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, port: int | None = None) -> FakeOllama:
        if port is not None:
            self._port = port
        self._stopping.clear()
        self._server = _Server(("127.0.0.1", self._port), _Handler, self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-ollama",
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, release held replies, drop connections and join every thread."""
        if self._server is None:
            return
        server, self._server = self._server, None
        self._stopping.set()
        server.shutdown()
        with self._lock:
            gates, connections = list(self._gates), list(self._connections)
        for gate in gates:
            gate.set()
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        server.server_close()  # joins the handler threads
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting --------------------------------------------------------------------

    def script(self, *replies: ScriptedReply | str) -> None:
        """Queue replies for the next /api/chat calls (a str is a plain reply)."""
        with self._lock:
            for reply in replies:
                self._replies.append(ScriptedReply(reply) if isinstance(reply, str) else reply)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return [body for body in self.requests if "messages" in body]

    @property
    def last_chat(self) -> dict[str, Any]:
        return self.chat_requests[-1]

    # -- used by the handler ----------------------------------------------------------

    def _next_reply(self, body: dict[str, Any]) -> ScriptedReply:
        with self._lock:
            if self._replies:
                reply = self._replies.popleft()
                if reply.gate is not None:
                    self._gates.append(reply.gate)
                return reply
        text = self.default_reply(body)
        return ScriptedReply(text)

    def _installed(self, model: str) -> bool:
        return any(
            name == model or (":" not in model and name == f"{model}:latest")
            for name in self.models
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True  # server_close() joins every handler thread

    def __init__(self, address: tuple[str, int], handler: type[_Handler], fake: FakeOllama) -> None:
        self.fake = fake
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up mid-reply is normal here (cancel, timeout tests); any
        # other failure is a bug in the fake and is kept for the test to see.
        error = sys.exc_info()[1]
        if error is not None and not isinstance(error, OSError):
            self.fake.handler_errors.append(error)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streaming, as Ollama does
    timeout = 10  # an idle keep-alive connection does not outlive a stuck test by much
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.fake._lock:
            self.server.fake._connections.add(self.connection)

    def finish(self) -> None:
        with self.server.fake._lock:
            self.server.fake._connections.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- routes -----------------------------------------------------------------------

    def do_GET(self) -> None:
        fake = self.server.fake
        fake.paths.append(("GET", self.path))
        if self.path == "/api/version":
            self._send_json(200, {"version": fake.version})
        elif self.path == "/api/tags":
            self._send_json(200, {"models": [_tag(name) for name in list(fake.models)]})
        else:
            self._send_json(404, {"error": "not found"})

    def do_POST(self) -> None:
        fake = self.server.fake
        fake.paths.append(("POST", self.path))
        length = int(self.headers.get("Content-Length", "0"))
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._send_json(400, {"error": "invalid JSON body"})
            return
        fake.requests.append(body)
        if self.path == "/api/pull":
            self._pull(str(body.get("model") or body.get("name") or ""))
            return
        if self.path != "/api/chat":
            self._send_json(404, {"error": "not found"})
            return
        fake.chat_received.set()
        model = str(body.get("model", ""))
        if not fake._installed(model):
            self._send_json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        reply = fake._next_reply(body)
        if reply.gate is not None and not reply.gate.wait(GATE_TIMEOUT_S):
            self.close_connection = True
            return
        if reply.http_status != 200:
            self._send_json(reply.http_status, {"error": reply.error_message})
        elif body.get("stream", True):
            self._stream(model, body, reply)
        else:
            self._send_json(200, _final(model, body, reply, reply.text, chunks=1))

    def _pull(self, model: str) -> None:
        fake = self.server.fake
        self._pull_installed = False
        try:
            outcome = self._stream_pull(model)
        except OSError:  # the client hung up mid-line
            outcome = "cancelled"
        if outcome != "success":
            self.close_connection = True
        if not self._pull_installed:  # an installed model stays installed, whoever hangs up
            fake.pull_outcomes.append(outcome)
        fake.pull_finished.set()

    def _stream_pull(self, model: str) -> str:
        fake = self.server.fake
        size = 4_683_087_332 if fake.library is None else fake.library.get(model)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        digest = "sha256:" + hashlib.sha256(model.encode()).hexdigest()
        self._write_line({"status": "pulling manifest"})
        if size is None:
            self._write_line({"error": "pull model manifest: file does not exist"})
            self._end_chunks()
            return "error"
        steps = max(1, fake.pull_steps)
        for step in range(1, steps + 1):
            if fake.pull_gate is not None and step == fake.pull_hold_after + 1:
                fake.pull_gate.wait(GATE_TIMEOUT_S)
            if self._client_gone() or fake._stopping.is_set():
                self._cut()
                return "cancelled"  # a cancelled pull installs nothing
            progress = {"status": f"pulling {digest[7:19]}", "digest": digest, "total": size}
            self._write_line({**progress, "completed": size * step // steps})
        # As Ollama does, the model is installed before "success" is sent: a client that lists
        # the models the moment it reads that line must find it there.
        if model not in fake.models:
            fake.models.append(model)
        fake.pull_outcomes.append("success")
        self._pull_installed = True
        for status in ("verifying sha256 digest", "writing manifest", "success"):
            self._write_line({"status": status})
        self._end_chunks()
        return "success"

    def _client_gone(self) -> bool:
        """The client closed its end (a cancelled download): readable, and nothing to read."""
        readable, _, _ = select.select([self.connection], [], [], 0)
        if not readable:
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    # -- writing ----------------------------------------------------------------------

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, model: str, body: dict[str, Any], reply: ScriptedReply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        size = max(1, reply.chunk_size)
        pieces = [reply.text[i : i + size] for i in range(0, len(reply.text), size)]
        for sent, piece in enumerate(pieces):
            # a model generating at a given speed; stop() ends the wait and the stream
            if reply.interval_s and sent and self.server.fake._stopping.wait(reply.interval_s):
                self._cut()
                return
            if reply.break_after is not None and sent >= reply.break_after:
                self._cut()
                return
            if reply.error_after is not None and sent >= reply.error_after:
                self._write_line({"error": reply.error_message})
                self._end_chunks()
                return
            message = {"role": "assistant", "content": piece}
            self._write_line(
                {"model": model, "created_at": _now(), "message": message, "done": False}
            )
        if not reply.omit_done:
            self._write_line(_final(model, body, reply, "", chunks=len(pieces)))
        self._end_chunks()

    def _write_line(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode() + b"\n"
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def _end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")

    def _cut(self) -> None:
        """Drop the connection mid-body, like a crashed server."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _final(
    model: str, body: dict[str, Any], reply: ScriptedReply, content: str, *, chunks: int
) -> dict[str, Any]:
    prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
    return {
        "model": model,
        "created_at": _now(),
        "message": {"role": "assistant", "content": content},
        "done": True,
        "done_reason": reply.done_reason,
        "total_duration": 1_000_000,
        "load_duration": 100_000,
        "prompt_eval_count": (
            reply.prompt_eval_count if reply.prompt_eval_count is not None else prompt_chars
        ),
        "prompt_eval_duration": 100_000,
        "eval_count": reply.eval_count if reply.eval_count is not None else chunks,
        "eval_duration": 500_000,
    }


def _tag(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": "2025-10-01T10:00:00.000000+00:00",
        "size": 4_683_087_332,
        "digest": "0" * 64,
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": "qwen2",
            "families": ["qwen2"],
            "parameter_size": "7.6B",
            "quantization_level": "Q4_K_M",
        },
    }


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A running FakeOllama with `qwen2.5:7b` installed; stopped (threads joined) after."""
    with FakeOllama() as server:
        yield server

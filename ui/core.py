"""The window's handle on the core: opens the profile, the chat backend and the engine off
the GUI thread, loads the embedding model in the background, and runs forget-me.

Widgets receive this object and call the library through `run(func, on_result, on_error)`;
they never hold SQL or memory rules themselves. What they see of the profile is `OpenProfile`:
memory only through `profile.memories` (assistant/memory/api.py).
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

import shiboken6
from PySide6.QtCore import QObject, Signal

from ui.bridge import CoreBridge
from ui.profile_gate import ProfileGate
from ui.worker import ErrorCallback, Runner

if TYPE_CHECKING:
    from assistant.app import Profile
    from assistant.chat.engine import ChatEngine
    from assistant.clock import Clock
    from assistant.config import Settings
    from assistant.llm.ollama_backend import OllamaBackend
    from assistant.memory.api import ForgetMeReport, Memories, ModelStatus
    from assistant.scheduler import MaintenanceScheduler
    from ui.display import VaultEntry

    _Parts = tuple[Profile, OllamaBackend, ChatEngine | None, dict[int, VaultEntry]]

log = logging.getLogger("mnemo.ui")

T = TypeVar("T")
V = TypeVar("V")

ProfileOpener = Callable[[], "Profile"]
BackendFactory = Callable[["Settings"], "OllamaBackend"]
EngineFactory = Callable[["Profile", "OllamaBackend"], "ChatEngine | None"]


class OpenProfile(Protocol):
    """What the window uses of an open `assistant.app.Profile`: its memory only through
    `memories`, which stays the same object across forget-me."""

    @property
    def name(self) -> str: ...

    @property
    def dir(self) -> Path: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def memories(self) -> Memories: ...


def default_backend(settings: Settings) -> OllamaBackend:
    from assistant.llm.ollama_backend import OllamaBackend

    return OllamaBackend(settings)


def default_engine(profile: Profile, backend: OllamaBackend) -> ChatEngine | None:
    try:
        from assistant.chat.engine import ChatEngine
    except ImportError:
        log.warning("the chat engine is not installed; chat is disabled")
        return None
    return ChatEngine(profile, backend, clock=profile.clock)


def vault_entries_of(memories: Memories) -> dict[int, VaultEntry]:
    """What each vault item is (its kind and masked stub; nothing is decrypted), so stored
    text can word its vault references (`ui.display`). Runs on a worker."""
    from ui.display import VaultEntry

    return {item.id: VaultEntry(item.kind, item.masked) for item in memories.vault_items()}


def settle_heap() -> None:
    """Leave what start-up loaded (the libraries, the profile, the model) out of garbage collection.

    Those half a million objects live as long as the app; a full collection walked them all
    for about a second here, holding the GIL, so the window froze in the middle of a reply.
    """
    gc.collect(1)  # the young garbage first, so none of it is kept for good
    gc.freeze()


class Core(QObject):
    """Owns the profile, backend and engine for the window's lifetime.

    Args:
        runner: where core calls run.
        bridge: core callbacks → Qt signals.
        open_profile: opens (or returns) the profile; runs on a worker.
        make_backend: builds the chat backend from settings.
        make_engine: builds the chat engine (None when it is unavailable).
    """

    opened = Signal()  # profile, backend and engine are ready to use
    open_failed = Signal(object)
    embedder_state = Signal(str, str)  # state, warning ('' when none)
    forgetting = Signal(bool)  # forget-me started (the chat stops its reply) / ended
    reset = Signal()  # forget-me finished: everything is fresh
    engine_replaced = Signal()
    scheduler_attached = Signal()
    last_maintenance = Signal(object)  # epoch seconds of the last complete run, or None
    # a start-up repair (after a crash, of a damaged index): what, done, total; from a worker
    repairing = Signal(str, int, int)

    def __init__(
        self,
        runner: Runner,
        bridge: CoreBridge,
        open_profile: ProfileOpener,
        *,
        make_backend: BackendFactory = default_backend,
        make_engine: EngineFactory = default_engine,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.bridge = bridge
        self._open_profile = open_profile
        # the profile as soon as the worker opened it: a window closed (or SIGTERM) while the
        # rest was still opening gets no result, and must still close it at exit
        self.opening: Profile | None = None
        self._make_backend = make_backend
        self._make_engine = make_engine
        self._profile: Profile | None = None
        self.backend: OllamaBackend | None = None
        self.engine: ChatEngine | None = None
        self.scheduler: MaintenanceScheduler | None = None
        self.vault_entries: dict[int, VaultEntry] = {}  # vault id → kind and masked stub
        self._gate = ProfileGate()

    # -- calls into the library ------------------------------------------------------------

    def run(
        self,
        func: Callable[[], T],
        on_result: Callable[[T], None] | None = None,
        on_error: ErrorCallback | None = None,
    ) -> None:
        """Run `func` on a worker; errors without a handler reach the bridge. It holds the
        profile's gate shared: it never overlaps forget-me (`ui.profile_gate`)."""
        gate = self._gate

        def gated() -> T:
            with gate.shared():
                return func()

        self.runner.run_task(gated, on_result, on_error or self.bridge.report)

    def run_for(
        self,
        owner: QObject,
        func: Callable[[], T],
        on_result: Callable[[T], None] | None = None,
        on_error: ErrorCallback | None = None,
    ) -> None:
        """`run`, for a window that may be closed (and deleted) before the result comes: then
        its callbacks are not called (an error without `on_error` still reaches the bridge)."""

        def alive(callback: Callable[[V], None] | None) -> Callable[[V], None] | None:
            if callback is None:
                return None
            return lambda value: callback(value) if shiboken6.isValid(owner) else None

        self.run(func, alive(on_result), alive(on_error))

    @property
    def is_open(self) -> bool:
        return self._profile is not None

    @property
    def profile(self) -> OpenProfile:
        """The open profile (check `is_open` first: the window is up before it opens)."""
        if self._profile is None:
            raise RuntimeError("the profile is not open yet")
        return self._profile

    @property
    def memories(self) -> Memories:
        return self.profile.memories

    @property
    def settings(self) -> Settings:
        return self.profile.settings

    def read_vault_entries(self) -> dict[int, VaultEntry]:
        """On a worker: see `vault_entries_of`."""
        return vault_entries_of(self.memories)

    # -- start-up ----------------------------------------------------------------------

    def start(self) -> None:
        """Open everything on a worker; `opened` then embedding-model loading follow."""

        def open_all() -> _Parts:
            profile = self.opening = self._open_profile()
            backend = self._make_backend(profile.settings)
            engine = self._make_engine(profile, backend)
            if engine is not None:
                engine.drop_empty_sessions()  # chats opened and left by an older version
            return profile, backend, engine, vault_entries_of(profile.memories)

        self.runner.run_task(open_all, self._on_open, self.open_failed.emit)

    def _on_open(self, parts: _Parts) -> None:
        self._profile, self.backend, self.engine, self.vault_entries = parts
        self._wire_engine()
        # Once: `memories` is the same object across forget-me (assistant/memory/api.py).
        self.memories.subscribe(self.bridge.on_memories_changed)
        settle_heap()
        self.opened.emit()
        self.load_embedder()

    def _wire_engine(self) -> None:
        if self.engine is not None:
            self.engine.on_memory_changed.append(self.bridge.on_memory_changed)

    def load_embedder(self) -> None:
        status = self.memories.model_status()
        if status.loaded:
            self._emit_embedder(status)
            return
        self.embedder_state.emit("loading", "")
        self.runner.run_task(self.memories.load_model, self._emit_embedder, self._embedder_failed)

    def _emit_embedder(self, status: ModelStatus | None = None) -> None:
        status = status or self.memories.model_status()
        settle_heap()
        self.embedder_state.emit(status.state, status.warning or "")

    def _embedder_failed(self, exc: BaseException) -> None:
        self.embedder_state.emit("failed", getattr(exc, "message", str(exc)))

    def start_scheduler(self) -> None:
        """Wire nightly maintenance when the core provides it; reports come back by signal."""
        try:
            from assistant.scheduler import MaintenanceScheduler
        except ImportError as exc:
            log.info("maintenance scheduler unavailable: %s", exc)
            return
        assert self._profile is not None, "started once the profile is open"
        bridge = self.bridge
        scheduler = MaintenanceScheduler.for_profile(
            self._profile, on_finished=bridge.on_maintenance, on_error=bridge.report
        )
        scheduler.start()
        self.scheduler = scheduler
        self.scheduler_attached.emit()
        self.run(self.memories.last_maintenance, self.last_maintenance.emit)

    # -- rebuilding --------------------------------------------------------------------

    def replace_backend(self, on_done: Callable[[], None] | None = None) -> None:
        """Rebuild backend and engine from the current settings (host changed)."""
        old_backend, old_engine = self.backend, self.engine
        profile = self._profile
        assert profile is not None, "the profile is open before its settings can change"

        def rebuild() -> tuple[OllamaBackend, ChatEngine | None]:
            if old_engine is not None:
                old_engine.close()
            if old_backend is not None:
                old_backend.close()
            backend = self._make_backend(profile.settings)
            return backend, self._make_engine(profile, backend)

        def done(parts: tuple[OllamaBackend, ChatEngine | None]) -> None:
            self.backend, self.engine = parts
            self._wire_engine()
            self.engine_replaced.emit()
            if on_done:
                on_done()

        self.run(rebuild, done)

    def forget_me(
        self, on_done: Callable[[ForgetMeReport], None], on_error: ErrorCallback
    ) -> None:
        """Erase the profile and report how long it took.

        Nothing is rebuilt or re-wired: `memories` and the engine live on (the engine reads
        its chats from the reopened database). `forgetting` first stops a streaming reply; the
        erase waits, through the gate, for the work already running, and the engine's own
        background work (LLM extraction) to end: what it would write goes anyway.
        """
        memories, engine, gate = self.memories, self.engine, self._gate
        self.forgetting.emit(True)

        def erase() -> ForgetMeReport:
            with gate.alone():
                if engine is not None:
                    engine.idle_timer.cancel()
                    engine.wait_idle()
                return memories.forget_me()

        def done(report: ForgetMeReport) -> None:
            self.vault_entries = {}
            self.forgetting.emit(False)
            self.reset.emit()
            on_done(report)

        def failed(exc: BaseException) -> None:
            self.forgetting.emit(False)
            on_error(exc)

        self.runner.run_task(erase, done, failed)

    # -- shutdown ----------------------------------------------------------------------

    def close(self) -> None:
        """Stop workers, close the engine and backend (at window close; `ui.app` closes the
        profile after the event loop)."""
        self.runner.shutdown()
        if self.scheduler is not None:
            try:
                self.scheduler.shutdown(wait=True)
            except Exception:  # noqa: BLE001 - closing must go on
                log.exception("scheduler stop failed")
        if self.engine is not None:
            self.engine.close()
        if self.backend is not None:
            self.backend.close()
        self.engine = self.backend = None

    def close_profile(self) -> None:
        """Close the profile, also one the window was closed on while it was opening."""
        profile = self._profile if self._profile is not None else self.opening
        if profile is not None:
            profile.close()


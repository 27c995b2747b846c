"""The window's handle on the core: opens the profile, the chat backend and the engine off
the GUI thread, loads the embedding model in the background, and rebuilds after forget-me.

Widgets receive this object and call the library through `run(func, on_result, on_error)`;
they never hold SQL or memory rules themselves.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal

from ui.bridge import CoreBridge
from ui.worker import ErrorCallback, ResultCallback, Runner

log = logging.getLogger("mnemo.ui")

ProfileOpener = Callable[[], Any]  # -> assistant.app.Profile
BackendFactory = Callable[[Any], Any]  # Settings -> ChatBackend
EngineFactory = Callable[[Any, Any], Any]  # (Profile, ChatBackend) -> ChatEngine


def default_backend(settings: Any) -> Any:
    from assistant.llm.ollama_backend import OllamaBackend

    return OllamaBackend(settings)


def default_engine(profile: Any, backend: Any) -> Any:
    try:
        from assistant.chat.engine import ChatEngine
    except ImportError:
        log.warning("the chat engine is not installed; chat is disabled")
        return None
    return ChatEngine(profile, backend, clock=profile.clock)


def vault_entries_of(profile: Any) -> dict[int, Any]:
    """What each vault item is (its kind and masked stub; nothing is decrypted), so stored
    text can word its vault references (`ui.display`). Runs on a worker."""
    from ui.display import VaultEntry

    return {item.id: VaultEntry(item.kind, item.masked) for item in profile.memories.vault_items()}


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
        self.opening: Any = None
        self._make_backend = make_backend
        self._make_engine = make_engine
        self.profile: Any = None
        self.backend: Any = None
        self.engine: Any = None
        self.scheduler: Any = None
        self.vault_entries: dict[int, Any] = {}  # vault id → VaultEntry (kind, masked stub)

    # -- calls into the library ------------------------------------------------------------

    def run(
        self,
        func: Callable[[], Any],
        on_result: ResultCallback | None = None,
        on_error: ErrorCallback | None = None,
    ) -> None:
        """Run `func` on a worker; errors without a handler reach the bridge."""
        self.runner.run_task(func, on_result, on_error or self.bridge.report)

    def run_for(
        self,
        owner: QObject,
        func: Callable[[], Any],
        on_result: ResultCallback | None = None,
        on_error: ErrorCallback | None = None,
    ) -> None:
        """`run`, for a window that may be closed (and deleted) before the result comes: then
        its callbacks are not called (an error without `on_error` still reaches the bridge)."""

        def alive(callback: Callable[[Any], None] | None) -> Callable[[Any], None] | None:
            if callback is None:
                return None
            return lambda value: callback(value) if shiboken6.isValid(owner) else None

        self.run(func, alive(on_result), alive(on_error))

    @property
    def is_open(self) -> bool:
        return self.profile is not None

    @property
    def settings(self) -> Any:
        return self.profile.settings

    def read_vault_entries(self) -> dict[int, Any]:
        """On a worker: see `vault_entries_of`."""
        return vault_entries_of(self.profile)

    # -- start-up ----------------------------------------------------------------------

    def start(self) -> None:
        """Open everything on a worker; `opened` then embedding-model loading follow."""

        def open_all() -> tuple[Any, Any, Any, dict[int, Any]]:
            profile = self.opening = self._open_profile()
            backend = self._make_backend(profile.settings)
            engine = self._make_engine(profile, backend)
            if engine is not None:
                engine.drop_empty_sessions()  # chats opened and left by an older version
            return profile, backend, engine, vault_entries_of(profile)

        self.runner.run_task(open_all, self._on_open, self.open_failed.emit)

    def _on_open(self, parts: tuple[Any, Any, Any, dict[int, Any]]) -> None:
        self.profile, self.backend, self.engine, self.vault_entries = parts
        self._wire_engine()
        # Once: `memories` is the same object across forget-me (assistant/memory/api.py).
        self.profile.memories.subscribe(self.bridge.on_memories_changed)
        settle_heap()
        self.opened.emit()
        self.load_embedder()

    def _wire_engine(self) -> None:
        if self.engine is not None:
            self.engine.on_memory_changed.append(self.bridge.on_memory_changed)

    def load_embedder(self) -> None:
        embedder = self.profile.embedder
        if getattr(embedder, "is_loaded", True):
            self._emit_embedder()
            return
        self.embedder_state.emit("loading", "")
        self.runner.run_task(embedder.load, lambda _r: self._emit_embedder(), self._embedder_failed)

    def _emit_embedder(self) -> None:
        embedder = self.profile.embedder
        state = str(getattr(embedder, "state", "ready"))
        settle_heap()
        self.embedder_state.emit(state, getattr(embedder, "warning", None) or "")

    def _embedder_failed(self, exc: BaseException) -> None:
        self.embedder_state.emit("failed", getattr(exc, "message", str(exc)))

    # -- rebuilding --------------------------------------------------------------------

    def replace_backend(self, on_done: Callable[[], None] | None = None) -> None:
        """Rebuild backend and engine from the current settings (host changed)."""
        old_backend, old_engine = self.backend, self.engine
        profile = self.profile

        def rebuild() -> tuple[Any, Any]:
            if old_engine is not None:
                old_engine.close()
            if old_backend is not None and hasattr(old_backend, "close"):
                old_backend.close()
            backend = self._make_backend(profile.settings)
            return backend, self._make_engine(profile, backend)

        def done(parts: tuple[Any, Any]) -> None:
            self.backend, self.engine = parts
            self._wire_engine()
            self.engine_replaced.emit()
            if on_done:
                on_done()

        self.run(rebuild, done)

    def forget_me(self, on_done: Callable[[Any], None], on_error: ErrorCallback) -> None:
        """Erase the profile (engine closed first, rebuilt after) and report how long it took."""
        profile, backend, old_engine = self.profile, self.backend, self.engine

        def erase() -> tuple[Any, Any]:
            if old_engine is not None:
                old_engine.close()
            report = profile.forget_me()
            engine = self._make_engine(profile, backend)
            return report, engine

        def done(parts: tuple[Any, Any]) -> None:
            report, self.engine = parts
            self.vault_entries = {}
            self._wire_engine()
            self.reset.emit()
            on_done(report)

        self.runner.run_task(erase, done, on_error)

    # -- shutdown ----------------------------------------------------------------------

    def close(self) -> None:
        """Stop workers, close the engine, backend and profile (at window close)."""
        self.runner.shutdown()
        if self.scheduler is not None:
            try:
                self.scheduler.shutdown(wait=True)
            except Exception:  # noqa: BLE001 - closing must go on
                log.exception("scheduler stop failed")
        if self.engine is not None:
            self.engine.close()
        if self.backend is not None and hasattr(self.backend, "close"):
            self.backend.close()
        self.engine = self.backend = None

"""The composition root: opens one profile's data directory and wires the core together.

A profile lives in ``<data dir>/profiles/<name>/``: ``mnemo.db`` (SQLite, the truth),
``index/`` (Chroma, derived), ``keys/`` (last-resort key file). One process at a time holds
a profile: a second one is refused with a clear message (Chroma is not safe for two).
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock, Timeout

from assistant.clock import Clock, SystemClock, to_ts
from assistant.config import Settings, check_profile_name, data_dir, load_settings, profile_name
from assistant.errors import MnemoError, ProfileLockedError, StorageError
from assistant.memory import forget_intent
from assistant.memory.api import ForgetMeReport, Memories
from assistant.memory.db import Database
from assistant.memory.embedder import Embedder, SentenceTransformerEmbedder
from assistant.memory.keys import KeyManager
from assistant.memory.recall import Recaller, RecallOptions
from assistant.memory.recovery import mark_consistent, recover_after_crash
from assistant.memory.service import MemoryService
from assistant.memory.shred import erase_profile_dir, finish_interrupted
from assistant.memory.store import MemoryStore
from assistant.memory.timewords import past_range
from assistant.memory.vault import Vault
from assistant.memory.vectors.child import index_factory
from assistant.memory.vectors.keeper import RepairProgress
from assistant.memory.vectors.probe import drop_if_damaged
from assistant.memory.vectors.scrub import IndexScrubber, ScrubListener
from assistant.memory.write import MemoryWriter

log = logging.getLogger("mnemo.app")

DB_NAME = "mnemo.db"
FULL_DISK_BYTES = 1024 * 1024  # below this free, the profile opens with a "disk is full" warning
RUNNING_MARK = ".running"  # present while a process has the profile open: found at start = a crash


def profile_dir(base: Path, name: str) -> Path:
    check_profile_name(name)
    return base / "profiles" / name


_embedders: dict[str, SentenceTransformerEmbedder] = {}


def shared_embedder(
    model: str, warn: Callable[[str], None] | None = None
) -> SentenceTransformerEmbedder:
    """One embedder per model per process: loading a model costs seconds and hundreds of MB."""
    if model not in _embedders:
        _embedders[model] = SentenceTransformerEmbedder(model, warn=warn)
    elif warn is not None and _embedders[model].warning:
        warn(_embedders[model].warning or "")
    return _embedders[model]


def recall_options(settings: Settings) -> RecallOptions:
    return RecallOptions(
        k=settings.recall_k, threshold=settings.recall_threshold, weights=settings.weights
    )


class Profile:
    """Everything of one profile, open and wired. Close it (or use `with`) when done.

    Args:
        base: the data directory (``MNEMO_DATA_DIR`` or the platform's).
        name: the profile name.
        settings: loaded settings.
        embedder: shared model (loading one costs seconds; tests pass one in).
        clock: time source (injected in tests and the evaluation harness).
        warn: receives user-visible warnings (key file in use, model fallback).
        index_in_child: serve the vector index from a child process (the desktop app: Chroma
            keeps the GIL through a whole write, which would freeze the window).
        progress: shows a start-up repair's progress, as (what, done, total): re-indexing after
            a crash or rebuilding a damaged index can take a while on a large profile.
    """

    def __init__(
        self,
        base: Path,
        name: str,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        clock: Clock | None = None,
        warn: Callable[[str], None] | None = None,
        passphrase: str | None = None,
        index_in_child: bool = False,
        progress: RepairProgress | None = None,
    ) -> None:
        self.base = base
        self.index_in_child = index_in_child
        self.name = name
        self.settings = settings
        self.clock = clock or SystemClock()
        self.warnings: list[str] = []
        self._warn_cb = warn
        # called with True when a deletion's index scrub is pending, False when it is done
        self.on_scrub: list[ScrubListener] = []
        self.dir = profile_dir(base, name)
        self.on_forget_step: Callable[[str], None] | None = None  # tests kill forget-me here
        self._progress = progress
        self._open_now = False
        # The one way in to the memories, for the profile's whole life: forget-me replaces
        # the parts behind it, not this object (see memory/api.py).
        self.memories = Memories(self)
        try:
            self.dir.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                f"Cannot create the data directory {self.dir.parent}: {exc.strerror}",
                "Check the path and its permissions, or set MNEMO_DATA_DIR.",
            ) from exc
        # The lock comes before the profile folder is touched: a process that is refused
        # must not create the folder a running forget-me has just moved away. Not
        # thread-local: the window opens the profile on a worker and closes it on the GUI thread.
        self._lock = FileLock(str(self.dir.parent / f".{name}.lock"), thread_local=False)
        try:
            self._lock.acquire(timeout=0)
        except Timeout as exc:
            raise ProfileLockedError(
                f"Mnemo is already running with profile {name!r} on this data directory.",
                "Close the other Mnemo window or command first (one process at a time keeps the index safe).",
            ) from exc
        except OSError as exc:
            raise StorageError(
                f"Cannot write to the data directory {self.dir.parent}: {exc.strerror}",
                "Make it writable (check permissions and free space), or set MNEMO_DATA_DIR.",
            ) from exc
        try:
            if forget_intent.pending(self.dir):
                forget_intent.finish(self.dir, self.name)
                self.warn(f"An interrupted “forget me” was completed: everything of profile {name!r} is erased.")
            finish_interrupted(self.dir)
            self._make_dir()
            self._open(embedder, passphrase)
        except BaseException:
            self._lock.release()
            raise

    def _make_dir(self) -> None:
        try:
            self.dir.mkdir(exist_ok=True)
            os.chmod(self.dir, 0o700)
        except OSError as exc:
            raise StorageError(
                f"Cannot create the data directory {self.dir}: {exc.strerror}",
                "Check the path and its permissions, or set MNEMO_DATA_DIR.",
            ) from exc

    def _check_database_present(self) -> None:
        """A missing or empty mnemo.db beside an index or a vault key means the memories were
        lost or moved: say so, rather than start an empty profile over what is left."""
        path = self.dir / DB_NAME
        try:
            empty = not path.exists() or path.stat().st_size == 0
        except OSError:
            return  # the database layer reports what it cannot open
        if not empty:
            return
        traces = [p for p in (self.dir / "index", self.dir / "keys", self.dir / f"{DB_NAME}-wal")
                  if p.exists() and (p.is_file() and p.stat().st_size > 0 or p.is_dir() and any(p.iterdir()))]
        if traces:
            state = "empty" if path.exists() else "missing"
            raise StorageError(
                f"The memory database {path} is {state}, but this profile still has "
                + " and ".join(t.name for t in traces)
                + ": the memories they belonged to are not there.",
                f"Restore {DB_NAME} from a backup, or import an export after moving the folder "
                f"{self.dir} away (move it away to start afresh). Nothing was changed.",
            )

    def _open(self, embedder: Embedder | None, passphrase: str | None) -> None:
        mark = self.dir / RUNNING_MARK
        crashed = mark.exists()
        self._check_database_present()
        self.db = Database(self.dir / DB_NAME)
        try:
            self._open_parts(embedder, passphrase, crashed)
        except BaseException:
            self.db.close()
            raise
        self._open_now = True

    def _open_parts(self, embedder: Embedder | None, passphrase: str | None, crashed: bool) -> None:
        mark = self.dir / RUNNING_MARK
        # A damaged HNSW file can crash the process rather than raise: found by a child first.
        if crashed:
            drop_if_damaged(self.db, self.dir / "index")
        self.store = MemoryStore(self.db, self.name)
        try:
            mark.touch()
            self.store.ensure_profile(to_ts(self.clock.now()))
            self.store.refresh_keyword_index()
            full = _free_bytes(self.dir) < FULL_DISK_BYTES
        except (OSError, StorageError) as exc:
            if not _disk_full(exc):
                if isinstance(exc, StorageError):
                    raise
                raise StorageError(
                    f"Cannot write to the data directory {self.dir}: {exc.strerror}",
                    "Make it writable and free some disk space.",
                ) from exc
            full = True
        if full:
            # Reading still works on a full disk: list, search and export must, to free space.
            self.warn("The disk is full: Mnemo can show and export your memories, but cannot "
                      "save anything until you free some disk space.")
        self.keys = KeyManager(
            self.db,
            self.name,
            self.dir / "keys",
            passphrase=passphrase if passphrase is not None else os.environ.get("MNEMO_PASSPHRASE"),
            warn=self.warn,
        )
        self.vault = Vault(self.db, self.name, self.keys)
        self.embedder: Embedder = embedder or shared_embedder(
            self.settings.embedding_model, warn=self.warn
        )
        self.service = MemoryService(
            self.db,
            self.store,
            self.embedder,
            self.dir / "index",
            self.clock,
            index_factory=index_factory(in_child=self.index_in_child),
            progress=self._progress,
            warn=self.warn,
        )
        self.writer = MemoryWriter(self.service, self.vault)
        self.recaller = Recaller(self.service, recall_options(self.settings), past_range=past_range)
        self.scrubber = IndexScrubber(self.db, self.service.vectors)
        self.scrubber.listeners = self.on_scrub
        self.service.on_deleted.append(self.scrubber.schedule)
        self.scrubber.run()  # a scrub a crash interrupted: first, before the index is opened here
        if crashed:
            log.warning("the last session ended without closing; repairing what it left half-done")
            recover_after_crash(self.service, self.vault, progress=self._progress)

    @property
    def pending_scrub(self) -> bool:
        """A deleted memory's vector bytes may still be in the index folder until `scrub_index()`."""
        return self.scrubber.pending

    def scrub_index(self) -> bool:
        """Rewrite the index without deleted vectors (runs at close anyway). Returns whether it ran."""
        return self.scrubber.run()

    def warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)
        if self._warn_cb:
            self._warn_cb(text)
        else:
            log.warning("%s", text)

    def close(self) -> None:
        """Close cleanly (from any thread): the next start needs no repair."""
        if not self._lock.is_locked:
            return  # closed already
        try:
            if self._open_now:
                self._close_parts()
        finally:
            if self._lock.is_locked:
                self._lock.release()

    def _close_parts(self) -> None:
        self._open_now = False
        try:
            self.scrubber.run()
        except (MnemoError, OSError):
            log.warning("index scrub at close failed; it runs at the next start", exc_info=True)
        try:
            self.service.close()
        except (MnemoError, OSError) as exc:
            log.warning("closing the index failed (%s); the next start checks it", type(exc).__name__)
            self.db.close()
            return  # the marker stays: the next start repairs
        try:
            mark_consistent(self.db)  # the index agrees with SQLite: a later crash repairs from here
        except StorageError as exc:
            log.warning("could not record a clean close (%s)", exc.message)
        self.db.close()
        (self.dir / RUNNING_MARK).unlink(missing_ok=True)

    def __enter__(self) -> Profile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def forget_me(self) -> ForgetMeReport:
        """Erase everything of this profile and reopen it empty: `Memories.forget_me`, which
        holds the write lock throughout and tells the listeners."""
        return self.memories.forget_me()

    def erase_and_reopen(self) -> ForgetMeReport:
        """Forget-me's work, under `Memories.lock` (call `forget_me`, not this).

        An intent is recorded first (memory/forget_intent.py): from then on the erase
        completes, here or, after a crash, at the next start. Then the data key is destroyed
        (crypto-shredding) and every file of the profile removed; a fresh, empty profile takes
        its place. The profile's lock is held throughout, so no other process opens it midway.
        """
        started = time.perf_counter()
        memories = self.store.total()
        messages = int(
            self.db.scalar("SELECT COUNT(*) FROM messages WHERE profile_id = ?", (self.name,)) or 0
        )
        self._forget_step("counted")
        forget_intent.write_intent(self.dir)
        self._forget_step("intent")
        self.keys.destroy()
        self._forget_step("key")
        self._open_now = False
        self.service.close()
        self.db.close()
        self._forget_step("closed")
        files = erase_profile_dir(self.dir, after_rename=lambda: self._forget_step("renamed"))
        self._forget_step("shredded")
        self._make_dir()
        self._open(self.embedder, None)
        self._forget_step("reopened")
        forget_intent.clear_intent(self.dir)
        self._forget_step("done")
        return ForgetMeReport(time.perf_counter() - started, memories, messages, files)

    def _forget_step(self, name: str) -> None:
        if self.on_forget_step is not None:
            self.on_forget_step(name)


def _free_bytes(folder: Path) -> int:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return FULL_DISK_BYTES  # unknown: say nothing


def _disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError):
        return exc.errno == errno.ENOSPC
    return "disk is full" in str(exc).lower()


def open_profile(
    *,
    settings: Settings | None = None,
    embedder: Embedder | None = None,
    clock: Clock | None = None,
    warn: Callable[[str], None] | None = None,
    base: Path | None = None,
    name: str | None = None,
    index_in_child: bool = False,
    progress: RepairProgress | None = None,
) -> Profile:
    """Open the profile named by the environment (``MNEMO_PROFILE``) or the arguments."""
    return Profile(
        base or data_dir(),
        name or profile_name(),
        settings or load_settings(),
        embedder=embedder,
        clock=clock,
        warn=warn,
        index_in_child=index_in_child,
        progress=progress,
    )

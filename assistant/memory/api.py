"""`Memories`: the one way in to a profile's memory for every front end.

The panel, the CLI and the chat engine used to pick their own layer (store, service, writer)
and each repeated, or skipped, the rules of a change. Here every command:

- takes the one write lock (`Memories.lock`), so a panel worker and a chat turn never write
  at the same time;
- keeps the vault and the index in step as the layers below do it (a deletion drops the
  vault items no other memory uses and schedules the index scrub, see `MemoryService.delete`);
- emits exactly one `MemoryChange` to the subscribers, after the lock is released, so a
  listener may call back in.

Maintenance runs here too (`maintain`: the lock around each step, one event for the run).
The end of the module re-exports the few values and helpers of the layers below that front
ends may use; an import-linter contract (pyproject.toml) forbids them the rest.

`Memories` belongs to the `Profile` and is the same object for the profile's life: it reads
the store, service, writer and recaller from the profile at each call, so `forget_me`, which
replaces them, needs no re-wiring by anyone who holds a reference. It wraps the existing
methods and adds no memory rules of its own.

Queries take no lock: SQLite gives each read a consistent snapshot.
"""

from __future__ import annotations

import builtins
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from assistant.clock import Clock, to_ts
from assistant.config import Settings
from assistant.errors import InputError, NotFoundError
from assistant.importers.records import ImportedConversation
from assistant.memory.embedder import (
    BUNDLED_MODEL,
    Embedder,
    EmbedderState,
    SentenceTransformerEmbedder,
)
from assistant.memory.explain import pinned_hit
from assistant.memory.imported import HistoryReport, replay
from assistant.memory.inject import block_language, render_block
from assistant.memory.keys import KeyManager, keyfile_warning
from assistant.memory.listing import MemoryQuery, Page, fetch_page
from assistant.memory.maintain import (
    LOCK_NAME,
    MaintenanceBusyError,
    MaintenanceParts,
    MaintenanceReport,
    MaintenanceStopped,
    Summarize,
    last_success,
    recent_jobs,
    run_maintenance,
)
from assistant.memory.recall import Recaller, RecallOptions
from assistant.memory.service import MemoryService
from assistant.memory.store import MemoryStore, NewMemory
from assistant.memory.timeline import timeline_page, undo_entry
from assistant.memory.transfer import (
    ImportReport,
    PassphraseNeeded,
    WrongPassphrase,
    export_memories,
    import_memories,
)
from assistant.memory.transfer_seal import MIN_PASSPHRASE
from assistant.memory.types import (
    Action,
    Candidate,
    Category,
    Change,
    Hit,
    Memory,
    Source,
    Status,
    TimelineEntry,
    TimelinePage,
    Turn,
)
from assistant.memory.vault import Vault, VaultItem
from assistant.memory.vectors.keeper import Progress, ReconcileReport
from assistant.memory.write import MemoryWriter, WriteResult

log = logging.getLogger("mnemo.memory")

__all__ = [  # with the record types of memory/types.py, all a front end needs
    "MIN_PASSPHRASE", "Details", "ForgetMeReport", "ForgetPlan", "HistoryReport", "ImportReport", "MemoryChange",
    "MemoryQuery", "Memories", "OriginMessage", "Page", "PassphraseNeeded", "Unsubscribe",
    "VaultItem", "WriteResult", "WrongPassphrase",
]


@dataclass(frozen=True)
class MemoryChange:
    """What one command changed: its name (`Memories` method) and the memory ids it touched.

    `ids` is empty when the command changed no memory row (a remember that found nothing) or
    changed all of them (`forget_me`, `reindex`).
    """

    kind: str
    ids: tuple[int, ...]


Listener = Callable[[MemoryChange], None]
Unsubscribe = Callable[[], None]


@dataclass
class ForgetMeReport:
    seconds: float
    memories: int
    messages: int
    files_removed: int


@dataclass(frozen=True)
class ForgetPlan:
    """What a "forget …" would delete, shown to the user before `confirm_forget`."""

    target: str
    matches: list[Memory] = field(default_factory=list)

    @property
    def ids(self) -> list[int]:
        return [m.id for m in self.matches]


@dataclass(frozen=True)
class OriginMessage:
    """The chat message a memory came from."""

    id: int
    session_id: str
    role: str
    content: str
    created_at: float


@dataclass(frozen=True)
class Details:
    """A memory with its history (events), what it replaced and the message it came from."""

    memory: Memory
    history: list[dict[str, Any]]
    replaced: list[Memory]
    source: OriginMessage | None


class MemoryParts(Protocol):
    """What `Memories` reads from its owner (`assistant.app.Profile`) at each call."""

    name: str
    dir: Path
    clock: Clock
    settings: Settings
    embedder: Embedder
    keys: KeyManager
    store: MemoryStore
    service: MemoryService
    writer: MemoryWriter
    recaller: Recaller
    vault: Vault

    @property
    def pending_scrub(self) -> bool: ...

    def erase_and_reopen(self) -> ForgetMeReport: ...


class Memories:
    """Commands and queries on one profile's memories (see the module docstring).

    Args:
        parts: the profile, whose parts may be replaced (forget-me) behind this object.
    """

    def __init__(self, parts: MemoryParts) -> None:
        self._parts = parts
        # Re-entrant: the chat engine holds it around a chat's deletion and calls a command
        # inside; a listener may call a command on the same thread.
        self.lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._listeners_lock = threading.Lock()

    # -- events -----------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Unsubscribe:
        """Call `listener` with each change (from the thread that made it); returns the undo."""
        with self._listeners_lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._listeners_lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def _emit(self, kind: str, ids: Iterable[int | None] = ()) -> None:
        change = MemoryChange(kind, tuple(dict.fromkeys(i for i in ids if i is not None)))
        with self._listeners_lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(change)
            except Exception:  # noqa: BLE001 - one broken listener must not undo a committed write
                log.exception("a memory change listener failed")

    # -- the parts, read at each call (forget-me replaces them) ------------------------

    @property
    def _store(self) -> MemoryStore:
        return self._parts.store

    @property
    def _service(self) -> MemoryService:
        return self._parts.service

    @property
    def _writer(self) -> MemoryWriter:
        return self._parts.writer

    @property
    def _vault(self) -> Vault:
        return self._parts.vault

    def now(self) -> float:
        return to_ts(self._parts.clock.now())

    # -- commands -----------------------------------------------------------------------

    def add(
        self,
        content: str,
        category: Category = Category.FACT,
        *,
        importance: int = 3,
        pinned: bool = False,
        expires_at: float | None = None,
        source: Source = Source.MANUAL,
    ) -> Memory:
        """Store a memory as given (by hand: no gate, no update decision)."""
        new = NewMemory(content=content, category=category, importance=importance, source=source,
                        pinned=pinned, expires_at=expires_at)
        with self.lock:
            memory = self._service.add(new)
        self._emit("add", [memory.id])
        return memory

    def add_protected(
        self, text: str, now: datetime, *, source: Source = Source.ASSISTANT, review: bool = False,
        origin: str | None = None,
    ) -> Memory:
        """Store `text` as one memory, as said (another app's "remember this": no gate, no update
        decision), its sensitive values moved to the vault first as the write path does.

        Args:
            review: put it in the review queue (the user accepts or rejects it there).
            origin: who wrote it, kept in its history ("added", detail "origin").
        """
        with self.lock:
            protected = self._writer.protect(text, now)
            vault_ids = list(dict.fromkeys(v for _span, v in protected.spans if v))
            new = NewMemory(content=protected.text, category=Category.IDENTIFIER if vault_ids else Category.FACT,
                            source=source, review=review, vault_ids=vault_ids, origin=origin)
            memory = self._service.add(new, now=to_ts(now))
        self._emit("add", [memory.id])
        return memory

    def remember(self, turns: Sequence[Turn], now: datetime, *, confirm_forget: bool = False) -> WriteResult:
        """Run the write path over `turns` (a chat turn, `mnemo memory remember`)."""
        with self.lock:
            result = self._writer.remember(turns, now, confirm_forget=confirm_forget)
        self._emit("remember", _changed_ids(result.changes))
        return result

    def extracted(
        self,
        candidates: Sequence[tuple[Candidate, str, Turn]],
        noise: Sequence[tuple[str, Turn]],
        now: datetime,
        *,
        then: Callable[[], None] | None = None,
    ) -> list[Change]:
        """Judge what an LLM extractor proposed: (candidate, the user's text, its turn) each,
        and archive the episodes its "noise" quotes cover. `then` runs inside the lock (the
        engine marks the messages read there, so a crash cannot read them twice)."""
        changes: list[Change] = []
        with self.lock:
            for candidate, text, turn in candidates:
                changes.append(self._writer.apply(candidate, text, now, turn))
            for quote, turn in noise:
                changes.extend(self._writer.dismiss(quote, turn, now))
            self._store.flush_access()
            if then is not None:
                then()
        self._emit("extract", _changed_ids(changes))
        return changes

    def edit(self, memory_id: int, **fields: object) -> Memory:
        """Change content, category, importance or expiry (`MemoryStore.edit`'s fields)."""
        with self.lock:
            memory = self._service.edit(memory_id, **fields)
        self._emit("edit", [memory_id])
        return memory

    def pin(self, memory_id: int, pinned: bool = True) -> None:
        with self.lock:
            self._store.set_pinned(memory_id, pinned, self.now())
        self._emit("pin", [memory_id])

    def unpin(self, memory_id: int) -> None:
        self.pin(memory_id, False)

    def accept(self, memory_ids: Sequence[int]) -> None:
        """Take memories out of the review queue, as they are."""
        with self.lock:
            for memory_id in memory_ids:
                self._store.set_review(memory_id, False, self.now())
        self._emit("accept", memory_ids)

    def reject(self, memory_ids: Sequence[int]) -> list[Change]:
        """Delete memories from the review queue (they were wrong; the user's own words they
        were distilled from stay). What one of them had replaced (an imported "I live in
        Lisbon" over the live "I live in Denver") is active again: the rejected word does not
        stand, so neither does its replacing."""
        with self.lock:
            replaced = [m.id for i in memory_ids for m in self._store.chain(i)
                        if m.status is Status.SUPERSEDED and self._store.get(i).review]
            changes = self._writer.forget(list(memory_ids), reason="reject")
            for memory_id in replaced:
                self._service.set_status(memory_id, Status.ACTIVE)
        self._emit("reject", [*memory_ids, *replaced])
        return changes

    def restore(self, memory_ids: Sequence[int]) -> None:
        """Make archived or superseded memories active (and indexed) again."""
        self._set_status(memory_ids, Status.ACTIVE, "restore")

    def archive(self, memory_ids: Sequence[int]) -> None:
        """Keep memories but stop using them ("don't use this again"), with the fact or the
        episode each is tied to: what the user set aside must not come back in other words."""
        self._set_status(memory_ids, Status.ARCHIVED, "archive", with_linked=True)

    def _set_status(self, memory_ids: Sequence[int], status: Status, kind: str, *, with_linked: bool = False) -> None:
        with self.lock:
            ids = self._with_linked(memory_ids) if with_linked else list(memory_ids)
            for memory_id in ids:
                self._service.set_status(memory_id, status)
        self._emit(kind, ids)

    def _with_linked(self, memory_ids: Sequence[int]) -> list[int]:
        """`memory_ids` and the active memories tied to them by `derived_from` (a fact and the
        episode it was distilled from hold the same thing in two forms)."""
        ids = list(dict.fromkeys(memory_ids))
        return ids + [m.id for m in self._service.store.linked(ids) if m.id not in ids]

    def delete(self, memory_ids: Sequence[int]) -> list[Change]:
        """Delete for good: rows, vault items no other memory uses, vectors (scrub scheduled)."""
        return self._delete(memory_ids, "delete")

    def _delete(self, memory_ids: Sequence[int], kind: str, *, with_linked: bool = True) -> list[Change]:
        # "User is allergic to peanuts." deleted must not stay known as "I'm allergic to peanuts"
        with self.lock:
            ids = self._with_linked(memory_ids) if with_linked else list(memory_ids)
            changes = self._writer.forget(ids, reason=kind)
        self._emit(kind, ids)
        return changes

    def forget_matching(self, target: str, slot: str | None = None) -> ForgetPlan:
        """What "forget `target`" would delete (nothing is deleted: see `confirm_forget`)."""
        return ForgetPlan(target, self._writer.forget_matches(target, slot))

    def confirm_forget(self, plan: ForgetPlan | Sequence[int]) -> list[Change]:
        """Delete what a forget request matched, once the user confirmed."""
        ids = plan.ids if isinstance(plan, ForgetPlan) else list(plan)
        return self._delete(ids, "forget_matching")

    def undo(self, change: Change) -> None:
        """Revert an ADD (delete it) or an UPDATE (delete the new one, restore all it replaced)."""
        if change.memory_id is None or change.action not in (Action.ADD, Action.UPDATE):
            raise InputError(f"A {change.action.value} cannot be undone.", "Only added or updated memories can be undone.")
        touched = [change.memory_id]
        with self.lock:
            restore: list[int] = []
            if change.action is Action.UPDATE:
                # everything the update ended, not only the first: the episode with the fact
                # distilled from it, the other parts of the same plan
                restore = [m.id for m in self._store.chain(change.memory_id) if m.status is Status.SUPERSEDED]
                if change.replaced_id is not None and change.replaced_id not in restore:
                    restore.insert(0, change.replaced_id)
            self._service.delete(change.memory_id, self._vault.delete)
            for memory_id in restore:
                try:
                    self._service.set_status(memory_id, Status.ACTIVE)
                    touched.append(memory_id)
                except NotFoundError:
                    log.info("undo: a replaced memory no longer exists")
        self._emit("undo", touched)

    def timeline(self, offset: int = 0, limit: int = 100) -> TimelinePage:
        """What changed about the user and when, newest first (`memory/timeline.py`)."""
        return timeline_page(self._store, offset, limit)

    def undo_timeline(self, entry: TimelineEntry) -> None:
        """Revert a timeline entry as it stands now (InputError when it cannot be)."""
        with self.lock:
            touched = undo_entry(self._service, entry)
        self._emit("undo", touched)

    def import_file(
        self, path: Path, *, passphrase: str | None = None, skip_sensitive: bool = False,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Import an export (raises `PassphraseNeeded` / `WrongPassphrase` for sealed values)."""
        with self.lock:
            report = import_memories(self._service, self._vault, path, passphrase=passphrase,
                                     skip_sensitive=skip_sensitive, progress=progress)
        self._emit("import", report.ids)
        return report

    def import_history(
        self, conversations: Sequence[ImportedConversation], *, review: bool | None = None,
        progress: Progress | None = None, cancel: Callable[[], bool] | None = None,
    ) -> HistoryReport:
        """Replay conversations from another assistant (`assistant.importers.load`) through the
        write path at their own times (see `memory/imported.py`); those imported before are
        skipped. The write lock is taken per conversation, so a chat turn waits for one, not
        for the whole export; `cancel` is asked between two (what is done stays done), and a
        forget-me between two ends it.

        Args:
            review: put what is stored in the review queue (None: unless the setting
                "accept imported memories without review" is on).
        """
        if review is None:
            review = not self._parts.settings.accept_imports_without_review
        report = HistoryReport(total=len(conversations))
        service = self._service
        try:  # oldest first: a later statement supersedes an earlier one, as in chat
            for done, conversation in enumerate(sorted(conversations, key=lambda c: c.started), 1):
                with self.lock:
                    # a forget-me between two conversations ends the import: nothing goes into the fresh profile
                    if (cancel is not None and cancel()) or self._parts.service is not service:
                        report.cancelled = True
                        break
                    replay(self._writer, conversation, report, review=review, now=self.now())
                if progress is not None:
                    progress(done, report.total)
        finally:
            self._emit("import_history", report.memory_ids)
        return report

    def export(
        self, path: Path, *, include_sensitive: bool = False, passphrase: str | None = None,
        progress: Progress | None = None,
    ) -> int:
        """Write every memory to `path`; returns the count. Under the lock, so the file is one
        moment's memories; it changes none, so it emits no change event."""
        with self.lock:
            return export_memories(self._service, self._vault, path, include_sensitive=include_sensitive,
                                   passphrase=passphrase, progress=progress)

    def forget_me(self) -> ForgetMeReport:
        """Erase everything of the profile and reopen it empty; this object stays valid."""
        with self.lock:
            report = self._parts.erase_and_reopen()
        self._emit("forget_me")
        return report

    def reindex(self, progress: Progress | None = None) -> ReconcileReport:
        """Rebuild the vector index from SQLite."""
        with self.lock:
            report = self._service.rebuild_index(progress)
        self._emit("reindex")
        return report

    def switch_embedder(self, embedder: Embedder, progress: Progress | None = None) -> ReconcileReport:
        """Re-embed every active memory with another model."""
        with self.lock:
            report = self._service.switch_embedder(embedder, progress)
            self._parts.embedder = embedder  # forget-me reopens with it
        self._emit("reindex")
        return report

    def maintain(
        self, now: datetime | None = None, *, dry_run: bool = False, llm: Summarize | None = None,
        steps: Sequence[str] | None = None, after_step: Callable[[str, dict[str, int]], None] | None = None,
    ) -> MaintenanceReport:
        """Run the memory maintenance (expire, decay, merge, consolidate, purge, reconcile; see
        `memory/maintain/runner.py`, whose arguments these are) as of `now` (the clock's).

        The write lock is held around each step rather than the whole run (a first run at 100k
        memories takes minutes), so a chat turn that comes meanwhile waits for one step, not
        for all. A forget-me between two steps ends the run (`MaintenanceStopped`). One event
        names every memory the run changed, also when a step fails after others changed
        some; a dry run changes none and emits none.

        Raises:
            MaintenanceBusyError: another run holds the profile's maintenance lock.
            MaintenanceStopped: forget-me erased the profile during the run.
        """
        with self.lock:  # a forget-me under way finishes first: the run gets the new parts
            service = self._service
            parts = MaintenanceParts(service.db, service, self._parts.settings, self._parts.dir / LOCK_NAME, self._vault)

        @contextmanager
        def step_guard() -> Iterator[None]:
            with self.lock:
                if self._parts.service is not service:
                    raise MaintenanceStopped("Maintenance stopped: the profile was erased.",
                                             "Nothing to do: forget-me removed what it maintained.")
                yield

        changed: builtins.list[int] = []
        try:
            report = run_maintenance(parts, now or self._parts.clock.now(), dry_run=dry_run, llm=llm, steps=steps,
                                     after_step=after_step, step_guard=step_guard, on_changed=changed.extend)
        except (MaintenanceBusyError, MaintenanceStopped):
            raise  # no run, or one whose profile is gone (forget-me told the listeners)
        except BaseException:
            if not dry_run:
                self._emit("maintain", changed)  # what the steps before the failure changed
            raise
        if not dry_run:
            self._emit("maintain", report.changed)
        return report

    def protect(self, text: str, now: datetime) -> str:
        """`text` with its sensitive values moved to the vault (a message about to be stored).
        Writes vault items, no memory: it emits no change event."""
        with self.lock:
            return self._writer.protect(text, now).text

    def delete_vault_items(self, vault_ids: Iterable[int]) -> None:
        """Drop vault items a deleted chat referenced (memories keep theirs: see `delete`)."""
        with self.lock:
            for vault_id in vault_ids:
                try:
                    self._vault.delete(vault_id)
                except NotFoundError:
                    pass

    def set_recall_options(self, options: RecallOptions) -> None:
        """Use new recall settings (k, threshold, weights) from the next question on."""
        self._parts.recaller.options = options

    def checkpoint(self) -> None:
        """Fold the database's write-ahead log in, so deleted text leaves it now (the CLI,
        which exits right after a delete)."""
        with self.lock:
            self._service.db.checkpoint()

    # -- queries ------------------------------------------------------------------------

    def get(self, memory_id: int) -> Memory:
        return self._store.get(memory_id)

    def get_many(self, memory_ids: Sequence[int]) -> list[Memory]:
        """The memories of `memory_ids` that exist, in that order."""
        return self._service.memories(memory_ids)

    def list(
        self, *, status: Status | None = Status.ACTIVE, category: Category | None = None,
        review: bool | None = None, limit: int = 100, offset: int = 0, order: str = "updated_at DESC",
    ) -> builtins.list[Memory]:
        return self._store.list(status=status, category=category, review=review, limit=limit,
                                offset=offset, order=order)

    def page(self, query: MemoryQuery, offset: int, limit: int) -> Page:
        """One page of a filtered, ordered or searched listing (the memory panel's table)."""
        return fetch_page(self._store, query, offset, limit)

    def count(self, *, status: Status | None = Status.ACTIVE, category: Category | None = None,
              review: bool | None = None) -> int:
        return self._store.count(status=status, category=category, review=review)

    def total(self) -> int:
        """Every memory of the profile, of any status."""
        return self._store.total()

    def search(self, query: str, now: datetime, k: int | None = None) -> builtins.list[Hit]:
        """What the read path finds for `query` (no memory: no model load)."""
        if not self._store.count():
            return []
        return self._parts.recaller.recall(query, now, k=k)

    def recall(self, query: str, now: datetime, k: int | None = None) -> builtins.list[Memory]:
        """The memories for a prompt: the pinned ones (live, unexpired) first, then recalled."""
        return [hit.memory for hit in self.recall_hits(query, now, k)]

    def recall_hits(self, query: str, now: datetime, k: int | None = None) -> builtins.list[Hit]:
        """`recall` as hits, for why each was chosen (`why_of`): a pinned memory the read path
        did not score comes as a hit of the route "pinned" alone."""
        now_ts = to_ts(now)
        pinned = [
            m for m in self._service.memories(self._store.pinned_ids())
            if m.status is Status.ACTIVE and (m.expires_at is None or m.expires_at > now_ts)
        ]
        hits = {h.memory.id: h for h in self._parts.recaller.recall(query, now, k=k)}
        first = [hits.pop(m.id) if m.id in hits else pinned_hit(m) for m in pinned]
        return first + list(hits.values())

    def injected(self, query: str, now: datetime, k: int | None = None) -> tuple[builtins.list[Hit], str]:
        """What a question would put in the prompt: the hits and the memory block's text."""
        hits = self.search(query, now, k)
        settings = self._parts.settings
        block, _ids = render_block(hits, lang=block_language(query, settings.language),
                                   token_budget=settings.recall_token_budget, tz=now.tzinfo)
        return hits, block

    def details(self, memory_id: int) -> Details:
        store = self._store
        memory = store.get(memory_id)
        row = store.source_message(memory.source_message_id) if memory.source_message_id else None
        source = OriginMessage(int(row["id"]), str(row["session_id"]), str(row["role"]),
                               str(row["content"]), float(row["created_at"])) if row else None
        return Details(memory, store.history(memory_id), store.chain(memory_id), source)

    def mask_known(self, text: str) -> str:
        """`text` with every sensitive value masked; nothing is stored."""
        return self._writer.mask_known(text)

    def vault_items(self) -> builtins.list[VaultItem]:
        """The vault's items: kinds and masked stubs, nothing decrypted."""
        return self._vault.items()

    def reveal(self, vault_id: int) -> str:
        """One vault value in plain text (the user asked, and confirmed)."""
        return self._vault.get(vault_id)

    @property
    def pending_scrub(self) -> bool:
        """A deleted memory's vector bytes may still be in the index folder."""
        return self._parts.pending_scrub

    # -- the embedding model, the vault's key, maintenance (the window's status bar) -----

    def model_status(self) -> ModelStatus:
        """The embedding model's state; loads nothing, reads no table (the GUI thread may ask)."""
        embedder = self._parts.embedder
        if not isinstance(embedder, SentenceTransformerEmbedder):  # a test's light embedder
            return ModelStatus(embedder.model_name, EmbedderState.READY, None, embedder.model_name)
        serving = embedder.model_name if embedder.is_loaded else ""
        return ModelStatus(embedder.requested, str(embedder.state), embedder.warning, serving)

    def load_model(self) -> ModelStatus:
        """Load the embedding model now (seconds: on a worker) rather than at the first search."""
        embedder = self._parts.embedder
        if isinstance(embedder, SentenceTransformerEmbedder):
            embedder.load()
        return self.model_status()

    def switch_model(
        self, name: str, progress: Progress | None = None, warn: Callable[[str], None] | None = None,
    ) -> ModelStatus:
        """Load embedding model `name` and re-embed every active memory with it (`switch_embedder`)."""
        embedder = SentenceTransformerEmbedder(name, warn=warn)
        embedder.load()
        self.switch_embedder(embedder, progress)
        return self.model_status()

    def vault_key(self) -> VaultKey:
        keys = self._parts.keys
        return VaultKey(str(keys.method), keys.locked)

    def key_file_warning(self) -> str:
        """The warning given while the vault's key is kept in a file (it names the file)."""
        return keyfile_warning(self._parts.keys.key_file)

    def use_passphrase(self, passphrase: str) -> None:
        """Open the vault with the user's passphrase, or protect its key with it from now on
        (`KeyManager.use_passphrase`; a wrong one raises `KeyUnavailableError`)."""
        with self.lock:
            self._parts.keys.use_passphrase(passphrase)

    def last_maintenance(self) -> float | None:
        """When the maintenance last completed every step (epoch seconds), None if never."""
        return last_success(self._service.db, self._service.profile_id)

    def maintenance_history(self, limit: int = 10) -> builtins.list[dict[str, Any]]:
        """The latest maintenance runs, newest first (`mnemo maintain --history`, the panel)."""
        return recent_jobs(self._service.db, self._service.profile_id, limit)


def _changed_ids(changes: Iterable[Change]) -> list[int | None]:
    """The memories a write path's changes touched: the stored, the bumped (a repeated fact
    is refreshed), the deleted and the replaced."""
    ids: list[int | None] = []
    for change in changes:
        if change.action is not Action.DROPPED:
            ids += [change.memory_id, change.replaced_id]
    return ids


# -- Values and helpers front ends may use ---------------------------------------------------
# What the CLI, the chat engine, the MCP server and the evaluation harness legitimately take
# from the layers below besides `Memories`: text hygiene for the messages they store, the
# memory block's rendering, the embedding model's name and files, the maintenance report, a
# benchmark's scratch store, the longest memory, a masked text's vault reference and the
# device a message names. Re-exported here, and only here, so that the import contract in
# pyproject.toml can keep every other module of assistant.memory internal.

from assistant.memory.audit import LEAKED_FROM, asks_to_forget, leaked_from  # noqa: E402
from assistant.memory.bench import BenchMemory  # noqa: E402
from assistant.memory.db import Database  # noqa: E402
from assistant.memory.embedder import (  # noqa: E402
    bundled_model_path,
    model_on_path,
)
from assistant.memory.explain import (  # noqa: E402
    Origin,
    Why,
    origin_of,
    origin_text,
    reasons,
    summary,
    why_fields,
    why_of,
)
from assistant.memory.extract.validate import garbage_problem  # noqa: E402
from assistant.memory.maintain import STEPS as MAINTENANCE_STEPS  # noqa: E402
from assistant.memory.sensitive import redact_masked  # noqa: E402
from assistant.memory.store import MAX_CONTENT_CHARS  # noqa: E402
from assistant.memory.text import index_text, storable  # noqa: E402
from assistant.memory.topics import device_named  # noqa: E402
from assistant.memory.transfer_read import VAULT_REF  # noqa: E402
from assistant.memory.write import ForgetRequest  # noqa: E402

__all__ += [
    "BUNDLED_MODEL", "MAINTENANCE_STEPS", "MAX_CONTENT_CHARS", "VAULT_REF", "BenchMemory", "Database", "Embedder", "ForgetRequest",
    "MaintenanceBusyError", "MaintenanceReport", "MaintenanceStopped", "NewMemory", "RecallOptions", "Summarize",
    "SentenceTransformerEmbedder", "block_language", "bundled_model_path", "garbage_problem",
    "LEAKED_FROM", "asks_to_forget", "leaked_from",  # audit.py, for `mnemo eval`
    "device_named",  # topics.py, for the topic classifier's examples (evaluation/updates.py)
    "index_text", "model_on_path", "redact_masked", "render_block", "storable",
    "Origin", "Why", "origin_of", "origin_text", "reasons", "summary", "why_fields", "why_of",  # explain.py
]


# --- for the GUI ---
# What the window reads of the model and the vault's key (`Memories.model_status`,
# `vault_key`), and the plain values and helpers it needs besides `Memories`: ui/ may import
# nothing else of assistant.memory (the import-linter contract in pyproject.toml).
# block_language, BUNDLED_MODEL, MaintenanceReport and SentenceTransformerEmbedder are
# imported above.


@dataclass(frozen=True)
class ModelStatus:
    """The embedding model: the one asked for, its state (`EmbedderState`), the warning of a
    stand-in, and the model it serves ("" until it is loaded)."""

    requested: str
    state: str
    warning: str | None
    serving: str

    @property
    def loaded(self) -> bool:
        return bool(self.serving)


@dataclass(frozen=True)
class VaultKey:
    """How the vault's data key is kept ("keyring", "passphrase" or "keyfile") and whether
    a passphrase is still to be given."""

    method: str
    locked: bool


from assistant.memory.sensitive import KIND_LABELS  # noqa: E402

__all__ += ["KIND_LABELS", "ModelStatus", "VaultKey"]

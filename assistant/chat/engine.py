"""One conversation turn, end to end: recall → prompt → stream → store → extract.

`ChatEngine` is the facade the terminal chat and the desktop window drive (the window from
worker threads: every public method is thread-safe). Per turn:

1. the user's message is masked (sensitive values to the vault) and stored;
2. recall (skipped in a temporary chat) and the pinned memories feed the memory block;
3. the prompt is budgeted to num_ctx (see `prompt.py`) and the reply streamed;
4. the reply is stored with the ids of the injected memories ("memories used");
5. rule extraction runs on the user's message at once; LLM extraction is batched in the
   background every N user turns or after idle, and flushed by `new_session` and `close`;
6. older turns are folded into the rolling summary in the background.

A temporary session is kept only in memory (never written to the database), reads no memory
and writes none; it is gone when the engine closes.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from assistant.chat.background import BackgroundRunner, IdleTimer, ThreadingIdleTimer
from assistant.chat.history import ConversationStore
from assistant.chat.prompt import PromptPlan, build_prompt, check_message_fits
from assistant.chat.summary import Summarizer
from assistant.chat.types import MessageStatus, Session, StoredMessage, TurnResult, UsedMemory
from assistant.clock import Clock, to_ts
from assistant.errors import InputError, MnemoError, NotFoundError
from assistant.llm.backend import ChatBackend, ChatMessage, ChatResult, Role
from assistant.llm.errors import LLMError, StreamInterrupted
from assistant.llm.extraction import ExtractionOutcome, LLMExtractor, SourceMessage
from assistant.memory.api import Origin, block_language, origin_of, storable, why_of
from assistant.memory.types import Action, Change, Hit, Memory, Turn

if TYPE_CHECKING:
    from assistant.app import Profile

log = logging.getLogger("mnemo.chat")

MemoryCallback = Callable[[list[Change]], None]


class BatchExtractor(Protocol):
    """What the engine needs from an LLM extractor (`LLMExtractor` is the real one)."""

    def extract(self, messages: Sequence[SourceMessage], now: datetime) -> ExtractionOutcome: ...


@dataclass
class _Reply:
    text: str = ""
    partial: bool = False
    error: LLMError | None = None
    result: ChatResult | None = None


class ChatEngine:
    """Conversations with memory for one open profile.

    Args:
        profile: The open profile (its `memories`, settings, database for the chats).
        backend: The chat model.
        clock: Time source (the profile's by default).
        extractor: The batched LLM extractor (an `LLMExtractor` on `backend` by default).
        model: The chat model name (the settings' by default).
        runner: Where background work runs (a worker thread by default).
        idle_timer: Triggers extraction after `extraction_idle_seconds` without a turn.
        summarize_with_llm: Ask the model for rolling summaries (else extractive only).
    """

    def __init__(
        self,
        profile: Profile,
        backend: ChatBackend,
        *,
        clock: Clock | None = None,
        extractor: BatchExtractor | None = None,
        model: str | None = None,
        runner: BackgroundRunner | None = None,
        idle_timer: IdleTimer | None = None,
        summarize_with_llm: bool = True,
    ) -> None:
        self.profile = profile
        self.memories = profile.memories  # every memory read and write, and the write lock
        self.backend = backend
        self.settings = profile.settings
        self.clock = clock or profile.clock
        self.model = model or self.settings.chat_model
        self.extractor: BatchExtractor = extractor or LLMExtractor(backend, model=self.model, num_ctx=self.settings.num_ctx)
        self.summarizer = Summarizer(backend if summarize_with_llm else None, model=self.model, num_ctx=self.settings.num_ctx)
        self._history = ConversationStore(profile.db, profile.name)
        self.runner = runner or BackgroundRunner()
        self.idle_timer: IdleTimer = idle_timer or ThreadingIdleTimer()
        self.on_memory_changed: list[MemoryCallback] = []
        self.last_extraction: ExtractionOutcome | None = None
        self._flush_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._turns_since_flush: dict[str, int] = {}
        self._summarizing: set[str] = set()
        self._closed = False

    @property
    def history(self) -> ConversationStore:
        """The conversation store (rebuilt when `Profile.forget_me` reopened the database)."""
        if self._history.db is not self.profile.db:
            self._history = ConversationStore(self.profile.db, self.profile.name)
        return self._history

    # -- sessions -----------------------------------------------------------------------

    def new_session(self, *, temporary: bool = False, title: str = "") -> Session:
        """Start a chat; what earlier chats left for the LLM extractor is flushed first."""
        self._check_open()
        self.flush_extraction()
        return self.history.create_session(uuid.uuid4().hex, title, temporary, self._now_ts())

    def sessions(self) -> list[Session]:
        return self.history.sessions()

    def session(self, session_id: str) -> Session:
        return self.history.session(session_id)

    def rename_session(self, session_id: str, title: str) -> None:
        self.history.rename(session_id, title.strip()[:200], self._now_ts())

    def delete_session(self, session_id: str) -> None:
        """Delete a chat and its messages (with the vault items they referenced); memories stay."""
        with self.memories.lock:
            self.memories.delete_vault_items(self.history.delete(session_id))
        with self._state_lock:
            self._turns_since_flush.pop(session_id, None)

    def messages(self, session_id: str) -> list[StoredMessage]:
        return self.history.messages(session_id)

    def drop_empty_sessions(self) -> int:
        """Delete untitled chats that hold no message (opened and left); returns how many."""
        dropped = 0
        for session in self.history.sessions():
            if not session.title and not self.history.messages(session.id):
                self.history.delete(session.id)
                dropped += 1
        return dropped

    # -- one turn -------------------------------------------------------------------------

    def send(
        self,
        session_id: str,
        text: str,
        *,
        on_token: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> TurnResult:
        """Run one turn. Backend failures come back in `TurnResult.error`; the user's message is kept.

        Raises:
            InputError: The message is empty, or too long for the model's context
                (`MessageTooLong`): nothing was stored or sent.
        """
        self._check_open()
        if not text.strip():
            raise InputError("The message is empty.", "Type something to send.")
        text = storable(text)
        check_message_fits(
            text,
            lang=block_language(text, self.settings.language),
            num_ctx=self.settings.num_ctx,
            max_reply_tokens=self.settings.max_reply_tokens,
        )
        session = self.history.session(session_id)
        now = self.clock.now()
        use_memory = self.settings.memory_enabled and not session.temporary
        previous = self._last_assistant(session_id)

        if session.temporary:
            masked = self.memories.mask_known(text)  # no vault write: a temporary chat leaves nothing behind
        else:
            masked = self.memories.protect(text, now)
        user_message = self.history.add_message(session_id, "user", masked, to_ts(now))
        result = self._answer(session_id, user_message, now, use_memory, on_token, cancel)
        if use_memory:
            self._rule_extraction(text, now, session_id, user_message.id, previous, result)
            self._schedule_extraction(session_id)
        self._schedule_summary(session_id)
        return result

    def retry(
        self,
        session_id: str,
        user_message_id: int,
        *,
        on_token: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> TurnResult:
        """Answer a chat's last user message again, after its reply failed or was cut.

        The failed reply is deleted and a new one streamed; the message is not stored (nor
        sent) a second time, and what it taught was already remembered by the first try.

        Raises:
            NotFoundError: No such message in this chat.
            InputError: It is not the chat's last message, or it was answered in full.
        """
        self._check_open()
        messages = self.history.messages(session_id)
        position = next(
            (i for i, m in enumerate(messages) if m.id == user_message_id and m.role == "user"), None
        )
        if position is None:
            raise NotFoundError(f"No message #{user_message_id} in this chat.")
        later = messages[position + 1 :]
        if any(m.role == "user" for m in later):
            raise InputError(
                "Only the last message of a chat can be sent again.", "Send it as a new message."
            )
        if any(m.status == "complete" for m in later):
            raise InputError("This message was answered already.", "Send a new message instead.")
        for failed in later:
            self.history.delete_message(failed.id)
        session = self.history.session(session_id)
        use_memory = self.settings.memory_enabled and not session.temporary
        result = self._answer(
            session_id, messages[position], self.clock.now(), use_memory, on_token, cancel
        )
        self._schedule_summary(session_id)
        return result

    def _answer(
        self,
        session_id: str,
        user_message: StoredMessage,
        now: datetime,
        use_memory: bool,
        on_token: Callable[[str], None] | None,
        cancel: threading.Event | None,
    ) -> TurnResult:
        """Recall, prompt, stream and store the reply to a stored user message (with why each
        memory in its prompt was chosen)."""
        plan, hits = self._prepare(session_id, user_message.content, now, use_memory, user_message.id)
        reply = self._stream(plan.messages, plan.expected_tokens, on_token, cancel)
        status: MessageStatus = "partial" if reply.partial else ("error" if reply.error and not reply.text else "complete")
        by_id = {h.memory.id: h for h in hits}
        why = {i: why_of(by_id[i], user_message.content) for i in plan.injected_ids if i in by_id}
        assistant_message = self.history.add_message(
            session_id, "assistant", self.memories.mask_known(reply.text), to_ts(self.clock.now()),
            status=status, injected_ids=plan.injected_ids, injected_why=why,
        )
        return TurnResult(
            user_message_id=user_message.id,
            assistant_message_id=assistant_message.id,
            reply=reply.text,
            partial=reply.partial,
            injected=[by_id[i].memory for i in plan.injected_ids if i in by_id],
            injected_why=why,
            error=reply.error,
            truncated_prompt=bool(reply.result and reply.result.truncated_prompt),
            dropped_turns=plan.dropped_turns,
        )

    def prepare_prompt(
        self, session_id: str, text: str, now: datetime, *, use_memory: bool = True, exclude_id: int | None = None
    ) -> tuple[PromptPlan, list[Memory]]:
        """Recall and the budgeted prompt for `text` (masked) — the memory overhead of a turn.

        Returns the plan and the memories it could draw on (pinned first, then recalled).
        """
        plan, hits = self._prepare(session_id, text, now, use_memory, exclude_id)
        return plan, [h.memory for h in hits]

    def _prepare(
        self, session_id: str, text: str, now: datetime, use_memory: bool, exclude_id: int | None
    ) -> tuple[PromptPlan, list[Hit]]:
        """`prepare_prompt`, with the recall hits (why each memory was found)."""
        hits = self.memories.recall_hits(text, now, k=self.settings.recall_k) if use_memory else []
        memories = [h.memory for h in hits]
        summary, upto = self.history.summary(session_id)
        earlier: list[tuple[Role, str]] = [
            (_role(m.role), m.content)
            for m in self.history.messages(session_id)
            if m.id > upto and m.id != exclude_id and m.status != "error" and m.role in ("user", "assistant") and m.content
        ]
        plan = build_prompt(
            user_text=text,
            history=earlier,
            summary=summary,
            memories=memories,
            lang=block_language(text, self.settings.language),
            num_ctx=self.settings.num_ctx,
            max_reply_tokens=self.settings.max_reply_tokens,
            memory_token_budget=self.settings.recall_token_budget,
            tz=now.tzinfo,
        )
        if plan.dropped_turns or plan.summary_dropped:
            log.info(
                "prompt budget (num_ctx=%d): dropped %d turns, summary dropped=%s",
                self.settings.num_ctx, plan.dropped_turns, plan.summary_dropped,
            )
        return plan, hits

    def injected_for(self, message_id: int) -> list[Memory]:
        """The memories that were in the prompt of this reply (those that still exist)."""
        message = self.history.message(message_id)
        return self.memories.get_many(message.injected_ids)

    def memories_used(self, message_id: int) -> list[UsedMemory]:
        """`injected_for` with why each memory was chosen and where it came from (the chat
        and message it was said in, while they exist)."""
        message = self.history.message(message_id)
        return [
            UsedMemory(memory, message.injected_why.get(memory.id), self._origin(memory))
            for memory in self.memories.get_many(message.injected_ids)
        ]

    def _origin(self, memory: Memory) -> Origin:
        details = self.memories.details(memory.id)
        source, title = details.source, ""
        if source is not None:
            try:
                title = self.history.session(source.session_id).title
            except NotFoundError:  # its chat is being deleted
                source = None
        found = (source.session_id, source.id, source.created_at) if source is not None else None
        return origin_of(memory, details.history, found, title)

    # -- forgetting and undo ----------------------------------------------------------------

    def confirm_forget(self, memory_ids: list[int]) -> list[Change]:
        """Delete what a forget request matched, once the user confirmed."""
        changes = self.memories.confirm_forget(memory_ids)
        self._notify(changes)
        return changes

    def undo(self, change: Change) -> None:
        """Revert an ADD (delete it) or an UPDATE (delete the new one, restore the old)."""
        self.memories.undo(change)

    # -- LLM extraction ---------------------------------------------------------------------

    def flush_extraction(self, session_id: str | None = None) -> list[Change]:
        """Run the LLM extractor over every user message it has not read (of one session or all).

        Safe from any thread; concurrent calls run one after the other. When the model fails
        or answers badly twice, the batch falls back to the rule extractors (which already
        ran on each message) and the messages count as read.
        """
        if not self.settings.memory_enabled:
            return []
        with self._flush_lock:
            pending = self.history.pending_extraction(session_id)
            if not pending:
                return []
            now = self.clock.now()
            sources = [SourceMessage(m.id, m.session_id, m.content) for m in pending]
            outcome = self.extractor.extract(sources, now)
            self.last_extraction = outcome
            changes = self.memories.extracted(
                [(g.candidate, g.message.text, _turn_of(g.message)) for g in outcome.candidates],
                [(quote, _turn_of(message)) for message, quote in outcome.noise],
                now,
                then=lambda: self.history.mark_extracted([m.id for m in pending]),
            )
            with self._state_lock:
                for sid in {m.session_id for m in pending}:
                    self._turns_since_flush.pop(sid, None)
        stored = [c for c in changes if c.action in (Action.ADD, Action.UPDATE)]
        log.info(
            "LLM extraction: %d messages, %d candidates, %d stored, %d dropped%s",
            len(pending), len(outcome.candidates), len(stored), len(outcome.dropped),
            f", fell back to rules ({outcome.fallback_reason})" if outcome.fallback_reason else "",
        )
        self._notify(changes)
        return changes

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the background work queued so far is done (tests, shutdown)."""
        return self.runner.wait_idle(timeout)

    def close(self) -> None:
        """Flush pending extraction, stop background work, forget temporary chats."""
        if self._closed:
            return
        self.idle_timer.cancel()
        self.runner.close()
        self._closed = True
        try:
            self.flush_extraction()
        except MnemoError as exc:
            log.warning("extraction at close failed: %s", type(exc).__name__)
        finally:
            self.history.drop_temporary()

    def __enter__(self) -> ChatEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers ----------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("ChatEngine is closed")

    def _now_ts(self) -> float:
        return to_ts(self.clock.now())

    def _last_assistant(self, session_id: str) -> StoredMessage | None:
        for message in reversed(self.history.messages(session_id)):
            if message.role == "assistant":
                return message if message.status == "complete" else None
            if message.role == "user":
                return None
        return None

    def _stream(
        self,
        messages: Sequence[ChatMessage],
        expected: int,
        on_token: Callable[[str], None] | None,
        cancel: threading.Event | None,
    ) -> _Reply:
        reply = _Reply()
        parts: list[str] = []
        try:
            stream = self.backend.stream_chat(
                messages,
                model=self.model,
                num_ctx=self.settings.num_ctx,
                cancel=cancel,
                expected_prompt_tokens=expected,
            )
            with stream:
                for piece in stream:
                    parts.append(piece)
                    if on_token is not None:
                        on_token(piece)
            reply.result = stream.result
            reply.text = reply.result.text or "".join(parts)
            reply.partial = reply.result.partial
        except StreamInterrupted as exc:
            log.warning("reply cut: %s", exc.code)
            reply.text = exc.partial or "".join(parts)
            reply.partial = bool(reply.text)
            reply.error = exc
        except LLMError as exc:
            log.warning("reply failed: %s", exc.code)
            reply.text = "".join(parts)
            reply.partial = bool(reply.text)
            reply.error = exc
        return reply

    def _rule_extraction(
        self, text: str, now: datetime, session_id: str, message_id: int,
        previous: StoredMessage | None, result: TurnResult,
    ) -> None:
        turns = []
        if previous is not None:
            turns.append(Turn("assistant", previous.content, session_id=session_id, message_id=previous.id))
        turns.append(Turn("user", text, at=now, session_id=session_id, message_id=message_id))
        try:
            written = self.memories.remember(turns, now)
        except MnemoError as exc:
            log.warning("rule extraction failed: %s", type(exc).__name__)
            if result.error is None:
                result.error = exc
            return
        result.changes = written.changes
        result.forget_request = written.forget_requests[0] if written.forget_requests else None
        self._notify(written.changes)

    def _schedule_extraction(self, session_id: str) -> None:
        with self._state_lock:
            count = self._turns_since_flush.get(session_id, 0) + 1
            self._turns_since_flush[session_id] = count
        if count >= max(1, self.settings.extraction_every_turns):
            with self._state_lock:
                self._turns_since_flush[session_id] = 0
            self.runner.submit(lambda: self.flush_extraction(session_id))
        self.idle_timer.restart(float(self.settings.extraction_idle_seconds), self._on_idle)

    def _on_idle(self) -> None:
        if not self._closed:
            try:
                self.runner.submit(self.flush_extraction)
            except RuntimeError:  # closed meanwhile: close() flushes
                pass

    def _schedule_summary(self, session_id: str) -> None:
        keep = max(1, self.settings.recent_turns) * 2
        _summary, upto = self.history.summary(session_id)
        unsummarized = [m for m in self.history.messages(session_id) if m.id > upto]
        if len(unsummarized) <= keep + 2:
            return
        with self._state_lock:
            if session_id in self._summarizing:
                return
            self._summarizing.add(session_id)
        self.runner.submit(lambda: self._summarize(session_id))

    def _summarize(self, session_id: str) -> None:
        try:
            keep = max(1, self.settings.recent_turns) * 2
            previous, upto = self.history.summary(session_id)
            unsummarized = [m for m in self.history.messages(session_id) if m.id > upto]
            fold = unsummarized[:-keep]
            if not fold:
                return
            text = self.summarizer.summarize(previous, fold)
            self.history.set_summary(session_id, text, fold[-1].id)
        except NotFoundError:
            return  # the session was deleted meanwhile
        finally:
            with self._state_lock:
                self._summarizing.discard(session_id)

    def _notify(self, changes: list[Change]) -> None:
        if not any(c.action in (Action.ADD, Action.UPDATE, Action.DELETE) for c in changes):
            return
        for callback in list(self.on_memory_changed):
            callback(changes)


def _turn_of(message: SourceMessage) -> Turn:
    return Turn("user", message.text, session_id=message.session_id, message_id=message.id)


def _role(role: str) -> Role:
    return "assistant" if role == "assistant" else "user"

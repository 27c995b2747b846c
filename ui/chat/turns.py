"""One turn of the open chat, run on a worker: send a message, or retry the last one.

Retry answers the stored message again (`ChatEngine.retry`): the message is neither shown
nor stored nor sent twice. A message too long for the model's context is refused before it
leaves the box, with the sizes and what to do.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from assistant.chat.prompt import MessageTooLong, check_message_fits
from assistant.errors import InputError, MnemoError
from assistant.memory.api import block_language
from ui.chat.bubble import MessageBubble
from ui.i18n import tr

if TYPE_CHECKING:
    from assistant.chat.types import Session, TurnResult
    from ui.chat.view import ChatView
    from ui.core import Core
    from ui.display import VaultEntry

Work = Callable[[Callable[[str], None], threading.Event], "tuple[Session | None, TurnResult]"]
"""(on_token, cancel) -> (the session the turn created or None, its TurnResult)."""


class TokenBatch:
    """Groups streamed pieces on the worker so the GUI thread gets ~30 events a second, not hundreds."""

    def __init__(self, emit: Callable[[str], None], interval_s: float = 0.05) -> None:
        self._emit = emit
        self._interval = interval_s
        self._parts: list[str] = []
        self._last = time.monotonic()

    def add(self, piece: str) -> None:
        self._parts.append(piece)
        now = time.monotonic()
        if now - self._last >= self._interval:
            self.flush()
            self._last = now

    def flush(self) -> None:
        if self._parts:
            text, self._parts = "".join(self._parts), []
            self._emit(text)


class TurnRunner(QObject):
    """Runs the turns of `view`'s chat through `core`; tokens arrive by `core.bridge.token`."""

    def __init__(self, view: ChatView, core: Core) -> None:
        super().__init__(view)
        self._view = view
        self._core = core
        self._turn = 0
        self._abandoned = 0  # the last turn forget-me stopped (`abandon`)
        self._cancel: threading.Event | None = None
        self._streaming: MessageBubble | None = None
        # the last turn that got no whole reply: (chat, user bubble, reply bubble, text)
        self._failed: tuple[str | None, MessageBubble, MessageBubble | None, str] | None = None
        core.bridge.token.connect(self._on_token)

    @property
    def busy(self) -> bool:
        return self._cancel is not None

    @property
    def can_retry(self) -> bool:
        return self._failed is not None and not self.busy

    def remember_failed(
        self, session_id: str | None, user: MessageBubble, reply: MessageBubble | None
    ) -> None:
        self._failed = (session_id, user, reply, user.text)

    def forget_failed(self) -> None:
        self._failed = None

    def abandon(self) -> None:
        """Forget-me started: the reply stops, and what the turn ends with belongs to the
        profile being erased: it only ends the turn on screen (`ChatView.reset` clears it)."""
        self.stop()
        self._abandoned = self._turn
        self._streaming = None
        self._failed = None

    # -- starting ----------------------------------------------------------------------

    def send(self, text: str) -> bool:
        view, core = self._view, self._core
        engine = core.engine
        if self.busy or not core.is_open:
            return False
        if engine is None:
            view.show_info(tr("Chat is not available: the chat engine is not installed."))
            return False
        settings = core.settings
        try:
            check_message_fits(
                text,
                lang=block_language(text, settings.language),
                num_ctx=settings.num_ctx,
                max_reply_tokens=settings.max_reply_tokens,
            )
        except MessageTooLong as exc:
            view.error_banner.show_error(exc, can_retry=False)
            return False
        self._failed = None
        user = view.transcript.append("user", text)
        session_id, temporary = view.session_id, view.temporary

        def work(
            on_token: Callable[[str], None], cancel: threading.Event
        ) -> tuple[Session | None, TurnResult]:
            session, target = None, session_id
            if target is None:
                session = engine.new_session(temporary=temporary)
                target = session.id
            return session, engine.send(target, text, on_token=on_token, cancel=cancel)

        self._start(user, text, work, fresh=True)
        return True

    def retry(self) -> None:
        """Ask again for the reply that failed: once, for the message already on screen."""
        if self._failed is None or self.busy:
            return
        session_id, user, reply, text = self._failed
        view, engine = self._view, self._core.engine
        view.error_banner.clear()
        if reply is not None:
            view.transcript.remove(reply)
        if user.message_id is None or session_id is None or engine is None:
            # it never reached the chat's history: send it as the new message it still is
            view.transcript.remove(user)
            self._failed = None
            self.send(text)
            return
        message_id = user.message_id

        def work(
            on_token: Callable[[str], None], cancel: threading.Event
        ) -> tuple[Session | None, TurnResult]:
            return None, engine.retry(session_id, message_id, on_token=on_token, cancel=cancel)

        self._start(user, text, work, fresh=False)

    def stop(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def _start(self, user: MessageBubble, text: str, work: Work, *, fresh: bool) -> None:
        """Run `work` for `user`'s message (`fresh`: its bubble was made for this turn)."""
        view, core = self._view, self._core
        view.error_banner.clear()
        view.show_info("")
        self._turn += 1
        turn = self._turn
        cancel = threading.Event()
        self._cancel = cancel
        reply = view.transcript.append("assistant", "")
        self._streaming = reply
        self._set_running(True)
        bridge = core.bridge

        def turn_work() -> tuple[Session | None, TurnResult, dict[int, VaultEntry] | None]:
            batch = TokenBatch(lambda piece: bridge.token.emit(turn, piece))
            try:
                session, result = work(batch.add, cancel)
            finally:
                batch.flush()
            # what a new vault item is called, for the notice (one query, only when needed)
            vaulted = any("[vault #" in change.content for change in result.changes)
            return session, result, core.read_vault_entries() if vaulted else None

        core.run(
            turn_work,
            lambda out: self._finished(turn, user, reply, text, *out),
            lambda exc: self._failed_turn(turn, user, reply, text, exc, fresh=fresh),
        )

    # -- while it runs -----------------------------------------------------------------

    def _on_token(self, turn: int, piece: str) -> None:
        if turn == self._turn and self._streaming is not None:
            self._streaming.append(piece)

    def _set_running(self, running: bool) -> None:
        self._view.composer.set_running(running)
        if not running:
            self._cancel = None
            self._streaming = None

    # -- when it ends ------------------------------------------------------------------

    def _finished(
        self,
        turn: int,
        user: MessageBubble,
        reply: MessageBubble,
        text: str,
        session: Session | None,
        result: TurnResult,
        vault: dict[int, VaultEntry] | None,
    ) -> None:
        view = self._view
        if turn <= self._abandoned:
            self._end_abandoned(turn)
            view.reply_finished.emit(result)
            return
        if vault is not None:
            self._core.vault_entries = vault
        if session is not None:
            view.adopt_session(session)
        user.message_id = result.user_message_id
        reply.message_id = result.assistant_message_id
        self._set_running(False)
        kept: MessageBubble | None = reply
        if result.error is not None and not result.reply:
            view.transcript.remove(reply)
            kept = None
        else:
            reply.set_text(result.reply)
            reply.injected = list(result.injected)
            reply.set_injected(len(result.injected))
            if result.partial:
                reply.set_note(
                    tr("Stopped.") if result.error is None else tr("This reply was cut off.")
                )
        if result.error is not None:
            self._failed = (view.session_id, user, kept, text)
            view.error_banner.show_error(result.error)
        if result.truncated_prompt or result.dropped_turns:
            view.show_info(
                tr(
                    "This chat is longer than the model's context: its oldest messages were "
                    "left out of this reply's prompt."
                )
            )
        if result.changes:
            view.notice.show_changes(result.changes)
        if result.forget_request is not None and result.forget_request.matches:
            view.ask_forget(result.forget_request.matches)
        view.title_session(user.text)
        view.reply_finished.emit(result)

    def _failed_turn(
        self,
        turn: int,
        user: MessageBubble,
        reply: MessageBubble,
        text: str,
        exc: BaseException,
        *,
        fresh: bool,
    ) -> None:
        view = self._view
        if turn <= self._abandoned:
            self._end_abandoned(turn)
            if not isinstance(exc, MnemoError):
                self._core.bridge.report(exc)
            view.turn_failed.emit(exc)
            return
        self._set_running(False)
        view.transcript.remove(reply)
        if isinstance(
            exc, InputError
        ):  # refused, nothing stored: a new message goes back to the box
            if fresh:
                view.transcript.remove(user)
                if not view.input.toPlainText().strip():
                    view.input.setPlainText(text)
            view.error_banner.show_error(exc, can_retry=False)
        elif isinstance(exc, MnemoError):
            self._failed = (view.session_id, user, None, text)
            view.error_banner.show_error(exc)
        else:
            self._core.bridge.report(exc)
        view.turn_failed.emit(exc)

    def _end_abandoned(self, turn: int) -> None:
        if turn == self._turn:  # no turn started since (the window is disabled meanwhile)
            self._set_running(False)

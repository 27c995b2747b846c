"""The chat view: the transcript, the input with Send/Stop, and the turn it runs on a worker."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from assistant.errors import NotFoundError
from ui.chat.bubble import MessageBubble
from ui.chat.error_banner import ErrorBanner
from ui.chat.memories_used import MemoriesUsedDialog
from ui.chat.notice import MemoryNotice
from ui.chat.sessions import SessionListModel, SessionSidebar
from ui.chat.transcript import Transcript
from ui.dialogs import confirm
from ui.i18n import tr


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


class _Input(QPlainTextEdit):
    """Enter sends, Shift+Enter is a new line."""

    submitted = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if (
            event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.submitted.emit()
            return
        super().keyPressEvent(event)


class ChatView(QWidget):
    """Talks to `core.engine` on workers; tokens arrive through `core.bridge.token`."""

    reply_finished = Signal(object)  # TurnResult (also when it carries an error)
    turn_failed = Signal(object)  # the exception, when send itself raised
    transcript_loaded = Signal()  # an opened chat's newest messages are shown
    sessions_loaded = Signal()
    memories_changed = Signal()  # an action here changed memories (archive, delete, undo)

    def __init__(
        self, core: Any, sessions: SessionListModel, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._core = core
        self.session_id: str | None = None
        self._loading: str | None = None  # the chat whose messages are being fetched
        self.dialog: QWidget | None = None
        self._turn = 0
        self._cancel: threading.Event | None = None
        self._streaming: MessageBubble | None = None
        self._last_text = ""
        self._temporary = False  # the open chat is a temporary one
        self.sidebar = SessionSidebar(sessions)
        self._build()
        core.bridge.token.connect(self._on_token)
        core.bridge.memory_changed.connect(self.notice.show_changes)
        self.sidebar.new_requested.connect(self.new_session)
        self.sidebar.selected.connect(self.open_session)
        self.sidebar.rename_requested.connect(self.rename_session)
        self.sidebar.delete_requested.connect(self.delete_session)
        self.sidebar.temporary.toggled.connect(self._temporary_toggled)
        self.notice.undo_requested.connect(self.undo)
        self.error_banner.retry_requested.connect(self.retry)
        self.retranslate()

    def _build(self) -> None:
        self.transcript = Transcript()
        self.transcript.loaded.connect(self.transcript_loaded)
        self.transcript.memories_clicked.connect(self.show_memories_used)
        self.notice = MemoryNotice()
        self.error_banner = ErrorBanner()
        self.info = QLabel()
        self.info.setStyleSheet("color:#6b7280;")
        self.info.hide()
        self.input = _Input()
        self.input.setFixedHeight(72)
        self.input.submitted.connect(self.send_from_input)
        self.send_button = QPushButton()
        self.send_button.setDefault(True)
        self.send_button.clicked.connect(self.send_from_input)
        self.stop_button = QPushButton()
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.setEnabled(False)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        row = QHBoxLayout()
        row.addWidget(self.input, 1)
        row.addLayout(buttons)
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.notice)
        column.addWidget(self.transcript, 1)
        column.addWidget(self.error_banner)
        column.addWidget(self.info)
        column.addLayout(row)
        splitter = QSplitter()
        splitter.addWidget(self.sidebar)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([200, 700])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)

    def retranslate(self) -> None:
        self.send_button.setText(tr("Send"))
        self.stop_button.setText(tr("Stop"))
        self.input.setPlaceholderText(
            tr("Message Mnemo… (Enter to send, Shift+Enter for a new line)")
        )
        self.transcript.retranslate()
        self.sidebar.retranslate()
        self.notice.retranslate()
        self.error_banner.retranslate()

    def warm_up(self) -> None:
        """Build, lay out and paint one message off screen, once, at start-up.

        The first message costs 60–100 ms here: PySide sets up the Python side of Qt's text
        and widget classes lazily, fonts (bold, monospace, Chinese) load on first use, the style
        sheet is first applied. Paid now, that is not a stall in the middle of the first reply.
        """
        self.transcript.warm_up()

    @property
    def engine(self) -> Any:
        return self._core.engine

    @property
    def bubbles(self) -> list[MessageBubble]:
        """The open chat's messages as built so far, oldest first (see `Transcript`)."""
        return self.transcript.bubbles

    @property
    def busy(self) -> bool:
        return self._cancel is not None

    # -- sessions ----------------------------------------------------------------------

    def reload_sessions(self, select: str | None = None) -> None:
        engine = self.engine
        if engine is None:
            return

        def shown(sessions: list[Any]) -> None:
            self.sidebar.model.set_sessions(sessions)
            self.sidebar.select(select or self.session_id)
            self.sessions_loaded.emit()

        self._core.run(engine.sessions, shown)

    def new_session(self, temporary: bool = False) -> None:
        engine = self.engine
        if engine is None or self.busy:
            return

        def created(session: Any) -> None:
            self.session_id = session.id
            self._show_kind(session.temporary)
            self._clear_transcript()
            self.reload_sessions(session.id)

        self._core.run(lambda: engine.new_session(temporary=temporary), created)

    def _temporary_toggled(self, temporary: bool) -> None:
        """The toggle starts a chat of that kind: what is typed next never lands in a chat that
        is remembered when the user asked for one that is not (or the reverse)."""
        if self.busy:  # a reply is streaming: no new chat now, the toggle goes back
            self._show_kind(self._temporary)
        elif self.session_id is not None and temporary != self._temporary:
            self.new_session(temporary)

    def _show_kind(self, temporary: bool) -> None:
        """The open chat is (not) temporary: the toggle says so."""
        self._temporary = temporary
        self.sidebar.temporary.blockSignals(True)
        self.sidebar.temporary.setChecked(temporary)
        self.sidebar.temporary.blockSignals(False)

    def open_session(self, session_id: str) -> None:
        """Show a saved chat; `transcript_loaded` once its newest messages are on screen.

        The rows are fetched whole (cheap); the bubbles are built a few at a time by the
        transcript, newest first, and older ones as the user scrolls up.
        """
        engine = self.engine
        if engine is None or self.busy:
            return
        self.session_id = session_id
        self._loading = session_id

        def shown(messages: list[Any]) -> None:
            if self._loading == session_id:
                self._loading = None
            if session_id != self.session_id:  # another chat was opened (or this one deleted)
                return
            row = self.sidebar.model.row_of(session_id)
            self._show_kind(row >= 0 and self.sidebar.model.session(row).temporary)
            self.transcript.show_messages(messages)

        def failed(exc: BaseException) -> None:
            if self._loading == session_id:
                self._loading = None
            if not isinstance(exc, NotFoundError):
                self._core.bridge.report(exc)
            elif session_id == self.session_id:  # deleted meanwhile: nothing to show
                self.session_id = None
                self._clear_transcript()
                self.reload_sessions()

        self._core.run(lambda: engine.messages(session_id), shown, failed)

    def rename_session(self, session_id: str, title: str) -> None:
        engine = self.engine
        self._core.run(
            lambda: engine.rename_session(session_id, title), lambda _r: self.reload_sessions()
        )

    def delete_session(self, session_id: str) -> None:
        engine = self.engine

        def deleted(_result: object) -> None:
            if session_id == self.session_id:
                self.session_id = None
                self._clear_transcript()
            self.reload_sessions()

        self._core.run(lambda: engine.delete_session(session_id), deleted)

    def reset(self) -> None:
        """After forget-me: nothing of the old conversations stays on screen."""
        self.session_id = None
        self._clear_transcript()
        self.notice.hide()
        self.error_banner.hide()
        self.sidebar.model.set_sessions([])
        self.reload_sessions()

    # -- transcript --------------------------------------------------------------------

    def _clear_transcript(self) -> None:
        self.transcript.clear()

    def _add_bubble(self, role: str, text: str) -> MessageBubble:
        return self.transcript.append(role, text)

    # -- a turn ------------------------------------------------------------------------

    def send_from_input(self) -> None:
        text = self.input.toPlainText().strip()
        if text and self.send(text):
            self.input.clear()

    def send(self, text: str) -> bool:
        """Start a turn; False when one is running or chat is unavailable."""
        engine = self.engine
        if self.busy or not self._core.is_open:
            return False
        if self._loading is not None and self._loading == self.session_id:
            return False  # its messages are on their way: the new ones go after them
        if engine is None:
            self.info.setText(tr("Chat is not available: the chat engine is not installed."))
            self.info.show()
            return False
        self.error_banner.hide()
        self.info.hide()
        self._last_text = text
        self._turn += 1
        turn = self._turn
        cancel = threading.Event()
        self._cancel = cancel
        user = self._add_bubble("user", text)
        reply = self._add_bubble("assistant", "")
        self._streaming = reply
        self._set_running(True)
        session_id = self.session_id
        temporary = self.sidebar.temporary.isChecked()
        bridge = self._core.bridge

        def turn_work() -> tuple[Any, Any]:
            nonlocal session_id
            session = None
            if session_id is None:
                session = engine.new_session(temporary=temporary)
                session_id = session.id
            batch = TokenBatch(lambda piece: bridge.token.emit(turn, piece))
            try:
                result = engine.send(session_id, text, on_token=batch.add, cancel=cancel)
            finally:
                batch.flush()
            return session, result

        self._core.run(
            turn_work,
            lambda out: self._finished(turn, user, reply, *out),
            lambda exc: self._failed(turn, user, reply, exc),
        )
        return True

    def _on_token(self, turn: int, piece: str) -> None:
        if turn == self._turn and self._streaming is not None:
            self._streaming.append(piece)

    def stop(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def retry(self) -> None:
        if self._last_text:
            self.error_banner.hide()
            self.send(self._last_text)

    def _set_running(self, running: bool) -> None:
        self.stop_button.setEnabled(running)
        self.send_button.setEnabled(not running)
        if not running:
            self._cancel = None
            self._streaming = None

    def _finished(
        self, turn: int, user: MessageBubble, reply: MessageBubble, session: Any, result: Any
    ) -> None:
        if session is not None:
            self.session_id = session.id
            self._show_kind(session.temporary)
        user.message_id = result.user_message_id
        reply.message_id = result.assistant_message_id
        self._set_running(False)
        if result.error is not None and not result.reply:
            self._drop_bubble(reply)
            self.error_banner.show_error(result.error)
        else:
            reply.set_text(result.reply)
            reply.injected = list(result.injected)
            reply.set_injected(len(result.injected))
            if result.partial:
                reply.set_note(
                    tr("Stopped.") if result.error is None else tr("This reply was cut off.")
                )
            if result.error is not None:
                self.error_banner.show_error(result.error)
        if result.truncated_prompt:
            self.info.setText(
                tr(
                    "The conversation is longer than the model's context; older parts were left out."
                )
            )
            self.info.show()
        if result.changes:
            self.notice.show_changes(result.changes)
        if result.forget_request is not None and result.forget_request.matches:
            self.ask_forget(result.forget_request)
        self._title_session(user.text)
        self.reply_finished.emit(result)

    def _title_session(self, first_message: str) -> None:
        """A chat without a title is named after its first message (the user can rename it)."""
        row = self.sidebar.model.row_of(self.session_id)
        untitled = row < 0 or not self.sidebar.model.session(row).title
        engine, session_id = self.engine, self.session_id
        if untitled and session_id is not None:
            title = " ".join(first_message.split())[:40]
            self._core.run(
                lambda: engine.rename_session(session_id, title), lambda _r: self.reload_sessions()
            )
        else:
            self.reload_sessions()

    def _failed(
        self, turn: int, user: MessageBubble, reply: MessageBubble, exc: BaseException
    ) -> None:
        self._set_running(False)
        self._drop_bubble(reply)
        from assistant.errors import MnemoError

        if isinstance(exc, MnemoError):
            self.error_banner.show_error(exc)
        else:
            self._core.bridge.report(exc)
        self.turn_failed.emit(exc)

    def _drop_bubble(self, bubble: MessageBubble) -> None:
        self.transcript.remove(bubble)

    # -- memories ----------------------------------------------------------------------

    def show_memories_used(self, bubble: MessageBubble) -> None:
        def shown(memories: list[Any]) -> None:
            dialog = MemoriesUsedDialog(self._core, memories, self)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.changed.connect(self.memories_changed)
            self.dialog = dialog
            dialog.open()

        engine, message_id = self.engine, bubble.message_id
        if message_id is not None and engine is not None:
            # Re-read: a memory shown earlier may have been edited or deleted since.
            self._core.run(lambda: engine.injected_for(message_id), shown)
        else:
            shown(list(bubble.injected or []))

    def ask_forget(self, request: Any) -> None:
        items = "\n".join(f"• {m.content}" for m in request.matches[:10])
        ids = [m.id for m in request.matches]
        engine = self.engine

        def forget() -> None:
            self._core.run(
                lambda: engine.confirm_forget(ids), lambda _r: self.memories_changed.emit()
            )

        self.dialog = confirm(
            self,
            tr("Forget"),
            tr("Forget these memories?\n\n{items}", items=items),
            forget,
            action=tr("Forget"),
            destructive=True,
        )

    def undo(self, changes: list[Any]) -> None:
        engine = self.engine

        def undo_all() -> None:
            for change in changes:
                engine.undo(change)

        def done(_r: object) -> None:
            self.notice.hide()
            self.memories_changed.emit()

        self._core.run(undo_all, done)

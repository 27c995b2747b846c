"""The chat view: the sessions sidebar, the transcript, the composer, and the turn it runs on a
worker (`ui.chat.turns`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QSplitter, QVBoxLayout, QWidget

from assistant.chat.types import UsedMemory
from assistant.errors import MnemoError, NotFoundError
from assistant.memory.api import Origin
from ui.chat.bubble import MessageBubble
from ui.chat.composer import Composer
from ui.chat.error_banner import ErrorBanner
from ui.chat.memories_used import MemoriesUsedDialog
from ui.chat.notice import MemoryNotice
from ui.chat.sessions import SessionListModel, SessionSidebar
from ui.chat.transcript import Transcript
from ui.chat.turns import TurnRunner
from ui.dialogs import confirm
from ui.display import friendly
from ui.i18n import tr
from ui.theme import banner_style, muted_style, theme

if TYPE_CHECKING:
    from assistant.chat.engine import ChatEngine
    from assistant.chat.types import Session, StoredMessage
    from assistant.memory.types import Change, Memory
    from ui.core import Core


class NoReply(MnemoError):
    """A stored chat whose last message got no (whole) reply: shown with Retry."""


class ChatView(QWidget):
    """Talks to `core.engine` on workers; tokens arrive through `core.bridge.token`."""

    reply_finished = Signal(object)  # TurnResult (also when it carries an error)
    turn_failed = Signal(object)  # the exception, when send itself raised
    transcript_loaded = Signal()  # an opened chat's newest messages are shown
    sessions_loaded = Signal()
    title_changed = Signal(str)  # the open chat's title ("" for a new chat)

    def __init__(
        self, core: Core, sessions: SessionListModel, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._core = core
        self.session_id: str | None = None
        self._loading: str | None = None  # the chat whose messages are being fetched
        self.dialog: QWidget | None = None
        self._temporary = False  # the open (or next) chat is a temporary one
        self.sidebar = SessionSidebar(sessions)
        self._build()
        self.turns = TurnRunner(self, core)
        core.bridge.memory_changed.connect(self.notice.show_changes)
        core.forgetting.connect(self._on_forgetting)
        self.sidebar.new_requested.connect(self.new_session)
        self.sidebar.selected.connect(self.open_session)
        self.sidebar.rename_requested.connect(self.rename_session)
        self.sidebar.delete_requested.connect(self.delete_session)
        self.sidebar.temporary.toggled.connect(self._temporary_toggled)
        self.notice.undo_requested.connect(self.undo)
        self.error_banner.retry_requested.connect(self.retry)
        self.composer.submitted.connect(self.send_from_input)
        self.composer.stop_requested.connect(self.stop)
        theme.changed.connect(self._restyle)
        self.retranslate()

    def _build(self) -> None:
        self.transcript = Transcript()
        self.transcript.display = lambda text: friendly(text, self._core.vault_entries)
        self.transcript.loaded.connect(self.transcript_loaded)
        self.transcript.memories_clicked.connect(self.show_memories_used)
        self.temporary_banner = QFrame()
        self.temporary_banner.setObjectName("temporaryBanner")
        self.temporary_label = QLabel()
        self.temporary_label.setWordWrap(True)
        banner = QVBoxLayout(self.temporary_banner)
        banner.setContentsMargins(10, 6, 10, 6)
        banner.addWidget(self.temporary_label)
        self.temporary_banner.hide()
        self.notice = MemoryNotice()
        self.notice.display = self.transcript.display
        self.error_banner = ErrorBanner()
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.info.hide()
        self.composer = Composer()
        self.input = self.composer.input
        self.send_button = self.composer.send_button
        self.stop_button = self.composer.stop_button
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.temporary_banner)
        column.addWidget(self.notice)
        column.addWidget(self.transcript, 1)
        column.addWidget(self.error_banner)
        column.addWidget(self.info)
        column.addWidget(self.composer)
        self.splitter = QSplitter()
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([200, 700])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)
        self._restyle()

    def _restyle(self) -> None:
        self.temporary_banner.setStyleSheet(banner_style("temporaryBanner", "info", theme.colors))
        self.info.setStyleSheet(muted_style(theme.colors))

    def retranslate(self) -> None:
        self.composer.retranslate(temporary=self._temporary)
        self.temporary_label.setText(
            tr(
                "Temporary chat: it is not saved, and nothing in it is remembered or used from "
                "your memories. It is gone when you close Mnemo."
            )
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

    def set_available(self, available: bool) -> None:
        self.composer.set_available(available)

    @property
    def engine(self) -> ChatEngine | None:
        return self._core.engine

    @property
    def bubbles(self) -> list[MessageBubble]:
        """The open chat's messages as built so far, oldest first (see `Transcript`)."""
        return self.transcript.bubbles

    @property
    def busy(self) -> bool:
        return self.turns.busy

    @property
    def temporary(self) -> bool:
        """The open chat (or the next one, when none is open yet) is temporary."""
        return self._temporary

    # -- sessions ----------------------------------------------------------------------

    def reload_sessions(self, select: str | None = None) -> None:
        engine = self.engine
        if engine is None:
            return

        def shown(sessions: list[Session]) -> None:
            self.sidebar.model.set_sessions(sessions)
            self.sidebar.select(select or self.session_id)
            self.sessions_loaded.emit()
            self._announce_title()

        self._core.run(engine.sessions, shown)

    def new_session(self, temporary: bool = False) -> None:
        """An empty chat to write in. Nothing is stored until its first message is sent, so
        opening new chats and leaving them never piles up empty entries."""
        if self.engine is None or self.busy:
            return
        self._leave_chat()
        self.session_id = None
        self._show_kind(temporary)
        self.sidebar.list.clearSelection()
        self.sidebar.list.setCurrentIndex(self.sidebar.model.index(-1))
        self._announce_title()
        self.input.setFocus()

    def _temporary_toggled(self, temporary: bool) -> None:
        """The toggle starts a chat of that kind: what is typed next never lands in a chat that
        is remembered when the user asked for one that is not (or the reverse)."""
        if self.busy:  # a reply is streaming: no new chat now, the toggle goes back
            self._show_kind(self._temporary)
        elif temporary != self._temporary:
            self.new_session(temporary)

    def _show_kind(self, temporary: bool) -> None:
        """The open chat is (not) temporary: the toggle, a banner and the box say so."""
        self._temporary = temporary
        self.sidebar.temporary.blockSignals(True)
        self.sidebar.temporary.setChecked(temporary)
        self.sidebar.temporary.blockSignals(False)
        self.temporary_banner.setVisible(temporary)
        self.composer.retranslate(temporary=temporary)

    def _leave_chat(self) -> None:
        """What belonged to the chat on screen goes with it (a notice, an error, a hint)."""
        self.notice.clear()
        self.error_banner.clear()
        self.info.hide()
        self.turns.forget_failed()
        self.transcript.clear()

    def open_message(self, session_id: str, message_id: int) -> None:
        """Open a saved chat at one of its messages (a memory's source): the message is
        scrolled into view and briefly highlighted."""
        if self.engine is None:
            return
        if self.busy:  # the chat on screen is streaming a reply: it stays
            self.show_info(tr("A reply is on its way: open the message again when it is done."))
            return
        self.sidebar.select(session_id)
        if session_id == self.session_id and self._loading is None and self.transcript.reveal(message_id):
            return
        self.open_session(session_id, focus=message_id)

    def open_session(self, session_id: str, focus: int | None = None) -> None:
        """Show a saved chat; `transcript_loaded` once its newest messages are on screen.

        The rows are fetched whole (cheap); the bubbles are built a few at a time by the
        transcript, newest first, and older ones as the user scrolls up. With `focus`, the
        view goes to that message instead of the newest (see `Transcript.show_messages`).
        """
        engine = self.engine
        if engine is None or self.busy:
            return
        if session_id != self.session_id:
            self._leave_chat()
        self.session_id = session_id
        self._loading = session_id
        row = self.sidebar.model.row_of(session_id)
        self._show_kind(row >= 0 and self.sidebar.model.session(row).temporary)
        self._announce_title()

        def shown(messages: list[StoredMessage]) -> None:
            if self._loading == session_id:
                self._loading = None
            if session_id != self.session_id:  # another chat was opened (or this one deleted)
                return
            self.transcript.show_messages(messages, focus=focus)
            self._offer_retry(messages)

        def failed(exc: BaseException) -> None:
            if self._loading == session_id:
                self._loading = None
            if not isinstance(exc, NotFoundError):
                self._core.bridge.report(exc)
            elif session_id == self.session_id:  # deleted meanwhile: nothing to show
                self.session_id = None
                self._leave_chat()
                self.reload_sessions()

        self._core.run(lambda: engine.messages(session_id), shown, failed)

    def _offer_retry(self, messages: list[StoredMessage]) -> None:
        """A chat whose last message got no whole reply (Ollama was down when it was sent,
        the app was closed mid-reply) offers Retry, as it did when it happened."""
        if not messages:
            return
        last = messages[-1]
        unanswered = last.role == "user" or last.status in ("error", "partial")
        if not unanswered:
            return
        self.transcript.loaded.connect(
            self._retry_offer_ready, Qt.ConnectionType.SingleShotConnection
        )

    def _retry_offer_ready(self) -> None:
        bubbles = self.bubbles
        users = [b for b in bubbles if b.role == "user"]
        if not users:
            return
        reply = bubbles[-1] if bubbles[-1].role == "assistant" else None
        self.turns.remember_failed(self.session_id, users[-1], reply)
        self.error_banner.show_error(
            NoReply(
                tr("Your last message in this chat got no whole reply."),
                tr("Press Retry to ask again (check that Ollama is running)."),
            )
        )

    def rename_session(self, session_id: str, title: str) -> None:
        engine = self.engine
        if engine is None:
            return
        self._core.run(
            lambda: engine.rename_session(session_id, title), lambda _r: self.reload_sessions()
        )

    def delete_session(self, session_id: str) -> None:
        engine = self.engine
        if engine is None:
            return

        def deleted(_result: object) -> None:
            if session_id == self.session_id:
                self.session_id = None
                self._leave_chat()
            self.reload_sessions()

        self._core.run(lambda: engine.delete_session(session_id), deleted)

    def _on_forgetting(self, forgetting: bool) -> None:
        if forgetting:
            self.turns.abandon()  # the reply stops; forget-me waits for the turn to end

    def reset(self) -> None:
        """After forget-me: nothing of the old conversations stays on screen."""
        self.session_id = None
        self._leave_chat()
        self.sidebar.model.set_sessions([])
        self.reload_sessions()

    def title(self) -> str:
        """The open chat's title ("" for a chat not saved or named yet)."""
        row = self.sidebar.model.row_of(self.session_id)
        return self.sidebar.model.session(row).title if row >= 0 else ""

    def _announce_title(self) -> None:
        self.title_changed.emit(self.title())

    # -- a turn ------------------------------------------------------------------------

    def send_from_input(self) -> None:
        text = self.input.toPlainText().strip()
        if text and self.send(text):
            self.input.clear()

    def send(self, text: str) -> bool:
        """Start a turn; False when one is running, chat is unavailable or the message cannot
        be sent (then a banner says why, and the text stays in the box)."""
        if self._loading is not None and self._loading == self.session_id:
            return False  # its messages are on their way: the new ones go after them
        return self.turns.send(text)

    def stop(self) -> None:
        self.turns.stop()

    def retry(self) -> None:
        self.turns.retry()

    def show_info(self, text: str) -> None:
        self.info.setText(text)
        self.info.setVisible(bool(text))

    def adopt_session(self, session: Session) -> None:
        """The turn created the chat it was sent in: it is the open one now."""
        self.session_id = session.id
        self._show_kind(session.temporary)

    def title_session(self, first_message: str) -> None:
        """A chat without a title is named after its first message (the user can rename it)."""
        row = self.sidebar.model.row_of(self.session_id)
        untitled = row < 0 or not self.sidebar.model.session(row).title
        engine, session_id = self.engine, self.session_id
        if untitled and session_id is not None and engine is not None:
            title = " ".join(first_message.split())[:40]
            self._core.run(
                lambda: engine.rename_session(session_id, title), lambda _r: self.reload_sessions()
            )
        else:
            self.reload_sessions()

    # -- memories ----------------------------------------------------------------------

    def show_memories_used(self, bubble: MessageBubble) -> None:
        """The memories of a reply, why each was chosen, and where it came from."""

        def shown(used: list[UsedMemory]) -> None:
            dialog = MemoriesUsedDialog(self._core, used, self)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.source_requested.connect(self.open_message)
            self.dialog = dialog
            dialog.open()

        engine, message_id = self.engine, bubble.message_id
        if message_id is not None and engine is not None:
            # Re-read: a memory shown earlier may have been edited or deleted since.
            self._core.run(lambda: engine.memories_used(message_id), shown)
        else:  # a reply that was never stored
            shown([UsedMemory(m, None, Origin("unknown")) for m in bubble.injected or []])

    def ask_forget(self, matches: Sequence[Memory]) -> None:
        """Confirm what a "forget …" in a message matched, then delete it."""
        vault = self._core.vault_entries
        items = "\n".join(f"• {friendly(m.content, vault)}" for m in matches[:10])
        ids = [m.id for m in matches]
        engine = self.engine
        if engine is None:
            return

        def forget() -> None:
            self._core.run(lambda: engine.confirm_forget(ids))

        self.dialog = confirm(
            self,
            tr("Forget"),
            tr("Forget these memories?\n\n{items}", items=items),
            forget,
            action=tr("Forget"),
            destructive=True,
        )

    def undo(self, changes: list[Change]) -> None:
        engine = self.engine
        if engine is None:
            return

        def undo_all() -> None:
            for change in changes:
                engine.undo(change)

        def done(_r: object) -> None:
            self.notice.clear()

        self._core.run(undo_all, done)

"""The transcript: the messages of the open chat, oldest first, in a scroll area.

A saved chat can hold thousands of messages, and every bubble is a QTextBrowser that takes
milliseconds to build and lay out: 1,000 of them built at once froze the window for ~8.5 s.
So a chat opens at its newest messages, built newest first from a zero-interval timer for at
most `SLICE_S` a slice, which leaves the event loop free to lay out, paint and take input in
between; older ones are built a page at a time when the view comes near the top (by wheel,
keys or scroll bar).

Rows are grouped in pages, one widget each: a page added above moves the pages below it,
not every row (with 1,000 rows, moving them all took 50-100 ms a layout pass). Pages more
than a screen away from the view are hidden, keeping their place, so what Qt does per shown
widget stays small however long the chat is (hiding the 1,000 rows of a closed chat took
~35 ms). The rows of a closed chat are deleted a few a slice.

What grows above the view does not move what the user reads: the view stays at the bottom
when it was there, otherwise on the row that was at its top.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import cast

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from assistant.chat.types import StoredMessage
from ui.chat.bubble import WARM_UP_SAMPLE, MessageBubble
from ui.i18n import tr
from ui.theme import chat_style, muted_style, theme

FIRST_PAGE = 30
"""Messages built when a chat opens: more than a window shows, few enough to come at once."""

PAGE = 30
"""Older messages built each time the view comes near the top; one page widget holds them."""

SLICE_S = 0.006
"""Building time per event-loop slice; laying out and painting what was built comes on top."""

DELETE_ROWS = 4
"""Rows of a closed chat deleted per slice (a row takes ~0.8 ms to delete)."""

BOTTOM_SLACK_PX = 4
"""A view this close to the bottom is at the bottom: it follows new and growing messages."""

COLUMN_LINES = 42
"""The conversation's column is at most this many line heights wide (about 800 px at a
10 pt font, whatever the script: a CJK font's "average character" is twice a Latin one's),
centred: lines stay readable in a wide window, as in Jan or LM Studio."""

SIDE_MARGIN = 12
USER_INDENT = 56
"""A user's bubble never starts closer than this to the column's left edge."""

MESSAGE_SPACING = 16

HIGHLIGHT_MS = 2500
"""A message the user jumped to (a memory's source) stays highlighted this long."""


class Transcript(QScrollArea):
    """The bubbles of one chat; `bubbles` is in transcript order, the newest last."""

    loaded = Signal()  # the newest messages of the chat given to `show_messages` are built
    revealed = Signal(object)  # the MessageBubble scrolled to and highlighted (`reveal`)
    memories_clicked = Signal(object)  # the MessageBubble whose "memories used" was clicked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bubbles: list[MessageBubble] = []
        self._pages: list[QWidget] = []  # top to bottom; each holds rows in a QVBoxLayout
        self._older: list[StoredMessage] = []  # not built yet, oldest first
        self._to_build = 0  # of `_older`, how many the page being built still takes
        self._first_page = False  # the page being built is the chat's first: `loaded` follows
        self._discarded: list[QWidget] = []  # pages of a cleared chat, deleted a few rows a slice
        self._view_moved = False  # pages to show and older messages to build are due
        self._at_bottom = True
        self._anchor: QWidget | None = None  # the row kept in place when not at the bottom
        self._anchor_offset = 0  # its distance below the top of the view
        self._adjusting = False  # the scroll value is being set here, not by the user
        self.display: Callable[[str], str] = lambda text: text  # stored text → shown text
        content = QWidget()
        content.setObjectName("transcriptContent")
        content.setStyleSheet(chat_style(theme.colors))
        theme.changed.connect(self._restyle)
        self._layout = QVBoxLayout(content)
        self._layout.setSpacing(MESSAGE_SPACING)
        self._layout.setContentsMargins(SIDE_MARGIN, 12, SIDE_MARGIN, 12)
        # The content takes its new height while it is laid out, and the scroll range with
        # it: the view is put back in place before anything can be painted.
        self._layout.setSizeConstraint(QVBoxLayout.SizeConstraint.SetMinimumSize)
        self.empty_label = QLabel()
        self.empty_label.setObjectName("transcriptEmpty")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setStyleSheet(muted_style(theme.colors, size_px=15))
        self._layout.addWidget(self.empty_label)
        self._layout.addStretch(1)
        self.setWidgetResizable(True)
        self.setWidget(content)
        self._content = content
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._range_changed)
        bar.valueChanged.connect(self._scrolled)
        self._timer = QTimer(self)
        self._timer.setObjectName("transcript work")
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._work)
        self._focus: int | None = None  # the message to reveal once its page is built
        self.highlighted: MessageBubble | None = None
        self._highlight_timer = QTimer(self)
        self._highlight_timer.setObjectName("transcript highlight")
        self._highlight_timer.setSingleShot(True)
        self._highlight_timer.setInterval(HIGHLIGHT_MS)
        self._highlight_timer.timeout.connect(self._unhighlight)

    def _restyle(self) -> None:
        self._content.setStyleSheet(chat_style(theme.colors))
        self.empty_label.setStyleSheet(muted_style(theme.colors, size_px=15))

    @property
    def column_width(self) -> int:
        """The widest the conversation's column gets (see `COLUMN_LINES`)."""
        return self.fontMetrics().height() * COLUMN_LINES

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        """Centre the column: what is left beside it becomes margin (once per resize, not per
        message: the rows themselves keep no Python size logic)."""
        super().resizeEvent(event)
        side = max(SIDE_MARGIN, (self.viewport().width() - self.column_width) // 2)
        margins = self._layout.contentsMargins()
        if margins.left() != side:
            self._layout.setContentsMargins(side, margins.top(), side, margins.bottom())

    def retranslate(self) -> None:
        self.empty_label.setText(
            tr("Ask anything. Mnemo remembers what matters and shows what it used.")
        )
        for bubble in self.bubbles:
            bubble.retranslate()

    def warm_up(self) -> None:
        """Build, lay out and paint one message off screen (see `ChatView.warm_up`)."""
        bubble = MessageBubble("assistant", WARM_UP_SAMPLE, self._content)  # styled, never shown
        bubble.resize(400, 200)
        bubble.grab()
        bubble.deleteLater()

    @property
    def unbuilt(self) -> int:
        """Older messages of the chat not built yet (built as the view nears the top)."""
        return len(self._older)

    @property
    def building(self) -> bool:
        """A page of messages is being built."""
        return self._to_build > 0

    @property
    def pending(self) -> bool:
        """A page is being built, or the view moved and the next slice follows it."""
        return self._to_build > 0 or self._view_moved

    # -- contents ----------------------------------------------------------------------

    def show_messages(self, messages: Sequence[StoredMessage], focus: int | None = None) -> None:
        """Show a saved chat: its newest messages soon, at the bottom; older ones on the way up.

        With `focus` (a message id), the first page reaches back to that message, and the
        view goes to it once built (`reveal`).
        """
        self.clear()
        self._older = list(messages)
        self._first_page = True
        ids = [m.id for m in messages]
        self._focus = focus if focus in ids else None
        first = FIRST_PAGE if self._focus is None else max(FIRST_PAGE, len(ids) - ids.index(self._focus))
        self._start_page(first)

    def reveal(self, message_id: int) -> bool:
        """Scroll to a built message and highlight it for a moment; False if it is not built."""
        bubble = next((b for b in self.bubbles if b.message_id == message_id), None)
        row = bubble.parentWidget() if bubble is not None else None
        if bubble is None or row is None:
            return False
        self._unhighlight()
        # Kept in place as the rows around it are laid out (`_range_changed`).
        self._at_bottom, self._anchor, self._anchor_offset = False, row, MESSAGE_SPACING
        self._scroll_to(self._top(row) - MESSAGE_SPACING)
        self.highlighted = bubble
        bubble.set_highlighted(True)
        self._highlight_timer.start()
        self._view_changed()
        self.revealed.emit(bubble)
        return True

    def _unhighlight(self) -> None:
        self._highlight_timer.stop()
        if self.highlighted is not None and self.highlighted in self.bubbles:
            self.highlighted.set_highlighted(False)
        self.highlighted = None

    def append(self, role: str, text: str) -> MessageBubble:
        """A new message at the bottom; the view goes there and follows it."""
        if not self._pages:
            self._pages.append(self._new_page(self._layout.count() - 1))  # before the stretch
        bubble = self._add_row(self._pages[-1], -1, role, text)
        self.bubbles.append(bubble)
        self._at_bottom = True
        self._scroll_to(self.verticalScrollBar().maximum())
        self._view_changed()
        return bubble

    def remove(self, bubble: MessageBubble) -> None:
        if bubble in self.bubbles:
            self.bubbles.remove(bubble)
            if bubble.parentWidget() is self._anchor:
                self._anchor = None
            bubble.deleteLater()  # its row follows (see `_add_row`)

    def clear(self) -> None:
        """Nothing on screen at once; the rows are deleted a few a slice (see `_delete_some`)."""
        self._older, self._to_build, self._first_page = [], 0, False
        self._unhighlight()
        for page in self._pages:
            self._layout.removeWidget(page)
            page.hide()
        self._discarded += self._pages
        self._pages, self.bubbles = [], []
        self._at_bottom, self._anchor = True, None
        self.empty_label.show()
        self._schedule()

    # -- building ----------------------------------------------------------------------

    def _schedule(self) -> None:
        if (self._to_build or self._discarded or self._view_moved) and self.isVisible():
            self._timer.start()
        else:
            self._timer.stop()

    def _work(self) -> None:
        """One slice: follow the view; build some of a page, else delete some rows of a
        closed chat."""
        deadline = time.perf_counter() + SLICE_S
        if self._view_moved:
            self._view_moved = False
            self._show_pages_near_view()
            self._load_older_if_near_top()
        if self._to_build:
            while self._to_build:
                self._prepend(self._older.pop())
                self._to_build -= 1
                if time.perf_counter() >= deadline:
                    break
            if not self._to_build:
                self._page_built()
        elif self._discarded:
            self._delete_some(self._discarded[-1])
        self._schedule()

    def _delete_some(self, page: QWidget) -> None:
        """Delete a few rows of a discarded page (a page of 30 at once took ~25 ms)."""
        rows = cast(QVBoxLayout, page.layout())
        for _ in range(min(DELETE_ROWS, rows.count())):
            item = rows.takeAt(rows.count() - 1)
            if item is not None and (row := item.widget()) is not None:
                row.deleteLater()
        if not rows.count():
            self._discarded.remove(page)
            page.deleteLater()

    def _start_page(self, size: int) -> None:
        self._to_build = min(size, len(self._older))
        if self._to_build:
            self.empty_label.hide()
            self._pages.insert(0, self._new_page(1))  # after the (hidden) empty label
            self._schedule()
        else:
            self._page_built()

    def _page_built(self) -> None:
        if self._first_page:
            self._first_page = False
            if self._focus is not None:
                self.reveal(self._focus)
                self._focus = None
            self.loaded.emit()
        self._load_older_if_near_top()

    def _prepend(self, message: StoredMessage) -> None:
        bubble = self._add_row(self._pages[0], 0, message.role, message.content)
        bubble.message_id = message.id
        if message.role == "assistant":
            bubble.set_injected(len(message.injected_ids))
            if message.status == "partial":
                bubble.set_note(tr("This reply was cut off."))
            elif message.status == "error" and not message.content:
                bubble.set_failed()
        self.bubbles.insert(0, bubble)

    def _new_page(self, index: int) -> QWidget:
        page = QWidget()
        policy = page.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # a page hidden far from the view keeps its place
        page.setSizePolicy(policy)
        rows = QVBoxLayout(page)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.setSpacing(self._layout.spacing())
        self._layout.insertWidget(index, page)
        page.show()  # now: hidden from here on means hidden by `_show_pages_near_view`
        return page

    def _show_pages_near_view(self) -> None:
        """Show the pages within a screen of the view, hide the others (see the top)."""
        top, height = self.verticalScrollBar().value(), self.viewport().height()
        focus = QApplication.focusWidget()
        for index, page in enumerate(self._pages):
            area = page.geometry()
            keep = (
                (area.bottom() >= top - height and area.top() <= top + 2 * height)
                or (index == 0 and self._to_build > 0)  # being built
                or (focus is not None and page.isAncestorOf(focus))  # hiding moves the focus
            )
            if page.isHidden() == keep:
                page.setVisible(keep)

    def _view_changed(self) -> None:
        """The view or the content moved: the next slice shows the pages near the view and
        builds older messages if it is near the top (not from inside the scroll bar's
        signals: both lay out the content, which changes the scroll range again)."""
        self._view_moved = True
        self._schedule()

    def _add_row(self, page: QWidget, index: int, role: str, text: str) -> MessageBubble:
        """A bubble in a row of `page`: a user's on the right, as wide as its longest line;
        a reply across the column."""
        bubble = MessageBubble(role, text, shown=self.display(text) if role == "user" else None)
        bubble.memories_clicked.connect(lambda b=bubble: self.memories_clicked.emit(b))
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        if role == "user":
            layout.addSpacing(USER_INDENT)
            layout.addStretch(1)
            natural = bubble.natural_width()
            if natural is not None:
                bubble.setMaximumWidth(natural)
            bubble.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
            layout.addWidget(bubble, 100)
        else:
            layout.addWidget(bubble)
        bubble.destroyed.connect(row.deleteLater)
        cast(QVBoxLayout, page.layout()).insertWidget(index, row)
        self.empty_label.hide()
        return bubble

    def _load_older_if_near_top(self) -> None:
        bar = self.verticalScrollBar()
        near_top = bar.value() - bar.minimum() <= bar.pageStep() // 2
        if near_top and self._older and not self._to_build:
            self._start_page(PAGE)

    # -- keeping the view in place -----------------------------------------------------

    def _scrolled(self, value: int) -> None:
        if self._adjusting:
            return
        bar = self.verticalScrollBar()
        self._at_bottom = value >= bar.maximum() - BOTTOM_SLACK_PX
        self._anchor = None if self._at_bottom else self._row_at(value)
        if self._anchor is not None:
            self._anchor_offset = self._top(self._anchor) - value
        self._view_changed()

    def _range_changed(self, _low: int, high: int) -> None:
        """Content was added, removed or resized: keep the bottom, or the anchor row, in view."""
        if self._at_bottom:
            self._scroll_to(high)
        elif self._anchor is not None:
            self._scroll_to(self._top(self._anchor) - self._anchor_offset)
        self._view_changed()

    def _scroll_to(self, value: int) -> None:
        self._adjusting = True
        try:
            self.verticalScrollBar().setValue(value)
        finally:
            self._adjusting = False

    def _top(self, row: QWidget) -> int:
        return int(row.mapTo(self._content, QPoint(0, 0)).y())

    def _row_at(self, y: int) -> QWidget | None:
        """The shown row at height `y` of the content, or the first shown one below it.

        Rows built since the last layout pass are not shown yet and sit at no real place.
        """
        for page in self._pages:
            if page.isHidden() or page.geometry().bottom() < y:
                continue
            rows = cast(QVBoxLayout, page.layout())
            for index in range(rows.count()):
                item = rows.itemAt(index)
                row = item.widget() if item is not None else None
                if row is not None and row.isVisible() and page.y() + row.geometry().bottom() >= y:
                    return row
        return None

    # -- shown or not ------------------------------------------------------------------

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 - Qt's name
        """Nothing is built while hidden (a hidden widget is not laid out: building would pile
        up one long layout pass for when it is shown); this also stops the timer at close."""
        self._timer.stop()
        self._unhighlight()
        super().hideEvent(event)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self._schedule()

"""The text of a message: Qt's own Markdown renderer in a QTextBrowser that grows to fit.

Measured on 150 lines of Markdown: a word-wrapped rich-text QLabel took ~600 ms to lay out,
a QTextBrowser ~35 ms. A streamed reply is not re-rendered whole on every update either:
complete blocks are appended once (see `ui.chat.blocks`) and only the unfinished last part
is replaced, so an update costs what the new text costs, however long the reply already is.

No Python overrides of Qt virtuals here (sizeHint, resizeEvent): the layout calls them for
every message on every pass, and each call from C++ must take the GIL, which a busy worker
thread can hold for a whole switch interval.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QFontDatabase,
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFormat,
)
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

from ui.chat.blocks import BlockSplitter
from ui.theme import CODE_BACKGROUND

MESSAGE_FONT_SCALE = 1.1
"""Messages are read, not scanned: their text is a step larger than the window's labels."""


class MessageText(QTextBrowser):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setOpenLinks(False)
        font = self.font()
        font.setPointSizeF(font.pointSizeF() * MESSAGE_FONT_SCALE)  # a little larger than the UI
        self.setFont(font)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.document().setUndoRedoEnabled(False)
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self._splitter = BlockSplitter()
        self._committed = 0  # characters of the streamed text rendered as complete blocks
        self._ends: dict[int, int] = {}  # committed length → document position after it
        self._tail_at: int | None = None  # document position where the unfinished part starts
        self._fit()

    def _fit(self, *_args: object) -> None:
        height = int(self.document().size().height()) + 4
        if self.height() != height:
            self.setFixedHeight(height)

    # -- whole texts -------------------------------------------------------------------

    def set_markdown(self, text: str) -> None:
        """Render `text` whole (a stored message, or a reply that changed after streaming)."""
        self._reset_stream()
        self.setMarkdown(text)
        if _may_hold_code(text):
            _style_code_blocks(self.document().begin())

    def set_plain(self, text: str) -> None:
        """Show `text` as typed: every line break kept, nothing read as Markdown (a user's
        message: "a\nb" is two lines, "*x*" is not italics)."""
        self._reset_stream()
        self.setPlainText(text)

    # -- streaming ---------------------------------------------------------------------

    def show_stream(self, text: str) -> None:
        """Show `text`, a longer version of what was shown: complete blocks are rendered
        once, the unfinished rest is replaced."""
        cut = self._splitter.feed(text)
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        self._drop_tail(cursor)
        if cut > self._committed:
            self._append(cursor, text[self._committed : cut])
            self._committed = cut
            cursor.movePosition(QTextCursor.MoveOperation.End)
            self._ends[cut] = cursor.position()
        self._tail_at = self._ends.get(self._committed)
        self._append(cursor, text[self._committed :])
        cursor.endEditBlock()

    def end_stream(self, text: str) -> None:
        """The stream ended with `text`: render what is left, exactly as a whole render would."""
        forced_from = self._splitter.forced_from
        if forced_from is None:
            self.show_stream(text)
        else:
            # A cut was made inside a block after `forced_from`: render again, as one part,
            # from the last part shown that ends there or before (all of it, if none does).
            exact = max((end for end in self._ends if end <= forced_from), default=0)
            if not exact:
                self.set_markdown(text)
                return
            self._committed, self._tail_at = exact, self._ends[exact]
            cursor = QTextCursor(self.document())
            cursor.beginEditBlock()
            self._drop_tail(cursor)
            self._append(cursor, text[exact:])
            cursor.endEditBlock()
        self._reset_stream()

    def _reset_stream(self) -> None:
        self._splitter = BlockSplitter()
        self._committed = 0
        self._ends.clear()
        self._tail_at = None

    def _drop_tail(self, cursor: QTextCursor) -> None:
        if self._tail_at is None:
            return
        cursor.setPosition(self._tail_at)
        kept = _formats(cursor.block())  # the merged block would take the last removed one's
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        _restore(cursor.block(), kept)

    def _append(self, cursor: QTextCursor, markdown: str) -> None:
        """Render `markdown` as blocks after the document's last block (or as its first ones)."""
        if not markdown.strip():
            if self._tail_at is None and not self._committed:
                self.document().clear()
            return
        if self._tail_at is None and not self._committed:
            self.document().setMarkdown(markdown)  # the first blocks: nothing to append to
            if _may_hold_code(markdown):
                _style_code_blocks(self.document().begin())
            return
        part = QTextDocument()
        part.setMarkdown(markdown)
        first = part.begin()
        # A fragment's first block merges into the block at the cursor and loses its own
        # format (margins, heading level): give it an empty block of its own to merge into.
        QTextCursor(part).insertBlock(first.blockFormat(), first.charFormat())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        last = cursor.block()
        kept = _formats(last)  # an empty last block (after a table) would take the fragment's
        cursor.insertFragment(QTextDocumentFragment(part))
        _restore(last, kept)
        if _may_hold_code(markdown):
            _style_code_blocks(last.next())


def _formats(block: QTextBlock) -> tuple[QTextBlockFormat, QTextCharFormat]:
    return block.blockFormat(), block.charFormat()


def _restore(block: QTextBlock, formats: tuple[QTextBlockFormat, QTextCharFormat]) -> None:
    if (block.blockFormat(), block.charFormat()) != formats:
        cursor = QTextCursor(block)
        cursor.setBlockFormat(formats[0])
        cursor.setBlockCharFormat(formats[1])


def _may_hold_code(markdown: str) -> bool:
    """Whether `markdown` can contain a code block (styling walks every block: skip it if not)."""
    return "```" in markdown or "~~~" in markdown or "    " in markdown or "\t" in markdown


def _style_code_blocks(block: QTextBlock) -> None:
    """Give fenced and indented code from `block` on a background and a fixed-pitch font."""
    fixed: str | None = None
    while block.isValid():
        fmt = block.blockFormat()
        if fmt.hasProperty(QTextFormat.Property.BlockCodeFence) or fmt.hasProperty(
            QTextFormat.Property.BlockCodeLanguage
        ):
            if fixed is None:
                fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
            cursor = QTextCursor(block)
            shade = QTextBlockFormat()
            shade.setBackground(CODE_BACKGROUND)
            cursor.mergeBlockFormat(shade)
            cursor.select(QTextCursor.SelectionType.BlockUnderCursor)
            font = QTextCharFormat()
            font.setFontFamilies([fixed])
            cursor.mergeCharFormat(font)
        block = block.next()

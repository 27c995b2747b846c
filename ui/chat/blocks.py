"""Where a growing Markdown text can be cut so that its first part is complete blocks.

A streamed reply is rendered block by block: what lies before the cut is rendered once and
never again, only the unfinished rest is re-rendered as more text arrives. A cut is *safe*
at a blank line outside a code fence when the next line starts a block that cannot belong to
the one before (not a list item, an indented line or a table row): the two parts then render
exactly as the whole does. A long stretch with no blank line may be cut at a line start instead: between two
items of a tight list that renders the same (two lists, looking like one); inside a paragraph
it does not (a soft line break becomes a paragraph break), so after such a *forced* cut the
caller renders the text from the last exact cut before it once more, whole, at the end.
"""

from __future__ import annotations

import re

FORCE_AFTER = 2000
"""Characters of unfinished text after which a line start is used as a (forced) cut."""

_LIST_ITEM = re.compile(r"[-*+](\s|$)|\d{1,9}[.)](\s|$)")


class BlockSplitter:
    """Feed it the whole text so far (each call a longer version); read `cut` and `forced_from`."""

    def __init__(self) -> None:
        self.cut = 0  # text[:cut] is complete blocks
        self.forced_from: int | None = (
            None  # the cut before the first forced one: exact up to there
        )
        self._scanned = 0  # text[:_scanned] is complete lines already looked at
        self._fence = ""  # the open code fence's marker, "" outside one
        self._blank_before = False
        self._line_cut = 0  # the last line start usable for a cut in a long block
        self._line_cut_exact = False  # it lies between two items of a tight list
        self._previous = ""  # the line before the one being looked at

    def feed(self, text: str) -> int:
        """Scan the complete lines not seen yet; return the cut."""
        while (end := text.find("\n", self._scanned)) >= 0:
            start, line = self._scanned, text[self._scanned : end]
            self._scanned = end + 1
            previous, self._previous = self._previous, line
            blank = not line.strip()
            if self._fence:
                if _closes(line, self._fence):
                    self._fence = ""
                continue
            if not blank:
                if self._blank_before and _starts_a_chunk(line):
                    self.cut = start
                elif start > self.cut and not line[:1].isspace() and not line.startswith("|"):
                    self._line_cut = start
                    self._line_cut_exact = _same_list(previous, line)
                self._fence = _opens(line)
            self._blank_before = blank
        if len(text) - self.cut > FORCE_AFTER and self._line_cut > self.cut:
            if not self._line_cut_exact and self.forced_from is None:
                self.forced_from = self.cut
            self.cut = self._line_cut
        return self.cut

    @property
    def forced(self) -> bool:
        """A cut was made inside a block: what follows `forced_from` must be rendered again whole."""
        return self.forced_from is not None


def _starts_a_chunk(line: str) -> bool:
    return not line[:1].isspace() and not line.startswith("|") and not _LIST_ITEM.match(line)


def _same_list(previous: str, line: str) -> bool:
    """Both lines are top-level items of one tight list (same marker kind)."""
    before, after = _LIST_ITEM.match(previous), _LIST_ITEM.match(line)
    if before is None or after is None:
        return False
    ordered = previous[0].isdigit(), line[0].isdigit()
    if ordered[0] != ordered[1]:
        return False
    if ordered[0]:  # "1." and "2)" start different lists
        return before.group(0).rstrip()[-1] == after.group(0).rstrip()[-1]
    return previous[0] == line[0]


def _opens(line: str) -> str:
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return ""
    for char in "`~":
        if stripped.startswith(char * 3):
            return char * (len(stripped) - len(stripped.lstrip(char)))
    return ""


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}

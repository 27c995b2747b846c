"""A streamed reply, rendered block by block, ends up exactly as the whole text rendered at once."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ui.chat.blocks import FORCE_AFTER, BlockSplitter
from ui.chat.message_text import MessageText

SAMPLES = {
    "paragraphs": "\n\n".join(
        f"Paragraph {i}: some **bold**, some *italic* and `code`." for i in range(30)
    ),
    "mixed": (
        "# Title\n\nIntro with **bold** and a soft\nbreak.\n\n- item one\n- item two\n\n"
        "1. first\n\n2. second\n\n```python\ndef f():\n\n    return 1\n```\n\n> a quote\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\nFinal words with a [link](http://example.org).\n\n## Sub\n\n"
        "3. third starts at three\n\n    indented code\n\n~~~\nfence ~~~ inside\n~~~\n\nThe end."
    ),
    "chinese": "你好！我记得你住在杭州。\n\n你喜欢喝**龙井茶**。\n\n- 项目笔记在蓝色文件夹里\n- 截止日期是周五",
    "table first": "| k | v |\n|---|---|\n| a | 1 |\n\nAfter the table.",
    "one long paragraph": "\n".join(
        f"Line {i}: here is **more** text, with `code`." for i in range(120)
    ),
    "paragraphs, then a long one": "\n\n".join(f"Paragraph {i} with **bold**." for i in range(10))
    + "\n\n"
    + "\n".join(f"Line {i}: more *text* and `code`." for i in range(120))
    + "\n\n```\ncode\n```\n\nThe end.",
    "long tight list": "Steps:\n"
    + "\n".join(f"- step {i} of the plan, with *emphasis*" for i in range(90))
    + "\n\nDone.",
    "long numbered list": "\n".join(
        f"{i + 1}. step {i + 1} of the plan, with `code`" for i in range(90)
    )
    + "\n\nDone.",
}


def structure(text_widget: MessageText) -> list[tuple[Any, ...]]:
    """What the reader sees, block by block: formats, list style and number, styled runs of text."""
    out = []
    block = text_widget.document().begin()
    while block.isValid():
        fmt = block.blockFormat()
        listed = block.textList()
        runs = []
        fragments = block.begin()
        while not fragments.atEnd():
            char = fragments.fragment().charFormat()
            runs.append(
                (
                    fragments.fragment().text(),
                    char.fontWeight(),
                    char.fontItalic(),
                    char.fontFixedPitch(),
                    tuple(char.fontFamilies() or ()),
                    char.isAnchor(),
                )
            )
            fragments += 1
        out.append(
            (
                block.text(),
                fmt.topMargin(),
                fmt.bottomMargin(),
                fmt.headingLevel(),
                fmt.indent(),
                fmt.background().color().name(),
                listed.format().style() if listed else None,
                listed.itemText(block) if listed else None,
                runs,
            )
        )
        block = block.next()
    return out


def streamed(qtbot: Any, text: str, seed: int) -> MessageText:
    widget = MessageText()
    qtbot.addWidget(widget)
    widget.resize(500, 100)
    widget.set_markdown("…")
    rng = random.Random(seed)
    at = 0
    while at < len(text):
        at = min(len(text), at + rng.randint(1, 40))
        widget.show_stream(text[:at])
    widget.end_stream(text)
    return widget


@pytest.mark.parametrize("name", list(SAMPLES))
def test_streamed_rendering_equals_the_whole(qtbot: Any, name: str) -> None:
    text = SAMPLES[name]
    whole = MessageText()
    qtbot.addWidget(whole)
    whole.resize(500, 100)
    whole.set_markdown(text)
    for seed in range(3):
        shown = streamed(qtbot, text, seed)
        assert shown.toPlainText() == whole.toPlainText()
        assert structure(shown) == structure(whole)
        assert shown.document().size().height() == whole.document().size().height()


def test_splitter_cuts_only_between_blocks() -> None:
    text = SAMPLES["mixed"]
    splitter = BlockSplitter()
    cuts = set()
    for end in range(len(text) + 1):
        cuts.add(splitter.feed(text[:end]))
    assert not splitter.forced
    for cut in cuts - {0}:
        assert text[cut - 2 : cut] == "\n\n", repr(text[cut - 10 : cut + 10])
        assert not text[cut:].startswith(("- ", "2. ", "|", " "))
    inside_fence = text.index("    return 1")
    assert not any(text.index("```python") < cut < inside_fence for cut in cuts)


def fed(text: str) -> BlockSplitter:
    """A splitter fed `text` as a stream delivers it, a few characters at a time."""
    splitter = BlockSplitter()
    for end in range(0, len(text) + 7, 7):
        splitter.feed(text[:end])
    return splitter


def test_splitter_cuts_long_blocks_at_line_starts() -> None:
    paragraph = fed(SAMPLES["one long paragraph"])  # cut inside its first block: redone whole
    assert paragraph.cut > 0 and paragraph.forced_from == 0
    text = SAMPLES["paragraphs, then a long one"]
    later = fed(text)  # exact up to the long paragraph: redone from there
    assert later.cut > text.index("Line 0") and later.forced_from == text.index("Line 0")
    for name in ("long tight list", "long numbered list"):
        assert len(SAMPLES[name]) > 1.5 * FORCE_AFTER  # long enough to be cut inside the list
        items = fed(SAMPLES[name])
        assert items.cut > 0 and not items.forced, name  # two lists look like one

"""The GUI thread keeps ticking while a reply streams and extraction runs."""

from __future__ import annotations

import time
from typing import Any

import pytest
from PySide6.QtCore import QTimer

from assistant.config import Settings
from assistant.memory.embedder import BUNDLED_MODEL
from tests.fakes.fake_ollama import FakeOllama, ScriptedReply

STALL_LIMIT_S = 0.25
"""Asserted bound: generous for a loaded 2-core CI box (the target is 50 ms; the figure is printed)."""


class StallMeter:
    """A 5 ms QTimer; the worst gap between its ticks is the worst event-loop stall."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.last = 0.0
        self.worst = 0.0
        self.ticks = 0

    def start(self) -> None:
        self.last = time.perf_counter()
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self.last)
        self.last = now
        self.ticks += 1

    def stop(self) -> None:
        self.timer.stop()


@pytest.fixture
def settings(fake_ollama: FakeOllama) -> Settings:
    # extraction after every turn, so the batched LLM extractor runs while we measure
    return Settings(embedding_model=BUNDLED_MODEL, ollama_host=fake_ollama.host, language="en",
                    extraction_every_turns=1, extraction_idle_seconds=600)


def test_event_loop_never_stalls_while_streaming(qtbot: Any, window: Any, fake_ollama: FakeOllama, seed: Any) -> None:
    for i in range(10):
        seed(f"I keep project note {i}: the launch checklist is in the blue folder")
    long_reply = "\n".join(f"Line {i}: here is **more** text, with `code` and a list item." for i in range(100))
    fake_ollama.script(ScriptedReply(long_reply, chunk_size=6))
    cold, warm = StallMeter(), StallMeter()
    # cold: the first turn of the process also pays one-time imports and index set-up
    cold.start()
    with qtbot.waitSignal(window.chat.reply_finished, timeout=60000) as first:
        window.chat.send("My name is Lin and I work as a nurse in Berlin. Remember that I like green tea.")
    qtbot.waitUntil(lambda: window.core.engine.wait_idle(0.001), timeout=30000)
    cold.stop()
    warm.start()
    for question in ("我住在杭州，喜欢喝龙井茶。我的项目笔记在哪里？",):
        fake_ollama.script(ScriptedReply(long_reply, chunk_size=6))
        with qtbot.waitSignal(window.chat.reply_finished, timeout=60000):
            window.chat.send(question)
    # let background (LLM) extraction finish while still measuring
    qtbot.waitUntil(lambda: window.core.engine.wait_idle(0.001), timeout=30000)
    warm.stop()
    assert first.args[0].error is None
    print(f"\nworst GUI stall while streaming + extraction: warm {warm.worst * 1000:.1f} ms over {warm.ticks} ticks;"
          f" first turn of the process {cold.worst * 1000:.1f} ms")
    assert warm.ticks > 20
    assert warm.worst < STALL_LIMIT_S, f"the event loop stalled for {warm.worst * 1000:.0f} ms"
    assert cold.worst < 2 * STALL_LIMIT_S, f"the first turn stalled the event loop for {cold.worst * 1000:.0f} ms"

"""A start-up repair's progress shows in the window's status bar (it can take minutes)."""

from __future__ import annotations

import threading
from typing import Any


def test_repair_progress_from_a_worker_shows_in_the_status_bar(qtbot: Any, window: Any) -> None:
    core = window.core

    def repair() -> None:  # as Profile's progress callback does, on the opener's worker thread
        core.repairing.emit("indexing memories", 120, 2000)

    worker = threading.Thread(target=repair)
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: "120/2000" in window.status.currentMessage(), timeout=5000)
    assert "indexing memories" in window.status.currentMessage() or "索引" in window.status.currentMessage()
    core.repairing.emit("indexing memories", 2000, 2000)
    qtbot.waitUntil(lambda: "2000" in window.status.currentMessage() and "/" not in window.status.currentMessage(), timeout=5000)

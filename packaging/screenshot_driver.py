"""Drive the real Mnemo window through a short Chinese and English conversation and save
screenshots (chat, the "memories used" popup, the memory panel) — run by screenshots.sh.

The chat model is the fake Ollama server from tests/fakes, with canned replies; everything
else (profile, memory core, engine, window) is the real thing, in a temporary data dir.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

REPLIES = [
    # (words in the user's message, reply)
    ("叫林晓", "你好，林晓！很高兴认识你。护士的工作很辛苦，杭州也是个好地方。有什么我可以帮你的吗？"),
    ("龙井", "好的，我记住了：你喜欢喝**龙井茶**。"),
    ("什么茶", "根据我记得的信息，你喜欢喝 **龙井茶**。\n\n如果想换换口味，可以试试：\n\n1. 碧螺春 —— 同样是绿茶，香气更浓\n2. 白毫银针 —— 清淡回甘\n\n下次去杭州的茶园时可以顺便尝尝。"),
    ("dinner", "Since you're allergic to peanuts, here are a few peanut-free ideas for tonight:\n\n"
               "- **Lemon herb chicken** with roasted vegetables\n- **Tomato and egg stir-fry** (番茄炒蛋), quick and comforting\n"
               "- **Miso soup** with tofu\n\nAlways check sauces and oils for hidden peanut ingredients."),
    ("allergic", "Got it — I'll remember that you are **allergic to peanuts**."),
    ("Python", "Here is a small converter:\n\n```python\ndef celsius_to_fahrenheit(c: float) -> float:\n"
               "    return c * 9 / 5 + 32\n\nprint(celsius_to_fahrenheit(36.6))  # 97.88\n```\n\nCall it with any temperature in °C."),
]


def reply_for(body: dict[str, Any]) -> str:
    if body.get("format"):
        return '{"memories": []}'
    users = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"]
    last = users[-1] if users else ""
    for words, reply in REPLIES:
        if words in last:
            return reply
    return "OK."


def main(out_dir: str) -> int:
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    data = Path(tempfile.mkdtemp(prefix="mnemo-shots-"))
    from tests.fakes.fake_ollama import FakeOllama

    server = FakeOllama().start()
    server.default_reply = reply_for
    os.environ.update({
        "MNEMO_DATA_DIR": str(data), "MNEMO_EMBEDDING_MODEL": "bundled:all-MiniLM-L6-v2",
        "OLLAMA_HOST": server.host, "MNEMO_CHAT_MODEL": "qwen2.5:7b",
    })
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QApplication

    app = QApplication([sys.argv[0]])
    app.setFont(QFont("Noto Sans CJK SC", 10))
    from ui.app import build

    started = time.perf_counter()
    core, window = build(scheduler=False)
    window.resize(1180, 780)
    window.show()
    ready: list[float] = []
    window.ready.connect(lambda: ready.append(time.perf_counter() - started))
    core.start()

    def wait_until(predicate: Callable[[], bool], timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        loop = QEventLoop()
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError("the window did not reach the expected state")
            QTimer.singleShot(20, loop.quit)
            loop.exec()

    def settle(ms: int = 300) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def shot(widget: Any, name: str) -> None:
        settle()
        path = out / name
        widget.grab().save(str(path))
        print(f"saved {path}")

    def screen_shot(name: str) -> None:
        """The whole screen cut to the window: shows the popup over it."""
        settle()
        path = out / name
        box = window.frameGeometry()
        app.primaryScreen().grabWindow(0, box.x(), box.y(), box.width(), box.height()).save(str(path))
        print(f"saved {path}")

    def say(text: str) -> None:
        done: list[Any] = []
        window.chat.reply_finished.connect(done.append)
        window.chat.input.setPlainText(text)
        window.chat.send_from_input()
        wait_until(lambda: bool(done))
        window.chat.reply_finished.disconnect(done.append)

    try:
        return _walk(app, window, core, started, ready, wait_until, shot, screen_shot, say)
    finally:
        window.close()
        if core.profile is not None:
            core.profile.close()
        server.stop()


def _walk(app: Any, window: Any, core: Any, started: float, ready: list[float], wait_until: Any, shot: Any,
          screen_shot: Any, say: Any) -> int:
    from ui.i18n import set_language

    visible_at = time.perf_counter() - started
    wait_until(lambda: bool(ready))
    wait_until(lambda: "ready" in window.status.embedding.text() or "就绪" in window.status.embedding.text())
    print(f"window shown after {visible_at:.2f} s; profile open after {ready[0]:.2f} s")

    # -- Chinese -------------------------------------------------------------------------
    set_language("zh")
    say("你好！我叫林晓，住在杭州，是一名护士。")
    say("记住我喜欢喝龙井茶。")
    say("我喜欢喝什么茶？")
    wait_until(lambda: not window.chat.busy)
    shot(window, "chat-zh.png")
    window.chat.show_memories_used(window.chat.bubbles[-1])
    wait_until(lambda: window.chat.dialog is not None and window.chat.dialog.isVisible())
    screen_shot("memories-used-zh.png")
    window.chat.dialog.close()
    window.chat.dialog = None

    # -- English -------------------------------------------------------------------------
    set_language("en")
    window.chat.new_session()
    wait_until(lambda: window.chat.bubbles == [] and window.session_model.rowCount() == 2)
    say("Remember that I'm allergic to peanuts.")
    say("My sister Anna lives in Berlin.")
    say("Any dinner ideas for tonight? Keep in mind what I'm allergic to.")
    say("Can you show me a Python function to convert Celsius to Fahrenheit?")
    shot(window, "chat-en.png")
    used = [b for b in window.chat.bubbles if b.memories_button.isVisible()]
    if used:
        window.chat.show_memories_used(used[-1])
        wait_until(lambda: window.chat.dialog is not None and window.chat.dialog.isVisible())
        screen_shot("memories-used-en.png")
        window.chat.dialog.close()
        window.chat.dialog = None
    else:
        print("warning: no English reply used a memory; memories-used-en.png not taken")

    window.tabs.setCurrentIndex(1)
    window.memories.reload()
    wait_until(lambda: not window.memory_model.loading and window.memory_model.rowCount() > 0)
    window.memories.table.resizeColumnsToContents()
    window.memories.table.setColumnWidth(0, 420)
    shot(window, "memory-panel-en.png")
    set_language("zh")
    shot(window, "memory-panel-zh.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))

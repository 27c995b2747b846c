"""Drive the real Mnemo window as a new user would and save screenshots — run by
screenshots.sh: the first-run welcome (Ollama without the model, a download in progress),
then a short Chinese and an English conversation, the "memories used" popup and the memory
panel, each in the light and the dark scheme, in Chinese and in English.

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
    import threading

    from tests.fakes.fake_ollama import FakeOllama

    server = FakeOllama(models=["phi3:mini"]).start()  # the chat model comes with the welcome
    server.default_reply = reply_for
    server.pull_gate = threading.Event()  # the download waits at 25 % for its screenshot
    os.environ.update({
        "MNEMO_DATA_DIR": str(data), "MNEMO_EMBEDDING_MODEL": "bundled:all-MiniLM-L6-v2",
        "OLLAMA_HOST": server.host,
    })
    os.environ.pop("MNEMO_CHAT_MODEL", None)
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QApplication

    app = QApplication([sys.argv[0]])
    app.setApplicationDisplayName("Mnemo")
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

    tools = Tools(app, window, core, server, wait_until, settle, shot, screen_shot, say)
    try:
        visible_at = time.perf_counter() - started
        wait_until(lambda: bool(ready))
        print(f"window shown after {visible_at:.2f} s; profile open after {ready[0]:.2f} s")
        welcome(tools)
        conversation(tools)
        why_view(tools)
        timeline(tools)
        connected_apps(tools)
        return 0
    finally:
        window.close()
        if core.profile is not None:
            core.profile.close()
        server.stop()


class Tools:
    """What the walks need of the running app (see `main`)."""

    def __init__(self, app: Any, window: Any, core: Any, server: Any, *helpers: Any) -> None:
        self.app, self.window, self.core, self.server = app, window, core, server
        self.wait_until, self.settle, self.shot, self.screen_shot, self.say = helpers


def welcome(t: Tools) -> None:
    """The first run: the welcome opens; its Ollama page finds Ollama without the model and
    downloads the recommended one."""
    from ui.theme import theme

    window, wait_until = t.window, t.wait_until
    wait_until(lambda: window.welcome is not None and window.welcome.isVisible())
    wizard = window.welcome
    wizard.next()
    page = wizard.ollama
    wait_until(lambda: page.probe is not None and page.probe.state.value == "no_model")
    page.recommended.setCurrentIndex(page.recommended.findData("qwen2.5:7b"))
    page.pull()
    wait_until(lambda: page.progress.value() > 0)
    t.shot(wizard, "welcome-en-light.png")
    theme.apply("dark")
    t.shot(wizard, "welcome-en-dark.png")
    theme.apply("light")
    t.server.pull_gate.set()
    wait_until(lambda: page.probe is not None and page.probe.state.value == "ready")
    wait_until(lambda: t.core.settings.chat_model == "qwen2.5:7b" and not t.core.runner.busy)
    wizard.show_page("privacy")
    t.shot(wizard, "welcome-privacy-en-light.png")
    wizard.accept()
    wait_until(lambda: window.welcome is None)
    wait_until(lambda: "ready" in window.status.embedding.text())


def both_schemes(t: Tools, take: Callable[[str], None]) -> None:
    """`take(scheme)` in the light scheme, then again in the dark one."""
    from ui.theme import theme

    for scheme in ("light", "dark"):
        theme.apply(scheme)
        t.settle(200)
        take(scheme)
    theme.apply("light")


def conversation(t: Tools) -> None:
    from ui.i18n import set_language

    window = t.window

    # -- Chinese -------------------------------------------------------------------------
    set_language("zh")
    t.say("你好！我叫林晓，住在杭州，是一名护士。")
    t.say("记住我喜欢喝龙井茶。")
    t.say("我喜欢喝什么茶？")
    t.wait_until(lambda: not window.chat.busy)
    both_schemes(t, lambda scheme: t.shot(window, f"chat-zh-{scheme}.png"))
    window.chat.show_memories_used(window.chat.bubbles[-1])
    t.wait_until(lambda: window.chat.dialog is not None and window.chat.dialog.isVisible())
    t.screen_shot("memories-used-zh-light.png")
    window.chat.dialog.close()
    window.chat.dialog = None

    # -- English -------------------------------------------------------------------------
    set_language("en")
    window.chat.new_session()
    t.say("Remember that I'm allergic to peanuts.")
    t.say("My sister Anna lives in Berlin.")
    t.say("Any dinner ideas for tonight? Keep in mind what I'm allergic to.")
    t.say("Can you show me a Python function to convert Celsius to Fahrenheit?")
    both_schemes(t, lambda scheme: t.shot(window, f"chat-en-{scheme}.png"))
    used = [b for b in window.chat.bubbles if b.memories_button.isVisible()]
    if used:
        window.chat.show_memories_used(used[-1])
        t.wait_until(lambda: window.chat.dialog is not None and window.chat.dialog.isVisible())
        t.screen_shot("memories-used-en-light.png")
        window.chat.dialog.close()
        window.chat.dialog = None
    else:
        print("warning: no English reply used a memory; memories-used-en-light.png not taken")

    window.tabs.setCurrentIndex(1)
    window.memories.reload()
    t.wait_until(lambda: not window.memory_model.loading and window.memory_model.rowCount() > 0)
    for language in ("en", "zh"):
        set_language(language)
        both_schemes(t, lambda scheme, lang=language: t.shot(window, f"memory-panel-{lang}-{scheme}.png"))
    set_language("en")
    window.tabs.setCurrentIndex(0)
    window.resize(600, 400)
    t.shot(window, "chat-en-600x400.png")
    window.resize(1180, 780)


def why_view(t: Tools) -> None:
    """"Why this memory": a new chat asks about what an earlier one said; the popup tells why
    each memory was chosen (zh and en, light and dark), and its link opens the earlier chat
    at that message, highlighted."""
    from PySide6.QtWidgets import QLabel

    from ui.i18n import set_language
    from ui.theme import theme

    window = t.window

    def popup(name: str) -> None:
        window.chat.dialog = None
        window.chat.show_memories_used(window.chat.bubbles[-1])
        t.wait_until(lambda: window.chat.dialog is not None and window.chat.dialog.isVisible())
        t.screen_shot(name)

    asked = (("zh", "我喜欢喝什么茶？有推荐吗", "龙井"), ("en", "What am I allergic to? Any dinner ideas?", "allergic"))
    for language, question, source in asked:
        set_language(language)
        window.chat.new_session()
        t.say(question)
        for scheme in ("light", "dark"):
            theme.apply(scheme)
            popup(f"why-{language}-{scheme}.png")
            if scheme == "light":
                window.chat.dialog.close()
        theme.apply("light")
        dialog = window.chat.dialog
        linked = [label for memory_id, label in dialog.origin_labels.items()
                  if "href" in label.text() and source in dialog.rows[memory_id].findChild(QLabel).text()]
        if not linked:
            print(f"warning: no memory of the {language} question links to a message; why-jump-{language} not taken")
            dialog.close()
            continue
        revealed: list[Any] = []
        window.chat.transcript.revealed.connect(revealed.append)
        linked[0].linkActivated.emit("open")
        t.wait_until(lambda got=revealed: bool(got))
        window.chat.transcript.revealed.disconnect(revealed.append)
        t.settle(100)  # inside the highlight's time
        t.shot(window, f"why-jump-{language}-light.png")
    set_language("en")


def timeline(t: Tools) -> None:
    """The memory panel's timeline after a move, a plan that passed, an archive, a deletion, a
    forget request and another app's proposal, over a few days."""
    from datetime import datetime, timedelta

    from assistant.clock import to_ts
    from assistant.memory.types import Category, Turn
    from ui.i18n import set_language
    from ui.memory_panel.views import TIMELINE_VIEW

    window, memories = t.window, t.core.memories
    now = datetime.now().astimezone()

    def said(text: str, days_ago: float) -> None:
        at = now - timedelta(days=days_ago)
        memories.remember([Turn("user", text, at)], at)

    said("I live in Boston.", 9)
    said("我搬到苏州了。", 3)
    said("I moved to Denver last week.", 1.2)
    plan = memories.add("Dentist appointment on Friday at 10:00", Category.GOAL,
                        expires_at=to_ts(now - timedelta(days=2)))
    memories.maintain(now - timedelta(days=1.5), steps=["expire"])
    locker = memories.add("My gym locker code is 4471")
    memories.delete([locker.id])
    memories.add_protected("The user prefers window seats on flights", now, review=True, origin="MCP: Claude Desktop")
    tea = [m.id for m in memories.list(limit=500) if "龙井" in m.content]
    memories.archive(tea[:1])
    del plan
    window.tabs.setCurrentIndex(1)
    panel = window.memories
    panel.view_filter.setCurrentIndex(TIMELINE_VIEW)
    model = panel.timeline.model
    t.wait_until(lambda: not model.loading and model.rowCount() > 0)
    kinds = [e.kind.value for e in model.entries()]
    panel.timeline.select_entry(kinds.index("superseded"))  # Undo enabled
    for language in ("en", "zh"):
        set_language(language)
        both_schemes(t, lambda scheme, lang=language: t.shot(window, f"timeline-{lang}-{scheme}.png"))
    set_language("en")
    panel.view_filter.setCurrentIndex(0)
    window.tabs.setCurrentIndex(0)


def connected_apps(t: Tools) -> None:
    """Settings → Connected apps: two MCP clients (one may read, one may propose), their
    permissions and the access log of what each was shown or wrote."""
    from assistant.mcp.consent import Permission
    from assistant.mcp.gateway import MemoryGateway
    from ui.connected_apps import ConnectedApps
    from ui.i18n import set_language

    window = t.window
    gateway = MemoryGateway(t.core.profile)
    gateway.consent.allow("Claude Desktop", Permission.READ)
    gateway.consent.allow("Jan", Permission.PROPOSE)
    gateway.search("Claude Desktop", "what tea do I like?", 3)
    gateway.list_memories("Jan", limit=5)
    gateway.remember("Jan", "The user prefers window seats on flights.")
    for language in ("en", "zh"):
        set_language(language)
        window.open_settings()
        dialog = window.dialog
        section = dialog.findChild(ConnectedApps)
        t.wait_until(lambda s=section: s.clients.rowCount() == 2 and s.log.rowCount() >= 3)
        dialog.resize(900, 720)
        both_schemes(t, lambda scheme, d=dialog, lang=language: t.shot(d, f"connected-apps-{lang}-{scheme}.png"))
        dialog.reject()
    set_language("en")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))

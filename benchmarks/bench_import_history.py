"""Importing a large ChatGPT export: `python -m benchmarks.bench_import_history [MB] [SECONDS]`.

Writes a synthetic ChatGPT data export of about MB megabytes (default 50: conversations of
ten messages, long assistant replies, an edited message on another branch, an image part;
the user's turns mix facts, questions and small talk in English and Chinese) as the `.zip`
the user downloads, then:

1. reads and checks it all (`assistant.importers.load`): wall time and the peak of Python
   allocations (tracemalloc) for the parse alone;
2. replays it through the full write path into a fresh profile with the bundled embedding
   model (`Memories.import_history`, as `mnemo import chatgpt` does), for at most SECONDS
   (default 600) and then cancelled: conversations and user messages done, their rate, and
   the time the whole export would take at that rate. Peak resident memory of the process
   (ru_maxrss: model and torch included) is printed at the end.

Not part of the test suite (tests/ never imports it).
"""

from __future__ import annotations

import json
import random
import resource
import sys
import tempfile
import time
import tracemalloc
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assistant.app import Profile
from assistant.clock import ManualClock
from assistant.config import Settings
from assistant.importers import load
from assistant.memory.embedder import BUNDLED_MODEL, SentenceTransformerEmbedder

START = 1_640_995_200.0  # 2022-01-01
CITIES = ["Lisbon", "Denver", "Osaka", "Bristol", "成都", "杭州", "Porto", "Leipzig"]
PETS = ["Miso", "Biscuit", "年糕", "可乐", "Pepper", "Mochi"]
USER = [
    "I live in {city} and I work as a {job}.",
    "My cat {pet} keeps waking me up at 5am, any tips?",
    "How do I convert a list of dicts to a dataframe in pandas?",
    "我住在{city}，最近在学做饭。",
    "I'm allergic to {food}, can you suggest a dinner recipe?",
    "thanks, that helps!",
    "我家狗叫{pet}，两岁了，柯基。",
    "Can you explain the difference between TCP and UDP?",
    "My sister {name} is getting married in June.",
    "帮我写一封请假邮件，下周三要去医院复查。",
]
JOBS = ["nurse", "data engineer", "teacher", "architect", "chef"]
FOODS = ["peanuts", "shellfish", "gluten", "sesame"]
NAMES = ["Ana", "Keiko", "Marta", "小雨"]
WORDS = ("the a to of and you can use this that with for is it your in on try each first then also more "
         "list data value step time way code file answer example option better simple check make keep "
         "建议 可以 如果 需要 时候 我们 方法 问题 一些 注意 然后 因为 所以 比较 简单").split()


def reply(rng: random.Random) -> str:
    """An assistant answer of ~1,500 characters of varied words (compresses like real text)."""
    return " ".join(rng.choice(WORDS) for _ in range(280)).capitalize() + "."


def _message(node_id: str, role: str, text: str | list[Any], at: float, kind: str = "text") -> dict[str, Any]:
    parts = text if isinstance(text, list) else [text]
    return {"id": node_id, "author": {"role": role, "name": None, "metadata": {}}, "create_time": at,
            "content": {"content_type": kind, "parts": parts}, "status": "finished_successfully",
            "metadata": {}, "recipient": "all"}


def conversation(n: int) -> dict[str, Any]:
    """Ten messages on the current branch, an edited first version on another, an image."""
    at = START + n * 3600.0
    rng = random.Random(n)
    mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None, "children": ["u0"]}}
    parent = "root"
    for turn in range(5):
        fields = {"city": CITIES[(n + turn) % 8], "pet": PETS[(n * 7 + turn) % 6], "job": JOBS[n % 5],
                  "food": FOODS[n % 4], "name": NAMES[(n + turn) % 4]}
        text = USER[(n * 3 + turn) % len(USER)].format(**fields) + f" (#{n}.{turn})"
        user, answer = f"u{turn}", f"a{turn}"
        content: str | list[Any] = text
        kind = "text"
        if turn == 2:
            content, kind = [{"content_type": "image_asset_pointer", "asset_pointer": f"file-service://f{n}"}, text], "multimodal_text"
        mapping[user] = {"id": user, "message": _message(user, "user", content, at + turn * 60, kind),
                         "parent": parent, "children": [answer]}
        mapping[answer] = {"id": answer, "message": _message(answer, "assistant", reply(rng), at + turn * 60 + 20),
                          "parent": user, "children": [f"u{turn + 1}"] if turn < 4 else []}
        parent = answer
    mapping["a0"]["children"].append("old1")  # an edited message: the first version stays in the tree
    mapping["old1"] = {"id": "old1", "message": _message("old1", "user", "an abandoned first version", at + 70),
                       "parent": "a0", "children": []}
    return {"title": f"Conversation {n}", "create_time": at, "update_time": at + 600, "mapping": mapping,
            "current_node": "a4", "id": f"conv-{n}", "conversation_id": f"conv-{n}"}


def write_export(folder: Path, megabytes: float) -> tuple[Path, int, int]:
    """The export .zip of about `megabytes` of conversations.json; (path, conversations, bytes)."""
    one = len(json.dumps(conversation(0), ensure_ascii=False).encode("utf-8")) + 2
    count = max(1, int(megabytes * 2**20 / one))
    body = json.dumps([conversation(n) for n in range(count)], ensure_ascii=False).encode("utf-8")
    path = folder / "chatgpt-export.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("conversations.json", body)
        out.writestr("chat.html", "<html></html>")
    return path, count, len(body)


def main(megabytes: float = 50.0, seconds: float = 600.0) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path, count, size = write_export(folder, megabytes)
        print(f"export: {count} conversations, conversations.json {size / 2**20:.1f} MB, zip {path.stat().st_size / 2**20:.1f} MB")
        tracemalloc.start()
        started = time.perf_counter()
        conversations = load("chatgpt", path, datetime.now(UTC))
        parse_s = time.perf_counter() - started
        parse_peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        user_turns = sum(c.user_turns for c in conversations)
        print(f"read + check: {parse_s:.1f} s, peak Python allocations {parse_peak:.0f} MB, {user_turns} user messages")
        embedder = SentenceTransformerEmbedder(BUNDLED_MODEL, allow_fallback=False)
        embedder.load()
        profile = Profile(folder / "data", "default", Settings(embedding_model=BUNDLED_MODEL), embedder=embedder,
                          clock=ManualClock(datetime.now(UTC)), warn=lambda _t: None)
        try:
            deadline = time.perf_counter() + seconds
            started = time.perf_counter()
            report = profile.memories.import_history(conversations, cancel=lambda: time.perf_counter() > deadline)
            write_s = time.perf_counter() - started
        finally:
            profile.close()
    done = report.conversations
    messages = sum(c.user_turns for c in conversations[:done])
    rate = messages / write_s if write_s else 0.0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"write path: {done}/{count} conversations, {messages} user messages in {write_s:.0f} s "
          f"({rate:.1f} messages/s, {1000 / rate if rate else 0:.0f} ms each), {report.memories} memories"
          + (" (stopped at the time limit)" if report.cancelled else ""))
    print(f"whole export at that rate: {user_turns / rate / 60 if rate else 0:.0f} min; peak RSS {rss:.0f} MB")
    return {"parse_s": parse_s, "parse_peak_mb": parse_peak, "write_s": write_s, "messages_per_s": rate, "rss_mb": rss}


if __name__ == "__main__":
    args = [float(a) for a in sys.argv[1:3]]
    main(*args)

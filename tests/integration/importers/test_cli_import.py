"""`mnemo import chatgpt|claude|text FILE` in-process, as a user or a script runs it."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from assistant.cli import main

FIXTURES = Path(__file__).parents[2] / "fixtures" / "imports"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_import_then_reimport(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "import", "chatgpt", str(FIXTURES / "chatgpt_conversations.json"))
    assert code == 0, err
    assert "from 4 conversations waiting for your review" in out and "1 forget requests not acted on" in out
    assert "importing 4/4" in err, "progress on standard error"
    code, out, _err = run(capsys, "import", "chatgpt", str(FIXTURES / "chatgpt_conversations.json"))
    assert code == 0 and out.strip() == "Nothing new: all 4 conversations were imported before."
    code, out, _err = run(capsys, "memory", "list", "--json")
    listed = json.loads(out)
    assert code == 0 and listed and all(m["review"] for m in listed), "imported memories wait for review"


def test_import_json_and_accept(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "import", "text", str(FIXTURES / "memories.md"), "--accept", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["memories"] == 8 and report["in_review"] == 0 and report["conversations"] == 8
    code, out, _err = run(capsys, "memory", "list", "--json")
    assert "Lives in Lisbon, Portugal" in [m["content"] for m in json.loads(out)]


@pytest.mark.parametrize(
    ("kind", "make", "reason"),
    [
        ("chatgpt", lambda p: p / "nope.zip", "There is no file at"),
        ("chatgpt", lambda p: _write(p / "x.zip", b"hello"), "is not a zip archive"),
        ("claude", lambda p: _write(p / "c.json", b'[{"name": "x", "chat_messages": [}'), "is not valid JSON"),
        ("claude", lambda p: (FIXTURES / "chatgpt_conversations.json"), "use the ChatGPT importer"),
        ("chatgpt", lambda p: _zip(p / "evil.zip", "../evil.json"), "path-traversal"),
    ],
)
def test_a_refused_file_is_one_clear_error(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           kind: str, make: object, reason: str) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    code, out, err = run(capsys, "import", kind, str(path))
    assert code == 2 and out == ""
    assert err.startswith("error: ") and reason in err.splitlines()[0], err
    assert "Traceback" not in err and "Nothing was imported" in err
    code, out, _err = run(capsys, "memory", "list", "--status", "all", "--json")
    assert json.loads(out) == []


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _zip(path: Path, name: str) -> Path:
    with zipfile.ZipFile(path, "w") as out:
        out.writestr("conversations.json", "[]")
        out.writestr(name, "x")
    return path


def test_ctrl_c_stops_after_the_conversation_under_way(data_dir: Path, tmp_path: Path) -> None:
    """A real process on a terminal: progress is drawn on stderr, Ctrl+C (SIGINT) stops the
    import between two conversations, exit code 130 and a line saying how far it got."""
    import os
    import pty
    import select
    import signal
    import subprocess
    import sys

    conversations = json.loads((FIXTURES / "chatgpt_conversations.json").read_text(encoding="utf-8"))
    many = [{**c, "title": f"{c['title']} {n}"} for n in range(10) for c in conversations]
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(many, ensure_ascii=False), encoding="utf-8")
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "assistant", "import", "chatgpt", str(export)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    seen = b""
    try:
        while b"importing 1/40" not in seen:
            ready, _, _ = select.select([leader], [], [], 300)
            assert ready, f"no progress on the terminal: {seen!r}"
            seen += os.read(leader, 4096)
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(leader)
    assert process.returncode == 130
    assert "stopped after" in out.decode() and "import again to go on" in out.decode()

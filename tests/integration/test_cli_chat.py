"""`mnemo chat` and `mnemo doctor` as a user runs them: piped input, fake server, no server."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.cli import main
from tests.fakes.fake_ollama import FakeOllama, ScriptedReply, fake_ollama  # noqa: F401  (fixture)

MODEL = "qwen2.5:7b"


@pytest.fixture(autouse=True)
def env(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("MNEMO_CONFIG_DIR", str(data_dir / "config"))
    monkeypatch.setenv("MNEMO_CHAT_MODEL", MODEL)
    yield
    assert not any(t.name.startswith("mnemo-") and t.is_alive() for t in threading.enumerate())


def run(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_chat_through_a_pipe(fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    fake_ollama.script(ScriptedReply("Nice to meet you, nurse!", chunk_size=3))
    script = "I work as a nurse in Lisbon.\n/memories\n/temp\nThis is off the record.\n/new\nWhat is my job?\n"
    code, out, err = run(["chat"], script, monkeypatch, capsys)
    assert code == 0, err
    assert "Nice to meet you, nurse!" in out
    assert "Temporary chat" in out and "OK: This is off the record." in out
    assert "OK: What is my job?" in out
    turns = [r for r in fake_ollama.chat_requests if not r.get("format")]
    assert all(r["model"] == MODEL and r["options"]["num_ctx"] == 8192 for r in fake_ollama.chat_requests)
    assert "nurse" in turns[-1]["messages"][0]["content"]  # the new chat recalled the job
    assert "Traceback" not in err


def test_memories_says_why_each_was_used(fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    code, out, err = run(["chat"], "I work as a nurse in Lisbon.\n/new\nWhat is my job?\n/memories\n", monkeypatch, capsys)
    assert code == 0, err
    assert "Relevance " in out and "threshold 0.42" in out
    assert "From your message in a chat, " in out  # terminal chats have no title


def test_model_flag_wins_and_a_missing_model_names_the_pull_command(
    fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]  # noqa: F811
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    code, _out, err = run(["chat", "--model", "llama3.2:3b"], "hello\n", monkeypatch, capsys)
    assert code == 2 and "ollama pull llama3.2:3b" in err and "Traceback" not in err


def test_forget_confirmation_reads_the_next_line(fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    code, out, err = run(["chat"], "Remember that my locker code is blue-42.\n/forget locker code\ny\n", monkeypatch, capsys)
    assert code == 0, err
    assert "Forget them? [y/N]" in out and "Forgotten: " in out
    code, out, _err = run(["memory", "list"], "", monkeypatch, capsys)
    assert "locker" not in out


def test_chat_with_no_server_is_a_clear_message(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOllama() as dead:
        host = dead.host
    monkeypatch.setenv("OLLAMA_HOST", host)
    code, _out, err = run(["chat"], "hello\n", monkeypatch, capsys)
    assert code == 2
    assert "Ollama is not running" in err and "ollama serve" in err and "Traceback" not in err


def test_doctor_against_the_fake_server(fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    code, out, _err = run(["doctor"], "", monkeypatch, capsys)
    assert code == 0, out
    assert "Ollama 0.12.6" in out and f"{MODEL} is installed" in out and "keyring" in out
    code, out, _err = run(["doctor", "--json"], "", monkeypatch, capsys)
    report = json.loads(out)
    assert code == 0 and report["ok"] is True
    assert {c["name"] for c in report["checks"]} >= {"ollama", "chat model", "embedding model", "keyring", "data directory", "disk space"}


def test_doctor_names_the_missing_model(fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    monkeypatch.setenv("MNEMO_CHAT_MODEL", "mistral:7b")
    code, out, _err = run(["doctor"], "", monkeypatch, capsys)
    assert code == 1 and "`ollama pull mistral:7b`" in out and "installed: qwen2.5:7b" in out


def test_doctor_with_no_server(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOllama() as dead:
        host = dead.host
    monkeypatch.setenv("OLLAMA_HOST", host)
    code, out, err = run(["doctor", "--json"], "", monkeypatch, capsys)
    report = json.loads(out)
    assert code == 1 and report["ok"] is False
    ollama = next(c for c in report["checks"] if c["name"] == "ollama")
    assert ollama["status"] == "fail" and "not running" in ollama["message"] and "ollama serve" in ollama["fix"]
    assert "Traceback" not in err


def test_facts_reach_the_next_chat_when_the_model_extracts_nothing(
    fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]  # noqa: F811
) -> None:
    """Small local models often return nothing usable: the rules and the user's own words are the floor."""
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)

    def reply(body: dict[str, object]) -> str:
        return '{"memories": []}' if body.get("format") else "好的，记住了。"

    fake_ollama.default_reply = reply
    script = "我叫林晓雨，住在成都，对花生过敏。\n/new\n周末想吃点好的，有什么推荐？\n"
    code, _out, err = run(["chat"], script, monkeypatch, capsys)
    assert code == 0, err
    assert any(r.get("format") for r in fake_ollama.chat_requests)  # the LLM extractor was asked
    turns = [r for r in fake_ollama.chat_requests if not r.get("format")]
    system = turns[-1]["messages"][0]["content"]
    assert "成都" in system and "花生" in system
    code, out, _err = run(["memory", "list"], "", monkeypatch, capsys)
    assert "林晓雨" in out and "Traceback" not in err

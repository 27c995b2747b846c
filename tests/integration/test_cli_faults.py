"""The CLI under bad input and signals: a usage error or a clear message, never "internal
error" (exit 70); quiet and light where it can be; SIGTERM closes like a normal exit."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.cli import crash_report, main
from tests.fakes.fake_ollama import FakeOllama, fake_ollama  # noqa: F401  (fixture)

INTERNAL_ERROR = 70


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"I live in Porto\n")))
    yield


def exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse: a usage error (2) or --help (0)
        return int(exc.code or 0)


@pytest.mark.parametrize(
    "argv",
    [
        ["memory", "add", "x", "--expires", "not-a-date"],
        ["memory", "add", "x", "--expires", "0001-01-01T00:00:00+14:00"],
        ["memory", "edit", "1", "--expires", "tomorrow"],
        ["memory", "list", "--limit", "99999999999999999999"],
        ["memory", "list", "--offset", "-1"],
        ["memory", "delete", "--yes", "99999999999999999999999"],
        ["memory", "show", "-5"],
        ["memory", "reveal", "--yes", "1" * 40],
        ["memory", "search", "where", "-k", "10000000000000000000"],
    ],
)
def test_bad_arguments_are_usage_errors(data_dir: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code(argv) == 2
    err = capsys.readouterr().err
    assert "internal error" not in err and ("error" in err or "usage" in err), err


def test_standard_input_is_read_within_a_bound(data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"a" * (10 * 1024 * 1024))))
    assert exit_code(["memory", "remember", "-"]) == 2
    assert "longer than 256 KB" in capsys.readouterr().err


def test_arguments_that_are_not_utf8_are_not_an_internal_error(data_dir: Path, stdin: None) -> None:
    # Python keeps bytes that are not UTF-8 in sys.argv as lone surrogates
    assert exit_code(["memory", "add", "caf\udce9 au lait"]) == 0
    assert exit_code(["memory", "search", "\udcff\ud800", "--json"]) == 0
    assert exit_code(["memory", "export", "/tmp/\udcff/x.json"]) == 2


def test_two_crashes_in_one_second_keep_two_reports(data_dir: Path) -> None:
    first, second = crash_report(RuntimeError("a")), crash_report(RuntimeError("b"))
    assert first is not None and second is not None and first != second
    assert first.exists() and second.exists()


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "MNEMO_DATA_DIR": str(data_dir), "MNEMO_EMBEDDING_MODEL": "bundled:all-MiniLM-L6-v2",
            "MNEMO_CONFIG_DIR": str(data_dir / "config"), **extra}


def _mnemo(*argv: str, env: dict[str, str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    code = "import sys; from assistant.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *argv], env=env, capture_output=True, text=True,
                          timeout=300, check=False, **kwargs)


PROBE = """
import sys
from assistant.cli import main
code = main(sys.argv[1:])
print("TORCH" if "torch" in sys.modules else "NO-TORCH", code, file=sys.stderr)
"""


def test_commands_that_embed_nothing_never_import_torch(data_dir: Path) -> None:
    env = _env(data_dir)
    assert _mnemo("memory", "add", "I live in Porto", env=env).returncode == 0
    (data_dir / "profiles" / "default" / ".running").touch()  # even after a crash
    for argv in (["memory", "list"], ["memory", "show", "1"], ["memory", "pin", "1"],
                 ["memory", "export", str(data_dir / "out.json"), "--no-sensitive"], ["doctor", "--json"]):
        result = subprocess.run([sys.executable, "-c", PROBE, *argv], env=env, capture_output=True, text=True, timeout=300, check=False)
        assert "NO-TORCH" in result.stderr, (argv, result.stderr[-1500:])


def test_no_third_party_progress_bars(data_dir: Path) -> None:
    env = _env(data_dir)
    for argv in (["memory", "add", "I live in Porto"], ["memory", "search", "where do I live?"]):
        result = _mnemo(*argv, env=env)
        assert result.returncode == 0, result.stderr
        assert "Loading weights" not in result.stderr and "it/s]" not in result.stderr, result.stderr


def test_sigterm_closes_the_profile_like_a_normal_exit(data_dir: Path, fake_ollama: FakeOllama) -> None:  # noqa: F811
    env = _env(data_dir, OLLAMA_HOST=fake_ollama.host, MNEMO_CHAT_MODEL="qwen2.5:7b")
    code = "import sys; from assistant.cli import main; sys.exit(main(sys.argv[1:]))"
    with subprocess.Popen([sys.executable, "-c", code, "chat"], env=env, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as chat:
        try:
            assert chat.stdin is not None and chat.stdout is not None
            chat.stdin.write("/help\n")
            chat.stdin.flush()
            assert "Commands:" in chat.stdout.readline()  # the profile is open, the chat waits for input
            assert (data_dir / "profiles" / "default" / ".running").exists()
            chat.send_signal(signal.SIGTERM)
            assert chat.wait(timeout=120) == 143
        finally:
            if chat.poll() is None:
                chat.kill()
    assert not (data_dir / "profiles" / "default" / ".running").exists(), "SIGTERM was taken for a crash"


WORDS = st.sampled_from([
    "memory", "list", "search", "add", "edit", "delete", "pin", "show", "restore", "remember", "export",
    "import", "reveal", "reindex", "maintain", "--json", "--yes", "--limit", "--offset", "--status", "--category",
    "--importance", "--expires", "--content", "--unpin", "--pin", "-k", "--dry-run", "--steps", "--history",
    "--include-sensitive", "--no-sensitive", "--skip-sensitive", "-", "1", "0", "-1", "5", "all", "fact",
    "99999999999999999999999", "2026-12-01T09:00:00+08:00", "never", "", "\udcff", "I live in Porto",
])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    command=st.sampled_from([["memory"], ["maintain"], ["-v", "memory"]]),
    rest=st.lists(st.one_of(WORDS, st.text(max_size=12)), max_size=7),
)
def test_fuzzed_arguments_never_give_an_internal_error(
    data_dir: Path, stdin: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], rest: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # an export to a relative path lands here
    argv = command + rest  # (no command at all would open the window)
    assert exit_code(argv) != INTERNAL_ERROR, argv


RECORD_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
RECORDS = st.fixed_dictionaries(
    {"id": st.integers(-2, 2**70), "content": st.text(max_size=40), "category": st.sampled_from(["fact", "goal", "x"])},
    optional={k: RECORD_VALUES for k in ("slot", "summary", "entities", "importance", "confidence", "status",
                                         "superseded_by", "sensitive", "expires_at", "event_at", "pinned", "kind")},
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(RECORDS | RECORD_VALUES, max_size=5), version=st.sampled_from([1, 2, "1", None]))
def test_fuzzed_import_files_never_give_an_internal_error(data_dir: Path, tmp_path: Path, records: list[Any], version: Any) -> None:
    path = tmp_path / "fuzz.json"
    body = {"format": "mnemo-export", "version": version, "profile": "default", "memories": records}
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8", errors="surrogatepass")
    assert exit_code(["memory", "import", str(path), "--json"]) != INTERNAL_ERROR, body

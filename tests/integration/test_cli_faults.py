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
    assert exit_code(["memory", "export", "a\x00b.json"]) == 2  # found by the fuzz below
    assert exit_code(["memory", "import", "a\x00b.json"]) == 2


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


def _quiet(result: subprocess.CompletedProcess[str]) -> None:
    """A command that loaded the model ran well and printed no third-party progress bar."""
    assert result.returncode == 0, result.stderr
    assert "Loading weights" not in result.stderr and "it/s]" not in result.stderr, result.stderr


def test_commands_that_embed_nothing_never_import_torch(data_dir: Path) -> None:
    # the two commands that load the model show no third-party progress bar either (each
    # start of the model costs a subprocess 10-15 s here: one store serves both checks)
    env = _env(data_dir)
    _quiet(_mnemo("memory", "add", "I live in Porto", env=env))
    (data_dir / "profiles" / "default" / ".running").touch()  # even after a crash
    for argv in (["memory", "list"], ["memory", "show", "1"], ["memory", "pin", "1"],
                 ["memory", "export", str(data_dir / "out.json"), "--no-sensitive"], ["doctor", "--json"]):
        result = subprocess.run([sys.executable, "-c", PROBE, *argv], env=env, capture_output=True, text=True, timeout=300, check=False)
        assert "NO-TORCH" in result.stderr, (argv, result.stderr[-1500:])
    _quiet(_mnemo("memory", "search", "where do I live?", env=env))


def test_a_search_of_an_empty_profile_loads_no_model(data_dir: Path) -> None:
    result = subprocess.run([sys.executable, "-c", PROBE, "memory", "search", "where do I live?"],
                            env=_env(data_dir), capture_output=True, text=True, timeout=300, check=False)
    assert "NO-TORCH 0" in result.stderr, result.stderr[-1500:]


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


# each action with how many positional arguments it takes and the options it knows: a fuzz
# that mostly breaks the grammar only tests argparse
ACTIONS: dict[str, tuple[int, tuple[str, ...]]] = {
    "list": (0, ("--limit", "--offset", "--status", "--category")),
    "search": (1, ("-k",)),
    "add": (1, ("--category", "--importance", "--expires", "--pin")),
    "edit": (1, ("--content", "--category", "--importance", "--expires")),
    "delete": (2, ("--yes",)),
    "pin": (1, ("--unpin",)),
    "show": (1, ()),
    "restore": (1, ()),
    "remember": (1, ("--yes",)),
    "export": (1, ("--include-sensitive", "--no-sensitive", "--yes")),
    "import": (1, ("--skip-sensitive",)),
    "reveal": (1, ("--yes",)),
    "reindex": (0, ()),
}
SWITCHES = {"--pin", "--unpin", "--yes", "--include-sensitive", "--no-sensitive", "--skip-sensitive"}
VALUES = st.one_of(
    st.sampled_from([
        "-", "1", "0", "-1", "5", "all", "fact", "99999999999999999999999", "1e9", "0x10",
        "2026-12-01T09:00:00+08:00", "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00", "never",
        "not-a-date", "", "\udcff", "\ud800", "I live in Porto", ".",
    ]),
    st.integers().map(str),
    st.text(st.characters(codec=None, exclude_categories=()), max_size=12),  # lone surrogates too
)


@st.composite
def memory_commands(draw: st.DrawFn) -> list[str]:
    action = draw(st.sampled_from(sorted(ACTIONS)))
    count, flags = ACTIONS[action]
    argv = ["memory", action, *draw(st.lists(VALUES, min_size=min(count, 1), max_size=count))]
    for flag in draw(st.lists(st.sampled_from(flags), max_size=3, unique=True)) if flags else []:
        argv += [flag] if flag in SWITCHES else [flag, draw(VALUES)]
    if draw(st.booleans()):
        argv.append("--json")
    return argv


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=memory_commands())
def test_fuzzed_arguments_never_give_an_internal_error(
    data_dir: Path, stdin: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # an export to a relative path lands here
    assert exit_code(argv) != INTERNAL_ERROR, argv


RECORD_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(st.characters(codec=None, exclude_categories=()), max_size=30)
    | st.sampled_from(["user.city", "2026-12-01T09:00:00+08:00", "0001-01-01T00:00:00+14:00", "phone"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
NASTY = st.sampled_from(["\ud800", "a\udfffb", "nul\x00", "\x1b[31m", "x" * 5000, " ", "[vault #7]", "\u202e"])
ANY_TEXT = st.one_of(NASTY, st.text(st.characters(codec=None, exclude_categories=()), max_size=30))
# Each field mostly gets a value of its type (the nasty part in the text: a surrogate, a NUL,
# 5,000 characters), sometimes anything at all: a file with one bad record among good ones
# is what gets past the first checks.
FIELD_VALUES = {
    "slot": ANY_TEXT, "summary": ANY_TEXT, "entities": st.lists(ANY_TEXT, max_size=3),
    "importance": st.integers(1, 5), "confidence": st.floats(0, 1), "pinned": st.booleans(),
    "status": st.sampled_from(["active", "superseded", "archived"]),
    "kind": st.sampled_from(["episodic", "semantic"]), "superseded_by": st.integers(1, 3),
    "expires_at": st.sampled_from(["2026-12-01T09:00:00+08:00", "0001-01-01T00:00:00+14:00", "2026-12-01"]),
    "event_at": st.sampled_from(["9999-12-31T23:59:59-12:00", "2026-01-01T00:00:00Z"]),
    "sensitive": st.lists(st.fixed_dictionaries(
        {"kind": ANY_TEXT, "masked": ANY_TEXT}, optional={"value": ANY_TEXT, "vault_id": st.integers(1, 9)}
    ), max_size=2),
}


@st.composite
def import_records(draw: st.DrawFn) -> list[Any]:
    records: list[Any] = []
    for n in range(1, draw(st.integers(1, 3)) + 1):
        content = draw(st.one_of(st.text(min_size=1, max_size=30).filter(str.strip), ANY_TEXT))
        record: dict[str, Any] = {"id": n, "content": content, "category": draw(st.sampled_from(["fact", "goal"]))}
        for key in draw(st.lists(st.sampled_from(sorted(FIELD_VALUES)), max_size=3, unique=True)):
            wild = draw(st.integers(0, 7)) == 0
            record[key] = draw(RECORD_VALUES) if wild else draw(FIELD_VALUES[key])
        records.append(draw(RECORD_VALUES) if draw(st.integers(0, 15)) == 0 else record)
    return records


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=import_records(), version=st.sampled_from([1, 2, 1, "1"]),
       escaped=st.booleans())
def test_fuzzed_import_files_never_give_an_internal_error(
    data_dir: Path, tmp_path: Path, records: list[Any], version: Any, escaped: bool
) -> None:
    path = tmp_path / "fuzz.json"
    body = {"format": "mnemo-export", "version": version, "profile": "default", "memories": records}
    # escaped: a lone surrogate as JSON's \ud800 (valid JSON); else as bytes that are not UTF-8
    path.write_text(json.dumps(body, ensure_ascii=escaped), encoding="utf-8", errors="surrogatepass")
    assert exit_code(["memory", "import", str(path), "--json"]) != INTERNAL_ERROR, body

"""`mnemo memory …` in-process, as a script would call it (JSON output, env-isolated)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.cli import main


@pytest.fixture
def cli(data_dir: Path, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    def run(*args: str, code: int = 0) -> object:
        assert main(list(args)) == code, capsys.readouterr()
        out = capsys.readouterr().out
        return json.loads(out) if "--json" in args and out.strip() else out

    return run


def test_remember_search_list_edit_pin_delete(cli) -> None:  # type: ignore[no-untyped-def]
    changed = cli("memory", "remember", "I'm allergic to shellfish and I live in Porto.", "--json")
    assert any(c["action"] == "add" for c in changed["changes"])
    found = cli("memory", "search", "which city do I live in?", "--json")
    assert found["injected"] and "Porto" in found["block"]
    first = found["injected"][0]
    assert {"id", "score", "routes", "content"} <= set(first)
    listed = cli("memory", "list", "--json")
    memory_id = listed[0]["id"]
    edited = cli("memory", "edit", str(memory_id), "--importance", "5", "--json")
    assert edited["importance"] == 5
    cli("memory", "pin", str(memory_id), "--json")
    assert cli("memory", "show", str(memory_id), "--json")["pinned"] is True
    cli("memory", "delete", str(memory_id), "--json", code=1)  # no terminal, no --yes: refused
    cli("memory", "delete", str(memory_id), "--yes", "--json")
    assert memory_id not in [m["id"] for m in cli("memory", "list", "--json")]


def test_export_import_round_trip(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    cli("memory", "add", "User prefers window seats", "--category", "preference", "--json")
    cli("memory", "remember", "我的邮箱是 wei.zhang@example.com", "--json")
    out = tmp_path / "export.json"
    cli("memory", "export", str(out), "--json")
    text = out.read_text(encoding="utf-8")
    assert "wei.zhang@example.com" not in text, "vault values only with --include-sensitive"
    full = tmp_path / "full.json"
    monkeypatch.setenv("MNEMO_EXPORT_PASSPHRASE", "correct horse battery")
    assert cli("memory", "export", str(full), "--include-sensitive", "--json")["includes_sensitive"]
    assert "wei.zhang@example.com" not in full.read_text(encoding="utf-8"), "sealed, not in plain text"
    before = cli("memory", "list", "--json")
    cli("memory", "forget-me", "--yes", "--json")
    assert cli("memory", "list", "--json") == []
    report = cli("memory", "import", str(full), "--json")
    assert report["imported"] == len(before) and report["vault_values"] >= 1
    again = cli("memory", "import", str(full), "--json")
    assert again["imported"] == 0 and again["skipped_duplicates"] == len(before)
    after = cli("memory", "list", "--json")
    assert sorted(m["content"] for m in after) == sorted(m["content"] for m in before)
    vaulted = [m for m in after if m["vault_ids"]]
    assert vaulted, "the vault value came back with its memory"
    shown = cli("memory", "reveal", str(vaulted[0]["vault_ids"][0]), "--yes", "--json")
    assert shown["value"] == "wei.zhang@example.com"


def test_a_plain_export_imported_after_forget_me_points_at_no_missing_vault_item(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cli("memory", "remember", "我的邮箱是 wei.zhang@example.com", "--json")
    plain = tmp_path / "plain.json"
    cli("memory", "export", str(plain), "--json")
    assert "[vault #" in plain.read_text(encoding="utf-8"), "the stub names its vault item"
    cli("memory", "forget-me", "--yes", "--json")
    cli("memory", "import", str(plain), "--json")
    for memory in cli("memory", "list", "--json"):
        assert memory["vault_ids"] == [] and "[vault #" not in memory["content"], memory


@pytest.mark.parametrize(
    ("body", "line", "reason"),
    [
        ("not json at all", 1, "not valid JSON"),
        ('{"format": "mnemo-export", "version": 1, "profile": "default", "memories": [\n{"id": 1, "content": "a", "category": "fact"},\n{"id": 1, "content": "b", "category": "fact"}\n]}', 3, "duplicate id"),
        ('{"format": "mnemo-export", "version": 1, "profile": "default", "memories": [\n{"id": 1, "content": 5, "category": "fact"}\n]}', 2, "'content' must be text"),
        ('{"format": "mnemo-export", "version": 1, "profile": "default", "memories": [\n{"id": 1, "content": "x", "category": "fact", "importance": 99}\n]}', 2, "importance"),
        ('{"format": "mnemo-export", "version": 1, "profile": "default", "memories": [\n{"id": 1, "profile_id": "mallory", "content": "x", "category": "fact"}\n]}', 2, "another profile"),
        ('{"format": "other"}', 1, "not a Mnemo export"),
    ],
)
def test_malformed_import_names_the_line_and_changes_nothing(cli, tmp_path: Path, capsys, body: str, line: int, reason: str) -> None:  # type: ignore[no-untyped-def]
    cli("memory", "add", "kept", "--json")
    bad = tmp_path / "bad.json"
    bad.write_text(body, encoding="utf-8")
    assert main(["memory", "import", str(bad), "--json"]) == 2
    err = capsys.readouterr().err
    assert f"line {line}" in err and reason in err
    assert [m["content"] for m in cli("memory", "list", "--json")] == ["kept"]


def test_binary_import_file_is_refused(cli, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["memory", "import", str(bad)]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_unknown_id_gives_a_clear_error(cli, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["memory", "show", "424242"]) == 2
    assert "No memory #424242" in capsys.readouterr().err


def test_forget_me_needs_confirmation(cli) -> None:  # type: ignore[no-untyped-def]
    cli("memory", "add", "something", "--json")
    cli("memory", "forget-me", "--json", code=1)
    assert len(cli("memory", "list", "--json")) == 1


def test_search_explain_says_why_each_memory_was_chosen(cli) -> None:  # type: ignore[no-untyped-def]
    cli("memory", "remember", "My dog Kola is a corgi and I live in Porto.", "--json")
    found = cli("memory", "search", "which city do I live in?", "--explain", "--json")
    first = found["injected"][0]
    assert {"why", "routes", "relevance", "threshold", "score"} <= set(first)
    assert first["relevance"] >= first["threshold"] > 0
    assert "Found by meaning (similarity" in first["why"] and "threshold" in first["why"]
    text = cli("memory", "search", "which city do I live in?", "--explain")
    lines = text.splitlines()
    assert lines[0].startswith("#") and "Porto" in lines[0]
    assert any(line.strip().startswith("Found by meaning (similarity") for line in lines[1:])
    assert any(line.strip().startswith("Relevance ") and "threshold 0.42" in line for line in lines[1:])
    plain = cli("memory", "search", "which city do I live in?")
    assert "Found by" not in plain  # only with --explain

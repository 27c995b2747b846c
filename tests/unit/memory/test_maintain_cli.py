"""`mnemo maintain [--dry-run] [--json]` end to end through the command's main()."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.cli import main

STEP_NAMES = {"expire", "decay", "merge", "consolidate", "purge", "reconcile"}


def test_maintain_json_dry_run_then_real(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "add", "I fly to Oslo", "--category", "goal", "--expires", "2000-01-01T00:00:00+00:00"]) == 0
    capsys.readouterr()
    assert main(["maintain", "--dry-run", "--json"]) == 0
    dry = json.loads(capsys.readouterr().out)
    assert set(dry["steps"]) == STEP_NAMES and dry["dry_run"] is True
    assert dry["steps"]["expire"] == {"archived": 1}
    assert main(["maintain", "--json"]) == 0
    real = json.loads(capsys.readouterr().out)
    assert real["steps"]["expire"] == {"archived": 1} and real["dry_run"] is False
    assert main(["maintain"]) == 0
    text = capsys.readouterr().out
    assert "Maintenance done." in text and "expire" in text
    assert main(["maintain", "--history", "--json"]) == 0
    history = json.loads(capsys.readouterr().out)
    assert [j["status"] for j in history] == ["ok", "ok", "ok"]


def test_maintain_unknown_step_is_a_clear_error(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["maintain", "--steps", "expire,defrag"]) == 2
    assert "unknown maintenance step" in capsys.readouterr().err

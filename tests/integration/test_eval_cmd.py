"""`mnemo eval` end to end: the CI smoke test (format and plumbing, not a quality gate)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.config import Settings
from assistant.evaluation.runner import ScenarioRunner
from assistant.evaluation.scenarios import parse_scenarios
from assistant.memory.embedder import SentenceTransformerEmbedder

SMOKE = Path(__file__).parents[1] / "scenarios" / "smoke.jsonl"


def test_smoke_dataset_runs_and_writes_json(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "scores.json"
    assert main(["eval", "--dataset", str(SMOKE), "--json", str(out), "-q"]) == 0
    scores = json.loads(out.read_text(encoding="utf-8"))
    for key in ("probe_pass_rate", "expect_recall", "forbid_leak_rate", "mean_injected", "sensitive_leaks",
                "recall_ms_p50", "recall_ms_p95", "scenario_results"):
        assert key in scores
    assert len(scores["scenario_results"]) == sum(1 for line in SMOKE.read_text(encoding="utf-8").splitlines() if line.strip())
    assert 0.0 <= scores["probe_pass_rate"] <= 1.0
    assert "probe_pass_rate" in capsys.readouterr().out


def test_malformed_file_exits_non_zero_with_the_line(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    good = SMOKE.read_text(encoding="utf-8").splitlines()[0]
    bad.write_text(good + "\n" + '{"id": "x", "lang": "en", "events": [{"at": "2026-01-01T00:00:00", "probe": {"query": "q", "max_injected": 0}}]}\n', encoding="utf-8")
    assert main(["eval", "--dataset", str(bad)]) != 0
    err = capsys.readouterr().err
    assert "line 2" in err and "offset" in err


def test_maintenance_runs_once_per_passed_midnight(
    data_dir: Path, embedder: SentenceTransformerEmbedder, settings: Settings
) -> None:
    lines = json.dumps({"id": "en-gap-x", "lang": "en", "events": [
        {"at": "2026-03-02T20:00:00+08:00", "session": "s1", "role": "user", "content": "I live in Lisbon now"},
        {"at": "2026-03-02T23:59:00+08:00", "session": "s1", "role": "user", "content": "ok"},
        {"at": "2026-03-05T09:00:00+08:00", "probe": {"query": "where do I live?", "expect": ["Lisbon"]}},
        {"at": "2026-03-05T10:00:00+08:00", "probe": {"query": "where do I live?", "expect": ["Lisbon"]}},
    ]})
    scenario = parse_scenarios(lines.encode("utf-8"))[0]
    calls: list[datetime] = []
    runner = ScenarioRunner(embedder, settings, maintain=lambda _p, at: calls.append(at))
    result = runner.run(scenario)
    assert [c.isoformat() for c in calls] == ["2026-03-05T00:00:00+08:00"]
    assert result.maintenance_runs == 1 and len(result.probes) == 2


def test_blind_run_prints_and_writes_scores_only(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = tmp_path / "blind.jsonl"
    dataset.write_text(json.dumps({"id": "en-blind-01", "lang": "en", "events": [
        {"at": "2026-03-02T20:00:00+08:00", "session": "s1", "role": "user", "content": "I live in Lisbon now"},
        {"at": "2026-03-03T09:00:00+08:00", "probe": {"query": "hi", "expect": ["Lisbon", "Zanzibar"], "max_injected": 0}},
    ]}) + "\n", encoding="utf-8")
    out = tmp_path / "scores.json"
    assert main(["eval", "--dataset", str(dataset), "--json", str(out), "--blind"]) == 0
    printed = capsys.readouterr()
    assert "en-blind-01" not in printed.out + printed.err and "Zanzibar" not in printed.out + printed.err
    assert "missed_not_injected" in printed.out
    scores = json.loads(out.read_text(encoding="utf-8"))
    assert "scenario_results" not in scores and "Zanzibar" not in out.read_text(encoding="utf-8")
    assert scores["by_lang"] == {"en": {"probes": 1, "probe_pass_rate": 0.0, "expect_recall": 0.0, "forbid_leak_rate": 0.0}}
    # "hi" injects nothing: Lisbon was in an active memory, Zanzibar in none
    assert (scores["missed_not_injected"], scores["missed_not_stored"], scores["missed_not_active"]) == (1, 1, 0)
    assert scores["missed_empty_block"] == 1 and scores["probe_pass_rate"] == 0.0
    assert all(scores[f"leaked_{kind}"] == 0 for kind in ("after_forget", "about_others", "tells_history", "no_topic", "older_of_topic", "sole_of_topic", "unattributed"))

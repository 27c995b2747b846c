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


def _pairs(tmp_path: Path, *pairs: dict[str, object]) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(p, ensure_ascii=False) for p in pairs) + "\n", encoding="utf-8")
    return path


MOVE = {"id": "p1", "lang": "en", "kind": "city", "before": "I live in Leeds with my dog Pico",
        "after": "I just moved to Lyon last week", "replaces": True, "gone": ["Leeds"], "kept": ["Pico"]}
ADDITION = {"id": "p2", "lang": "en", "kind": "pet", "before": "I have a dog named Pico",
            "after": "we also adopted a cat, Miso", "replaces": False, "kept": ["Pico"]}


def test_update_pairs_are_scored(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pairs.json"
    assert main(["eval", "--updates", str(_pairs(tmp_path, MOVE, ADDITION)), "--json", str(out), "-q"]) == 0
    scores = json.loads(out.read_text(encoding="utf-8"))
    assert scores["pairs"] == 2 and scores["tested"] == 2
    # the move took and left the dog; the cat replaced nothing
    assert scores["update_recall"] == 1.0 and scores["collateral_rate"] == 0.0 and scores["false_update_rate"] == 0.0
    assert [r["passed"] for r in scores["pair_results"]] == [True, True]
    assert "update_recall" in capsys.readouterr().out


def test_blind_update_pairs_keep_scores_only(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pairs.json"
    assert main(["eval", "--updates", str(_pairs(tmp_path, MOVE)), "--json", str(out), "--blind"]) == 0
    scores = json.loads(out.read_text(encoding="utf-8"))
    assert "pair_results" not in scores and "by_kind" not in scores
    printed = capsys.readouterr()
    assert "p1" not in printed.out + printed.err and "Leeds" not in printed.out + printed.err


@pytest.mark.parametrize(
    ("pair", "reason"),
    [
        ({**MOVE, "gone": ["Paris"]}, "does not occur in 'before'"),
        ({**MOVE, "gone": []}, "names what is gone"),
        ({**ADDITION, "kept": []}, "names what is kept"),
        ({**MOVE, "replaces": "yes"}, "true or false"),
        ({**MOVE, "lang": "fr"}, "'lang' must be one of"),
        ({**MOVE, "expect": ["Lyon"]}, "unknown keys"),
    ],
)
def test_a_malformed_pair_file_names_the_line(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], pair: dict[str, object], reason: str
) -> None:
    assert main(["eval", "--updates", str(_pairs(tmp_path, ADDITION, pair))]) != 0
    err = capsys.readouterr().err
    assert "line 2" in err and reason in err


def test_an_unreadable_pair_file_says_what_to_do(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--updates", str(tmp_path / "missing.jsonl")]) != 0
    assert "--updates" in capsys.readouterr().err

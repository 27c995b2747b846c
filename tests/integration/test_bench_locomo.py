"""`mnemo bench locomo` on a tiny LoCoMo-shaped file made here (the real set is not copied)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assistant.cli import main
from assistant.evaluation.locomo import METRICS, load_locomo, parse_evidence, question_recall
from assistant.evaluation.locomo_bench import run_locomo
from assistant.evaluation.report import recall_svg
from assistant.memory.embedder import SentenceTransformerEmbedder


def _conversation(n: int) -> dict[str, Any]:
    return {
        "sample_id": f"conv-{n}",
        "conversation": {
            "speaker_a": "Ana", "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "Hey Ben! How was your weekend?"},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "Great, I adopted a beagle puppy named Biscuit."},
                {"speaker": "Ana", "dia_id": "D1:3", "text": "I started pottery classes downtown.",
                 "img_url": ["x"], "blip_caption": "a photo of a clay bowl"},
            ],
            "session_2_date_time": "10:00 am on 20 June, 2023",
            "session_2": [
                {"speaker": "Ben", "dia_id": "D2:1", "text": "Biscuit chewed my running shoes yesterday."},
                {"speaker": "Ana", "dia_id": "D2:2", "text": "Ha! I'm flying to Lisbon for a conference next week."},
            ],
        },
        "qa": [
            {"question": "What is the name of Ben's puppy?", "answer": "Biscuit", "evidence": ["D1:2"], "category": 4},
            {"question": "Where is Ana flying?", "answer": "Lisbon", "evidence": ["D2:2"], "category": 2},
            {"question": "What did the dog chew and what breed is it?", "answer": "shoes; beagle",
             "evidence": ["D1:2; D2:1"], "category": 1},
            {"question": "Broken evidence", "answer": "x", "evidence": ["D"], "category": 4},
            {"question": "Unknown turn", "answer": "x", "evidence": ["D9:9"], "category": 3},
        ],
    }


@pytest.fixture
def tiny_locomo(tmp_path: Path) -> Path:
    path = tmp_path / "locomo_tiny.json"
    path.write_text(json.dumps([_conversation(n) for n in range(6)]), encoding="utf-8")  # 0–4 dev, 5 held out
    return path


def test_loader_reads_turns_dates_and_repairs_evidence(tiny_locomo: Path) -> None:
    conversations = load_locomo(tiny_locomo)
    first = conversations[0]
    assert [t.dia_id for t in first.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert first.turns[2].content == "Ana: I started pottery classes downtown. [shares a photo of a clay bowl]"
    assert first.turns[3].at.isoformat() == "2023-06-20T10:00:00+00:00"
    assert [q.evidence for q in first.questions] == [("D1:2",), ("D2:2",), ("D1:2", "D2:1")]
    assert first.skipped == 2
    assert [c.split for c in conversations] == ["dev"] * 5 + ["heldout"]
    assert parse_evidence(["D:11:26"], {"D1:1"}) is None


def test_question_recall_counts_turns_and_sessions() -> None:
    values = question_recall(["D1:2", "D2:1"], ["D2:1", "D1:1", "D3:4", "D1:2"])
    assert values["turn_recall@5"] == 1.0
    assert values["session_recall@1"] == 0.5 and values["session_recall@3"] == 1.0


def test_run_scores_every_method_per_split(tiny_locomo: Path, embedder: SentenceTransformerEmbedder) -> None:
    run = run_locomo(load_locomo(tiny_locomo), embedder, hybrid="context")
    result = run.result()
    assert set(result) == {"dev", "heldout"}
    for split in result.values():
        assert set(split) == {"hybrid", "vector", "bm25"}
        for method in split.values():
            assert set(method["overall"]) == set(METRICS)
            assert set(method["by_category"]) <= {"single-hop", "temporal", "multi-hop", "open-domain", "adversarial"}
    # Five turns per conversation: everything is within the top 20.
    assert result["dev"]["vector"]["overall"]["turn_recall@20"] == 1.0
    assert result["dev"]["hybrid"]["overall"]["turn_recall@20"] == 1.0
    assert run.questions == {"dev": 15, "heldout": 3}
    svg = recall_svg(run.curves())
    assert svg.startswith("<svg") and svg.count("<polyline") == 6


def test_cli_writes_the_issue_json_shape(tiny_locomo: Path, data_dir: Path, tmp_path: Path) -> None:
    """The default hybrid is the read path as shipped (`Recaller`)."""
    out = tmp_path / "locomo.json"
    assert main(["bench", "locomo", "--data", str(tiny_locomo), "--json", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert set(result["heldout"]["bm25"]) == {"overall", "by_category"}


def test_cli_rejects_a_file_that_is_not_locomo(tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("{}", encoding="utf-8")
    assert main(["bench", "locomo", "--data", str(bad)]) == 2
    assert "not a LoCoMo file" in capsys.readouterr().err

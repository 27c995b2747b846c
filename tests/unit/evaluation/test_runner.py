"""Scoring and scanning rules of `mnemo eval` (docs: eval-format.md)."""

from __future__ import annotations

from pathlib import Path

from assistant.evaluation.runner import (
    ProbeResult,
    ScenarioResult,
    memory_text,
    missed_where,
    scan_sensitive,
    score_probe,
    summarize,
)
from assistant.evaluation.scenarios import Probe
from assistant.memory.inject import render_block
from tests.fakes.records import AT, memory


def test_expect_forbid_and_limit_are_matched_against_memory_lines_case_insensitively() -> None:
    block, ids = render_block([memory(1, "I moved to Hangzhou"), memory(2, 'My cat is called "Mochi" <3')])
    probe = Probe(at=AT, query="q", expect=[["杭州", "hangzhou"], ["mochi"]], forbid=["Beijing"], max_injected=2)
    result = score_probe(probe, block, len(ids))
    assert result.passed and result.found == 2
    over = score_probe(Probe(at=AT, query="q", max_injected=1), block, len(ids))
    assert not over.passed and over.over_limit
    leaked = score_probe(Probe(at=AT, query="q", forbid=["HANGZHOU"]), block, len(ids))
    assert leaked.leaked == ["HANGZHOU"]


def test_header_words_never_count_as_a_found_memory() -> None:
    block, ids = render_block([memory(1, "I like tea")], lang="zh")
    assert "用户" in block  # the fixed header mentions the user …
    result = score_probe(Probe(at=AT, query="q", expect=["用户"]), block, len(ids))
    assert not result.passed  # … but no memory does
    assert memory_text(block).endswith("I like tea")


def test_whom_a_memory_is_about_counts_as_what_the_model_sees() -> None:
    block = '<user_memories>\n- [fact · 2026-09-08] "she\'s homesick for \\"home\\"" (about: "anneke")\n</user_memories>'
    assert memory_text(block) == '[fact · 2026-09-08] she\'s homesick for "home" (about: anneke)'
    assert score_probe(Probe(at=AT, query="q", expect=["Anneke"]), block, 1).passed
    assert score_probe(Probe(at=AT, query="q", forbid=["anneke"]), block, 1).leaked == ["anneke"]


def test_empty_block_passes_max_injected_zero() -> None:
    assert score_probe(Probe(at=AT, query="hi", max_injected=0), "", 0).passed


def test_sensitive_scan_finds_plain_and_separated_digits(tmp_path: Path) -> None:
    (tmp_path / "index").mkdir()
    (tmp_path / "a.db").write_bytes("电话 139-1234-5678 在这里".encode())
    (tmp_path / "index" / "seg.bin").write_bytes(b"\x00secret-token\x00")
    found = scan_sensitive(tmp_path, ["13912345678", "139 1234 5678", "secret-token", "not-there", "6222020200112233"])
    assert found == ["13912345678", "139 1234 5678", "secret-token"]


def test_a_short_value_counts_only_standing_alone(tmp_path: Path) -> None:
    # a CVV's three digits occur by chance inside the vector store's random ids and timestamps
    (tmp_path / "chroma.sqlite3").write_bytes(b"id 5f9076e1-aa\x00ts 1763510907.25\x00")
    assert scan_sensitive(tmp_path, ["907", "0907"]) == []
    (tmp_path / "a.db").write_bytes("CVV: 907\n取款密码 0907。".encode())
    assert scan_sensitive(tmp_path, ["907", "0907"]) == ["907", "0907"]


def test_what_an_empty_store_holds_is_no_leak(tmp_path: Path) -> None:
    # the vector store's own schema holds "123456789", an SSN with its dashes taken out
    schema = b"instr('123456789ABCDEF', substr(hex(seq_id), -1, 1))"
    (tmp_path / "chroma.sqlite3").write_bytes(schema)
    assert scan_sensitive(tmp_path, ["123-45-6789"], [schema]) == []
    assert scan_sensitive(tmp_path, ["123-45-6789"]) == ["123-45-6789"]
    (tmp_path / "a.db").write_bytes(b"my SSN is 123-45-6789")
    assert scan_sensitive(tmp_path, ["123-45-6789"], [schema]) == ["123-45-6789"]


def test_the_recall_audit_says_where_each_missed_item_was() -> None:
    memories = [("I live in Porto now", True), ("I live in Lisbon", False), ("my cat is Mochi", True)]
    missing = [["Lisbon", "里斯本"], ["mochi"], ["Zanzibar"], ["porto", "Lisbon"]]
    assert missed_where(missing, memories) == ["not_active", "not_injected", "not_stored", "not_injected"]
    assert missed_where([], memories) == []



def test_scores_per_language_count_each_language_s_probes_alone() -> None:
    def probe(passed: bool, found: int, leaked: bool = False) -> ProbeResult:
        return ProbeResult("q", AT.isoformat(), passed, 1, expected=2, found=found,
                           has_forbid=True, leaked=["x"] if leaked else [])

    results = [
        ScenarioResult("en-a-01", "en", 1, [probe(True, 2), probe(False, 1)], []),
        ScenarioResult("zh-a-01", "zh", 2, [probe(False, 0, leaked=True)], []),
        ScenarioResult("en-b-01", "en", 3, [probe(True, 2)], []),
    ]
    by_lang = summarize(results)["by_lang"]
    assert by_lang["en"] == {"probes": 3, "probe_pass_rate": 0.6667, "expect_recall": 0.8333, "forbid_leak_rate": 0.0}
    assert by_lang["zh"] == {"probes": 1, "probe_pass_rate": 0.0, "expect_recall": 0.0, "forbid_leak_rate": 1.0}

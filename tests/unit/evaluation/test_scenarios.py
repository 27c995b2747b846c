"""The scenario loader: every malformed input names its line and reason; real files load."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from assistant.errors import InputError
from assistant.evaluation.scenarios import (
    Message,
    Probe,
    ScenarioFormatError,
    load_scenarios,
)
from assistant.evaluation.updates import TRAINING_PAIRS, change_examples, load_pairs, topic_examples
from assistant.memory.changes import examples
from assistant.memory.topic_model import examples as topic_model_examples

SCENARIO_DIR = Path(__file__).resolve().parents[2] / "scenarios"


def msg(at: str = "2026-03-02T20:15:00+08:00", **over: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"at": at, "session": "s1", "role": "user", "content": "我住在杭州"}
    event.update(over)
    return event


def probe(at: str = "2026-03-03T09:00:00+08:00", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"query": "我住哪？", "expect": [["杭州", "Hangzhou"]]}
    body.update(spec)
    return {"at": at, "probe": body}


def scenario(sid: str = "zh-1", **over: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"id": sid, "lang": "zh", "events": [msg(), probe()]}
    obj.update(over)
    return obj


def write(tmp_path: Path, *lines: Any) -> Path:
    """Write lines: dicts become JSON, str and bytes are written as they are."""
    parts: list[bytes] = []
    for line in lines:
        if isinstance(line, bytes):
            parts.append(line)
        elif isinstance(line, str):
            parts.append(line.encode("utf-8"))
        else:
            parts.append(json.dumps(line, ensure_ascii=False).encode("utf-8"))
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(parts) + b"\n")
    return path


def fails(path: Path, line: int, *words: str) -> ScenarioFormatError:
    with pytest.raises(ScenarioFormatError) as info:
        load_scenarios(path)
    err = info.value
    assert err.line == line, str(err)
    for word in words:
        assert word in err.reason, err.reason
    assert f"line {line}" in str(err)
    return err


# --- the happy path --------------------------------------------------------------------


def test_loads_messages_and_probes_with_normalised_expect(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        scenario(
            "zh-move-003",
            sensitive=["13912345678"],
            events=[
                msg(),
                msg("2026-03-02T20:15:05+08:00", role="assistant", content="好的"),
                probe(expect=["杭州", ["Hangzhou", "杭州市"]], forbid=["北京"], max_injected=5),
            ],
        ),
    )
    [sc] = load_scenarios(path)
    assert (sc.id, sc.lang, sc.sensitive, sc.line) == ("zh-move-003", "zh", ["13912345678"], 1)
    first, reply, pr = sc.events
    assert isinstance(first, Message) and isinstance(reply, Message) and isinstance(pr, Probe)
    assert first.role == "user" and reply.role == "assistant" and first.session == "s1"
    assert first.at.utcoffset() == timedelta(hours=8)
    assert pr.expect == [["杭州"], ["Hangzhou", "杭州市"]]
    assert pr.forbid == ["北京"] and pr.max_injected == 5
    assert sc.probes == [pr] and sc.messages == [first, reply]


def test_optional_fields_default_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    only_max = scenario(
        "b",
        events=[
            msg(),
            {"at": "2026-03-03T09:00:00Z", "probe": {"query": "17*23?", "max_injected": 0}},
        ],
    )
    path = write(tmp_path, "", scenario("a"), "   ", only_max, "\t")
    a, b = load_scenarios(path)
    assert a.sensitive == [] and (a.line, b.line) == (2, 4)
    pr = b.events[-1]
    assert isinstance(pr, Probe)
    assert pr.expect == [] and pr.forbid == [] and pr.max_injected == 0


def test_equal_timestamps_and_mixed_offsets_are_in_order(tmp_path: Path) -> None:
    events = [
        msg("2026-03-02T20:15:00+08:00"),
        msg("2026-03-02T12:15:00+00:00", role="assistant", content="ok"),  # the same instant
        msg("2026-03-02T08:00:00-05:00", content="later in absolute time"),
        probe("2026-03-02T13:01:00Z"),
    ]
    [sc] = load_scenarios(write(tmp_path, scenario(lang="mixed", events=events)))
    assert len(sc.events) == 4


def test_crlf_line_endings_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    body = json.dumps(scenario("a")) + "\r\n" + json.dumps(scenario("b")) + "\r\n"
    path.write_bytes(b"\xef\xbb\xbf" + body.encode("utf-8"))
    assert [s.id for s in load_scenarios(path)] == ["a", "b"]


def test_error_is_an_input_error_with_a_hint() -> None:
    err = ScenarioFormatError(7, "bad")
    assert isinstance(err, InputError)
    assert err.line == 7 and err.reason == "bad" and err.hint
    assert str(err).startswith("line 7: bad")


def test_unreadable_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        load_scenarios(tmp_path / "missing.jsonl")


# --- every kind of malformed input names its line --------------------------------------


def test_invalid_json(tmp_path: Path) -> None:
    fails(write(tmp_path, scenario("a"), '{"id": "b", "lang": "zh",'), 2, "invalid JSON")


def test_nan_and_duplicate_keys_are_invalid_json(tmp_path: Path) -> None:
    fails(write(tmp_path, '{"id": "a", "id": "b"}'), 1, "invalid JSON", "twice")
    fails(write(tmp_path, scenario("a"), '{"x": NaN}'), 2, "invalid JSON", "NaN")


@pytest.mark.parametrize("text", ['["a"]', '"scenario"', "42", "null"])
def test_not_an_object(tmp_path: Path, text: str) -> None:
    fails(write(tmp_path, scenario("a"), "", text), 3, "JSON object")


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    fails(path, 1, "empty")
    path.write_bytes(b"\n   \n\n")
    fails(path, 1, "empty")


def test_non_utf8_bytes(tmp_path: Path) -> None:
    bad = json.dumps(scenario("b"), ensure_ascii=False).encode("gbk")  # 杭州 in GBK
    fails(write(tmp_path, scenario("a"), bad), 2, "UTF-8")


@pytest.mark.parametrize("field", ["id", "lang", "events"])
def test_missing_scenario_field(tmp_path: Path, field: str) -> None:
    obj = scenario("a")
    del obj[field]
    fails(write(tmp_path, scenario("x"), obj), 2, "missing", field)


@pytest.mark.parametrize(
    ("override", "words"),
    [
        ({"id": 3}, ("'id'", "string")),
        ({"id": ""}, ("'id'", "empty")),
        ({"events": {"at": "x"}}, ("'events'", "list")),
        ({"events": []}, ("'events'", "empty")),
        ({"sensitive": "13912345678"}, ("'sensitive'", "list")),
        ({"sensitive": [13912345678]}, ("sensitive[0]", "string")),
        ({"sensitive": [""]}, ("sensitive[0]", "empty")),
        ({"extra": 1}, ("unknown field", "extra")),
    ],
)
def test_wrong_scenario_fields(
    tmp_path: Path, override: dict[str, Any], words: tuple[str, ...]
) -> None:
    fails(write(tmp_path, scenario("x"), "", scenario("a", **override)), 3, *words)


@pytest.mark.parametrize("lang", ["cn", "ZH", "", None, 1, "en-US"])
def test_bad_lang(tmp_path: Path, lang: Any) -> None:
    fails(write(tmp_path, scenario("a", lang=lang)), 1, "lang")


def test_duplicate_id(tmp_path: Path) -> None:
    err = fails(write(tmp_path, scenario("a"), scenario("b"), "", scenario("a")), 4, "duplicate id")
    assert "line 1" in err.reason


@pytest.mark.parametrize("field", ["at", "session", "role", "content"])
def test_missing_message_field(tmp_path: Path, field: str) -> None:
    event = msg()
    del event[field]
    fails(
        write(tmp_path, scenario("x"), scenario("a", events=[event, probe()])), 2, "missing", field
    )


@pytest.mark.parametrize(
    ("override", "words"),
    [
        ({"session": 1}, ("'session'", "string")),
        ({"content": None}, ("'content'", "string")),
        ({"content": "  "}, ("'content'", "empty")),
        ({"at": 1700000000}, ("'at'", "string")),
        ({"at": "yesterday"}, ("'at'", "ISO 8601")),
        ({"speaker": "me"}, ("unknown field", "speaker")),
    ],
)
def test_wrong_message_fields(
    tmp_path: Path, override: dict[str, Any], words: tuple[str, ...]
) -> None:
    fails(write(tmp_path, scenario("a", events=[msg(**override), probe()])), 1, "events[0]", *words)


@pytest.mark.parametrize("role", ["system", "User", "bot", None])
def test_unknown_role(tmp_path: Path, role: Any) -> None:
    fails(
        write(tmp_path, scenario("x"), scenario("a", events=[msg(role=role), probe()])),
        2,
        "unknown role",
    )


@pytest.mark.parametrize("at", ["2026-03-02T20:15:00", "2026-03-02 20:15:00", "2026-03-02"])
def test_at_without_utc_offset(tmp_path: Path, at: str) -> None:
    fails(
        write(tmp_path, scenario("a", events=[msg(), probe(at)])), 1, "events[1]", "no UTC offset"
    )


def test_events_out_of_time_order(tmp_path: Path) -> None:
    events = [
        msg("2026-03-02T20:15:00+08:00"),
        msg("2026-03-02T20:16:00+08:00"),
        msg("2026-03-02T13:00:00+01:00", content="before the previous one in absolute time"),
        probe(),
    ]
    fails(
        write(tmp_path, scenario("x"), scenario("a", events=events)), 2, "events[2]", "time order"
    )


@pytest.mark.parametrize(
    "event",
    [
        {"at": "2026-03-02T20:15:00+08:00"},
        {"at": "2026-03-02T20:15:00+08:00", "text": "hello"},
        {"at": "2026-03-02T20:15:00+08:00", "query": "where do I live?"},
    ],
)
def test_event_neither_message_nor_probe(tmp_path: Path, event: dict[str, Any]) -> None:
    fails(write(tmp_path, scenario("a", events=[msg(), event, probe()])), 1, "events[1]", "neither")


def test_event_not_an_object(tmp_path: Path) -> None:
    fails(
        write(tmp_path, scenario("a", events=[msg(), "hi", probe()])), 1, "events[1]", "JSON object"
    )


def test_message_and_probe_at_once(tmp_path: Path) -> None:
    event = probe()
    event["role"] = "user"
    fails(write(tmp_path, scenario("a", events=[msg(), event])), 1, "unknown field", "role")


def test_scenario_without_a_probe(tmp_path: Path) -> None:
    fails(write(tmp_path, scenario("a", events=[msg()])), 1, "no probe")


@pytest.mark.parametrize(
    ("event", "words"),
    [
        ({"at": "2026-03-03T09:00:00+08:00", "probe": "我住哪"}, ("'probe'", "object")),
        ({"at": "2026-03-03T09:00:00+08:00", "probe": {"expect": ["杭州"]}}, ("missing", "query")),
        ({"probe": {"query": "q", "max_injected": 0}}, ("missing", "at")),
        (probe(query=5), ("'query'", "string")),
        (probe(expect="杭州"), ("'expect'", "list")),
        (probe(expect=[3]), ("expect[0]", "string")),
        (probe(expect=["杭州", []]), ("expect[1]", "never match")),
        (probe(expect=[["杭州", 1]]), ("expect[0]", "strings")),
        (probe(expect=[""]), ("expect[0]", "empty")),
        (probe(forbid="北京"), ("'forbid'", "list")),
        (probe(forbid=["北京", None]), ("forbid[1]", "string")),
        (probe(max_injected="5"), ("max_injected", "integer")),
        (probe(max_injected=2.5), ("max_injected", "integer")),
        (probe(max_injected=True), ("max_injected", "integer")),
        (probe(expects=["杭州"]), ("unknown field", "expects")),
        ({"at": "2026-03-03T09:00:00+08:00", "probe": {"query": "q"}}, ("checks nothing",)),
    ],
)
def test_bad_probe(tmp_path: Path, event: dict[str, Any], words: tuple[str, ...]) -> None:
    fails(
        write(tmp_path, scenario("x"), scenario("a", events=[msg(), event])), 2, "events[1]", *words
    )


def test_max_injected_negative(tmp_path: Path) -> None:
    fails(write(tmp_path, scenario("a", events=[msg(), probe(max_injected=-1)])), 1, "negative")


def test_first_error_wins(tmp_path: Path) -> None:
    fails(write(tmp_path, scenario("a"), "not json", scenario("a")), 2, "invalid JSON")


# --- the scenario files in the repository ----------------------------------------------


SCENARIO_FILES = sorted(SCENARIO_DIR.glob("*.jsonl"))


def test_the_repository_has_scenario_files() -> None:
    names = {p.name for p in SCENARIO_FILES}
    assert {"dev.jsonl", "smoke.jsonl"} <= names


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=[p.name for p in SCENARIO_FILES])
def test_every_scenario_file_loads(path: Path) -> None:
    scenarios = load_scenarios(path)
    assert scenarios
    for sc in scenarios:
        sessions = [e.session for e in sc.events if isinstance(e, Message)]
        assert sessions, f"{sc.id}: a scenario with no messages tests nothing"


PAIR_FILES = sorted((SCENARIO_DIR / "updates").glob("*.jsonl"))


@pytest.mark.parametrize("path", PAIR_FILES, ids=[p.name for p in PAIR_FILES])
def test_every_update_pair_file_loads(path: Path) -> None:
    assert len(load_pairs(path)) >= 100


def test_the_change_classifier_learns_from_the_training_pairs_only() -> None:
    # assistant/memory/changes.json is what write_examples makes of them: regenerate it
    # when a training pair file changes; a blind pair file is never among them
    pairs = [p for name in TRAINING_PAIRS for p in load_pairs(SCENARIO_DIR / "updates" / name)]
    assert [(e["text"], e["changes"]) for e in change_examples(pairs)] == examples()
    seen = {text for text, _ in examples()}
    for path in PAIR_FILES:
        if path.name in TRAINING_PAIRS:
            continue
        blind = load_pairs(path)
        assert not {(p.before, p.after) for p in blind} & {(p.before, p.after) for p in pairs}, path.name
        # two writers may type the same short message ("我吃素"); a copied file would share far more
        assert sum(p.before in seen or p.after in seen for p in blind) <= len(blind) * 3 // 100, path.name


def test_the_topic_classifier_learns_from_the_training_pairs_only() -> None:
    # assistant/memory/topics.json is what write_examples makes of them: regenerate it
    # when a training pair file changes
    pairs = [p for name in TRAINING_PAIRS for p in load_pairs(SCENARIO_DIR / "updates" / name)]
    assert [(e["text"], e["topic"]) for e in topic_examples(pairs)] == topic_model_examples()


def test_smoke_set_is_a_subset_of_dev() -> None:
    dev = {s.id: s for s in load_scenarios(SCENARIO_DIR / "dev.jsonl")}
    smoke = load_scenarios(SCENARIO_DIR / "smoke.jsonl")
    assert 5 <= len(smoke) <= 12
    for sc in smoke:
        assert dev.get(sc.id) == sc, f"{sc.id} in smoke.jsonl differs from dev.jsonl"

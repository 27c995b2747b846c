"""Each maintenance step on a real profile (SQLite + Chroma + MiniLM), with an injected clock."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta
from typing import Any

import pytest

from assistant.app import Profile
from assistant.clock import ManualClock, to_ts
from assistant.errors import InputError
from assistant.memory.cues import who_the_user_is
from assistant.memory.maintain import (
    LOCK_NAME,
    STEPS,
    MaintenanceBusyError,
    MaintenanceParts,
    StepContext,
    consolidate,
    decay,
    expire,
    last_success,
    maintenance_lock,
    merge,
    purge,
    reconcile_and_compact,
    retention,
    run_maintenance,
)
from assistant.memory.maintain import compact as compact_module
from assistant.memory.maintain.merge import MERGE_WORDS, shared_words
from assistant.memory.store import NewMemory
from assistant.memory.types import Category, Kind, Memory, Status

DAY = timedelta(days=1)


def add(profile: Profile, text: str, **fields: Any) -> Memory:
    fields.setdefault("category", Category.FACT)
    return profile.service.add(NewMemory(content=text, **fields))


def ctx_at(profile: Profile, when: datetime, **options: Any) -> StepContext:
    assert when.tzinfo is not None
    return StepContext(MaintenanceParts.of(profile), to_ts(when), when.tzinfo, **options)


def status(profile: Profile, memory_id: int) -> Status:
    return profile.store.get(memory_id).status


def indexed(profile: Profile) -> set[int]:
    return profile.service.index.ids(profile.service.profile_id)


# -- expire ---------------------------------------------------------------------------------


def test_expire_archives_passed_plans_once(profile: Profile, clock: ManualClock) -> None:
    now = clock.now()
    trip = add(profile, "I fly to Shanghai next Wednesday", category=Category.GOAL, expires_at=to_ts(now + 8 * DAY))
    lasting = add(profile, "I live in Berlin")
    assert expire(ctx_at(profile, now + 7 * DAY)) == {"archived": 0}
    assert expire(ctx_at(profile, now + 9 * DAY)) == {"archived": 1}
    assert status(profile, trip.id) is Status.ARCHIVED
    assert status(profile, lasting.id) is Status.ACTIVE
    assert [e["event"] for e in profile.store.history(trip.id)][-1] == "expired"
    assert trip.id not in indexed(profile)
    assert expire(ctx_at(profile, now + 10 * DAY)) == {"archived": 0}  # idempotent


# -- decay ----------------------------------------------------------------------------------


def test_retention_favours_importance_and_use() -> None:
    assert retention(3, 0, 0.0, 30) == 1.0
    assert retention(3, 0, 30.0, 30) == pytest.approx(0.5)
    assert retention(1, 0, 30.0, 30) < retention(3, 0, 30.0, 30) < retention(5, 0, 30.0, 30)
    assert retention(3, 10, 60.0, 30) > retention(3, 0, 60.0, 30)


def test_decay_archives_unused_trivia_but_not_pinned_used_or_important(profile: Profile, clock: ManualClock) -> None:
    start = clock.now()
    trivia = add(profile, "I had pasta for lunch", importance=1, kind=Kind.EPISODIC)
    pinned = add(profile, "The wifi password hint is on the fridge", importance=1, pinned=True)
    used = add(profile, "I water the tomatoes on Sundays", importance=1)
    vital = add(profile, "I am allergic to peanuts", importance=5)
    clock.advance(20 * DAY)
    profile.store.note_access([used.id], to_ts(clock.now()))
    profile.store.flush_access()
    counts = decay(ctx_at(profile, start + 30 * DAY))
    assert counts == {"scored": 3, "archived": 1, "pinned_exempt": 1}
    assert status(profile, trivia.id) is Status.ARCHIVED
    assert {status(profile, m.id) for m in (pinned, used, vital)} == {Status.ACTIVE}
    assert trivia.id not in indexed(profile)
    assert decay(ctx_at(profile, start + 30 * DAY))["archived"] == 0  # idempotent
    # restorable: an archived memory comes back with its history
    profile.service.set_status(trivia.id, Status.ACTIVE)
    assert trivia.id in indexed(profile)


def test_decay_leaves_who_the_user_is(profile: Profile, clock: ManualClock) -> None:
    """The children's names told a year ago still hold; what was of the moment fades."""
    start = clock.now()
    kids = add(profile, "emma just turned 7 and noah is 10", importance=3, kind=Kind.EPISODIC, topic="user.family")
    job = add(profile, "User works as a nurse.", importance=4, slot="user.job.title")
    lunch = add(profile, "had a burrito for lunch", importance=3, kind=Kind.EPISODIC)
    trip = add(profile, "looking at flights to Rome", importance=3, kind=Kind.EPISODIC, topic="user.plan")
    counts = decay(ctx_at(profile, start + 330 * DAY))
    assert counts["scored"] == 2 and counts["archived"] == 2
    assert status(profile, kids.id) is Status.ACTIVE and status(profile, job.id) is Status.ACTIVE
    assert status(profile, lunch.id) is Status.ARCHIVED and status(profile, trip.id) is Status.ARCHIVED


def test_who_the_user_is_by_slot_or_topic() -> None:
    assert who_the_user_is("user.job.title", None) and who_the_user_is(None, "user.pet")
    assert who_the_user_is("user.allergy", "user.allergy")
    assert not who_the_user_is(None, "user.plan") and not who_the_user_is(None, None)
    assert not who_the_user_is("user.jobs", None)  # a slot family, not a prefix of letters


# -- merge ----------------------------------------------------------------------------------


def test_merge_folds_paraphrases_and_keeps_provenance(profile: Profile, clock: ManualClock) -> None:
    first = add(profile, "I'm allergic to peanuts", importance=4, entities=["peanuts"], source_message_id=11)
    clock.advance(DAY)
    second = add(profile, "I am allergic to peanuts and peanut butter", importance=3, entities=["peanut butter"], source_message_id=42)
    other = add(profile, "I'm allergic to shellfish")
    likes = add(profile, "I like coffee", category=Category.PREFERENCE)
    dislikes = add(profile, "I don't like coffee", category=Category.PREFERENCE)
    profile.store.note_access([first.id, first.id], to_ts(clock.now()))
    profile.store.flush_access()

    counts = merge(ctx_at(profile, clock.now()))
    assert counts["groups"] == 1 and counts["merged"] == 1 and counts["by_vector"] == 1
    survivor = profile.store.get(second.id)  # the more complete and more recent wording
    assert survivor.status is Status.ACTIVE
    assert profile.store.get(first.id).status is Status.MERGED
    assert profile.store.get(first.id).superseded_by == second.id
    assert survivor.importance == 4 and survivor.access_count == 1
    assert set(survivor.entities) == {"peanuts", "peanut butter"}
    provenance = [e["detail"] for e in profile.store.history(second.id) if e["detail"] and "merged_from" in e["detail"]]
    assert provenance == [{"merged_from": [first.id], "messages": [11, 42], "sessions": []}]
    assert {status(profile, m.id) for m in (other, likes, dislikes)} == {Status.ACTIVE}
    assert first.id not in indexed(profile)
    assert merge(ctx_at(profile, clock.now()))["merged"] == 0  # idempotent


def test_merge_needs_shared_words_where_the_model_cannot_judge_the_script(profile: Profile, clock: ManualClock) -> None:
    # the bundled English model finds any two Chinese texts alike, the more so with the same day in both
    job = add(profile, "还是做产品（2026-03-23）")
    team = add(profile, "负责到店业务（2026-03-23）")
    merge(ctx_at(profile, clock.now()))
    assert status(profile, job.id) is Status.ACTIVE and status(profile, team.id) is Status.ACTIVE
    assert shared_words("我对花生过敏", "我花生过敏") >= MERGE_WORDS > shared_words("我住在成都", "我住在杭州")


def test_merge_same_slot_keeps_the_newest_value(profile: Profile, clock: ManualClock) -> None:
    old = add(profile, "I live in Berlin", slot="user.city")
    clock.advance(DAY)
    new = add(profile, "I live in Munich now", slot="user.city")  # e.g. an import that skipped the write path
    counts = merge(ctx_at(profile, clock.now()))
    assert counts["by_slot"] == 1
    assert status(profile, new.id) is Status.ACTIVE and status(profile, old.id) is Status.MERGED


def test_merge_dry_run_changes_nothing(profile: Profile, clock: ManualClock) -> None:
    a = add(profile, "My favourite colour is blue")
    b = add(profile, "My favorite color is blue")
    assert merge(ctx_at(profile, clock.now(), dry_run=True))["merged"] == 1
    assert status(profile, a.id) is Status.ACTIVE and status(profile, b.id) is Status.ACTIVE


# -- consolidate ----------------------------------------------------------------------------

ALICE = [
    "Had a long call with Alice about her new flat",
    "Alice got a promotion at the design studio",
    "Helped Alice move boxes into the new flat",
    "Alice is thinking about adopting a dog",
    "Dinner with Alice at the Thai place",
    "Alice says the new flat is too noisy",
]


def _episodes(profile: Profile, clock: ManualClock, texts: list[str], every: timedelta) -> list[Memory]:
    out = []
    for text in texts:
        out.append(add(profile, text, kind=Kind.EPISODIC, entities=["Alice"], importance=2))
        clock.advance(every)
    return out


def test_consolidate_turns_repeated_episodes_into_one_semantic_memory(profile: Profile, clock: ManualClock) -> None:
    episodes = _episodes(profile, clock, ALICE, 3 * DAY)
    counts = consolidate(ctx_at(profile, clock.now()))
    assert counts == {"groups": 1, "sources": 6, "created": 1, "updated": 0, "llm": 0, "rules": 1, "llm_rejected": 0}
    topic = profile.store.active_by_slot("topic.alice")
    assert len(topic) == 1 and topic[0].kind is Kind.SEMANTIC
    assert topic[0].content.startswith("About Alice (6 mentions")
    assert "adopting a dog" in topic[0].content
    assert all(status(profile, m.id) is Status.MERGED for m in episodes)
    assert all(profile.store.get(m.id).superseded_by == topic[0].id for m in episodes)
    assert indexed(profile) == {topic[0].id}
    assert consolidate(ctx_at(profile, clock.now()))["groups"] == 0  # idempotent
    hits = profile.recaller.recall("Is Alice getting a dog?", clock.now())
    assert hits and hits[0].memory.id == topic[0].id


def test_consolidate_needs_five_episodes_over_a_week(profile: Profile, clock: ManualClock) -> None:
    _episodes(profile, clock, ALICE[:4], 3 * DAY)  # too few
    assert consolidate(ctx_at(profile, clock.now()))["groups"] == 0
    _episodes(profile, clock, ALICE[4:], timedelta(hours=1))
    assert consolidate(ctx_at(profile, clock.now()))["groups"] == 1


def test_consolidate_same_week_is_not_enough(profile: Profile, clock: ManualClock) -> None:
    _episodes(profile, clock, ALICE, timedelta(hours=12))
    assert consolidate(ctx_at(profile, clock.now()))["groups"] == 0


def test_consolidate_uses_a_grounded_llm_summary(profile: Profile, clock: ManualClock) -> None:
    _episodes(profile, clock, ALICE, 3 * DAY)
    seen: list[tuple[list[str], str]] = []

    def summarize(sources: list[str], lang: str) -> dict[str, Any]:
        seen.append((sources, lang))
        return {"summary": "Alice moved into a new flat, which is noisy, got a promotion and is thinking about a dog."}

    counts = consolidate(ctx_at(profile, clock.now(), summarize=summarize))
    assert counts["llm"] == 1
    assert seen and seen[0][1] == "en" and len(seen[0][0]) == 6
    assert profile.store.active_by_slot("topic.alice")[0].content.startswith("Alice moved into a new flat")


def test_consolidate_rejects_an_ungrounded_llm_summary(profile: Profile, clock: ManualClock) -> None:
    _episodes(profile, clock, ALICE, 3 * DAY)
    counts = consolidate(ctx_at(profile, clock.now(), summarize=lambda _s, _lang: {"summary": "Alice won the lottery in Monaco yesterday evening."}))
    assert counts["llm_rejected"] == 1
    assert profile.store.active_by_slot("topic.alice")[0].content.startswith("About Alice")


def test_consolidate_folds_later_episodes_into_the_topic(profile: Profile, clock: ManualClock) -> None:
    _episodes(profile, clock, ALICE, 3 * DAY)
    consolidate(ctx_at(profile, clock.now()))
    more = [f"Alice called about the dog, part {i}" for i in range(1, 6)]
    _episodes(profile, clock, more, 3 * DAY)
    counts = consolidate(ctx_at(profile, clock.now()))
    assert counts["updated"] == 1 and counts["created"] == 0
    topic = profile.store.active_by_slot("topic.alice")
    assert len(topic) == 1 and "11 mentions" in topic[0].content and "part 5" in topic[0].content


# -- purge ----------------------------------------------------------------------------------


def test_purge_hard_deletes_retired_memories_past_retention(profile: Profile, clock: ManualClock) -> None:
    start = clock.now()
    secret = "Zanzibar-Quokka-7781 is my locker code"
    gone = add(profile, secret)
    kept_pinned = add(profile, "Old pinned note", pinned=True)
    recent = add(profile, "Recently archived note")
    profile.service.set_status(gone.id, Status.ARCHIVED)
    profile.service.set_status(kept_pinned.id, Status.ARCHIVED)
    clock.advance(60 * DAY)
    profile.service.set_status(recent.id, Status.ARCHIVED)

    assert purge(ctx_at(profile, start + 91 * DAY, dry_run=True))["purged"] == 1
    assert status(profile, gone.id) is Status.ARCHIVED
    counts = purge(ctx_at(profile, start + 91 * DAY))
    assert counts["purged"] == 1 and counts["archived"] == 1
    assert profile.store.get_many([gone.id]) == {}
    assert profile.db.scalar("SELECT COUNT(*) FROM memories_fts WHERE rowid = ?", (gone.id,)) == 0
    assert gone.id not in indexed(profile)
    events = profile.db.query("SELECT event, detail FROM memory_events WHERE memory_id = ?", (gone.id,))
    assert [e[0] for e in events][-2:] == ["deleted", "purged"]
    assert all("Zanzibar" not in (e[1] or "") for e in events)
    assert {status(profile, kept_pinned.id), status(profile, recent.id)} == {Status.ARCHIVED}
    assert purge(ctx_at(profile, start + 91 * DAY))["purged"] == 0  # idempotent
    profile.db.checkpoint()
    assert b"Zanzibar" not in (profile.dir / "mnemo.db").read_bytes()


def test_purge_removes_orphaned_vault_items(profile: Profile, clock: ManualClock) -> None:
    now = to_ts(clock.now())
    item = profile.vault.put("phone", "+49 170 1234567", "+49 170 ****567", now)
    memory = add(profile, "My phone number is +49 170 ****567", category=Category.IDENTIFIER, vault_ids=[item])
    profile.service.set_status(memory.id, Status.SUPERSEDED)
    counts = purge(ctx_at(profile, clock.now() + 100 * DAY))
    assert counts["vault_items"] == 1 and counts["superseded"] == 1
    assert profile.vault.items() == []


# -- reconcile and compact ------------------------------------------------------------------


def test_reconcile_repairs_the_index_and_rebuilds_after_many_removals(profile: Profile, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    memories = [add(profile, f"Note number {i} about the garden") for i in range(6)]
    index = profile.service.index
    index.delete([memories[0].id])  # a lost vector
    profile.store.set_status(memories[1].id, Status.ARCHIVED, to_ts(clock.now()))  # a stale one
    counts = reconcile_and_compact(ctx_at(profile, clock.now(), dry_run=True))
    assert counts["indexed"] == 1 and counts["removed"] == 1 and counts["rebuilt"] == 0
    monkeypatch.setattr(compact_module, "REBUILD_MIN_REMOVALS", 1)
    monkeypatch.setattr(compact_module, "REBUILD_SHARE", 0.0)
    counts = reconcile_and_compact(ctx_at(profile, clock.now()))
    assert counts["rebuilt"] == 1 and counts["indexed"] == 1
    assert indexed(profile) == profile.store.active_ids()
    again = reconcile_and_compact(ctx_at(profile, clock.now()))
    assert again["indexed"] == 0 and again["removed"] == 0 and again["rebuilt"] == 0
    hits = profile.recaller.recall("garden note number 3", clock.now())
    assert hits  # vectors copied across the rebuild still answer


# -- the run --------------------------------------------------------------------------------


def test_run_records_the_job_and_each_steps_success(profile: Profile, clock: ManualClock) -> None:
    add(profile, "I fly to Oslo tomorrow", category=Category.GOAL, expires_at=to_ts(clock.now() + DAY))
    later = clock.now() + 2 * DAY
    seen: list[str] = []
    report = run_maintenance(profile, later, after_step=lambda name, counts: seen.append(name))
    assert seen == list(STEPS) and list(report.steps) == list(STEPS)
    assert report.steps["expire"] == {"archived": 1}
    row = profile.db.one("SELECT kind, status, counts, duration_s, started_at FROM jobs WHERE id = ?", (report.job_id,))
    assert row is not None and row["kind"] == "maintenance" and row["status"] == "ok"
    assert json.loads(row["counts"])["steps"] == report.steps
    assert row["duration_s"] >= 0 and row["started_at"] == to_ts(later)
    assert last_success(profile.db, profile.service.profile_id) == to_ts(later)
    assert set(report.as_dict()["steps"]) == {"expire", "decay", "merge", "consolidate", "purge", "reconcile"}


def test_dry_run_changes_nothing_and_leaves_no_success(profile: Profile, clock: ManualClock) -> None:
    trip = add(profile, "I fly to Oslo tomorrow", category=Category.GOAL, expires_at=to_ts(clock.now() + DAY))
    report = run_maintenance(profile, clock.now() + 2 * DAY, dry_run=True)
    assert report.steps["expire"] == {"archived": 1}
    assert status(profile, trip.id) is Status.ACTIVE
    assert last_success(profile.db, profile.service.profile_id) is None


def test_run_a_subset_and_reject_unknown_steps(profile: Profile, clock: ManualClock) -> None:
    assert list(run_maintenance(profile, clock.now(), steps=["purge", "expire"]).steps) == ["expire", "purge"]
    with pytest.raises(InputError):
        run_maintenance(profile, clock.now(), steps=["defragment"])


def test_a_second_run_in_this_process_is_refused(profile: Profile, clock: ManualClock) -> None:
    with maintenance_lock(profile.dir / LOCK_NAME), pytest.raises(MaintenanceBusyError):
        run_maintenance(profile, clock.now())
    run_maintenance(profile, clock.now())  # the lock was released


def test_a_run_in_another_process_is_refused(profile: Profile, clock: ManualClock) -> None:
    script = textwrap.dedent(f"""
        import sys
        from filelock import FileLock
        with FileLock({str(profile.dir / LOCK_NAME)!r}):
            print("held", flush=True)
            sys.stdin.readline()
    """)
    with subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as holder:
        assert holder.stdin is not None and holder.stdout is not None
        try:
            assert holder.stdout.readline().strip() == "held"
            with pytest.raises(MaintenanceBusyError):
                run_maintenance(profile, clock.now())
        finally:
            holder.stdin.write("\n")
            holder.stdin.flush()
            holder.wait(timeout=30)
    run_maintenance(profile, clock.now())


def test_merge_on_a_normal_night_asks_the_index_for_neighbours(profile: Profile, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    merge_module = importlib.import_module("assistant.memory.maintain.merge")

    for i in range(4):
        add(profile, f"Unrelated note {i} about the {['garden', 'car', 'bank', 'gym'][i]}")
    merge(ctx_at(profile, clock.now()))
    clock.advance(3 * DAY)
    a = add(profile, "My favourite colour is blue")
    b = add(profile, "My favorite color is blue")
    monkeypatch.setattr(merge_module, "NEIGHBOUR_SHARE", 1000)  # force the incremental path
    counts = merge(ctx_at(profile, clock.now(), last_success={"merge": to_ts(clock.now() - DAY)}))
    assert counts["checked"] == 2 and counts["by_vector"] == 1
    assert {status(profile, a.id), status(profile, b.id)} == {Status.ACTIVE, Status.MERGED}

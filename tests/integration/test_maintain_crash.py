"""A maintenance run killed mid-way (SIGKILL in a subprocess) leaves a consistent store,
and the next run finishes the job: nothing lost, nothing duplicated, integrity ok."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from assistant.app import Profile
from assistant.clock import ManualClock, to_ts
from assistant.config import Settings
from assistant.memory.embedder import SentenceTransformerEmbedder
from assistant.memory.maintain import run_maintenance
from assistant.memory.store import NewMemory
from assistant.memory.types import Category, Kind, Status

DAY = timedelta(days=1)

# The child opens the profile, arranges to SIGKILL itself at the named point, and runs.
CHILD = textwrap.dedent("""
    import os, signal, sys
    from datetime import datetime
    from pathlib import Path
    from assistant.app import Profile
    from assistant.clock import ManualClock
    from assistant.config import Settings
    from assistant.memory.embedder import BUNDLED_MODEL
    from assistant.memory.maintain import run_maintenance

    data, when, point = Path(sys.argv[1]), datetime.fromisoformat(sys.argv[2]), sys.argv[3]
    profile = Profile(data, "default", Settings(embedding_model=BUNDLED_MODEL), clock=ManualClock(when), warn=lambda t: None)

    def die(*_args, **_kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    def after_step(name, counts):
        if point == "after:" + name:
            die()

    if point == "consolidate-before-index":  # its transaction committed, its vector not yet written
        index = profile.service.index
        index.upsert = die
    if point == "purge-mid-batch":
        import assistant.memory.maintain.lifecycle as lifecycle
        lifecycle.BATCH = 2
        real = profile.store.delete
        calls = []
        def delete(memory_id, now):
            calls.append(memory_id)
            if len(calls) == 3:
                die()
            return real(memory_id, now)
        profile.store.delete = delete
    run_maintenance(profile, when, after_step=after_step)
    print("finished")
""")


def _seed(data_dir: Path, settings: Settings, embedder: SentenceTransformerEmbedder, clock: ManualClock) -> dict[str, list[int]]:
    """A profile with work for every step: plans, trivia, duplicates, episodes, old retired rows."""
    ids: dict[str, list[int]] = {"plans": [], "trivia": [], "dups": [], "episodes": [], "old": [], "facts": []}
    with Profile(data_dir, "default", settings, embedder=embedder, clock=clock, warn=lambda _t: None) as profile:
        add = profile.service.add
        for i in range(6):
            old = add(NewMemory(f"Old retired note {i}", Category.FACT))
            profile.service.set_status(old.id, Status.ARCHIVED)
            ids["old"].append(old.id)
        clock.advance(95 * DAY)
        for i, text in enumerate(["I fly to Oslo next week", "Dentist appointment on Friday"]):
            ids["plans"].append(add(NewMemory(text, Category.GOAL, expires_at=to_ts(clock.now() + (i + 1) * DAY))).id)
        for text in ["I'm allergic to peanuts", "I am allergic to peanuts", "My favourite colour is blue", "My favorite color is blue"]:
            ids["dups"].append(add(NewMemory(text, Category.FACT)).id)
        ids["facts"].append(add(NewMemory("My name is Lena", Category.FACT, slot="user.name", importance=5)).id)
        for topic in (["her flat", "her promotion", "a dog", "Lisbon", "her bike", "cooking"]):
            ids["episodes"].append(add(NewMemory(f"Talked with Alice about {topic}", Category.FACT, kind=Kind.EPISODIC, entities=["Alice"], importance=2)).id)
            clock.advance(2 * DAY)
        for i in range(3):
            ids["trivia"].append(add(NewMemory(f"Had soup number {i} for lunch", Category.FACT, kind=Kind.EPISODIC, importance=1)).id)
        clock.advance(25 * DAY)  # plans expire, trivia fades (episodes do not yet), old notes pass retention
    return ids


def _kill_child(data_dir: Path, clock: ManualClock, point: str) -> None:
    env = {**os.environ, "MNEMO_DATA_DIR": str(data_dir)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(data_dir), clock.now().isoformat(), point],
        env=env, capture_output=True, text=True, timeout=300, cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    assert "finished" not in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("point", ["after:merge", "consolidate-before-index", "purge-mid-batch"])
def test_a_killed_run_is_finished_by_the_next(
    point: str, data_dir: Path, settings: Settings, embedder: SentenceTransformerEmbedder, clock: ManualClock
) -> None:
    ids = _seed(data_dir, settings, embedder, clock)
    everything = [i for group in ids.values() for i in group]
    _kill_child(data_dir, clock, point)

    with Profile(data_dir, "default", settings, embedder=embedder, clock=clock, warn=lambda _t: None) as profile:
        assert profile.db.integrity_ok()
        interrupted = profile.db.query("SELECT status FROM jobs")
        assert [r[0] for r in interrupted] == ["running"]  # the killed run never finished
        report = run_maintenance(profile, clock.now())
        assert report.steps["reconcile"]["removed"] >= 0
        statuses = [r[0] for r in profile.db.query("SELECT status FROM jobs ORDER BY id")]
        assert statuses == ["interrupted", "ok"]

        present = profile.store.get_many(everything)
        # purged: exactly the old retired notes, each with one tombstone
        assert set(everything) - set(present) == set(ids["old"])
        tombstones = Counter(r[0] for r in profile.db.query("SELECT memory_id FROM memory_events WHERE event = 'purged'"))
        assert tombstones == Counter(ids["old"])
        # the rest is all there, in its final state
        assert {present[i].status for i in ids["plans"]} == {Status.ARCHIVED}
        assert {present[i].status for i in ids["trivia"]} == {Status.ARCHIVED}
        assert sorted(present[i].status.value for i in ids["dups"]) == ["active", "active", "merged", "merged"]
        assert {present[i].status for i in ids["episodes"]} == {Status.MERGED}
        assert present[ids["facts"][0]].status is Status.ACTIVE
        # consolidated once, not twice
        topics = profile.db.query("SELECT id FROM memories WHERE slot = 'topic.alice'")
        assert len(topics) == 1
        assert {present[i].superseded_by for i in ids["episodes"]} == {topics[0][0]}
        active = profile.store.list(limit=1000)
        contents = [m.content for m in active]
        assert len(contents) == len(set(contents))
        assert profile.service.index.ids(profile.service.profile_id) == profile.store.active_ids()
        assert profile.db.integrity_ok()
        again = run_maintenance(profile, clock.now())  # and now there is nothing left to do
        assert again.steps["merge"]["merged"] == 0 and again.steps["consolidate"]["groups"] == 0
        assert again.steps["purge"]["purged"] == 0 and again.steps["reconcile"]["indexed"] == 0

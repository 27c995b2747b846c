"""120 days in the life of one user, with the maintenance job every night (injected clock).

Facts, an update, paraphrased restatements, repeated episodes about one person, plans with
dates and daily trivia go in through the service; every night `run_maintenance` runs. At
checkpoints we assert what is active, archived, merged and purged, that recall on the facts
that are still true does not get worse, and that the active count stays bounded.

`simulate()` is also used by benchmarks/bench_maintain.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

import pytest

from assistant.app import Profile
from assistant.clock import ManualClock, to_ts
from assistant.memory.maintain import run_maintenance
from assistant.memory.store import NewMemory
from assistant.memory.types import Category, Kind, Status

DAY = timedelta(days=1)
DAYS = 120

FACTS = [  # (content, slot, importance, category, question)
    ("My name is Lena Hoffmann", "user.name", 5, Category.FACT, "what is my name?"),
    ("I work as a nurse at the Charité hospital", "user.job", 4, Category.FACT, "what is my job?"),
    ("I am allergic to peanuts", None, 5, Category.FACT, "do I have any food allergies?"),
    ("My sister is called Alice", "family.sister", 4, Category.FACT, "what is my sister's name?"),
    ("I prefer green tea over coffee", None, 3, Category.PREFERENCE, "do I drink tea or coffee?"),
    ("My cat is named Miso", "pet.cat", 3, Category.FACT, "what is my cat called?"),
]
CITY_OLD = ("I live in Berlin", "user.city", 4)
CITY_NEW = ("I moved to Munich", "user.city", 4)
CITY_QUESTION = "where do I live?"
RESTATEMENTS = {5: ("I'm allergic to peanuts", 4), 17: ("I really prefer green tea over coffee", 3)}
FOODS = ["pasta", "ramen", "a falafel wrap", "pho", "a burrito", "sushi", "dumplings", "a Caesar salad", "curry", "pizza", "a bagel"]
PLACES = ["the bakery", "the library", "the post office", "the gym", "the pharmacy", "the market", "the park"]
ALICE = ["her new flat", "her promotion", "adopting a dog", "her trip to Lisbon", "her cooking class", "her new bike"]
TRIPS = ["Shanghai", "Vienna", "Oslo", "Lisbon", "Prague", "Rome", "Dublin", "Madrid", "Athens", "Zurich", "Riga", "Porto"]


@dataclass
class Life:
    ids: dict[str, int] = field(default_factory=dict)  # named memories
    trivia: list[tuple[int, int]] = field(default_factory=list)  # (day, id)
    plans: list[tuple[int, int]] = field(default_factory=list)
    episodes: list[int] = field(default_factory=list)
    added: int = 0
    active_by_day: list[int] = field(default_factory=list)
    night_seconds: list[float] = field(default_factory=list)
    recall_by_day: dict[int, float] = field(default_factory=dict)


def still_true(life: Life, day: int) -> list[tuple[int, str]]:
    """(memory id, question) of facts true on `day`."""
    out = [(life.ids[content], question) for content, _s, _i, _c, question in FACTS]
    city = CITY_NEW[0] if day >= 40 else CITY_OLD[0]
    out.append((life.ids[city], CITY_QUESTION))
    return out


def _follow_merges(profile: Profile, life: Life) -> None:
    """A named fact merged into another lives on there (and the merged row is purged later)."""
    for key, memory_id in list(life.ids.items()):
        memory = profile.store.get_many([memory_id]).get(memory_id)
        if memory is not None and memory.status is Status.MERGED and memory.superseded_by:
            life.ids[key] = memory.superseded_by


def recall_quality(profile: Profile, life: Life, day: int, k: int = 3) -> float:
    """Share of still-true facts found in the top k for their question (merged ids follow)."""
    found = 0
    pairs = still_true(life, day)
    for memory_id, question in pairs:
        hits = profile.recaller.recall(question, profile.clock.now(), k=k)
        found += any(h.memory.id == memory_id for h in hits)
    return found / len(pairs)


def simulate(
    profile: Profile,
    clock: ManualClock,
    days: int = DAYS,
    checkpoint: Callable[[int, Life], None] | None = None,
) -> Life:
    """Live `days` days: statements each evening, questions, and maintenance each night."""
    life = Life()
    service = profile.service

    def add(key: str | None, text: str, **fields: object) -> int:
        fields.setdefault("category", Category.FACT)
        memory = service.add(NewMemory(content=text, **fields))  # type: ignore[arg-type]
        life.added += 1
        if key:
            life.ids[key] = memory.id
        return memory.id

    for day in range(days):
        now = clock.now()
        if day == 0:
            for content, slot, importance, category, _q in FACTS:
                add(content, content, slot=slot, importance=importance, category=category)
            add(CITY_OLD[0], CITY_OLD[0], slot=CITY_OLD[1], importance=CITY_OLD[2])
        if day == 40:  # an update: the write path supersedes the old value
            new = add(CITY_NEW[0], CITY_NEW[0], slot=CITY_NEW[1], importance=CITY_NEW[2])
            service.supersede(life.ids[CITY_OLD[0]], new)
        if day in RESTATEMENTS:  # the LLM extractor restating a known fact in other words
            text, importance = RESTATEMENTS[day]
            add(f"restated-{day}", text, importance=importance,
                category=Category.PREFERENCE if "tea" in text else Category.FACT)
        for n in range(2):  # unused trivia, every day
            life.trivia.append((day, add(None, f"Day {day}: I had {FOODS[(day + n * 5) % len(FOODS)]} and went to {PLACES[(day * 2 + n) % len(PLACES)]}",
                                         importance=1, kind=Kind.EPISODIC)))
        if day % 3 == 0 and day < 60:  # repeated episodes about one person
            topic = ALICE[(day // 3) % len(ALICE)]
            life.episodes.append(add(None, f"Talked with Alice about {topic} (day {day})", kind=Kind.EPISODIC,
                                     entities=["Alice"], importance=2))
        if day % 10 == 0:  # plans with dates
            trip = TRIPS[(day // 10) % len(TRIPS)]
            life.plans.append((day, add(None, f"I fly to {trip} next Wednesday", category=Category.GOAL,
                                        importance=3, expires_at=to_ts(now + 8 * DAY), event_at=to_ts(now + 7 * DAY))))
        for memory_id, question in still_true(life, day)[day % 3 :: 3]:  # daily use
            del memory_id
            profile.recaller.recall(question, now)
        if checkpoint:
            checkpoint(day, life)
        clock.advance(timedelta(hours=7))  # 03:00 the next morning
        started = time.perf_counter()
        run_maintenance(profile, clock.now())
        life.night_seconds.append(time.perf_counter() - started)
        _follow_merges(profile, life)
        life.active_by_day.append(profile.store.count())
        clock.advance(timedelta(hours=17))
    return life


@pytest.mark.slow
def test_120_days_of_one_user(profile: Profile, clock: ManualClock) -> None:
    def status(memory_id: int) -> Status | None:
        memory = profile.store.get_many([memory_id]).get(memory_id)
        return None if memory is None else memory.status

    def checkpoint(day: int, life: Life) -> None:
        if day == 1:
            life.recall_by_day[day] = recall_quality(profile, life, day)
        if day == 30:
            life.recall_by_day[day] = recall_quality(profile, life, day)
            assert life.ids["restated-5"] == life.ids[FACTS[2][0]]  # the restatement and the fact merged
            assert status(life.plans[0][1]) is Status.ARCHIVED  # day-0 trip expired on day 8
            assert status(life.plans[3][1]) is Status.ACTIVE  # day-30 trip is still ahead
            assert all(status(i) is Status.ARCHIVED for d, i in life.trivia if d <= 5)  # unused trivia faded
            assert all(status(i) is Status.ACTIVE for d, i in life.trivia if d >= 25)
            assert all(status(i) is Status.MERGED for i in life.episodes[:5])  # consolidated
            assert len(profile.store.active_by_slot("topic.alice")) == 1
        if day == 60:
            life.recall_by_day[day] = recall_quality(profile, life, day)
            assert status(life.ids[CITY_OLD[0]]) is Status.SUPERSEDED
            assert status(life.ids[CITY_NEW[0]]) is Status.ACTIVE
        if day == 100:
            life.recall_by_day[day] = recall_quality(profile, life, day)
            assert status(life.plans[0][1]) is None  # archived day 8, purged after 90 days
            assert all(status(i) is Status.ARCHIVED for d, i in life.trivia if 20 <= d <= 40)

    life = simulate(profile, clock, DAYS, checkpoint)
    print(f"nights: mean {sum(life.night_seconds) / DAYS:.3f}s max {max(life.night_seconds):.3f}s; active {life.active_by_day[::10]}")
    day = DAYS - 1
    life.recall_by_day[day] = recall_quality(profile, life, day)

    # still-true facts stay active (or live on in what they merged into) and are found
    for memory_id, _question in still_true(life, day):
        assert status(memory_id) is Status.ACTIVE
    assert min(life.recall_by_day.values()) >= life.recall_by_day[1] >= 6 / 7, life.recall_by_day
    # purged: early trivia and expired plans are gone for good, with content-free tombstones
    assert all(status(i) is None for d, i in life.trivia if d <= 5)  # archived ~day 23-28, purged 90 days on
    tombstones = profile.db.query("SELECT detail FROM memory_events WHERE event = 'purged'")
    assert len(tombstones) >= 20 and all("Day" not in (t[0] or "") for t in tombstones)
    assert status(life.ids[CITY_OLD[0]]) is Status.SUPERSEDED  # superseded on day 40: kept until day 130
    # bounded: about 280 memories went in; a few dozen are active
    assert life.added > 250
    assert max(life.active_by_day[30:]) <= 75, life.active_by_day
    assert profile.service.index.ids(profile.service.profile_id) == profile.store.active_ids()
    assert profile.db.integrity_ok()
    jobs = profile.db.query("SELECT status FROM jobs WHERE kind = 'maintenance'")
    assert len(jobs) == DAYS and {j[0] for j in jobs} == {"ok"}

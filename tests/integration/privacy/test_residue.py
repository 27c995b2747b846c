"""Deleting leaves nothing: canaries planted in memories, vault values, messages and
summaries are in no byte of any file under the data directory once deleted (UTF-8 and
UTF-16), and a deleted memory's vector leaves the index folder once the scheduled scrub ran.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from assistant.app import Profile
from assistant.chat.history import ConversationStore
from assistant.memory.store import NewMemory
from assistant.memory.types import Category
from tests.integration.privacy.helpers import TinyEmbedder, crash, residue, vector_residue

MEMORY_CANARY = "Zebulon-Quartzfeld-7731"
EDITED_CANARY = "Oldwording-Vexmarrow-5520"
VAULT_CANARY = "VAULTCANARY-889921"
MESSAGE_CANARY = "Parlance-Hindquist-4410"
SUMMARY_CANARY = "Resume-Grobnitz-3318"
ALL = [MEMORY_CANARY, EDITED_CANARY, VAULT_CANARY, MESSAGE_CANARY, SUMMARY_CANARY]


def _plant(profile: Profile) -> tuple[list[int], str]:
    now = profile.service.now()
    for i in range(40):
        profile.service.add(NewMemory(f"filler memory number {i} about the garden", Category.FACT))
    vault_id = profile.vault.put("password", VAULT_CANARY, "V***1", now)
    first = profile.service.add(
        NewMemory(
            f"My locker code word is {MEMORY_CANARY}", Category.IDENTIFIER, vault_ids=[vault_id]
        )
    )
    second = profile.service.add(
        NewMemory(f"I collect {EDITED_CANARY} stamps", Category.PREFERENCE)
    )
    # the old wording goes to the memory's history
    profile.service.edit(second.id, content="I collect old stamps")
    history = ConversationStore(profile.db, profile.name)
    history.create_session("s1", "chat", False, now)
    for i in range(5):
        history.add_message("s1", "user", f"message {i} mentions {MESSAGE_CANARY}", now)
    history.set_summary("s1", f"The user talked about {SUMMARY_CANARY}.", 3)
    history.set_summary("s1", "The user talked about stamps.", 5)  # the old summary must go too
    profile.db.checkpoint()
    return [first.id, second.id], "s1"


def test_deleted_text_is_in_no_file_when_the_call_returns(
    data_dir: Path, tiny_profile: Profile, tiny: TinyEmbedder
) -> None:
    profile = tiny_profile
    ids, session = _plant(profile)
    planted = residue(data_dir, ALL)
    assert {c for _f, c in planted} >= {MEMORY_CANARY, EDITED_CANARY, MESSAGE_CANARY}, (
        "the scan must see planted text"
    )
    vectors = list(profile.service.index.vectors(ids).values())
    assert vector_residue(data_dir, vectors), "the scan must see planted vectors"

    for memory_id in ids:
        profile.service.delete(memory_id, profile.vault.delete)
    for vault_id in ConversationStore(profile.db, profile.name).delete(session):
        profile.vault.delete(vault_id)

    assert residue(data_dir, ALL) == []  # no close, no maintenance: right after the calls
    assert profile.service.index.query(vectors[0], 5, profile.name)[0][0] not in ids  # unreachable
    assert profile.pending_scrub

    events: list[bool] = []
    profile.on_scrub.append(events.append)
    assert profile.scrub_index()
    assert events == [False] and not profile.pending_scrub
    assert vector_residue(data_dir, vectors) == []
    rebuilt = _segment_files(profile)
    assert profile.service.index.count() == 40  # the others survived the rebuild
    hit = profile.service.index.query(
        tiny.embed_one("filler memory number 3 about the garden"), 1, profile.name
    )
    assert profile.store.get(hit[0][0]).content.endswith("garden")
    # This process held the deleted vectors: it must load the rebuilt graph, not rebuild and
    # save it from its own heap (unused capacity is saved from uninitialised memory).
    assert _segment_files(profile) == rebuilt
    profile.close()
    assert residue(data_dir, ALL) == [] and vector_residue(data_dir, vectors) == []


def _segment_files(profile: Profile) -> dict[str, bytes]:
    """The HNSW segment files of the index folder (Chroma's SQLite file aside)."""
    folder = profile.service.index_dir
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.parent != folder
    }


def test_a_scrub_interrupted_by_a_crash_runs_at_the_next_start(
    data_dir: Path, tiny_profile: Profile, open_tiny: Callable[[], Profile]
) -> None:
    profile = tiny_profile
    ids, _session = _plant(profile)
    vectors = list(profile.service.index.vectors(ids).values())
    profile.service.delete(ids[0], profile.vault.delete)
    assert profile.pending_scrub
    crash(profile)
    reopened = open_tiny()
    try:
        assert not reopened.pending_scrub
        assert vector_residue(data_dir, vectors[:1]) == []
        assert reopened.service.index.ids(reopened.name) == reopened.store.active_ids()
        index_dir = reopened.service.index_dir
        folders = [p.name for p in index_dir.parent.iterdir() if p.name.startswith("index")]
        assert folders == ["index"]
        # one segment folder: the old one is gone
        assert len([p for p in index_dir.iterdir() if p.is_dir()]) == 1
        top = reopened.service.index.query(vectors[0], 3, reopened.name)
        assert ids[0] not in {memory_id for memory_id, _score in top}
        assert vector_residue(data_dir, vectors[:1]) == []
    finally:
        reopened.close()
    assert vector_residue(data_dir, vectors[:1]) == []


def test_forget_me_leaves_nothing_and_the_app_keeps_working(
    data_dir: Path, tiny_profile: Profile, tiny: TinyEmbedder
) -> None:
    profile = tiny_profile
    _plant(profile)
    profile.db.checkpoint()
    assert residue(data_dir, ALL)
    report = profile.forget_me()
    assert report.memories == 42 and report.files_removed > 0
    assert residue(data_dir, ALL) == []
    assert profile.store.total() == 0 and profile.vault.items() == []
    added = profile.service.add(NewMemory("I live in Porto", Category.FACT))
    assert (
        profile.service.index.query(tiny.embed_one("I live in Porto"), 1, profile.name)[0][0]
        == added.id
    )
    assert profile.vault.get(profile.vault.put("phone", "123", "1**", time.time())) == "123"

"""Start-up after a crash repairs what the killed process left half-done (memory/recovery.py).

The crash test (test_crash.py) kills real processes at these points; this checks that the
app's own start-up runs the repair, and that a clean close leaves nothing for it to redo.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from assistant.app import Profile
from assistant.memory.recovery import recover_after_crash
from assistant.memory.store import NewMemory
from assistant.memory.types import Category
from tests.integration.privacy.helpers import TinyEmbedder, crash


def test_start_up_after_a_crash_reembeds_edits_and_drops_unreferenced_vault_items(
    tiny_profile: Profile, open_tiny: Callable[[], Profile], tiny: TinyEmbedder
) -> None:
    profile = tiny_profile
    kept = profile.service.add(NewMemory("I keep bees in the garden", Category.FACT))
    edited = profile.service.add(NewMemory("My locker code word is Zebulon", Category.IDENTIFIER))
    referenced = profile.vault.put("phone", "+351 911111111", "+351 91*****11", 1.0)
    profile.service.add(
        NewMemory("phone +351 91*****11", Category.IDENTIFIER, vault_ids=[referenced])
    )
    # what a kill leaves: an edit committed to SQLite without its new vector, a vault value
    # stored without the memory that was to refer to it
    profile.store.edit(edited.id, profile.service.now(), content="I collect old stamps")
    profile.vault.put("phone", "+351 912222222", "+351 91*****22", 1.0)
    crash(profile)

    reopened = open_tiny()
    try:
        vectors = reopened.service.index.vectors([kept.id, edited.id])
        assert np.allclose(vectors[edited.id], tiny.embed_one("I collect old stamps"), atol=1e-6)
        assert np.allclose(vectors[kept.id], tiny.embed_one("I keep bees in the garden"), atol=1e-6)
        assert [item.id for item in reopened.vault.items()] == [referenced]
        assert reopened.vault.get(referenced) == "+351 911111111"
    finally:
        reopened.close()


def test_a_clean_close_leaves_nothing_to_repair(
    tiny_profile: Profile, open_tiny: Callable[[], Profile]
) -> None:
    profile = tiny_profile
    memory = profile.service.add(NewMemory("I keep bees in the garden", Category.FACT))
    profile.service.edit(memory.id, content="I keep bees on the roof")
    profile.close()
    reopened = open_tiny()
    try:
        assert recover_after_crash(reopened.service, reopened.vault).as_dict() == {
            "indexed": 0,
            "removed": 0,
            "reembedded": 0,
            "vault_orphans": 0,
        }
    finally:
        reopened.close()

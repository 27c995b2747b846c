"""Forget-me is atomic across a crash: SIGKILL at every step of it, then start again.

A real child process opens the profile and runs forget-me, killing itself (SIGKILL) at one
announced step (`Profile.on_forget_step`). The next start must find either everything as
it was (killed before the intent was written: nothing erased) or nothing at all (erased at
that start, which says so): no memory, no message, no vault item, no key, no byte of the
canary text anywhere under the data directory.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from assistant.app import Profile
from assistant.memory.forget_intent import intent_path
from assistant.memory.store import NewMemory
from assistant.memory.types import Category
from tests.integration.privacy.helpers import residue

STEPS_BEFORE_INTENT = ("counted",)
STEPS_AFTER_INTENT = ("intent", "key", "closed", "renamed", "shredded", "reopened")
CANARY = "Quixotic-Marmalade-7731"
SECRET = "+351 912345678"

KILL_AT_STEP = """
import os, signal, sys
from pathlib import Path
from assistant.app import Profile
from assistant.config import Settings
from tests.integration.privacy.helpers import TinyEmbedder
profile = Profile(Path(sys.argv[1]), "default", Settings(), embedder=TinyEmbedder(), warn=lambda _t: None)
step = sys.argv[2]
profile.on_forget_step = lambda name: os.kill(os.getpid(), signal.SIGKILL) if name == step else None
profile.forget_me()
sys.exit(5)  # the step was never announced
"""


def _seed(profile: Profile) -> int:
    item = profile.vault.put("phone", SECRET, "+351 91*****78", profile.service.now())
    profile.service.add(NewMemory(f"My codename is {CANARY}", Category.FACT))
    profile.service.add(NewMemory(f"phone +351 91*****78 [vault #{item}]", Category.IDENTIFIER, vault_ids=[item]))
    profile.db.execute(
        "INSERT INTO sessions(id, profile_id, title, created_at, updated_at) VALUES ('s1', 'default', 't', 1, 1)"
    )
    profile.db.execute(
        "INSERT INTO messages(profile_id, session_id, role, content, created_at) VALUES ('default', 's1', 'user', ?, 1)",
        (f"remember {CANARY}",),
    )
    return item


@pytest.mark.parametrize("step", STEPS_BEFORE_INTENT + STEPS_AFTER_INTENT)
def test_a_kill_at_any_step_of_forget_me_erases_all_or_nothing(
    data_dir: Path, open_tiny: Callable[[], Profile], step: str
) -> None:
    profile = open_tiny()
    item = _seed(profile)
    profile.close()
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AT_STEP, str(data_dir), step], capture_output=True, timeout=300, check=False
    )
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]

    warnings: list[str] = []
    reopened = Profile(data_dir, "default", profile.settings,
                       embedder=profile.embedder, warn=warnings.append)
    try:
        if step in STEPS_BEFORE_INTENT:
            assert reopened.store.total() == 2
            assert reopened.vault.get(item) == SECRET
            assert not any("forget me" in w for w in warnings)
        else:
            assert reopened.store.total() == 0
            assert reopened.vault.items() == []
            assert reopened.db.scalar("SELECT COUNT(*) FROM messages") == 0
            assert reopened.db.scalar("SELECT COUNT(*) FROM vault_keys") == 0
            assert any("forget me" in w for w in warnings), warnings
            assert residue(data_dir, [CANARY, SECRET]) == []
            assert not intent_path(reopened.dir).exists()
            assert not list(reopened.dir.parent.glob(".forget-*"))
            assert not (reopened.dir / "keys" / "kek.key").exists()
    finally:
        reopened.close()


OPEN_IN_CHILD = """
import sys
from pathlib import Path
from assistant.app import Profile
from assistant.config import Settings
from assistant.errors import ProfileLockedError
from tests.integration.privacy.helpers import TinyEmbedder
try:
    Profile(Path(sys.argv[1]), "default", Settings(), embedder=TinyEmbedder()).close()
except ProfileLockedError:
    sys.exit(3)
"""


def test_a_second_process_starting_during_forget_me_is_refused_and_touches_nothing(
    data_dir: Path, tiny_profile: Profile
) -> None:
    _seed(tiny_profile)
    seen: dict[str, object] = {}

    def during(name: str) -> None:
        if name != "renamed":
            return  # the profile folder has just been moved away
        other = subprocess.run([sys.executable, "-c", OPEN_IN_CHILD, str(data_dir)], capture_output=True, timeout=300, check=False)
        seen["code"] = other.returncode
        seen["folder_made"] = tiny_profile.dir.exists()
        seen["stderr"] = other.stderr.decode()[-2000:]

    tiny_profile.on_forget_step = during
    report = tiny_profile.forget_me()
    assert seen["code"] == 3, seen["stderr"]
    assert seen["folder_made"] is False, "the refused process created the profile folder"
    assert report.memories == 2 and tiny_profile.store.total() == 0

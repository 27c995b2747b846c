"""The app's life in the crash test: start up, report, work until SIGKILLed (one child per run).

The children come from a forkserver that preloaded the core and Chroma. `session` starts up
on the store the last kill left, the way the app does after a crash, sends the parent a report
of what it finds, then runs `workload`: a seeded mix of writes (plain and sensitive, the value
going to the vault), supersedes, edits, deletes and maintenance runs on a real SQLite + Chroma
store with the light `TinyEmbedder`. Each operation is acknowledged on the pipe once its call
returned; announcements mark points inside operations where the parent may kill instead.

Acknowledgements (``n`` picks the text, see `content_for`):

    A id n          a memory was added
    S id n item     a memory was added whose sensitive value is vault item `item`
    R id old n      a memory was added superseding `old`
    E id n          an edit of `id` to text n returned
    D id            a deletion of `id` returned
    M-              a maintenance run returned

Announcements (the operation they belong to may be cut off, so either outcome is accepted):

    e id n / d id   an edit / a deletion starts
    x               the embedder runs: a write has committed to SQLite, its vector is next
    v               a sensitive value is in the vault; the memory referring to it is next
    w               a deleted memory's vault item is being deleted
    M+ / M step     a maintenance run starts / finished `step`
    END             the workload is done (the child then waits to be killed)
"""

from __future__ import annotations

import json
import random
import signal
from collections.abc import Callable, Sequence
from datetime import timedelta
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import keyring
import keyring.backends.null
import numpy as np

from assistant.clock import ManualClock, to_ts
from assistant.config import Settings
from assistant.memory.db import Database
from assistant.memory.keys import KeyManager
from assistant.memory.maintain.context import MaintenanceParts
from assistant.memory.maintain.runner import run_maintenance
from assistant.memory.recovery import recover_after_crash
from assistant.memory.service import MemoryService
from assistant.memory.store import MemoryStore, NewMemory
from assistant.memory.text import index_text
from assistant.memory.types import Category, Kind
from assistant.memory.vault import Vault
from tests.conftest import START
from tests.integration.privacy.helpers import TinyEmbedder

PROFILE = "default"
# Short half-life and retention, one simulated hour per operation: maintenance archives,
# consolidates and purges within a run, so a kill can land in any of its steps.
SETTINGS = Settings(decay_half_life_days=1.0, retention_days=2)
HOURS_PER_RUN = 1000
LIVE_TARGET = 100  # adds outweigh deletes below this many active memories
WORDS = (
    "garden river lamp violin orchard copper lantern meadow harbor pepper canvas falcon "
    "marble thunder willow saddle compass velvet quartz ember glacier tulip cobalt anchor "
    "biscuit cactus dolphin feather hammock igloo jasmine kettle lemon magnet noodle oyster"
).split()
PLACES = ("Porto", "Kyoto", "Lima", "Oslo")


def content_for(n: int) -> str:
    """The text of write number n: a few words that make the vectors differ."""
    rng = random.Random(n)
    return f"note {n} " + " ".join(rng.choice(WORDS) for _ in range(5))


def secret_for(n: int) -> str:
    return f"+351 91{n % 10_000_000:07d}"


def masked_for(n: int) -> str:
    return f"+351 91*****{n % 100:02d}"


class AnnouncingEmbedder(TinyEmbedder):
    """TinyEmbedder that announces each call: the service embeds after its SQLite commit and
    before the index write, so a kill at this announcement lands between the two."""

    def __init__(self) -> None:
        self.announce: Callable[[str], None] | None = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.announce is not None:
            self.announce("x")
        return super().embed(texts)


def _parts(folder: Path, clock: ManualClock) -> tuple[Database, MemoryService, Vault]:
    keyring.set_keyring(keyring.backends.null.Keyring())  # the key file, never the user's keyring
    db = Database(folder / "mnemo.db")
    store = MemoryStore(db, PROFILE)
    store.ensure_profile(to_ts(clock.now()))
    keys = KeyManager(db, PROFILE, folder / "keys", warn=lambda _text: None)
    service = MemoryService(db, store, AnnouncingEmbedder(), folder / "index", clock)
    return db, service, Vault(db, PROFILE, keys)


def session(folder: str, conn: Connection, run: int, ops: int) -> None:
    """One life of the app: start up after the last kill, report the state, then work until killed."""
    clock = ManualClock(START + timedelta(hours=run * HOURS_PER_RUN))
    db, service, vault = _parts(Path(folder), clock)
    conn.send(start_up(db, service, vault))
    embedder = service.embedder
    assert isinstance(embedder, AnnouncingEmbedder)
    embedder.announce = lambda line: conn.send_bytes(line.encode())
    workload(Path(folder), db, service, vault, clock, conn, run, ops)
    conn.send_bytes(b"END")
    signal.pause()  # the parent kills this process


def workload(
    folder: Path,
    db: Database,
    service: MemoryService,
    vault: Vault,
    clock: ManualClock,
    conn: Connection,
    run: int,
    ops: int,
) -> None:
    """Run `ops` seeded operations, acknowledging each once its call returned."""
    rng = random.Random(run)
    parts = MaintenanceParts(db, service, SETTINGS, folder / ".maintenance.lock", vault)

    def ack(line: str) -> None:
        conn.send_bytes(line.encode())

    def delete_vault_item(item: int) -> None:
        ack("w")  # the memory's deletion has committed; its vault item goes now
        vault.delete(item)

    live = sorted(service.store.active_ids())
    for step in range(ops):
        clock.advance(timedelta(hours=1))
        n = run * 1_000_000 + step
        roll = rng.random()
        grow = len(live) < LIVE_TARGET
        if roll < (0.40 if grow else 0.25) or not live:
            episodic = rng.random() < 0.3
            memory = service.add(
                NewMemory(
                    content_for(n),
                    Category.FACT,
                    kind=Kind.EPISODIC if episodic else Kind.SEMANTIC,
                    entities=[rng.choice(PLACES)] if episodic else (),
                    importance=rng.randint(1, 5),
                )
            )
            live.append(memory.id)
            ack(f"A {memory.id} {n}")
        elif roll < 0.50:
            # the write path's order: the value goes to the vault first, then the memory
            item = vault.put("phone", secret_for(n), masked_for(n), service.now())
            ack("v")
            memory = service.add(
                NewMemory(
                    f"{content_for(n)} phone {masked_for(n)}",
                    Category.IDENTIFIER,
                    vault_ids=[item],
                    importance=4,
                )
            )
            live.append(memory.id)
            ack(f"S {memory.id} {n} {item}")
        elif roll < 0.58:
            old = live.pop(rng.randrange(len(live)))
            memory = service.add(NewMemory(content_for(n), Category.PREFERENCE), replacing=[old])
            live.append(memory.id)
            ack(f"R {memory.id} {old} {n}")
        elif roll < 0.70:
            target = rng.choice(live)
            ack(f"e {target} {n}")
            service.edit(target, content=content_for(n))
            ack(f"E {target} {n}")
        elif roll < 0.97:
            victim = live.pop(rng.randrange(len(live)))
            ack(f"d {victim}")
            service.delete(victim, delete_vault_item)
            ack(f"D {victim}")
        else:
            ack("M+")
            run_maintenance(parts, clock.now(), after_step=lambda name, _counts: ack(f"M {name}"))
            live = sorted(service.store.active_ids())
            ack("M-")


def start_up(db: Database, service: MemoryService, vault: Vault) -> dict[str, Any]:
    """Start-up after a crash as the app does it (`Profile` runs the same recovery), then a
    report of the state for the parent."""
    integrity = str(db.scalar("PRAGMA integrity_check"))
    report = recover_after_crash(service, vault)
    rows = {
        int(r["id"]): (
            str(r["content"]),
            str(r["status"]),
            json.loads(r["vault_ids"]),
            r["superseded_by"],
        )
        for r in db.query("SELECT id, content, status, vault_ids, superseded_by FROM memories")
    }
    fts = {int(r[0]): str(r[1]) for r in db.query("SELECT rowid, text FROM memories_fts")}
    torn_fts = sorted(
        i for i, (content, *_rest) in rows.items() if fts.get(i) != index_text(content)
    )
    torn_fts += sorted(set(fts) - set(rows))
    deleted_events = {
        int(r[0]) for r in db.query("SELECT memory_id FROM memory_events WHERE event = 'deleted'")
    }
    secrets = {item.id: vault.get(item.id) for item in vault.items()}
    active = sorted(service.store.active_ids())
    indexed = service.index.ids(PROFILE)
    stored = service.index.vectors(active)
    expected = service.embedder.embed([rows[i][0] for i in active]) if active else np.zeros((0, 1))
    stale = [
        i
        for i, want in zip(active, expected, strict=True)
        if i in stored and not np.allclose(stored[i], want, atol=1e-5)
    ]
    running_jobs = [int(r[0]) for r in db.query("SELECT id FROM jobs WHERE status = 'running'")]
    return {
        "integrity": integrity,
        "rows": rows,
        "torn_fts": torn_fts,
        "deleted_events": deleted_events,
        "secrets": secrets,
        "index_agrees": indexed == set(active),
        "stale_vectors": stale,
        "running_jobs": running_jobs,
        "reconciled": report.as_dict(),
    }

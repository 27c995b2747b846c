"""The MCP tools' rules, in process on a real profile: consent, masking, the review queue,
provenance, forget needs the user's yes, the access log, and forget-me erasing all of it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from assistant.app import Profile
from assistant.errors import InputError
from assistant.mcp.admin import admin
from assistant.mcp.consent import UNNAMED, Outcome, Permission, client_name
from assistant.mcp.gateway import MemoryGateway, Refused
from assistant.memory.api import ForgetPlan
from assistant.memory.db import Database
from assistant.memory.schema import MIGRATIONS
from assistant.memory.types import Turn


def said(profile: Profile, text: str) -> None:
    now = profile.clock.now()
    profile.memories.remember([Turn("user", text, now)], now)


def test_a_new_client_reads_but_may_not_write(profile: Profile) -> None:
    said(profile, "My card number is 4111 1111 1111 1111 and I live in Lisbon.")
    gateway = MemoryGateway(profile)
    found = gateway.search("Jan", "what is my card number?")["memories"]
    assert found and all("4111 1111" not in m["text"] and "vault #" not in m["text"] for m in found)
    assert any("1111" in m["text"] for m in found)  # the masked stub's last digits
    with pytest.raises(Refused, match="may only read"):
        gateway.remember("Jan", "The user likes tea.")
    assert gateway.consent.client("Jan").permission is Permission.READ
    log = gateway.consent.log()
    assert [(e.tool, e.outcome) for e in reversed(log)] == [("search_memories", Outcome.OK), ("remember", Outcome.REFUSED)]
    assert set(log[1].memory_ids) == {m["id"] for m in found}


def test_propose_goes_to_review_write_does_not(profile: Profile) -> None:
    gateway = MemoryGateway(profile)
    gateway.consent.allow("Jan", Permission.PROPOSE)
    proposed = gateway.remember("Jan", "The user's passport number is X1234567.")
    memory = profile.memories.get(proposed["id"])
    assert memory.review and "X1234567" not in memory.content and memory.vault_ids  # vaulted first
    assert profile.memories.details(memory.id).history[0]["detail"]["origin"] == "MCP: Jan"
    gateway.consent.allow("Jan", Permission.WRITE)
    stored = gateway.remember("Jan", "The user likes green tea.")
    assert stored["status"] == "stored" and not profile.memories.get(stored["id"]).review
    assert gateway.consent.log()[0].memory_ids == (stored["id"],)


def test_revoked_means_nothing_and_survives_reconnecting(profile: Profile) -> None:
    gateway = MemoryGateway(profile)
    gateway.list_memories("LM Studio")
    gateway.consent.revoke("LM Studio")
    for call in (lambda: gateway.list_memories("LM Studio"), lambda: gateway.profile_summary("LM Studio")):
        with pytest.raises(Refused, match="revoked"):
            call()
    with pytest.raises(InputError):
        gateway.consent.revoke("never connected")


def test_forget_needs_the_window_and_the_users_yes(profile: Profile) -> None:
    said(profile, "My sister Ana lives in Porto.")
    gateway = MemoryGateway(profile)
    gateway.consent.allow("Claude", Permission.WRITE)
    with pytest.raises(Refused, match="window is not open"):
        gateway.forget("Claude", "Ana")
    asked: list[ForgetPlan] = []
    gateway.confirm_forget = lambda client, plan: bool(asked.append(plan))  # the user says no
    with pytest.raises(Refused, match="did not confirm"):
        gateway.forget("Claude", "Ana")
    gateway.confirm_forget = lambda client, plan: True
    assert gateway.forget("Claude", "Ana")["forgotten"] == len(asked[0].ids) > 0
    assert profile.memories.get_many(asked[0].ids) == []
    outcomes = [e.outcome for e in reversed(gateway.consent.log())]
    assert outcomes == [Outcome.REFUSED, Outcome.DECLINED, Outcome.OK]


def test_bad_input_is_a_clear_failure(profile: Profile) -> None:
    gateway = MemoryGateway(profile)
    gateway.consent.allow("x", Permission.WRITE)
    for call in (lambda: gateway.list_memories("x", "recipes"), lambda: gateway.search("x", "", 5),
                 lambda: gateway.search("x", "tea", 0), lambda: gateway.remember("x", "a" * 5000)):
        with pytest.raises(InputError):
            call()
    assert {e.outcome for e in gateway.consent.log()} == {Outcome.FAILED}
    with pytest.raises(InputError, match="read, propose, write"):
        admin(gateway, {"command": "allow", "name": "x", "permission": "root"})
    assert client_name("  Claude\x00 Desktop  ") == "Claude Desktop" and client_name(None) == UNNAMED


def test_forget_me_erases_clients_and_the_log(profile: Profile) -> None:
    gateway = MemoryGateway(profile)
    gateway.consent.allow("Jan", Permission.PROPOSE)
    gateway.remember("Jan", "The user likes green tea.")
    profile.forget_me()
    assert gateway.consent.clients() == [] and gateway.consent.log() == []
    raw = (profile.dir / "mnemo.db").read_bytes()
    assert b"Jan" not in raw


def test_an_old_database_gains_the_tables(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
        for version, sql in enumerate(MIGRATIONS[:5], start=1):
            conn.executescript(sql)
            conn.execute("INSERT INTO schema_migrations VALUES (?, datetime('now'))", (version,))
        conn.execute("INSERT INTO profiles VALUES ('default', 'default', 0)")
    db = Database(path)
    try:
        assert db.schema_version() == len(MIGRATIONS) >= 6
        assert db.scalar("SELECT COUNT(*) FROM profiles") == 1
        assert db.scalar("SELECT COUNT(*) FROM mcp_clients") == 0 and db.scalar("SELECT COUNT(*) FROM mcp_access") == 0
    finally:
        db.close()


def test_search_says_why_each_memory_was_chosen(profile: Profile) -> None:
    said(profile, "My sister Ana lives in Porto.")
    pinned = profile.memories.add("The user's passport number is X1234567", pinned=True)
    found = MemoryGateway(profile).search("Jan", "where does Ana live?")["memories"]
    assert found[0]["id"] == pinned.id and found[0]["routes"] == ["pinned"] and found[0]["score"] is None
    assert found[0]["why"] == "Pinned by you: always given to the model."
    ana = next(m for m in found if "Ana" in m["text"])
    assert {"id", "text", "category", "when", "pinned", "in_review"} <= set(ana)  # the fields it had
    assert "semantic" in ana["routes"] and ana["relevance"] >= ana["threshold"] > 0
    assert "Found by meaning" in ana["why"] and f"threshold {ana['threshold']:.2f}" in ana["why"]
    assert "X1234567" not in str(found)

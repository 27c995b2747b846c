"""The vault rule for messages, and temporary chats that leave nothing behind."""

from __future__ import annotations

from pathlib import Path

from assistant.app import Profile
from assistant.chat.engine import ChatEngine
from assistant.memory.inject import OPEN
from tests.fakes.fake_ollama import FakeOllama
from tests.integration.chat.conftest import chat_turn_requests

PHONE = "13812345678"
EMAIL = "anna.keller@example.org"


def db_bytes(profile: Profile) -> bytes:
    profile.db.checkpoint()
    return b"".join(p.read_bytes() for p in Path(profile.db.path or "").parent.glob("mnemo.db*"))


def test_a_phone_number_typed_in_chat_is_not_stored_in_plaintext(
    engine: ChatEngine, fake_ollama: FakeOllama, profile: Profile
) -> None:
    session = engine.new_session()
    result = engine.send(session.id, f"My phone number is {PHONE} and my e-mail is {EMAIL}, please note it.")
    stored = engine.messages(session.id)
    assert PHONE not in stored[0].content and "[vault #" in stored[0].content
    assert EMAIL not in stored[0].content
    assert PHONE not in result.reply  # the model only ever saw the masked text
    assert PHONE not in str(fake_ollama.requests)
    fts = " ".join(r[0] for r in profile.db.query("SELECT text FROM messages_fts"))
    assert PHONE not in fts and "anna.keller" not in fts
    engine.close()
    raw = db_bytes(profile)
    assert PHONE.encode() not in raw and EMAIL.encode() not in raw
    vault_id = int(stored[0].content.split("[vault #")[1].split("]")[0])
    assert profile.vault.get(vault_id) in (PHONE, EMAIL)


def test_a_temporary_chat_reads_and_writes_no_memory(engine: ChatEngine, fake_ollama: FakeOllama, profile: Profile) -> None:
    normal = engine.new_session()
    engine.send(normal.id, "Remember that I live in Lisbon.")
    counts = {t: profile.db.scalar(f"SELECT COUNT(*) FROM {t}") for t in ("sessions", "messages", "memories", "vault", "memory_events")}
    temp = engine.new_session(temporary=True)
    result = engine.send(temp.id, f"Where do I live? Also my phone is {PHONE}. Remember that I love sushi.")
    assert result.injected == [] and result.changes == [] and result.forget_request is None
    request = chat_turn_requests(fake_ollama)[-1]
    assert OPEN not in request["messages"][0]["content"]
    assert [m.role for m in engine.messages(temp.id)] == ["user", "assistant"]
    assert {t: profile.db.scalar(f"SELECT COUNT(*) FROM {t}") for t in counts} == counts
    assert not any("sushi" in m.content for m in profile.store.list())
    engine.close()
    assert PHONE.encode() not in db_bytes(profile)
    assert b"sushi" not in db_bytes(profile)

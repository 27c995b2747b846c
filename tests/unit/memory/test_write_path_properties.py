"""Property tests on the whole write path (rules, gate, update decision, store) and the keyword
read path: arbitrary Unicode with control characters and lone surrogates, FTS5 syntax
(`"`, `*`, `NEAR`, `-`, …) and 1 MB messages. No exception escapes; what is stored is clean
text whose keyword index matches it; syntax in stored text or in a query stays inert.

`test_properties.py` covers `MemoryStore.add` and `Recaller.recall` on their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from assistant.chat.history import ConversationStore
from assistant.errors import InputError
from assistant.memory.recall import Recaller
from assistant.memory.store import MAX_CONTENT_CHARS, NewMemory
from assistant.memory.text import index_text, match_expression, storable, tokens
from assistant.memory.types import Action, Category, Turn
from assistant.memory.write import MemoryWriter
from tests.integration.privacy.helpers import tiny_service

NOW = datetime.fromisoformat("2026-03-02T20:00:00+08:00")
FTS_SYNTAX = [
    '"',
    "*",
    "NEAR",
    "NEAR(",
    "-",
    "(",
    ")",
    "AND",
    "OR",
    "NOT",
    ":",
    "^",
    "+",
    "'",
    "\\",
    "{",
    "}",
    "memories_fts",
]
JUNK = [
    "\x00",
    "\x1b",
    "\x7f",
    "\u202e",
    "\ufeff",
    "\u2028",
    "\ud800",
    "\udcff",
    "🙂",
    "中文",
    "\n",
    "\t",
]
# st.text() never yields lone surrogates, so words are joined from pieces instead
PIECE = st.one_of(
    st.sampled_from(FTS_SYNTAX + JUNK), st.text(max_size=12), st.characters(exclude_categories=())
)
MESSAGE = st.tuples(
    st.sampled_from(
        ["", "Remember that ", "I live in ", "My name is ", "记住", "我喜欢", "I love "]
    ),
    st.lists(PIECE, max_size=12).map(" ".join),
).map("".join)
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def writer() -> Iterator[MemoryWriter]:
    with tiny_service(NOW) as service:
        yield MemoryWriter(service, None)


def _stored_cleanly(writer: MemoryWriter, memory_id: int) -> None:
    store = writer.service.store
    memory = store.get(memory_id)
    assert memory.content and len(memory.content) <= MAX_CONTENT_CHARS
    assert all(ch.isprintable() for ch in memory.content)
    assert all(e and all(ch.isprintable() for ch in e) for e in memory.entities)
    fts = writer.service.db.scalar("SELECT text FROM memories_fts WHERE rowid = ?", (memory_id,))
    assert fts == index_text(memory.content)


@SETTINGS
@given(text=MESSAGE)
@example(text="I love \u2028")  # a Unicode line separator as the whole value: no value, no rule
@example(text="my favorite food is \u2028")
def test_any_message_goes_through_the_write_path_and_is_stored_clean(
    writer: MemoryWriter, text: str
) -> None:
    result = writer.remember([Turn("user", text, at=NOW)], NOW)
    for change in result.changes:
        if change.action in (Action.ADD, Action.UPDATE) and change.memory_id is not None:
            _stored_cleanly(writer, change.memory_id)
            writer.service.delete(change.memory_id)
    Recaller(writer.service).recall(text, NOW, k=5)  # the same text as the next question


@SETTINGS
@given(
    syntax=st.lists(st.sampled_from(FTS_SYNTAX), min_size=1, max_size=6), n=st.integers(0, 10**6)
)
def test_fts_syntax_in_stored_text_and_in_queries_is_inert(
    writer: MemoryWriter, syntax: list[str], n: int
) -> None:
    text = f"{' '.join(syntax)} quokka{n} {' '.join(reversed(syntax))}"
    try:
        memory = writer.service.add(NewMemory(text, Category.FACT))
    except InputError:
        return
    store = writer.service.store
    match = match_expression(tokens(text, query=True))
    assert match is not None
    assert memory.id in {i for i, _score in store.keyword_search(match, 10)}
    assert memory.id in {
        h.memory.id for h in Recaller(writer.service).recall(text, NOW, k=10, threshold=0.0)
    }
    writer.service.delete(memory.id)


BIG = {
    "sentences": 'Remember that I like tea "NEAR" * -x (y). ' * 25_000,
    # one phone number: a paste with thousands of them takes a minute (one candidate each)
    "chinese": "电话 13812345678。" + "记住我喜欢喝茶，我住在杭州。" * 80_000,
    "one word": "x" * 1_000_000,
    "quotes": '"' * 1_000_000,
}


@pytest.mark.parametrize("name", sorted(BIG))
def test_a_one_megabyte_message_is_written_stored_and_searched(
    writer: MemoryWriter, name: str
) -> None:
    text = BIG[name][:1_000_000]
    result = writer.remember([Turn("user", text, at=NOW)], NOW)
    for change in result.changes:
        if change.action in (Action.ADD, Action.UPDATE) and change.memory_id is not None:
            _stored_cleanly(writer, change.memory_id)
    history = ConversationStore(writer.service.db, "default")
    session = f"big-{name}"
    history.create_session(session, "big", False, 1.0)
    masked = writer.protect(text, NOW).text  # as the chat engine stores a message
    message = history.add_message(session, "user", masked, 1.0)
    assert history.message(message.id).content == masked
    assert "13812345678" not in masked
    Recaller(writer.service).recall(text, NOW, k=5)
    assert writer.service.db.integrity_ok()


def test_a_message_with_a_lone_surrogate_is_stored(writer: MemoryWriter) -> None:
    history = ConversationStore(writer.service.db, "default")
    history.create_session("surrogate", "s", False, 1.0)
    history.add_message("surrogate", "user", writer.protect("I like tea \udcff", NOW).text, 1.0)
    assert [m.content for m in history.messages("surrogate")] == ["I like tea \ufffd"]


def test_storable_replaces_lone_surrogates_and_joins_pairs() -> None:
    assert storable("tea \udcff") == "tea \ufffd"
    assert storable("\ud83d\ude00 ok") == "\U0001f600 ok"
    assert storable("普通文本 plain") == "普通文本 plain"

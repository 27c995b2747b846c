"""Property tests on the write and read paths: no input escapes as an exception or is
stored other than as given (arbitrary Unicode, control characters, FTS syntax)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.errors import InputError
from assistant.memory.recall import Recaller
from assistant.memory.service import MemoryService
from assistant.memory.store import NewMemory
from assistant.memory.types import Category
from tests.integration.privacy.helpers import tiny_service

FTS_JUNK = st.sampled_from(['"', "*", "NEAR", "-", "(", ")", "AND", "OR", "NOT", ":", "^", "'", "\\", "\x00", "🙂", "中文"])
QUERY = st.lists(st.one_of(FTS_JUNK, st.text(max_size=20)), max_size=8).map(" ".join)
NOW = datetime.fromisoformat("2026-03-02T20:00:00+08:00")


@pytest.fixture(scope="module")
def service() -> Iterator[MemoryService]:
    with tiny_service(NOW) as svc:
        svc.add(NewMemory("I live in Porto", Category.FACT))
        yield svc


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=300))
def test_any_text_is_stored_as_given_or_refused_with_a_clear_error(service: MemoryService, text: str) -> None:
    try:
        memory = service.store.add(NewMemory(text, Category.FACT), 1.0)
    except InputError:
        return
    assert service.store.get(memory.id).content == memory.content
    assert "\x00" not in memory.content or "\x00" in text
    service.store.delete(memory.id, 2.0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=QUERY)
def test_any_query_recalls_without_an_exception(service: MemoryService, query: str) -> None:
    hits = Recaller(service).recall(query, NOW, k=5)
    assert all(h.memory.profile_id == "default" for h in hits)


def test_a_one_megabyte_message_is_refused_or_truncated_not_crashing(service: MemoryService) -> None:
    huge = "Remember that I like tea. " * 40_000
    try:
        memory = service.store.add(NewMemory(huge, Category.FACT), 1.0)
    except InputError:
        return
    assert len(memory.content) <= 4000

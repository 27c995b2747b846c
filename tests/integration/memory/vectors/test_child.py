"""The one child-process mechanism (`Served`) and the vector index served by it: answers as
the in-process index does, survives its child dying, and leaves no process behind; a profile
opened the app's way uses it."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assistant.errors import StorageError
from assistant.memory.store import NewMemory
from assistant.memory.types import Category, Source
from assistant.memory.vectors import child as child_module
from assistant.memory.vectors.child import ChildIndex, Served
from assistant.memory.vectors.chroma import ChromaIndex
from tests.integration.memory.vectors.helpers import Tally, crash_while_opening

DIM = 8


def vectors(n: int, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a child that ended but was not reaped yet is a zombie: gone for our purpose
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture
def child(tmp_path: Path) -> Any:
    index = ChildIndex(tmp_path / "child", "test-model", DIM)
    yield index
    index.close()


def test_answers_as_the_in_process_index(tmp_path: Path, child: ChildIndex) -> None:
    inline = ChromaIndex(tmp_path / "inline", "test-model", DIM)
    try:
        rows = vectors(40)
        for index in (inline, child):
            index.upsert(list(range(1, 41)), rows, "p1")
            index.delete([3, 4])
        assert child.count() == inline.count() == 38
        assert child.ids("p1") == inline.ids("p1") == set(range(1, 41)) - {3, 4}
        assert child.ids("someone-else") == set()
        assert child.query(rows[9], 5, "p1") == inline.query(rows[9], 5, "p1")
        assert child.query(rows[9], 5, "p1")[0][0] == 10
        assert child.query(rows[9], 5, "someone-else") == []
        got = child.vectors([1, 2, 3, 999])
        assert sorted(got) == [1, 2]
        np.testing.assert_allclose(got[2], inline.vectors([2])[2])
        assert child.name == inline.name
    finally:
        inline.close()


def test_errors_come_back_as_the_same_exceptions(child: ChildIndex) -> None:
    with pytest.raises(ValueError, match="vectors shape"):
        child.upsert([1], vectors(2), "p1")
    child.upsert([1], vectors(1), "p1")  # the child is still serving
    assert child.count() == 1


def test_a_killed_child_is_started_again_and_the_call_repeated(child: ChildIndex) -> None:
    child.upsert([1, 2, 3], vectors(3), "p1")
    first = child.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    child.upsert([4], vectors(1, seed=4), "p1")  # goes to a new child, on the same folder
    assert child.pid not in (None, first)
    assert child.ids("p1") == {1, 2, 3, 4}


def test_a_child_that_stops_answering_is_given_up_on(
    child: ChildIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    child.upsert([1], vectors(1), "p1")
    stuck = child.pid
    assert stuck is not None
    monkeypatch.setattr(child_module, "CALL_TIMEOUT_S", 0.5)
    os.kill(stuck, signal.SIGSTOP)
    with pytest.raises(StorageError, match="stopped answering"):
        child.count()
    assert not alive(stuck)
    assert child.count() == 1  # the next call has a new child


def test_collections_can_be_recreated_and_dropped(tmp_path: Path, child: ChildIndex) -> None:
    other = ChildIndex(tmp_path / "child", "other-model", DIM)  # the same folder, after close
    other.close()
    child.close()
    child = ChildIndex(tmp_path / "child", "test-model", DIM)
    try:
        child.upsert([1, 2], vectors(2), "p1")
        assert child.other_collections() == [other.name]
        child.drop_collection(other.name)
        assert child.other_collections() == []
        with child.persisting_every_write():
            child.upsert([3], vectors(1), "p1")
        child.recreate()
        assert child.count() == 0
    finally:
        child.close()


def test_close_ends_the_child_and_a_closed_index_reopens(tmp_path: Path) -> None:
    index = ChildIndex(tmp_path / "index", "test-model", DIM)
    index.upsert([1, 2], vectors(2), "p1")
    pid = index.pid
    assert pid is not None and alive(pid)
    index.close()
    assert index.pid is None and not alive(pid)
    index.close()  # twice is fine
    assert index.count() == 2  # a call after close starts a child again
    index.close()


def test_an_index_that_cannot_be_opened_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageError):
        ChildIndex(blocker / "index", "test-model", DIM)


def test_a_profile_opened_the_apps_way_keeps_its_index_in_a_child(
    data_dir: Path, settings: Any, embedder: Any, clock: Any
) -> None:
    from assistant.app import Profile

    profile = Profile(
        data_dir, "default", settings, embedder=embedder, clock=clock, index_in_child=True
    )
    try:
        service = profile.service
        kept = service.add(NewMemory("I keep my passport in the blue drawer", Category.FACT, source=Source.MANUAL))
        gone = service.add(NewMemory("My locker code is on a yellow note", Category.FACT, source=Source.MANUAL))
        served = getattr(service.index, "inner", service.index)  # under the HealingIndex
        assert isinstance(served, ChildIndex)
        pid = served.pid
        assert pid is not None and pid != os.getpid()
        found = profile.recaller.recall("where is my passport?", clock.now())
        assert found and found[0].memory.id == kept.id
        service.delete(gone.id)
        assert profile.pending_scrub
        assert profile.scrub_index()  # rebuilds the folder, then serves it from a new child
        assert service.index.ids(service.profile_id) == {kept.id}
        report = profile.forget_me()
        assert report.memories == 1  # the deleted one was gone already
        fresh = profile.service  # forget-me reopened the profile
        assert fresh.store.total() == 0 and fresh.index.count() == 0
        last = getattr(fresh.index, "inner", fresh.index).pid
    finally:
        profile.close()
    assert last is not None and not alive(last) and not alive(pid)


def test_without_a_child_process_the_index_runs_in_this_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class NoProcesses:
        def Pipe(self) -> Any:  # noqa: N802 - multiprocessing's name
            return child_module.multiprocessing.Pipe()

        def Process(self, **_kwargs: Any) -> Any:  # noqa: N802
            class Refused:
                def start(self) -> None:
                    raise OSError(12, "Cannot allocate memory")

            return Refused()

    monkeypatch.setattr(child_module, "child_context", NoProcesses)
    index = child_module.open_child_index(tmp_path / "index", "test-model", DIM)
    try:
        assert isinstance(index, ChromaIndex)
        index.upsert([1], vectors(1), "p1")
        assert index.ids("p1") == {1}
    finally:
        index.close()


def test_closing_a_stuck_child_stops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = ChildIndex(tmp_path / "index", "test-model", DIM)
    stuck = index.pid
    assert stuck is not None
    monkeypatch.setattr(child_module, "CLOSE_TIMEOUT_S", 0.5)
    os.kill(stuck, signal.SIGSTOP)
    index.close()
    assert index.pid is None and not alive(stuck)


def test_a_served_object_keeps_its_state_in_the_child_and_ends_with_close() -> None:
    served = Served(Tally, 10)
    try:
        assert served.call("add", 5) == 15
        assert served.call("add", 1) == 16  # the same object answers
        pid = served.pid
        assert pid is not None and served.call("pid") == pid != os.getpid()
        with pytest.raises(KeyError, match="not a method to call"):
            served.call("_secret")
        assert served.call("add", 0) == 16  # still serving after a refused call
    finally:
        served.close()
    assert served.pid is None and not alive(pid)


def test_a_child_that_crashes_while_opening_is_reported_not_retried() -> None:
    with pytest.raises(StorageError, match="ended while opening"):
        Served(crash_while_opening)
    assert [p.name for p in child_module.multiprocessing.active_children()] == []

"""The scrub copies the kept vectors in children of the fork server; an old index that
cannot be read there costs a re-embedding, never a kept memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assistant.app import Profile
from assistant.memory.store import NewMemory
from assistant.memory.types import Category
from tests.integration.memory.vectors.helpers import opened_here
from tests.integration.privacy.helpers import CountingEmbedder


def test_the_kept_vectors_are_copied_without_embedding_again(
    data_dir: Path, settings: Any, clock: Any
) -> None:
    embedder = CountingEmbedder()
    profile = Profile(data_dir, "default", settings, embedder=embedder, clock=clock, warn=lambda _t: None)
    try:
        ids = profile.service.add_many([(NewMemory(f"note {i}", Category.FACT), 1.0) for i in range(12)])
        profile.service.delete(ids[0])
        embedder.embedded = 0
        assert profile.scrub_index()
        assert embedder.embedded == 0, "the kept vectors come from the old index"
        assert profile.service.index.ids("default") == set(ids[1:])
        assert not profile.pending_scrub
        folder = profile.service.index_dir
        assert [p.name for p in folder.parent.iterdir() if p.name.startswith("index")] == ["index"]
    finally:
        profile.close()


def test_an_old_index_that_cannot_be_read_is_embedded_again(
    data_dir: Path, settings: Any, clock: Any
) -> None:
    embedder = CountingEmbedder()
    warnings: list[str] = []
    profile = Profile(data_dir, "default", settings, embedder=embedder, clock=clock, warn=warnings.append)
    try:
        ids = profile.service.add_many([(NewMemory(f"note {i}", Category.FACT), 1.0) for i in range(12)])
        profile.service.delete(ids[0])
        profile.service.vectors.release()
        folder = profile.service.index_dir
        with open(folder / "chroma.sqlite3", "r+b") as handle:  # damaged since it was written
            handle.seek(8192)
            handle.write(b"\x5a" * 20_000)
        embedder.embedded = 0
        assert profile.scrub_index()
        assert embedder.embedded == 11, "every kept memory is embedded again"
        assert profile.service.index.ids("default") == set(ids[1:])
        assert not profile.pending_scrub and not opened_here(folder.parent / "index.scrub-old")
    finally:
        profile.close()

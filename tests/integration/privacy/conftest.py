"""Fixtures for the privacy tests: a profile with the light `TinyEmbedder` (see helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.app import Profile
from assistant.clock import ManualClock
from assistant.config import Settings
from tests.integration.privacy.helpers import TinyEmbedder


@pytest.fixture
def tiny() -> TinyEmbedder:
    return TinyEmbedder()


@pytest.fixture
def tiny_profile(data_dir: Path, settings: Settings, tiny: TinyEmbedder, clock: ManualClock) -> Iterator[Profile]:
    opened = Profile(data_dir, "default", settings, embedder=tiny, clock=clock, warn=lambda _text: None)
    try:
        yield opened
    finally:
        opened.close()

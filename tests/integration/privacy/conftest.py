"""Fixtures for the privacy tests: a profile with the light `TinyEmbedder` (see helpers.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
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
def open_tiny(data_dir: Path, settings: Settings, tiny: TinyEmbedder, clock: ManualClock) -> Callable[[], Profile]:
    """Opens the test's profile (again, after a close or a simulated crash)."""
    return lambda: Profile(data_dir, "default", settings, embedder=tiny, clock=clock, warn=lambda _text: None)


@pytest.fixture
def tiny_profile(open_tiny: Callable[[], Profile]) -> Iterator[Profile]:
    opened = open_tiny()
    try:
        yield opened
    finally:
        opened.close()

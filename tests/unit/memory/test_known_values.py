"""Values the vault holds are masked wherever they are said again, however they are written."""

from __future__ import annotations

from datetime import UTC, datetime

from assistant.app import Profile

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def test_a_value_said_again_without_its_key_word_is_masked(profile: Profile) -> None:
    first = profile.writer.protect("my passport number is X48810273", NOW)
    assert "X48810273" not in first.text
    again = profile.writer.protect("ok so it's x48810273 for the airline form", NOW)
    assert "48810273" not in again.text and "[vault #" in again.text
    assert len(profile.vault.items()) == 1  # one value, one item


def test_digits_with_other_separators(profile: Profile) -> None:
    profile.writer.protect("call me on 617-555-0148", NOW)
    assert "5550148" not in profile.writer.mask_known("noted: 617 555 0148 and 6175550148").replace(" ", "")


def test_an_assistant_reply_that_repeats_a_value_is_masked(profile: Profile) -> None:
    profile.writer.protect("wifi password = s3cr3t-Wifi!", NOW)
    reply = profile.writer.mask_known("Got it, your wifi key s3cr3t-Wifi! is saved.")
    assert "s3cr3t" not in reply
    assert profile.writer.mask_known("nothing sensitive here") == "nothing sensitive here"

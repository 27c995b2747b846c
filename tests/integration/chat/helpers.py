"""Scripted answers for the extractor."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.fake_ollama import ScriptedReply


def extraction_reply(*items: dict[str, Any]) -> ScriptedReply:
    """What a well-behaved model answers to the extraction schema."""
    full = [{"category": "fact", "importance": 3, "slot": None, "entities": [], "expires_at": None, **item} for item in items]
    return ScriptedReply(json.dumps({"memories": full}, ensure_ascii=False))

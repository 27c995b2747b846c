"""The download progress reporter (the download itself needs the network, which tests lack)."""

from __future__ import annotations

import io

from assistant.memory.embedder import progress_bar


def test_progress_is_reported_in_whole_percents() -> None:
    lines: list[str] = []
    bar = progress_bar(lines.append)(total=4 * 1024 * 1024, desc="model.safetensors", file=io.StringIO())
    for _ in range(8):
        bar.update(512 * 1024)
    bar.close()
    assert lines[0].startswith("model.safetensors: 12%") and lines[-1].startswith("model.safetensors: 100% (4.0 of 4.0 MB)")
    assert len(lines) == len(set(lines))

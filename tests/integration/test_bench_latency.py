"""`mnemo bench latency` at a tiny size (plumbing; the real sizes are 1k/10k/100k)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from assistant.evaluation.latency import measure_size, percentiles, pooled_vectors, synthetic_texts
from assistant.evaluation.report import latency_markdown
from assistant.memory.embedder import SentenceTransformerEmbedder


def test_tiny_latency_run_reports_every_figure(
    data_dir: Path, embedder: SentenceTransformerEmbedder
) -> None:
    size = measure_size(40, queries=3, writes=3, embed_limit=20, embedder=embedder)
    assert size["memories"] == 40 and size["vectors"] == "20 embedded, 20 reused with noise"
    for key in ("recall_ms", "bare_ms"):
        assert set(size[key]) == {"p50", "p95", "p99"}
    assert size["write_per_s"] > 0 and size["bare_write_per_s"] > 0 and size["peak_rss_mb"] > 0
    assert "| 40 |" in latency_markdown({"sizes": [size]})


def test_reused_vectors_are_normalised_and_near_their_source() -> None:
    texts = synthetic_texts(30)
    vectors, embedded = pooled_vectors(
        lambda batch: np.eye(len(batch), 8, dtype=np.float32), texts, 5
    )
    assert embedded == 5 and vectors.shape == (30, 8)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert percentiles([1.0, 2.0, 3.0])["p50"] == 2.0

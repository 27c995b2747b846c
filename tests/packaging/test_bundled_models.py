"""Embedding models bundled at build time: chosen from the local Hugging Face cache or a
folder (packaging/models.py), and found by the app on MNEMO_MODEL_PATH (the embedder's hook)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from assistant.cli.doctor_cmd import _embedding_on_disk
from assistant.memory.embedder import (
    MODEL_PATH_ENV,
    EmbedderState,
    SentenceTransformerEmbedder,
    bundled_model_path,
)
from tests.packaging.helpers import load

NAME = "acme/tiny-embedder"  # a hub name no cache here holds
models = load("models")


def fake_cache(root: Path, name: str, extra: dict[str, bytes] | None = None) -> Path:
    """A Hugging Face cache holding `name` as the hub lays it out: blobs, a snapshot of
    symlinks, refs/main. Its weights are the real all-MiniLM-L6-v2."""
    repo = root / f"models--{name.replace('/', '--')}"
    revision = "0123456789abcdef0123456789abcdef01234567"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision)
    snapshot = repo / "snapshots" / revision
    source = bundled_model_path()
    files = {p.relative_to(source).as_posix(): p.read_bytes() for p in source.rglob("*") if p.is_file()}
    files.update(extra or {})
    for number, (rel, data) in enumerate(sorted(files.items())):
        blob = repo / "blobs" / f"blob{number}"
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(data)
        link = snapshot / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(blob, link.parent))
    return root


def test_a_named_model_comes_from_the_cache_without_the_formats_the_app_never_reads(tmp_path: Path) -> None:
    cache = fake_cache(
        tmp_path / "hub",
        NAME,
        {"onnx/model.onnx": b"x", "pytorch_model.bin": b"x", "tf_model.h5": b"x", ".gitattributes": b"x"},
    )
    [model] = models.requested({models.ENV: NAME}, cache_dir=cache)
    assert model.name == NAME and model.key == "acme--tiny-embedder"
    pairs = dict(models.files(model))
    names = {dest.removeprefix("models/acme--tiny-embedder/") for dest in pairs}
    assert {"modules.json", "model.safetensors", "1_Pooling/config.json", "tokenizer.json"} <= names
    assert not names & {"onnx/model.onnx", "pytorch_model.bin", "tf_model.h5", ".gitattributes"}
    # the real bytes, not the cache's symlinks (which would dangle inside the bundle)
    for source in pairs.values():
        assert not Path(source).is_symlink() and "blobs" in source


def test_by_default_the_default_model_is_bundled_only_when_cached(tmp_path: Path) -> None:
    assert models.requested({}, cache_dir=tmp_path / "empty") == []
    cache = fake_cache(tmp_path / "hub", models.DEFAULT_MODEL)
    [model] = models.requested({}, cache_dir=cache)
    assert model.name == "BAAI/bge-small-zh-v1.5"
    assert models.requested({models.ENV: "none"}, cache_dir=cache) == []


def test_a_named_model_that_is_not_on_disk_stops_the_build_with_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(models.BundleError, match="not in the local Hugging Face cache.*Download it first"):
        models.requested({models.ENV: NAME}, cache_dir=tmp_path)
    with pytest.raises(models.BundleError, match="not in the folder"):
        models.requested({models.ENV: f"{NAME}={tmp_path / 'nowhere'}"}, cache_dir=tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(models.BundleError, match="not a sentence-transformers model folder"):
        models.requested({models.ENV: f"{NAME}={tmp_path / 'empty'}"}, cache_dir=tmp_path)


def test_a_model_from_a_folder(tmp_path: Path) -> None:
    [model] = models.requested({models.ENV: f"{NAME}={bundled_model_path()}"}, cache_dir=tmp_path)
    assert model.source == bundled_model_path()
    assert any(dest == "models/acme--tiny-embedder/model.safetensors" for dest, _src in models.files(model))


def test_the_app_uses_a_bundled_copy_of_its_configured_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: SentenceTransformerEmbedder
) -> None:
    """What the frozen app does at its first start, offline: the configured hub model is not
    in any cache, but a copy was bundled; it serves as itself, not as the fallback."""
    bundle = tmp_path / "bundle"
    shutil.copytree(bundled_model_path(), bundle / "acme--tiny-embedder")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv(MODEL_PATH_ENV, os.pathsep.join([str(tmp_path / "absent"), str(bundle)]))
    model = SentenceTransformerEmbedder(NAME, allow_fallback=False)
    vector = model.embed_one("I am allergic to peanuts")
    assert model.state is EmbedderState.READY and model.model_name == NAME
    assert np.allclose(vector, embedder.embed_one("I am allergic to peanuts"), atol=1e-5)
    assert _embedding_on_disk(NAME)  # `mnemo doctor` says so too


def test_without_a_bundled_copy_the_model_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv(MODEL_PATH_ENV, str(tmp_path / "bundle"))
    assert not _embedding_on_disk(NAME)
    model = SentenceTransformerEmbedder(NAME, warn=lambda _text: None)
    model.load()
    assert model.state is EmbedderState.FALLBACK

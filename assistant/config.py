"""Settings (TOML in the user config dir), data paths and environment overrides.

Environment variables win over the file, so tests and scripts stay isolated:
``MNEMO_DATA_DIR``, ``MNEMO_CONFIG_DIR``, ``MNEMO_PROFILE``, ``MNEMO_EMBEDDING_MODEL``,
``MNEMO_CHAT_MODEL``, ``OLLAMA_HOST``.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w

from assistant.errors import InputError

log = logging.getLogger("mnemo.config")

APP_NAME = "mnemo"
DEFAULT_EMBEDDING_MODEL = "BAAI/bge-small-zh-v1.5"
DEFAULT_CHAT_MODEL = "qwen2.5:7b"
DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
_PROFILE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass
class RecallWeights:
    """How the read path fuses its routes into one score (see memory/recall.py)."""

    similarity: float = 1.0
    keyword: float = 0.45
    entity: float = 0.25
    importance: float = 0.08
    recency: float = 0.06
    access: float = 0.03
    pinned: float = 0.05


@dataclass
class Settings:
    ollama_host: str = DEFAULT_OLLAMA_HOST
    chat_model: str = DEFAULT_CHAT_MODEL
    num_ctx: int = 8192
    max_reply_tokens: int = 1024
    keep_alive: str = "10m"
    request_timeout_s: float = 120.0
    connect_timeout_s: float = 5.0
    allow_cloud_models: bool = False
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    memory_enabled: bool = True
    recall_k: int = 5
    recall_threshold: float = 0.42
    recall_token_budget: int = 600
    weights: RecallWeights = field(default_factory=RecallWeights)
    decay_half_life_days: float = 30.0
    archive_threshold: float = 0.12
    retention_days: int = 90
    nightly_time: str = "03:00"
    language: str = "auto"
    theme: str = "system"  # the window's colours: follow the system, or "light" / "dark"
    welcome_done: bool = False  # the first-run welcome was finished or skipped
    extraction_every_turns: int = 3
    extraction_idle_seconds: int = 90
    recent_turns: int = 8
    accept_imports_without_review: bool = False  # memories imported from other assistants skip the review queue

    def validate(self) -> None:
        """Raise InputError naming the first setting that cannot be used."""
        if not 512 <= self.num_ctx <= 1_048_576:
            raise InputError(f"num_ctx={self.num_ctx} is out of range", "Use 512–1048576, e.g. 8192.")
        if not 0 <= self.recall_k <= 50:
            raise InputError(f"recall_k={self.recall_k} is out of range", "Use 0–50 (default 5).")
        if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", self.nightly_time):
            raise InputError(f"nightly_time={self.nightly_time!r} is not HH:MM", "Write e.g. 03:00.")
        if self.language not in {"auto", "zh", "en"}:
            raise InputError(f"language={self.language!r} is unknown", "Use auto, zh or en.")
        if self.theme not in {"system", "light", "dark"}:
            raise InputError(f"theme={self.theme!r} is unknown", "Use system, light or dark.")
        if self.decay_half_life_days <= 0:
            raise InputError("decay_half_life_days must be positive", "Use e.g. 30.")


def config_dir() -> Path:
    if env := os.environ.get("MNEMO_CONFIG_DIR"):
        return Path(env).expanduser()
    if env := os.environ.get("MNEMO_DATA_DIR"):
        return Path(env).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    if env := os.environ.get("MNEMO_DATA_DIR"):
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    """What can be rebuilt at any time (the gloss's segmenter dictionary): never user data."""
    if env := os.environ.get("MNEMO_DATA_DIR"):
        return Path(env).expanduser() / "cache"
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def profile_name() -> str:
    name = os.environ.get("MNEMO_PROFILE", "default")
    check_profile_name(name)
    return name


def check_profile_name(name: str) -> None:
    if not _PROFILE_RE.match(name):
        raise InputError(
            f"profile name {name!r} is not allowed",
            "Use letters, digits, '.', '_' or '-' (at most 64 characters).",
        )


def settings_path() -> Path:
    return config_dir() / "settings.toml"


def _merge(obj: Any, values: dict[str, Any], where: str) -> None:
    known = {f.name: f for f in dataclasses.fields(obj)}
    for key, value in values.items():
        if key not in known:
            log.warning("ignoring unknown setting %s.%s", where, key)
            continue
        current = getattr(obj, key)
        if dataclasses.is_dataclass(current) and isinstance(value, dict):
            _merge(current, value, f"{where}.{key}")
        elif isinstance(current, bool) != isinstance(value, bool) or (
            not isinstance(value, type(current)) and not (isinstance(current, float) and isinstance(value, int))
        ):
            raise InputError(
                f"setting {where}.{key} should be {type(current).__name__}, got {value!r}",
                f"Edit {settings_path()} or delete the line to use the default.",
            )
        else:
            setattr(obj, key, type(current)(value))


def load_settings(path: Path | None = None, *, env: bool = True) -> Settings:
    """Read settings from TOML (missing file → defaults), then apply env overrides."""
    settings = Settings()
    path = path or settings_path()
    if path.exists():
        try:
            values = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise InputError(f"{path} is not valid TOML: {exc}", "Fix the file or delete it to reset.") from exc
        _merge(settings, values, "settings")
    if env:
        settings.ollama_host = os.environ.get("OLLAMA_HOST", settings.ollama_host) or DEFAULT_OLLAMA_HOST
        settings.embedding_model = os.environ.get("MNEMO_EMBEDDING_MODEL", settings.embedding_model)
        settings.chat_model = os.environ.get("MNEMO_CHAT_MODEL", settings.chat_model)
    settings.validate()
    return settings


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    settings.validate()
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(tomli_w.dumps(dataclasses.asdict(settings)), encoding="utf-8")
    os.replace(tmp, path)
    return path

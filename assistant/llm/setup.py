"""Getting a new user to a working model: is Ollama installed, running, does it have a model?

Pure helpers for the first run (the window's welcome, `mnemo doctor`): where Ollama lives on
each OS, what to install or start, which model to recommend for this machine's memory, and
one `probe` that says which of the four states Ollama is in.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from assistant.llm.backend import HealthStatus

INSTALL_SCRIPT = "curl -fsSL https://ollama.com/install.sh | sh"
DOWNLOAD_URL = {
    "linux": "https://ollama.com/download/linux",
    "darwin": "https://ollama.com/download/mac",
    "win32": "https://ollama.com/download/windows",
}


class OllamaState(StrEnum):
    NOT_INSTALLED = "not_installed"  # no Ollama program found, nothing answers
    NOT_RUNNING = "not_running"  # installed, but nothing answers at the address
    NO_MODEL = "no_model"  # running, without the configured chat model
    READY = "ready"


@dataclass(frozen=True)
class ModelChoice:
    name: str
    size_gb: float  # the download
    ram_gb: int  # the memory it wants to run well
    note: str  # what it is good at (English; the window translates it)


RECOMMENDED = (
    ModelChoice("qwen2.5:7b", 4.7, 8, "Chinese and English, the best answers of these"),
    ModelChoice("qwen2.5:3b", 1.9, 4, "Chinese and English, smaller and faster"),
    ModelChoice("llama3.2:3b", 2.0, 4, "English first, small and fast"),
)


@dataclass(frozen=True)
class OllamaProbe:
    state: OllamaState
    version: str | None = None
    model: str = ""  # the configured chat model
    installed: list[str] = field(default_factory=list)  # chat models Ollama has
    message: str = ""
    hint: str = ""


def platform_key(platform: str = sys.platform) -> str:
    if platform.startswith("linux"):
        return "linux"
    if platform == "darwin":
        return "darwin"
    if platform in ("win32", "cygwin"):
        return "win32"
    return "linux"


def ollama_locations(platform: str = sys.platform, home: Path | None = None) -> list[Path]:
    """Where the Ollama program is put by its installers, besides the PATH."""
    home = home or Path.home()
    key = platform_key(platform)
    if key == "darwin":
        return [Path("/Applications/Ollama.app"), home / "Applications/Ollama.app"]
    if key == "win32":
        local = Path(os.environ.get("LOCALAPPDATA", home / "AppData/Local"))
        return [local / "Programs/Ollama/ollama.exe"]
    return [Path("/usr/local/bin/ollama"), Path("/usr/bin/ollama"), home / ".local/bin/ollama"]


def find_ollama(
    *,
    which: Callable[[str], str | None] = shutil.which,
    platform: str = sys.platform,
    home: Path | None = None,
) -> Path | None:
    """The Ollama program, if it is installed here."""
    found = which("ollama")
    if found:
        return Path(found)
    return next((p for p in ollama_locations(platform, home) if p.exists()), None)


def install_command(platform: str = sys.platform) -> str | None:
    """A command that installs Ollama (Linux), or None where an installer is downloaded."""
    return INSTALL_SCRIPT if platform_key(platform) == "linux" else None


def download_url(platform: str = sys.platform) -> str:
    return DOWNLOAD_URL[platform_key(platform)]


def total_memory_gb() -> float | None:
    """This machine's memory, where the OS says (None elsewhere)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    except (AttributeError, ValueError, OSError):
        return None


def recommended_model(memory_gb: float | None = None) -> ModelChoice:
    """The best of `RECOMMENDED` that runs well in this much memory (7B from 12 GB up)."""
    memory = memory_gb if memory_gb is not None else total_memory_gb()
    if memory is None or memory >= 12:
        return RECOMMENDED[0]
    return RECOMMENDED[1]


def is_chat_model(name: str) -> bool:
    """Embedding-only models (nomic-embed-text, bge-m3 …) cannot chat."""
    lowered = name.lower()
    return "embed" not in lowered and not lowered.startswith(("bge-", "bge:", "all-minilm"))


def probe(
    health: HealthStatus,
    installed: list[str],
    model: str,
    *,
    find: Callable[[], Path | None] = find_ollama,
) -> OllamaProbe:
    """Which state Ollama is in, from one health check and its model list."""
    chat_models = [name for name in installed if is_chat_model(name)]
    if health.ok:
        return OllamaProbe(OllamaState.READY, health.version, model, chat_models)
    if health.code == "ollama_down":
        state = OllamaState.NOT_RUNNING if find() is not None else OllamaState.NOT_INSTALLED
        return OllamaProbe(state, None, model, [], health.message, health.hint)
    return OllamaProbe(
        OllamaState.NO_MODEL, health.version, model, chat_models, health.message, health.hint
    )

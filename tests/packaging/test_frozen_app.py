"""Smoke test of the BUILT app (the PyInstaller binary, not the source tree).

`make smoke` (and CI, through .ci/run) builds dist/mnemo/ and runs this file with
MNEMO_FROZEN_APP pointing at the binary; without it these tests are skipped. The binary
runs in a clean environment: a fresh home, data and config folder, an empty Hugging Face
cache, no PYTHONPATH, a working directory outside the tree. Where `unshare -n` works (root,
or user namespaces allowed) the offline checks run with no network at all (loopback down
too); elsewhere they run with the network there and say so.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant import __version__
from tests.fakes.fake_ollama import FakeOllama
from tests.packaging.helpers import ROOT, load

APP = os.environ.get("MNEMO_FROZEN_APP", "")
pytestmark = pytest.mark.skipif(not APP, reason="MNEMO_FROZEN_APP is not set: `make smoke` builds and sets it")
TIMEOUT_S = 300


@pytest.fixture(scope="module")
def binary() -> Path:
    path = Path(APP)
    assert path.is_file() and os.access(path, os.X_OK), f"MNEMO_FROZEN_APP={APP} is not the built binary"
    return path


@functools.cache
def offline_prefix() -> tuple[str, ...]:
    """`unshare -n` when it works here (a new network namespace: not even loopback is up)."""
    tool = shutil.which("unshare")
    if tool and subprocess.run([tool, "-n", "true"], capture_output=True, check=False).returncode == 0:
        return (tool, "-n")
    print("\nnote: `unshare -n` does not work here; the offline checks run with the network", file=sys.stderr)
    return ()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path


def app_env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home / "home"),
        "LANG": "C.UTF-8",
        "MNEMO_DATA_DIR": str(home / "data"),
        "MNEMO_CONFIG_DIR": str(home / "config"),
        "HF_HOME": str(home / "hf"),  # empty: the app must not lean on the builder's cache
        "QT_QPA_PLATFORM": "offscreen",
        "OLLAMA_HOST": "http://127.0.0.1:9",  # nothing listens there
    }
    env.update(extra)
    return env


def run(binary: Path, home: Path, *args: str, offline: bool = False, **env: str) -> subprocess.CompletedProcess[str]:
    prefix = offline_prefix() if offline else ()
    result = subprocess.run(
        [*prefix, str(binary), *args], capture_output=True, text=True, cwd=home / "home",
        env=app_env(home, **env), timeout=TIMEOUT_S, check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


def test_version(binary: Path, home: Path) -> None:
    result = run(binary, home, "--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"mnemo {__version__}"


def test_doctor_finds_everything_with_ollama_there(binary: Path, home: Path, ollama: FakeOllama) -> None:
    result = run(binary, home, "doctor", OLLAMA_HOST=ollama.host)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "✓ ollama" in result.stdout and "✓ chat model" in result.stdout
    assert "embedding model" in result.stdout and "✗ bundled model" not in result.stdout
    assert "Everything needed is in place." in result.stdout


def test_doctor_offline_says_what_to_fix(binary: Path, home: Path) -> None:
    result = run(binary, home, "doctor", offline=True)
    assert result.returncode == 1
    assert "✗ ollama" in result.stdout and "→ Start Ollama" in result.stdout


def test_remembers_recalls_and_forgets_with_no_network(binary: Path, home: Path) -> None:
    remembered = run(binary, home, "memory", "remember", "I am allergic to peanuts.", offline=True)
    assert remembered.returncode == 0, remembered.stderr
    assert "peanuts" in remembered.stdout
    found = run(binary, home, "memory", "search", "what am I allergic to", offline=True)
    assert found.returncode == 0, found.stderr
    assert "peanuts" in found.stdout.splitlines()[0]  # the first hit
    erased = run(binary, home, "memory", "forget-me", "--yes", offline=True)
    assert erased.returncode == 0, erased.stderr
    listed = run(binary, home, "memory", "list", "--json", offline=True)
    assert listed.returncode == 0 and "peanuts" not in listed.stdout


def test_the_binary_runs_the_apps_child_processes(binary: Path, home: Path) -> None:
    """`-c CODE` runs as Python does, and the index's children (a fork server the binary
    starts as itself, assistant/memory/vectors/child.py) answer."""
    code = (
        "import sys, pathlib\n"
        "from assistant.memory.vectors.child import ChildIndex\n"
        "index = ChildIndex(pathlib.Path(sys.argv[1]) / 'index', 'm', 2)\n"
        "print('ok', index.pid is not None, index.count())\n"
        "index.close()\n"
    )
    child = run(binary, home, "-c", code, str(home))
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "ok True 0"


def test_every_embedding_family_kept_in_the_build_imports(binary: Path, home: Path) -> None:
    trim = load("trim")
    code = (
        "import importlib\n"
        f"for family in {sorted(trim.ARCHITECTURES)!r}:\n"
        "    importlib.import_module(f'transformers.models.{family}')\n"
        "from transformers import AutoModel, BertModel, XLMRobertaModel, Qwen3Model\n"
        "print('imported')\n"
    )
    result = run(binary, home, "-c", code)
    assert result.returncode == 0 and result.stdout.strip() == "imported", result.stderr


def test_the_window_opens_offscreen_and_closes_cleanly(binary: Path, home: Path, ollama: FakeOllama) -> None:
    (home / "config").mkdir()
    (home / "config" / "settings.toml").write_text('language = "zh"\n', encoding="utf-8")
    driver = (ROOT / "packaging" / "smoke_window.py").read_text(encoding="utf-8")
    result = run(binary, home, "-c", driver, OLLAMA_HOST=ollama.host)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "window visible after" in result.stdout
    assert "smoke: usable" in result.stdout
    assert "smoke: tabs 对话 | 记忆" in result.stdout  # the translations are in the bundle
    assert "smoke: icon ok" in result.stdout  # the icon and Qt's SVG plugin are
    # the bundled model (or a bundled copy of the configured one), offline, at the first start
    assert re.search(r"^smoke: embedder (fallback|ready)", result.stdout, re.M)
    assert "smoke: exit 0" in result.stdout
    assert any(path == "/api/tags" for _method, path in ollama.paths)  # it talked to "Ollama"

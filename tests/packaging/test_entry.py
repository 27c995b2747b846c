"""The frozen app's entry (packaging/entry.py), run here from source as the build freezes it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from assistant import __version__
from assistant.memory import embedder
from tests.packaging.helpers import ROOT, load

ENTRY = ROOT / "packaging" / "entry.py"
entry = load("entry")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, str(ENTRY), *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def test_it_is_the_mnemo_command() -> None:
    result = run("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"mnemo {__version__}"


def test_it_runs_code_as_python_c_does() -> None:
    """The smoke test runs `mnemo -c CODE` (packaging/smoke_window.py)."""
    result = run("-c", "import sys; print(sys.argv[1:]); sys.exit(3)", "a", "b")
    assert result.returncode == 3
    assert result.stdout.strip() == "['a', 'b']"


def test_it_runs_a_module_as_python_m_does() -> None:
    ok = run("-m", "json.tool", "--compact", os.devnull)
    assert ok.returncode != 0 and "Expecting value" in ok.stderr  # a stdlib module's main ran


def test_the_bundled_models_go_on_the_search_path_after_the_users_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)  # as the bootloader sets it
    environ = {entry.MODEL_PATH_ENV: "/my/models"}
    entry.add_bundled_models(environ)
    assert environ == {entry.MODEL_PATH_ENV: "/my/models"}  # no models/ folder in this bundle
    (tmp_path / "models").mkdir()
    entry.add_bundled_models(environ)
    entry.add_bundled_models(environ)  # idempotent: children inherit the variable
    assert environ[entry.MODEL_PATH_ENV] == os.pathsep.join(["/my/models", str(tmp_path / "models")])
    assert entry.MODEL_PATH_ENV == embedder.MODEL_PATH_ENV  # the name the embedder reads

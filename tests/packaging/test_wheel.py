"""`pip install .` (not editable) gives a working app: the wheel holds every module, the
translations, the icon, the entry points and the menu entry; installed on its own, outside
the source tree, its window opens in Chinese with its icon and its profile (schema) opens."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant import __version__
from tests.fakes.fake_ollama import FakeOllama
from tests.packaging.helpers import ROOT


def source_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()
    return [f for f in listed if (ROOT / f).is_file()]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built from a copy of the tree (a setuptools build writes build/ and *.egg-info where it runs)."""
    tree = tmp_path_factory.mktemp("src")
    for rel in source_files():
        if rel.split("/")[0] in {"assistant", "ui", "resources", "pyproject.toml", "README.md"}:
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            (tree / rel).write_bytes((ROOT / rel).read_bytes())
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
         "--disable-pip-version-check", "-w", str(out), str(tree)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert result.returncode == 0, result.stderr
    [built] = out.glob("mnemo-*.whl")
    return built


def test_the_wheel_holds_the_code_its_data_and_the_desktop_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    code = [f for f in source_files() if f.startswith(("assistant/", "ui/")) and f.endswith(".py")]
    assert len(code) > 50
    assert set(code) <= names, sorted(set(code) - names)
    data = [f for f in source_files() if f.startswith("ui/") and f.endswith((".json", ".svg"))]
    assert {"ui/translations/zh.json", "ui/icons/mnemo.svg"} <= set(data) <= names
    dist = f"mnemo-{__version__}"
    assert f"{dist}.data/data/share/applications/mnemo.desktop" in names
    assert f"{dist}.data/data/share/icons/hicolor/scalable/apps/mnemo.svg" in names
    entry_points = zipfile.ZipFile(wheel).read(f"{dist}.dist-info/entry_points.txt").decode()
    assert "mnemo = assistant.cli:main" in entry_points
    assert "[mnemo.commands]" in entry_points and "gui = ui.cli:register" in entry_points
    assert not any(n.startswith(("tests/", "packaging/", "benchmarks/")) for n in names)


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed into a folder of its own; the dependencies are this venv's."""
    target = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--disable-pip-version-check",
         "--target", str(target), str(wheel)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert result.returncode == 0, result.stderr
    return target


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


def run_installed(site: Path, home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Python with only the installed copy of Mnemo importable (not the source tree: the
    working directory is elsewhere and the tree is not on the path)."""
    clean = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "MNEMO_MODEL_PATH"}}
    clean.update(
        PYTHONPATH=str(site), HOME=str(home), MNEMO_DATA_DIR=str(home / "data"),
        MNEMO_CONFIG_DIR=str(home / "config"), QT_QPA_PLATFORM="offscreen", **env,
    )
    home.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=home, env=clean, timeout=300, check=False
    )


def test_the_installed_copy_is_the_one_that_runs(installed: Path, tmp_path: Path) -> None:
    result = run_installed(
        installed, tmp_path, "-c", "import assistant, ui; print(assistant.__file__); print(ui.__file__)"
    )
    assert result.returncode == 0, result.stderr
    assert all(line.startswith(str(installed)) for line in result.stdout.split())
    version = run_installed(installed, tmp_path, "-m", "assistant", "--version")
    assert version.stdout.strip() == f"mnemo {__version__}"


def test_the_installed_window_opens_in_chinese_with_its_icon(
    installed: Path, tmp_path: Path, ollama: FakeOllama
) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.toml").write_text('language = "zh"\n', encoding="utf-8")
    driver = (ROOT / "packaging" / "smoke_window.py").read_text(encoding="utf-8")
    result = run_installed(
        installed, tmp_path, "-c", driver,
        OLLAMA_HOST=ollama.host, MNEMO_EMBEDDING_MODEL="bundled:all-MiniLM-L6-v2",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout
    assert "smoke: usable" in lines  # the profile (schema, migrations) opened
    assert "smoke: tabs 对话 | 记忆" in lines  # zh.json came with the wheel
    assert "smoke: icon ok" in lines
    assert "Traceback" not in result.stderr

"""The Linux archive's install kit (packaging/archive.sh, install.sh) on a stand-in app folder:
what it installs for the user, that the menu entry starts the installed copy, upgrade, uninstall."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from assistant import __version__
from tests.packaging.helpers import ROOT

# A stand-in for the PyInstaller folder: a `mnemo` program and _internal/.
FAKE_MNEMO = "#!/bin/sh\necho \"fake mnemo $*\"\n"


@pytest.fixture
def app(tmp_path: Path) -> Path:
    folder = tmp_path / "dist" / "mnemo"
    (folder / "_internal").mkdir(parents=True)
    (folder / "_internal" / "lib.so").write_bytes(b"\0" * 10)
    (folder / "mnemo").write_text(FAKE_MNEMO)
    (folder / "mnemo").chmod(0o755)
    return folder


def sh(*args: str | Path, env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120, check=False
    )


def stage(app: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MNEMO_APP_DIR=str(app))
    result = sh("bash", ROOT / "packaging" / "archive.sh", sys.executable, *extra, env=env)
    assert result.returncode == 0, result.stderr
    return result


def user_env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def validate(path: Path) -> None:
    """desktop-file-validate where it is installed (Debian's desktop-file-utils)."""
    if tool := shutil.which("desktop-file-validate"):
        result = sh(tool, path)
        assert result.returncode == 0, result.stdout + result.stderr


def desktop_entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def test_the_shipped_desktop_entry() -> None:
    entry = desktop_entry(ROOT / "resources" / "mnemo.desktop")
    assert entry["Type"] == "Application" and entry["Exec"] == "mnemo gui"
    assert entry["Icon"] == "mnemo" and entry["Terminal"] == "false"
    assert entry["Name[zh_CN]"] and entry["Comment[zh_CN]"]
    assert entry["Categories"].endswith(";")
    validate(ROOT / "resources" / "mnemo.desktop")


def test_install_puts_the_app_the_command_the_menu_entry_and_icons_in_the_users_folders(
    app: Path, tmp_path: Path
) -> None:
    stage(app)
    assert (app / "share" / "icons" / "mnemo-256.png").stat().st_size > 1000  # rendered from the SVG
    home = tmp_path / "home"
    home.mkdir()
    result = sh(app / "install.sh", env=user_env(home), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    installed = home / ".local" / "lib" / "mnemo"
    assert (installed / "_internal" / "lib.so").exists()
    assert "is not on your PATH" in result.stdout  # ~/.local/bin is not, in this environment
    command = home / ".local" / "bin" / "mnemo"
    assert sh(command, "doctor").stdout.strip() == "fake mnemo doctor"
    share = home / ".local" / "share"
    entry = desktop_entry(share / "applications" / "mnemo.desktop")
    validate(share / "applications" / "mnemo.desktop")
    assert entry["Exec"] == f'"{installed}/mnemo" gui'  # by full path: PATH may lack ~/.local/bin
    assert entry["TryExec"] == f"{installed}/mnemo" and entry["Icon"] == "mnemo"
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / "mnemo.svg").read_bytes() == (
        ROOT / "ui" / "icons" / "mnemo.svg"
    ).read_bytes()
    assert (share / "icons" / "hicolor" / "256x256" / "apps" / "mnemo.png").exists()

    # an upgrade replaces the old copy whole (a file the new version lacks goes)
    (installed / "_internal" / "stale.so").write_bytes(b"old")
    assert sh(app / "install.sh", env=user_env(home), cwd=tmp_path).returncode == 0
    assert not (installed / "_internal" / "stale.so").exists()

    # uninstall removes what install put there and nothing of the user's
    memories = share / "mnemo" / "profiles"
    memories.mkdir(parents=True)
    result = sh(installed / "install.sh", "--uninstall", env=user_env(home), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "forget-me" in result.stdout
    assert not installed.exists() and not command.exists() and not command.is_symlink()
    assert not (share / "applications" / "mnemo.desktop").exists()
    assert not list((share / "icons").rglob("mnemo.*"))
    assert memories.is_dir()


def test_install_with_a_prefix_and_its_mistakes(app: Path, tmp_path: Path) -> None:
    stage(app)
    home = tmp_path / "home"
    home.mkdir()
    result = sh(app / "install.sh", "--prefix", tmp_path / "opt", env=user_env(home), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "opt" / "share" / "applications" / "mnemo.desktop").exists()
    assert (tmp_path / "opt" / "bin" / "mnemo").exists() and not (home / ".local").exists()
    wrong = sh(app / "install.sh", "--frobnicate", env=user_env(home))
    assert wrong.returncode == 2 and "unknown option --frobnicate" in wrong.stderr
    (app / "mnemo").unlink()
    broken = sh(app / "install.sh", env=user_env(home))
    assert broken.returncode == 2 and "does not hold the Mnemo program" in broken.stderr


def test_the_archive_unpacks_to_one_versioned_folder_with_the_kit(app: Path, tmp_path: Path) -> None:
    result = stage(app, "--tar")
    archive = app.parent / f"mnemo-{__version__}-linux-{os.uname().machine}.tar.gz"
    assert archive.name in result.stdout
    with tarfile.open(archive) as tar:
        members = {m.name: m for m in tar.getmembers()}
    top = archive.name.removesuffix(".tar.gz")
    assert {n.split("/")[0] for n in members} == {top}
    for name in ("mnemo", "install.sh", "share/applications/mnemo.desktop", "_internal/lib.so"):
        assert f"{top}/{name}" in members
    assert members[f"{top}/install.sh"].mode & 0o111 and members[f"{top}/mnemo"].mode & 0o111
    assert not list(app.parent.glob("*.part"))

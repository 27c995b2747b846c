"""A second `mnemo` brings the running window forward and exits: no second, dead window."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import shiboken6

from ui.single_instance import InstanceServer, activate_running, instance_key


def test_a_second_start_brings_the_window_forward_and_exits(
    qtbot: Any, window: Any, data_dir: Path
) -> None:
    server = InstanceServer(instance_key(data_dir, "default"), window)
    raised: list[bool] = []
    server.activated.connect(window.bring_to_front)
    server.activated.connect(lambda: raised.append(True))
    assert server.listen()
    window.showMinimized()
    env = {**os.environ, "MNEMO_DATA_DIR": str(data_dir), "QT_QPA_PLATFORM": "offscreen"}
    started = time.perf_counter()
    second = subprocess.Popen(
        [sys.executable, "-m", "assistant", "gui"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        qtbot.waitUntil(lambda: bool(raised), timeout=60000)  # our event loop answers it
        out, err = second.communicate(timeout=60)
    finally:
        if second.poll() is None:
            second.kill()
            second.wait()
    took = time.perf_counter() - started
    assert second.returncode == 0, err
    assert "already running" in out and "Traceback" not in err
    assert not window.isMinimized()
    print(f"\nsecond start answered and exited after {took:.2f} s")
    server.close()


def test_the_socket_is_the_owners_only(qtbot: Any, tmp_path: Path) -> None:
    server = InstanceServer(instance_key(tmp_path, "default"))
    assert server.listen()
    try:
        path = Path(server.path)
        if sys.platform != "win32":
            mode = stat.S_IMODE(path.stat().st_mode)
            assert stat.S_ISSOCK(path.stat().st_mode) and not mode & 0o077, oct(mode)
        assert activate_running(server.key)
    finally:
        server.close()
    assert not activate_running(server.key)  # nobody listens: a first start goes on


def test_keys_differ_per_profile_and_data_folder(tmp_path: Path) -> None:
    keys = {
        instance_key(tmp_path / "a", "default"),
        instance_key(tmp_path / "b", "default"),
        instance_key(tmp_path / "a", "work"),
    }
    assert len(keys) == 3 and all(key.startswith("mnemo-") for key in keys)


def test_a_socket_left_by_a_crash_is_taken_over(qtbot: Any, tmp_path: Path) -> None:
    key = instance_key(tmp_path, "default")
    crashed = InstanceServer(key)
    assert crashed.listen()
    path = Path(crashed.server.fullServerName())
    server = crashed.server
    server.deleteLater()  # gone without close(): the file stays, as after a kill -9
    del crashed
    qtbot.waitUntil(lambda: not shiboken6.isValid(server), timeout=5000)
    if sys.platform != "win32" and not path.exists():
        path.touch()  # what a killed process leaves: a socket file nobody listens on
    fresh = InstanceServer(key)
    try:
        assert fresh.listen()
        assert activate_running(key)
    finally:
        fresh.close()


def test_a_profile_held_by_a_command_offers_retry_and_quit(qtbot: Any, profile: Any) -> None:
    """`mnemo memory …` holds the profile: the window says so, Retry opens it once free, and
    Quit leaves no window behind (it used to stay, disabled, after the dialog's OK)."""
    from PySide6.QtWidgets import QMessageBox

    from assistant.errors import ProfileLockedError
    from tests.gui.conftest import no_retry_backend
    from tests.gui.test_memory_panel import press
    from ui.app import build

    tries: list[int] = []

    def open_profile() -> Any:
        tries.append(1)
        if len(tries) == 1:
            raise ProfileLockedError(
                "Mnemo is already running with profile 'default' on this data directory.",
                "Close the other Mnemo window or command first.",
            )
        return profile

    for answer in (QMessageBox.ButtonRole.AcceptRole, QMessageBox.ButtonRole.RejectRole):
        tries.clear()
        core, window = build(
            open_profile=open_profile, make_backend=no_retry_backend, scheduler=False
        )
        qtbot.addWidget(window)
        window.show()
        core.start()
        qtbot.waitUntil(lambda w=window: isinstance(w.dialog, QMessageBox), timeout=10000)
        box = window.dialog
        assert "already running" in box.text() and box.isVisible()
        if answer == QMessageBox.ButtonRole.AcceptRole:
            with qtbot.waitSignal(window.ready, timeout=10000):
                press(box, answer)  # Retry: the command has finished meanwhile
            assert window.tabs.isEnabled() and len(tries) == 2
        else:
            press(box, answer)  # Quit
            qtbot.waitUntil(lambda w=window: not w.isVisible(), timeout=5000)
        window.close()

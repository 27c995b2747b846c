"""Start the desktop app: the window first, then the profile and the embedding model behind it."""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assistant.app import Profile
    from ui.core import BackendFactory, Core, EngineFactory, ProfileOpener
    from ui.mainwindow import MainWindow
    from ui.single_instance import InstanceServer

log = logging.getLogger("mnemo.ui")

_DESKTOP_PLATFORMS = ("xcb", "wayland", "")


def has_display() -> bool:
    """Whether Qt can open a window here (else it would abort with a cryptic message)."""
    if not sys.platform.startswith("linux"):
        return True
    platform = os.environ.get("QT_QPA_PLATFORM", "").split(":")[0]
    if platform not in _DESKTOP_PLATFORMS:
        return True  # offscreen, minimal, vnc, eglfs… need no display server
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def no_display_message() -> str:
    return (
        "error: no display: the Mnemo window needs a desktop session (DISPLAY or WAYLAND_DISPLAY is not set).\n"
        "  → Run it from your desktop, or use `mnemo chat` in a terminal; for a headless run set "
        "QT_QPA_PLATFORM=offscreen (or start it under xvfb-run)."
    )


def missing_xcb_library() -> str | None:
    """The Debian package Qt's X11 plugin lacks here, if any (Qt would abort without it)."""
    if not sys.platform.startswith("linux") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    if os.environ.get("QT_QPA_PLATFORM", "xcb").split(":")[0] not in ("", "xcb"):
        return None
    import ctypes.util

    for library, package in (
        ("xcb-cursor", "libxcb-cursor0"),
        ("xkbcommon-x11", "libxkbcommon-x11-0"),
    ):
        if ctypes.util.find_library(library) is None:
            return package
    return None


def build(
    *,
    open_profile: ProfileOpener | None = None,
    make_backend: BackendFactory | None = None,
    make_engine: EngineFactory | None = None,
    scheduler: bool = True,
) -> tuple[Core, MainWindow]:
    """Create the core handle and the main window (not shown, not started)."""
    from ui.bridge import CoreBridge
    from ui.core import Core, default_backend, default_engine
    from ui.mainwindow import MainWindow
    from ui.theme import theme
    from ui.worker import Runner

    _favour_the_gui_thread()
    theme.apply()  # the palette before the first widget: nothing is drawn in the wrong scheme
    bridge = CoreBridge()
    runner = Runner(on_unhandled=bridge.report)

    def opener() -> Profile:  # on a worker: the imports here take seconds
        _leave_a_core_for_the_gui()
        from assistant.app import open_profile as open_default

        return open_default(
            warn=bridge.on_warning,
            index_in_child=True,
            # a repair after a crash can take minutes on a large profile: the window shows it
            progress=lambda what, done, total: core.repairing.emit(what, done, total),
        )

    core = Core(
        runner,
        bridge,
        open_profile or opener,
        make_backend=make_backend or default_backend,
        make_engine=make_engine or default_engine,
    )
    if scheduler:
        core.opened.connect(core.start_scheduler)
    return core, MainWindow(core)


SWITCH_INTERVAL_S = 0.001


def _favour_the_gui_thread() -> None:
    """Every Qt slot written in Python needs the GIL. While a worker runs Python (reading the
    reply stream, extraction), the GUI thread waits up to one switch interval for it, each
    time: 5 ms by default. Measured with two such workers: a 5 ms timer's 99th-percentile gap
    was 61 ms at 5 ms, 23 ms at 1 ms."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)


def _leave_a_core_for_the_gui() -> None:
    """Embedding runs in torch's thread pool; on a 2-core machine it would starve the GUI thread."""
    cores = os.cpu_count() or 1
    if cores <= 4 and "OMP_NUM_THREADS" not in os.environ:
        try:
            import torch

            torch.set_num_threads(max(1, cores - 1))
        except ImportError:
            pass


def run(*, timing: bool = False, started: float | None = None) -> int:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    from assistant.config import load_settings
    from ui.i18n import set_language
    from ui.icons import app_icon
    from ui.theme import theme

    started = started if started is not None else time.perf_counter()
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough  # 150 % is 150 %, not 200 %
    )
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)  # the window needs widgets, not a bare QCoreApplication
    app.setApplicationName("Mnemo")
    app.setApplicationDisplayName("Mnemo")  # Qt appends it to window titles
    app.setDesktopFileName("mnemo")  # Wayland and task bars match the desktop entry
    app.setWindowIcon(app_icon())
    key = _instance_key()
    if key is not None:
        from ui.single_instance import activate_running

        if activate_running(key):
            print("Mnemo is already running: its window was brought to the front.", flush=True)
            return 0
    try:
        settings = load_settings()
        set_language(settings.language)
        theme.apply(settings.theme)
    except Exception:  # noqa: BLE001 - a bad settings file is reported once the core opens
        set_language("auto")
    core, window = build()
    core.bridge.install_excepthooks()
    from ui.mcp_service import McpService

    mcp = McpService(core, window)  # other apps' MCP requests, on the profile's local socket
    server = _serve_instance(key, window)
    window.show()
    if timing:
        QTimer.singleShot(
            0,
            lambda: print(
                f"window visible after {time.perf_counter() - started:.2f} s", flush=True
            ),
        )
    QTimer.singleShot(0, core.start)
    # SIGTERM (a logout, `kill`) closes the window as its close button does, so the profile
    # closes cleanly; Python runs the handler only when it gets control, hence the timer.
    signal.signal(signal.SIGTERM, lambda *_args: window.close())
    wake = QTimer()
    wake.timeout.connect(lambda: None)
    wake.start(250)
    code = app.exec()
    wake.stop()
    if server is not None:
        server.close()
    mcp.stop()
    core.close_profile()  # also when the window closed while the profile was opening
    return int(code)


def _instance_key() -> str | None:
    """The profile's single-instance socket name (None when the profile name is unusable:
    the window then says so)."""
    from assistant.config import data_dir, profile_name
    from assistant.errors import InputError
    from ui.single_instance import instance_key

    try:
        return instance_key(data_dir(), profile_name())
    except InputError:
        return None


def _serve_instance(key: str | None, window: MainWindow) -> InstanceServer | None:
    if key is None:
        return None
    from ui.single_instance import InstanceServer

    server = InstanceServer(key, window)
    server.activated.connect(window.bring_to_front)
    server.listen()
    return server

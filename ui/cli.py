"""`mnemo gui` (and `mnemo` with no command): registered through the `mnemo.commands` entry point.

Kept light: PySide6 is imported only when the window is really opened.
"""

from __future__ import annotations

import argparse
import time

STARTED = time.perf_counter()  # process start, near enough (the CLI loads this module first)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("gui", help="open the desktop window (the default)")
    parser.add_argument(
        "--timing", action="store_true", help="print how long the window took to appear"
    )
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from ui.app import has_display, missing_xcb_library, no_display_message

    if not has_display():
        print(no_display_message())
        return 2
    package = missing_xcb_library()
    if package is not None:
        print(
            f"error: Qt's X11 support needs the system library {package}, which is not installed."
        )
        print(f"  → sudo apt-get install {package}   (or set QT_QPA_PLATFORM=wayland / offscreen)")
        return 2
    from ui.app import run

    return run(timing=getattr(args, "timing", False), started=STARTED)

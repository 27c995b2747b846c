"""Open the packaged app's real window (`mnemo gui --timing`), close it once it is usable.

Run BY THE BUILT APP, which acts as the interpreter for `-c` (packaging/entry.py):

    QT_QPA_PLATFORM=offscreen dist/mnemo/mnemo -c "$(cat packaging/smoke_window.py)"

It starts the window exactly as `mnemo gui` does, watches it from a timer in the same event
loop, and prints one `smoke:` line per step (tests/packaging/test_frozen_app.py reads them):
the window usable (chat and memory tabs enabled: the profile is open), the embedding model
loaded, the tab titles (translations bundled), the app icon drawable (the SVG image plugin
bundled). Then it closes every window as a user would, and the exit status is the app's.
Exit 3: the window did not become usable within MNEMO_SMOKE_LIMIT_S seconds (default 180).
"""

import os
import sys
import time
from importlib.resources import files

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMainWindow, QTabWidget

from assistant.cli import main

STARTED = time.perf_counter()
LIMIT_S = float(os.environ.get("MNEMO_SMOKE_LIMIT_S", "180"))
app = QApplication(sys.argv[:1])  # the app's own start-up takes this instance
state = {"window": None, "usable": False, "embedder": ""}


def say(text: str) -> None:
    print(f"smoke: {text} ({time.perf_counter() - STARTED:.2f} s)", flush=True)


def on_embedder(status: str, _warning: str) -> None:
    if status != "loading" and not state["embedder"]:
        state["embedder"] = status
        say(f"embedder {status}")


def check_icon() -> None:
    icon = QIcon(str(files("ui.icons") / "mnemo.svg"))
    say("icon ok" if not icon.pixmap(64, 64).isNull() else "icon MISSING")


def close_all() -> None:
    say("closing")
    app.closeAllWindows()


def poll() -> None:
    if time.perf_counter() - STARTED > LIMIT_S:
        say("TIMEOUT: the window did not become usable")
        app.exit(3)
        return
    window = state["window"]
    if window is None:
        shown = [w for w in app.topLevelWidgets() if isinstance(w, QMainWindow) and w.isVisible()]
        if not shown:
            return
        window = state["window"] = shown[0]
        core = getattr(window, "core", None)
        if core is not None and hasattr(core, "embedder_state"):
            core.embedder_state.connect(on_embedder)
        say("window shown")
    central = window.centralWidget()
    if not state["usable"] and central is not None and central.isEnabled():
        state["usable"] = True
        say("usable")
        if isinstance(central, QTabWidget):
            say("tabs " + " | ".join(central.tabText(i) for i in range(central.count())))
        check_icon()
    if state["usable"] and state["embedder"]:
        timer.stop()
        QTimer.singleShot(0, close_all)


timer = QTimer()
timer.timeout.connect(poll)
timer.start(20)
code = main(["gui", "--timing"])
say(f"exit {code}")
sys.exit(code)

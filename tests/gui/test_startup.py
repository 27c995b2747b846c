"""Start-up: the window is visible before the embedding model has loaded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from assistant.memory.embedder import BUNDLED_MODEL, SentenceTransformerEmbedder


def test_window_is_up_before_the_embedder_loads(
    qtbot: Any, data_dir: Path, settings: Any, clock: Any
) -> None:
    from assistant.app import Profile
    from tests.gui.conftest import no_retry_backend
    from ui.app import build

    embedder = SentenceTransformerEmbedder(BUNDLED_MODEL, allow_fallback=False)  # not loaded yet
    opened: list[Any] = []

    def open_profile() -> Any:
        opened.append(
            Profile(
                data_dir, "default", settings, embedder=embedder, clock=clock, warn=lambda _t: None
            )
        )
        return opened[-1]

    started = time.perf_counter()
    core, window = build(open_profile=open_profile, make_backend=no_retry_backend, scheduler=False)
    qtbot.addWidget(window)
    states: list[tuple[str, float]] = []
    core.embedder_state.connect(
        lambda state, _w: states.append((state, time.perf_counter() - started))
    )
    window.show()
    core.start()
    qtbot.waitExposed(window)
    visible = time.perf_counter() - started
    try:
        with qtbot.waitSignal(
            core.embedder_state, timeout=60000, check_params_cb=lambda s, _w: s == "ready"
        ):
            pass
        ready = states[-1][1]
        print(
            f"\nwindow visible after {visible * 1000:.0f} ms; embedding model ready after {ready * 1000:.0f} ms"
        )
        assert visible < ready
        assert [s for s, _t in states] == ["loading", "ready"]
        assert window.status.embedding.text() == "Embeddings: ready"
        assert not window.status.embedding_progress.isVisible()
    finally:
        window.close()
        for profile in opened:
            profile.close()


def test_gui_without_display_prints_a_message(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}
    }
    env["MNEMO_DATA_DIR"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "assistant", "gui"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    out = done.stdout + done.stderr
    assert "no display" in out and "QT_QPA_PLATFORM=offscreen" in out
    assert "Aborted" not in out and "core dumped" not in out


def test_sigterm_while_the_profile_opens_closes_it_cleanly(tmp_path: Path) -> None:
    """A logout while the window is still opening the profile is no crash: the next start
    finds no unclean-exit marker (and runs no repair)."""
    env = dict(os.environ, MNEMO_DATA_DIR=str(tmp_path), QT_QPA_PLATFORM="offscreen", OLLAMA_HOST="http://127.0.0.1:9")
    app = subprocess.Popen(
        [sys.executable, "-m", "assistant", "gui", "--timing"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        assert app.stdout is not None
        for line in app.stdout:  # the window is up; the profile opens on a worker for seconds
            if "window visible" in line:
                break
        app.send_signal(signal.SIGTERM)
        out, _ = app.communicate(timeout=120)
    finally:
        if app.poll() is None:
            app.kill()
    assert app.returncode == 0, out
    assert not (tmp_path / "profiles" / "default" / ".running").exists(), f"SIGTERM while opening was taken for a crash:\n{out}"
    assert "Traceback" not in out

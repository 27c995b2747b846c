"""The stall meter's own hazard: reading other threads' frames can stop CPython 3.11 for good.

`sys._current_frames()` allocates while it holds the interpreter's thread-list lock; a garbage
collection started there that frees a `threading.local` takes the same lock again, and the
process hangs with the GIL held (python/cpython#106883, fixed in 3.11.9; these machines have
3.11.7). pytest-timeout's alarm cannot end that, as no Python code runs again: CI stopped with
no output in the long-chat test, which samples the GUI thread while it scrolls.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SAMPLER_UNDER_CHURN = """
import faulthandler, gc, sys, threading
from tests.gui.stallmeter import _current_frames

faulthandler.dump_traceback_later(30, exit=True)  # a hang prints every stack and fails
gc.set_threshold(5, 1, 1)  # a collection at almost every allocation
sys.setswitchinterval(1e-6)  # threads take turns nearly every bytecode: fresh frames to build
stopping = threading.Event()

def make_garbage():
    local = threading.local()
    local.cycle = [local]  # only the collector frees it

def churn():
    while not stopping.is_set():
        make_garbage()

threads = [threading.Thread(target=churn) for _ in range(4)]
for thread in threads:
    thread.start()
for _ in range(100_000):
    _current_frames()
stopping.set()
for thread in threads:
    thread.join()
print("done")
"""


def test_sampling_the_gui_thread_never_hangs_the_process() -> None:
    """With plain sys._current_frames() this hangs: it did in 8 runs of 8 here (it and a twin)."""
    result = subprocess.run(
        [sys.executable, "-c", SAMPLER_UNDER_CHURN],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stdout.strip()) == (0, "done"), result.stderr[-3000:]

"""Measure how long the GUI thread's event loop stalls, and find out what it was waiting for.

A 5 ms QTimer ticks on the GUI thread; the worst gap between two ticks is the worst stall.
The CPU time the GUI thread used during that gap tells work (close to the gap) from waiting
(far below it). A sampler thread looks at the GUI thread's Python stack every 2 ms while a
tick is overdue, so the worst stall comes with the frames it was spent in. The sampler needs
the GIL and the CPU too: when it wakes up late, either the process's other threads ran
meanwhile (one holding the GIL, or all of them taking both cores; the stacks of the threads
running then are kept) or the process got no CPU at all (other processes on the machine)."""

from __future__ import annotations

import gc
import sys
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from types import FrameType

from PySide6.QtCore import QTimer

TICK_MS = 5
SAMPLE_S = 0.002
OVERDUE_S = 0.012  # start sampling once a tick is this late
LATE_S = 0.015  # a sampler wake-up this late is reported
SETTLE_S = 0.01  # a hold-up reported this soon after the worst gap ended belongs to it
_IDLE = (
    "wait",
    "_wait",
    "sleep",
    "select",
    "poll",
    "accept",
    "recv",
    "recv_into",
    "readinto",
    "get",
    "_worker",
    "serve_forever",
    "_sample",
)


@dataclass
class Holdup:
    """The sampler woke `seconds` late; meanwhile the process used `cpu_share` of one core."""

    seconds: float
    cpu_share: float
    running: list[str]  # other threads' innermost frames when the sampler got back

    def describe(self) -> str:
        if self.cpu_share < 0.3:
            return f"the process got no CPU for {self.seconds * 1000:.0f} ms (other processes)"
        who = "; ".join(self.running[:2]) or "no Python frame (a C call)"
        return f"held up {self.seconds * 1000:.0f} ms while other threads ran, with the GIL or the CPU ({who})"


@dataclass
class Stall:
    seconds: float = 0.0
    gui_cpu_s: float = 0.0  # CPU time the GUI thread used during the stall
    samples: list[str] = field(default_factory=list)  # the GUI thread's frames, one per sample
    holdups: list[Holdup] = field(default_factory=list)

    def cause(self) -> str:
        """What the GUI thread was doing, or what kept it (and the sampler) from running."""
        parts = [f"GUI thread on CPU {self.gui_cpu_s * 1000:.0f} ms"]
        if self.samples:
            (where, count), *_ = Counter(self.samples).most_common(1)
            parts.append(f"{count}/{len(self.samples)} samples in {where}")
        if self.holdups:
            parts.append(max(self.holdups, key=lambda h: h.seconds).describe())
        if len(parts) == 1:
            parts.append("no sample: it held the GIL itself (a Python slot, or Qt called from one)")
        return "; ".join(parts)


class StallMeter:
    """Measure around the action (`with meter:`), then read `worst` (a `Stall`) and `ticks`."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.ticks = 0
        self._worst = (0.0, 0.0, 0.0, 0.0)  # gap, from, to, GUI thread CPU time in it
        self._last = 0.0
        self._last_cpu = 0.0
        self._lock = threading.Lock()
        self._samples: list[tuple[float, str]] = []
        self._holdups: list[tuple[float, Holdup]] = []
        self._stopping = threading.Event()  # the sampler waits on it: stop() ends a wait at once
        self._gui_ident = threading.get_ident()
        self._sampler: threading.Thread | None = None

    def __enter__(self) -> StallMeter:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._last, self._last_cpu = time.perf_counter(), time.thread_time()
        self._stopping.clear()
        self._sampler = threading.Thread(target=self._sample, name="stall-sampler", daemon=True)
        self._sampler.start()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        self._stopping.set()
        if self._sampler is not None:
            self._sampler.join()

    @property
    def worst(self) -> Stall:
        """The longest gap, with what was seen during it (the sampler may report a hold-up of
        the GIL just after the tick that ended it: whoever gets the GIL first goes first)."""
        gap, begin, end, cpu = self._worst
        with self._lock:
            samples = [where for at, where in self._samples if begin <= at <= end]
            holdups = [h for at, h in self._holdups if begin <= at <= end + SETTLE_S]
        return Stall(gap, cpu, samples, holdups)

    def report(self) -> str:
        worst = self.worst
        return f"{worst.seconds * 1000:.1f} ms over {self.ticks} ticks ({worst.cause()})"

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        gap = now - self._last
        if gap > self._worst[0]:
            self._worst = (gap, self._last, now, cpu - self._last_cpu)
        with self._lock:  # keep what may belong to the worst gap
            keep = self._worst[1]
            self._samples = [s for s in self._samples if s[0] >= keep]
            self._holdups = [h for h in self._holdups if h[0] >= keep]
        self._last, self._last_cpu = now, cpu
        self.ticks += 1

    def _sample(self) -> None:
        me = threading.get_ident()
        while True:
            asked, cpu = time.perf_counter(), time.process_time()
            if self._stopping.wait(SAMPLE_S):  # the sampling period; lateness = a held GIL or CPU
                return
            woke = time.perf_counter()
            late = woke - asked - SAMPLE_S
            overdue = woke - self._last >= OVERDUE_S
            if late <= LATE_S and not overdue:
                continue
            frames = _current_frames()  # one snapshot serves both records
            if late > LATE_S:
                share = (time.process_time() - cpu) / (woke - asked)
                others = [
                    where
                    for ident, frame in frames.items()
                    if ident not in (me, self._gui_ident) and not _idle(frame)
                    for where in [_innermost(frame)]
                ]
                with self._lock:
                    self._holdups.append((woke, Holdup(late, share, others)))
            if overdue:
                gui = frames.get(self._gui_ident)
                with self._lock:
                    self._samples.append((woke, _innermost(gui) if gui is not None else "?"))


def _current_frames() -> dict[int, FrameType]:
    """`sys._current_frames()` with the garbage collector off while it runs.

    CPython 3.11 before 3.11.9 builds the frame objects while holding the runtime's lock on
    the thread list. When one of those allocations starts a collection that frees a
    `threading.local`, freeing it takes that lock again: the process stops for good, every
    thread waiting for the GIL the sampler holds (python/cpython#106883). CI stopped that way in
    the long-chat test: no output for 85 minutes, not even from pytest-timeout's alarm, whose
    handler is Python code. tests/gui/test_stallmeter.py makes it happen without this guard.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return sys._current_frames()
    finally:
        if enabled:
            gc.enable()


def _idle(frame: object) -> bool:
    return getattr(getattr(frame, "f_code", None), "co_name", "") in _IDLE


def _innermost(frame: object, depth: int = 4) -> str:
    """A thread's innermost Python frames, outermost first.

    For the GUI thread, pytest-qt's wait loop innermost means Qt itself was busy (layout,
    paint, a C++ slot) with no Python slot running.
    """
    stack = traceback.extract_stack(frame)  # type: ignore[arg-type]
    return " > ".join(
        f"{f.filename.rsplit('/', 2)[-1]}:{f.lineno}:{f.name}" for f in stack[-depth:]
    )

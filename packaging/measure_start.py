"""Start-up of the packaged app next to the source install, for docs/benchmarks.md.

    python packaging/measure_start.py dist/mnemo/mnemo [RUNS]

Times, from process launch (wall clock, this script's clock), for each of the two installs:
`mnemo --version`; and the real window (packaging/smoke_window.py, offscreen, a fresh data
folder each run, against the fake Ollama server) until it is shown, until it is usable (the
profile open) and until the embedding model has loaded. The first run of each is reported
apart (the first start of a new install: its files maybe not in the page cache, and for a
source install set up with `pip install --no-compile`, as `make install` does, no bytecode
yet), then the median of the others.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.fakes.fake_ollama import FakeOllama  # noqa: E402

DRIVER = (ROOT / "packaging" / "smoke_window.py").read_text(encoding="utf-8")
MARKS = {"shown": "smoke: window shown", "usable": "smoke: usable", "embedder": "smoke: embedder"}


PYCACHE = Path(tempfile.mkdtemp(prefix="mnemo-pycache-"))


def env_for(folder: Path, host: str) -> dict[str, str]:
    # The source install keeps the bytecode it compiles, as under `make run` (the Makefile
    # unexports PYTHONDONTWRITEBYTECODE), here in a folder of this run's own.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTHONPYCACHEPREFIX=str(PYCACHE),
        MNEMO_DATA_DIR=str(folder / "data"), MNEMO_CONFIG_DIR=str(folder / "config"),
        HF_HOME=str(folder / "hf"), QT_QPA_PLATFORM="offscreen", OLLAMA_HOST=host,
    )
    return env


def timed(command: list[str], env: dict[str, str]) -> dict[str, float]:
    """Seconds from launch to the end (`total`) and to each smoke mark the process prints."""
    started = time.perf_counter()
    seen: dict[str, float] = {}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            for key, mark in MARKS.items():
                if line.startswith(mark) and key not in seen:
                    seen[key] = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"error: {command[:2]} exited {proc.returncode}")
    seen["total"] = time.perf_counter() - started
    return seen


def series(name: str, command: list[str], host: str, runs: int) -> None:
    results = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            results.append(timed(command, env_for(Path(folder), host)))
    keys = [k for k in ("shown", "usable", "embedder", "total") if k in results[0]]
    first = ", ".join(f"{k} {results[0][k]:.2f}" for k in keys)
    rest = ", ".join(f"{k} {statistics.median(r[k] for r in results[1:]):.2f}" for k in keys) if runs > 1 else "-"
    print(f"{name:32} first: {first} | median of {runs - 1}: {rest}", flush=True)


def main() -> None:
    frozen = str(Path(sys.argv[1]).resolve())
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    source = [sys.executable, "-m", "assistant"]
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with FakeOllama() as ollama:
        series("packaged  mnemo --version", [frozen, "--version"], ollama.host, runs)
        series("source    mnemo --version", [*source, "--version"], ollama.host, runs)
        series("packaged  window (s)", [frozen, "-c", DRIVER], ollama.host, runs)
        series("source    window (s)", [sys.executable, "-c", DRIVER], ollama.host, runs)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

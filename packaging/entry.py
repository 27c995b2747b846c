"""The packaged app's entry point: what PyInstaller freezes (packaging/mnemo.spec).

It is `assistant.cli.main` with three things only a frozen app needs:

- `multiprocessing.freeze_support()`: the window keeps its vector index in a child process
  (a fork server on Linux, spawned children elsewhere); such children start as the frozen
  binary itself and must be diverted before the command line is parsed.
- The binary stands in for the Python interpreter: `-m MODULE` and `-c CODE` as the first
  argument do what Python does (the smoke test runs `mnemo -c …`, packaging/smoke_window.py).
  The core's own children (the vector index's, all from one fork server:
  assistant/memory/vectors/child.py) go through multiprocessing, whose fork server
  PyInstaller's runtime hook diverts. The `mnemo` command has no `-m`/`-c` option, so
  nothing a user types is shadowed.
- The embedding models bundled at build time (`models/<org>--<name>` beside the binary) are
  put on `MNEMO_MODEL_PATH`, where the embedder looks before the Hugging Face cache: the
  app works offline from its first start.
"""

from __future__ import annotations

import multiprocessing
import os
import runpy
import sys
from pathlib import Path

MODEL_PATH_ENV = "MNEMO_MODEL_PATH"  # the name assistant/memory/embedder.py reads


def bundle_dir() -> Path:
    """Where PyInstaller put the app's files (`_internal/` in a one-folder build)."""
    return Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parent))


def add_bundled_models(environ: dict[str, str] | os._Environ[str]) -> None:
    """Append the bundled model folder to MNEMO_MODEL_PATH (a user's own entries come first)."""
    folder = bundle_dir() / "models"
    if not folder.is_dir():
        return
    entries = [e for e in environ.get(MODEL_PATH_ENV, "").split(os.pathsep) if e]
    if str(folder) not in entries:
        environ[MODEL_PATH_ENV] = os.pathsep.join([*entries, str(folder)])


def act_as_python(argv: list[str]) -> None:
    """Run `-m MODULE args…` or `-c CODE args…` as the interpreter would, then exit."""
    if len(argv) < 2 or argv[0] not in ("-m", "-c"):
        return
    switch, target, rest = argv[0], argv[1], argv[2:]
    if switch == "-m":
        sys.argv = [target, *rest]
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.argv = ["-c", *rest]
        exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102
    sys.exit(0)


def main() -> int:
    multiprocessing.freeze_support()
    add_bundled_models(os.environ)
    act_as_python(sys.argv[1:])
    from assistant.cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    sys.exit(main())

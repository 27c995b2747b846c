"""Index work in child processes, all started by one fork server.

Three things run in a child, never in the app's own process:

- the window's index (`ChildIndex`). Chroma's Rust bindings keep Python's GIL for the whole
  of a write: measured here, a one-vector upsert took 14 ms (median) to 23 ms, and every
  other thread of the process, the GUI thread included, waited that long. In a child Chroma
  holds its own GIL as long as it likes; the app's threads only wait for a pipe, which
  releases the GIL.
- the scrub's copy (vectors/scrub.py): one child reads the kept vectors from the old folder,
  a fresh one writes the new folder, so no byte written can come from a heap that held a
  deleted vector.
- the probe after a crash (vectors/probe.py): a damaged HNSW file can crash the process that
  loads it instead of raising.

A side effect the privacy design wants: the app's heap never holds Chroma's buffers,
deleted vectors included.

The one mechanism is `Served`: `make(*args)` runs in the child, and each method call on the
object it made is one request over a `multiprocessing` pipe. Where the platform has it,
children come from a fork server that imported Chroma once, so a child starts in
milliseconds rather than the 1.7 s of importing Chroma again; the fork server itself never
opens an index, so no child inherits index bytes from it.

A child that dies (killed, out of memory, a crash in native code) is started again and the
call repeated once: every call is idempotent, and the index is derived data that
`IndexKeeper.reconcile()` repairs from SQLite anyway.
"""

from __future__ import annotations

import logging
import multiprocessing
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

import numpy as np

from assistant.errors import MnemoError, StorageError
from assistant.memory.vectors.chroma import ChromaIndex, IndexFactory, VectorIndex, collection_name

log = logging.getLogger("mnemo.index")

START_TIMEOUT_S = 120.0  # opening a large index rebuilds its graph from the log: can be slow
CLOSE_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 600.0  # a whole-index rebuild of 100k vectors takes minutes here
PRELOAD = ["assistant.memory.vectors.chroma", "chromadb"]  # what the fork server imports once
# the exceptions that come back from a child as themselves (see `_portable`); others as text
PORTABLE_ERRORS: tuple[type[Exception], ...] = (MnemoError, ValueError, KeyError, TypeError)
_context_lock = threading.Lock()
_context: BaseContext | None = None


def child_context() -> BaseContext:
    """A fork server that preloads Chroma where there is one (Linux); spawn elsewhere.

    Not a plain fork: the app has threads (Qt, torch, workers), and a forked copy of a
    threaded process can deadlock on a lock some other thread held.
    """
    global _context
    with _context_lock:
        if _context is None:
            if "forkserver" in multiprocessing.get_all_start_methods() and sys.platform != "darwin":
                server = multiprocessing.get_context("forkserver")
                server.set_forkserver_preload(PRELOAD)
                _context = server
            else:
                _context = multiprocessing.get_context("spawn")
        return _context


class IndexProcessError(StorageError):
    """No child process could be started for the index (the platform or the memory refused)."""


class Served:
    """The object `make(*args)` builds in a child process; `call` runs its methods there.

    One request at a time. `make` and its arguments must pickle (a module-level callable and
    plain values); so must the methods' arguments and results.

    Args:
        make: builds the served object in the child; what it raises comes back from here.
        args: its arguments.
        start_timeout: how long the child may take to build it (then it is stopped).
    """

    def __init__(
        self, make: Callable[..., object], *args: object, start_timeout: float = START_TIMEOUT_S
    ) -> None:
        self._make = make
        self._args = args
        self._start_timeout = start_timeout
        self._lock = threading.Lock()  # one request at a time on the pipe
        self._conn: Connection | None = None
        self._process: Any = None
        with self._lock:
            self._start()

    @property
    def pid(self) -> int | None:
        """The child's process id (None when closed)."""
        return None if self._process is None else int(self._process.pid)

    def call(self, method: str, *args: Any) -> Any:
        """`method(*args)` on the served object; a closed or dead child is started again first."""
        with self._lock:
            for attempt in (1, 2):
                if self._conn is None:  # closed, or the child died last time
                    self._start()
                conn = self._conn
                assert conn is not None
                try:
                    conn.send((method, args))
                    if not conn.poll(CALL_TIMEOUT_S):
                        self._stop()
                        raise StorageError(
                            "The vector index stopped answering.",
                            "Restart Mnemo; memories are safe in the database.",
                        )
                    reply = conn.recv()
                except (EOFError, OSError) as exc:
                    code = self._stop()
                    if attempt == 2:
                        raise StorageError(
                            "The vector index process keeps stopping.",
                            "Restart Mnemo; memories are safe in the database.",
                        ) from exc
                    log.warning("the index process ended (exit %s); starting it again", code)
                    continue
                return _answer(reply)
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Close the served object in the child and wait for the child to end (its files are closed)."""
        with self._lock:
            conn, process = self._conn, self._process
            self._conn = self._process = None
            if conn is None:
                return
            answered = False
            try:
                conn.send(("close", ()))
                if conn.poll(CLOSE_TIMEOUT_S):  # else the child is stuck: stopped below
                    conn.recv()
                    answered = True
            except (EOFError, OSError):
                log.warning("the index process had ended before it was closed")
            finally:
                conn.close()
            process.join(CLOSE_TIMEOUT_S if answered else 0)
            if process.is_alive():
                log.warning("the index process did not end; stopping it")
                process.kill()
                process.join()

    def _start(self) -> None:
        context = child_context()
        parent, child = context.Pipe()
        process = context.Process(  # type: ignore[attr-defined]  # BaseContext hides Process
            target=serve,
            args=(child, self._make, self._args),
            name="mnemo-index",
            daemon=True,  # ends with the app, even if close() is never reached
        )
        try:
            process.start()
        except (OSError, EOFError, RuntimeError) as exc:  # no fork server, no memory, no pipes
            raise IndexProcessError(
                f"Cannot start the vector index process: {exc}",
                "Free some memory and restart Mnemo.",
            ) from exc
        finally:
            child.close()  # the child has its own copy; EOF reaches it when we go
        self._conn, self._process = parent, process
        try:
            if not parent.poll(self._start_timeout):
                raise StorageError("The vector index did not open in time.", "Restart Mnemo.")
            _answer(parent.recv())  # "opened", or why not
        except (EOFError, OSError) as exc:
            code = self._stop()
            log.warning("the index process ended while opening the index (exit %s)", code)
            raise StorageError(
                "The vector index process ended while opening the index.",
                "Check disk space and restart Mnemo; memories are safe in the database.",
            ) from exc
        except BaseException:
            self._stop()
            raise

    def _stop(self) -> int | None:
        """Kill the child (if any); returns its exit code."""
        conn, process = self._conn, self._process
        self._conn = self._process = None
        if conn is not None:
            conn.close()
        if process is None:
            return None
        process.kill()
        process.join()
        code: int | None = process.exitcode
        return code


def _answer(reply: tuple[str, Any]) -> Any:
    kind, value = reply
    if kind == "ok":
        return value
    if isinstance(value, BaseException):
        raise value
    raise StorageError(f"The vector index failed: {value}", "Restart Mnemo; memories are safe in the database.")


class ChildIndex:
    """A `ChromaIndex` in a child process (same arguments, same methods)."""

    def __init__(self, path: Path, model_name: str, dimension: int) -> None:
        self.path = path
        self.model_name = model_name
        self.dimension = dimension
        self.name = collection_name(model_name, dimension)
        self._served = Served(ChromaIndex, path, model_name, dimension)

    def upsert(self, ids: Sequence[int], vectors: np.ndarray, profile_id: str) -> None:
        if not len(ids):
            return
        # ChromaIndex checks the shape in the child; its ValueError comes back as it is
        self._served.call("upsert", list(ids), np.asarray(vectors, dtype=np.float32), profile_id)

    def delete(self, ids: Iterable[int]) -> None:
        keys = list(ids)
        if keys:
            self._served.call("delete", keys)

    def query(self, vector: np.ndarray, n: int, profile_id: str) -> list[tuple[int, float]]:
        if n <= 0:
            return []
        vector = np.asarray(vector, dtype=np.float32)
        result: list[tuple[int, float]] = self._served.call("query", vector, n, profile_id)
        return result

    def ids(self, profile_id: str) -> set[int]:
        result: set[int] = self._served.call("ids", profile_id)
        return result

    def vectors(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        if not ids:
            return {}
        result: dict[int, np.ndarray] = self._served.call("vectors", list(ids))
        return result

    def count(self) -> int:
        return int(self._served.call("count"))

    @contextmanager
    def persisting_every_write(self) -> Iterator[None]:
        every = int(self._served.call("sync_threshold"))
        self._served.call("set_sync_threshold", 1)
        try:
            yield
        finally:
            self._served.call("set_sync_threshold", every)

    def drop(self) -> None:
        self._served.call("drop")

    def recreate(self) -> None:
        self._served.call("recreate")

    def other_collections(self) -> list[str]:
        result: list[str] = self._served.call("other_collections")
        return result

    def drop_collection(self, name: str) -> None:
        self._served.call("drop_collection", name)

    def close(self) -> None:
        """Close the index in the child and wait for the child to end (its files are closed)."""
        self._served.close()

    @property
    def pid(self) -> int | None:
        """The child's process id (None when closed)."""
        return self._served.pid


def open_child_index(path: Path, model_name: str, dimension: int) -> VectorIndex:
    """The index in a child process, or in this one when no process can be started.

    Only a child that cannot be started falls back: one that died while opening the index
    may have crashed on a damaged file, which would take this process down with it.
    """
    try:
        return ChildIndex(path, model_name, dimension)
    except IndexProcessError:
        log.warning("no process for the vector index; it runs in this one", exc_info=True)
        return ChromaIndex(path, model_name, dimension)


def index_factory(*, in_child: bool) -> IndexFactory:
    """How a profile's vector index is opened: here, or served by a child process (the
    window's; the CLI and the benchmarks keep it here: no GUI thread to protect, no pipe)."""
    return open_child_index if in_child else ChromaIndex


# -- the child ----------------------------------------------------------------------------------


def serve(conn: Connection, make: Callable[..., object], args: tuple[object, ...]) -> None:
    """The child's loop: build the object, answer calls on it until "close" or the pipe's end."""
    # Ctrl+C in the terminal reaches the whole process group: the app decides when we stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _serve(conn, make, args)
    except (EOFError, OSError):  # the app went away mid-answer: nothing to tell anyone
        return


def _serve(conn: Connection, make: Callable[..., object], args: tuple[object, ...]) -> None:
    try:
        served = make(*args)
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises it
        conn.send(("error", _portable(exc)))
        return
    conn.send(("ok", "opened"))
    try:
        while True:
            try:
                method, call_args = conn.recv()
            except EOFError:  # the app is gone
                return
            if method == "close":
                break
            try:
                if method.startswith("_"):
                    raise KeyError(f"not a method to call: {method}")
                conn.send(("ok", getattr(served, method)(*call_args)))
            except Exception as exc:  # noqa: BLE001 - every failure goes back to the caller
                conn.send(("error", _portable(exc)))
    finally:
        close = getattr(served, "close", None)
        if callable(close):
            close()
    conn.send(("ok", None))


def _portable(exc: BaseException) -> BaseException | str:
    """The exception itself when it survives pickling (ours, ValueError), else its text."""
    if isinstance(exc, PORTABLE_ERRORS):
        try:
            pickle.loads(pickle.dumps(exc))
            return exc
        except Exception:  # noqa: BLE001 - fall back to the text
            pass
    return f"{type(exc).__name__}: {exc}"

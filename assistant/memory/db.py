"""The one place that talks to SQLite: connection, pragmas, `atomic()`, migrations, errors.

Environment failures (disk full, read-only, locked, corrupt) become `StorageError` with a
hint, classified here once; anything else is a bug and propagates.
"""

from __future__ import annotations

import logging
import re
import shutil
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from assistant.errors import StorageError
from assistant.memory.schema import MIGRATIONS

log = logging.getLogger("mnemo.db")

# FTS5 tables whose segments keep a deleted row's tokens until merged (SQLite 3.40 has no
# FTS5 'secure-delete' option): after a deletion from one, it is merged with 'optimize'.
FTS_TABLES = ("memories_fts", "messages_fts")
_DELETE_RE = re.compile(r"^\s*(DELETE\s+FROM|UPDATE)\s+(\w+)", re.IGNORECASE)
_BLANKS_TEXT_RE = re.compile(r"\b(content|summary|detail|ciphertext|title)\s*=|\bNULL\b", re.IGNORECASE)
_SCRUBBED_TABLES = frozenset({"memories", "memories_fts", "memory_events", "vault", "vault_keys", "messages", "messages_fts", "sessions"})

_ENV_ERRORS: list[tuple[str, str, str]] = [
    ("disk is full", "The disk is full.", "Free some disk space and try again; nothing was lost."),
    ("readonly database", "The data directory is read-only.", "Make it writable (check permissions) and try again."),
    ("read-only", "The data directory is read-only.", "Make it writable (check permissions) and try again."),
    ("database is locked", "The database is busy in another process.", "Close other Mnemo windows or `mnemo` commands and retry."),
    ("unable to open database", "The database file cannot be opened.", "Check that the data directory exists and is writable."),
    ("disk i/o error", "The disk reported an I/O error.", "Check the disk (space, permissions, health) and retry."),
    ("not a database", "The database file is damaged or not a Mnemo database.", "Restore from an export, or move the file away to start fresh."),
    ("malformed", "The database file is damaged.", "Restore from an export, or move the file away to start fresh."),
]


def classify(exc: sqlite3.Error) -> StorageError | None:
    """Return a StorageError for an environment failure, None for what must be a bug."""
    text = str(exc).lower()
    for needle, message, hint in _ENV_ERRORS:
        if needle in text:
            return StorageError(message, hint)
    return None


class Database:
    """A SQLite connection shared by the core's objects, safe to use from several threads.

    Statements are serialised by a re-entrant lock; `atomic()` opens a transaction, or a
    savepoint when already inside one.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        self._lock = threading.RLock()
        self._depth = 0
        self._dirty: set[str] = set()  # tables with deleted content not yet scrubbed
        try:
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._connect(str(path), exclusive=False)
            except sqlite3.OperationalError as exc:
                if not self._out_of_space():
                    raise
                # WAL readers need a shared-memory file (-shm) that a full disk cannot hold;
                # in exclusive locking mode SQLite keeps that index in memory instead (one
                # process per profile holds the database anyway: app.py's lock), so
                # memories can still be read, listed and exported to free some space.
                log.warning("no space for the database's shared-memory file (%s); opening it exclusively", exc)
                self._conn.close()
                self._connect(str(path), exclusive=True)
            self._migrate()
        except sqlite3.Error as exc:
            raise classify(exc) or exc from exc
        except OSError as exc:
            raise StorageError(f"Cannot create the data directory: {exc.strerror}", "Check the path and its permissions.") from exc

    def _connect(self, path: str, *, exclusive: bool) -> None:
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
        self._conn.row_factory = sqlite3.Row
        pragmas = ["PRAGMA locking_mode=EXCLUSIVE"] if exclusive else []
        pragmas += [
            "PRAGMA journal_mode=WAL",
            # FULL: a commit returns once the WAL is on disk, so an acknowledged write
            # survives a power cut (NORMAL may drop the last ones); the cost per write
            # is measured in docs/architecture.md ("Durability")
            "PRAGMA synchronous=FULL",
            "PRAGMA secure_delete=ON",
            "PRAGMA foreign_keys=ON",
            "PRAGMA busy_timeout=10000",
        ]
        for pragma in pragmas:
            self._conn.execute(pragma)

    def _out_of_space(self) -> bool:
        if self.path is None:
            return False
        try:
            return shutil.disk_usage(self.path.parent).free < 1024 * 1024
        except OSError:
            return False

    # -- statements ---------------------------------------------------------------------

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        with self._lock:
            try:
                cursor = self._conn.execute(sql, params)
            except sqlite3.Error as exc:
                raise classify(exc) or exc from exc
            if cursor.rowcount > 0:
                self._note_removal(sql)
            return cursor

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._lock:
            try:
                cursor = self._conn.executemany(sql, rows)
            except sqlite3.Error as exc:
                raise classify(exc) or exc from exc
            if cursor.rowcount > 0:
                self._note_removal(sql)

    # -- deletion that leaves nothing ---------------------------------------------------

    def _note_removal(self, sql: str) -> None:
        """After a committed DELETE (or an UPDATE that may drop text), scrub the file and WAL."""
        match = _DELETE_RE.match(sql)
        if match is None or match.group(2).lower() not in _SCRUBBED_TABLES:
            return
        if match.group(1).upper().startswith("UPDATE") and not _BLANKS_TEXT_RE.search(sql):
            return  # an UPDATE counts only when it replaces or blanks text (summaries, audit details)
        self._dirty.add(match.group(2).lower())
        if self._depth == 0 and not self._conn.in_transaction:
            self.scrub()

    def scrub(self) -> None:
        """Remove deleted content from every byte of the database file and its WAL.

        `secure_delete` zeroes freed cells, but FTS5 segments keep deleted tokens until they
        are merged, and the main file keeps the old page until the WAL is checkpointed.
        A failure here is logged, not raised: the deletion itself has committed, and the
        next scrub (or closing the database) finishes the job.
        """
        with self._lock:
            dirty, self._dirty = self._dirty, set()
            try:
                for table in FTS_TABLES:
                    if table in dirty or table.removesuffix("_fts") in dirty:
                        self._conn.execute(f"INSERT INTO {table}({table}) VALUES('optimize')")
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                self._dirty |= dirty
                log.warning("scrub after deletion failed (%s); it is retried at the next one", classify(exc) or type(exc).__name__)

    @property
    def scrub_pending(self) -> bool:
        return bool(self._dirty)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise classify(exc) or exc from exc

    def one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Row | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def scalar(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        row = self.one(sql, params)
        return None if row is None else row[0]

    @contextmanager
    def atomic(self) -> Iterator[Database]:
        """A transaction (or a savepoint inside one): all of it commits, or none of it."""
        with self._lock:
            name = f"sp{self._depth}"
            try:
                self._conn.execute("BEGIN IMMEDIATE" if self._depth == 0 else f"SAVEPOINT {name}")
            except sqlite3.Error as exc:
                raise classify(exc) or exc from exc
            self._depth += 1
            try:
                yield self
            except BaseException:
                self._depth -= 1
                try:
                    self._conn.execute("ROLLBACK" if self._depth == 0 else f"ROLLBACK TO {name}; ")
                    if self._depth:
                        self._conn.execute(f"RELEASE {name}")
                except sqlite3.Error as exc:
                    # a full disk can fail the rollback too; SQLite then rolls back by itself
                    # (the journal is intact): the error being raised is what the user sees
                    log.warning("rollback failed (%s)", classify(exc) or type(exc).__name__)
                raise
            else:
                self._depth -= 1
                try:
                    self._conn.execute("COMMIT" if self._depth == 0 else f"RELEASE {name}")
                except sqlite3.Error as exc:
                    if self._depth == 0 and self._conn.in_transaction:  # a full disk rolls back by itself
                        self._conn.execute("ROLLBACK")
                    raise classify(exc) or exc from exc
                if self._depth == 0 and self._dirty:
                    self.scrub()

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    # -- maintenance --------------------------------------------------------------------

    def checkpoint(self) -> None:
        """Fold the WAL into the main file and truncate it, so deleted pages leave the WAL."""
        self.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def vacuum(self) -> None:
        with self._lock:
            self.execute("VACUUM")
            self.checkpoint()

    def integrity_ok(self) -> bool:
        return bool(self.scalar("PRAGMA integrity_check") == "ok")

    def close(self) -> None:
        with self._lock:
            if self._dirty:
                self.scrub()
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                log.warning("checkpoint at close failed")
            self._conn.close()

    # -- migrations ---------------------------------------------------------------------

    def schema_version(self) -> int:
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        row = self._conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        return int(row[0] or 0)

    def _migrate(self) -> None:
        with self._lock:
            current = self.schema_version()
            for version, sql in enumerate(MIGRATIONS, start=1):
                if version <= current:
                    continue
                # executescript commits, so each migration runs in its own explicit transaction
                self._conn.executescript(
                    "BEGIN;\n" + sql + f"\nINSERT INTO schema_migrations VALUES ({version}, datetime('now'));\nCOMMIT;"
                )
                log.info("applied schema migration %d", version)

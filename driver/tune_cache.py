"""The tuning cache: every measured schedule and each kernel's pick, in SQLite, shared by all runs.

    cache = TuneCache()                                  # <cache dir>/tune.sqlite
    cache.record(key, device, point, us=12.5)            # one measured point, committed at once
    cache.pick(key, device)                              # Pick(point, us, default_us, ...) or None

Location: `$DPL_CACHE_DIR`, else `$XDG_CACHE_HOME/dpl`, else `~/.cache/dpl` (the kernel cache's
directory), created private (0700); one that is not this user's directory is not used (a
warning says so, compiles use the default schedules).

Keys: a kernel is its loop IR with names left out (`tuned.kernel_key`), so identical kernels of
different programs and layers share entries; rows are further keyed by the device's name and
the dpl version, so a cache written by another version or for another GPU is never used (a
lookup that finds only other versions' schedules says so once). The file's own format is the
`schema` in its `meta` table.

Tables:
- `trials`: one row per point measured for a kernel: its median time in us, or the error that
  ruled it out (a failed pass check, a compile error, a wrong result, `measuring` for a point
  whose measurement never finished: the process died on it, so it is never tried again);
- `picks`: each kernel's chosen point with its time and the default schedule's (`confirmed` once
  the tuner re-measured the best against the default at the end of the kernel's search).

Robustness: every write is its own transaction (`BEGIN IMMEDIATE`, WAL journal, a 30 s busy
timeout), so concurrent tuners interleave whole rows and a run that is killed keeps everything it
recorded. A file that is not a database, is damaged, or has another schema is never fatal: reads
ignore it with a `TuneCacheWarning`; the first write moves it aside (`tune.sqlite.bad`) and starts
a new one.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpl.backend.cache import cache_dir, make_private

SCHEMA = "1"
FILE = "tune.sqlite"
MEASURING = "measuring"
"""The error of a trial whose measurement started and never finished."""


BUSY_S = 30.0
"""How long opening the cache waits for another process's lock (the connections' busy timeout)."""


def _busy(e: sqlite3.Error) -> bool:
    """Whether `e` is another connection holding the database (SQLITE_BUSY, SQLITE_LOCKED, or
    one of their extended codes: SQLITE_BUSY_RECOVERY while another opener rebuilds the WAL index)."""
    code = getattr(e, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class TuneCacheWarning(UserWarning):
    """The tuning cache could not be used; schedules fall back to the defaults."""


def dpl_version() -> str:
    """The installed dpl's version (pyproject's), the part of every key that ties a schedule to
    the compiler that measured it."""
    try:
        from importlib.metadata import version

        return version("dpl")
    except Exception:  # noqa: BLE001 - not installed (a bare checkout): still a stable key
        return "0+unknown"


def canonical(point: Mapping[str, Any]) -> str:
    """A point as JSON with sorted keys: the same point is always the same text."""
    return json.dumps(dict(point), sort_keys=True, separators=(",", ":"))


def _warn(message: str) -> None:
    warnings.warn(f"dpl: {message}", TuneCacheWarning, stacklevel=3)


def private_dir(path: Path) -> Path | None:
    """`path` as a private directory (backend.cache.make_private), or None with a warning."""
    try:
        return make_private(path)
    except OSError as e:
        _warn(f"tuning cache directory {path} cannot be used ({e}); using the default schedules")
        return None


@dataclass(frozen=True)
class Pick:
    """A kernel's tuned point and what it was measured at."""

    point: dict[str, Any]
    us: float
    default_us: float
    trials: int
    confirmed: bool
    method: str

    @property
    def speedup(self) -> float:
        return self.default_us / self.us if self.us > 0 else 1.0


@dataclass(frozen=True)
class Trial:
    point: dict[str, Any]
    us: float | None
    error: str | None


_TABLES = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS trials(
    kernel TEXT NOT NULL, device TEXT NOT NULL, version TEXT NOT NULL, point TEXT NOT NULL,
    us REAL, error TEXT, method TEXT, at REAL NOT NULL,
    PRIMARY KEY (kernel, device, version, point));
CREATE TABLE IF NOT EXISTS picks(
    kernel TEXT NOT NULL, device TEXT NOT NULL, version TEXT NOT NULL, point TEXT NOT NULL,
    us REAL NOT NULL, default_us REAL NOT NULL, trials INTEGER NOT NULL, confirmed INTEGER NOT NULL,
    method TEXT, name TEXT, at REAL NOT NULL,
    PRIMARY KEY (kernel, device, version));
"""


class TuneCache:
    """The tuning cache in `path` (default: `cache_dir()/tune.sqlite`); see the module docstring."""

    def __init__(self, path: str | os.PathLike | None = None, version: str | None = None):
        if path is None:
            directory = private_dir(cache_dir())
            self.path = None if directory is None else directory / FILE
        else:
            self.path = Path(path)
        self.version = version or dpl_version()
        self._db: sqlite3.Connection | None = None
        self._broken = self.path is None
        self._warned_versions: set[str] = set()

    # -- the connection ------------------------------------------------------------------------

    def _open(self, write: bool) -> sqlite3.Connection | None:
        """The connection, (re)made as needed; None where the cache cannot be used (warned)."""
        if self._db is not None:
            return self._db
        if self.path is None or (self._broken and not write):
            return None
        if not write and not self.path.exists():
            return None
        try:
            self._db = self._connect_when_free(write)
            self._broken = False
        except _Empty:  # created by a writer that has not made its tables yet
            return None
        except sqlite3.DatabaseError as e:
            self._close()
            if _busy(e):  # another process kept it locked past BUSY_S: not damage, never moved aside
                if write:
                    raise  # as _write: the caller's to see
                _warn(f"tuning cache {self.path} is busy ({e}); using the default schedules")
                return None
            if not write:
                self._broken = True
                _warn(f"tuning cache {self.path} cannot be read ({e}); using the default schedules")
                return None
            self._move_aside(str(e))
            self._db = self._connect(write)
        return self._db

    def _connect_when_free(self, write: bool) -> sqlite3.Connection:
        """`_connect`, tried again while another process holds the file locked, for up to BUSY_S:
        switching to WAL (and reading the tables while another tuner creates them) can fail at
        once with SQLITE_BUSY / SQLITE_LOCKED instead of waiting on the busy timeout."""
        deadline = time.monotonic() + BUSY_S
        while True:
            try:
                return self._connect(write)
            except sqlite3.OperationalError as e:
                if not _busy(e) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def _connect(self, write: bool) -> sqlite3.Connection:
        assert self.path is not None
        db = sqlite3.connect(self.path, timeout=BUSY_S, isolation_level=None)
        try:
            db.execute(f"PRAGMA busy_timeout = {int(BUSY_S * 1000)}")
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables and not write:
                raise _Empty()
            if "meta" not in tables:
                if tables:
                    raise sqlite3.DatabaseError("it holds no dpl tuning tables")
                db.execute("PRAGMA journal_mode = WAL")
                with _transaction(db):
                    for statement in _TABLES.split(";"):
                        if statement.strip():
                            db.execute(statement)
                    db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA,))
            row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None or row[0] != SCHEMA:
                raise sqlite3.DatabaseError(f"its schema is {row[0] if row else 'missing'}, this dpl reads {SCHEMA}")
            if write:
                db.execute("PRAGMA journal_mode = WAL")
        except BaseException:
            db.close()
            raise
        return db

    def _move_aside(self, why: str) -> None:
        assert self.path is not None
        aside = self.path.with_name(self.path.name + ".bad")
        _warn(f"tuning cache {self.path} is unusable ({why}); moved to {aside.name}, starting a new one")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                os.replace(src, Path(str(aside) + suffix))

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def close(self) -> None:
        self._close()

    def _read(self, sql: str, args: tuple) -> list[tuple]:
        db = self._open(write=False)
        if db is None:
            return []
        try:
            return db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as e:
            self._close()
            self._broken = True
            _warn(f"tuning cache {self.path} cannot be read ({e}); using the default schedules")
            return []

    def _write(self, sql: str, args: tuple) -> None:
        for attempt in range(2):
            db = self._open(write=True)
            if db is None:
                return
            try:
                with _transaction(db):
                    db.execute(sql, args)
                return
            except sqlite3.OperationalError:
                raise  # locked past the busy timeout, disk full: the caller's to see
            except sqlite3.DatabaseError as e:  # damaged under us: start over once
                self._close()
                if attempt:
                    raise
                self._move_aside(str(e))

    # -- trials ----------------------------------------------------------------------------------

    def record(self, kernel: str, device: str, point: Mapping[str, Any], us: float | None = None,
               error: str | None = None, method: str = "") -> None:  # fmt: skip
        """Record one point of `kernel` on `device`: its time (us) or why it was ruled out."""
        self._write(
            "INSERT OR REPLACE INTO trials VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (kernel, device, self.version, canonical(point), us, error, method, time.time()),
        )

    def trials(self, kernel: str, device: str) -> list[Trial]:
        """Every recorded point of `kernel` on `device` for this dpl version, oldest first; a
        point left `measuring` by a process that died reads as an error."""
        rows = self._read(
            "SELECT point, us, error FROM trials WHERE kernel = ? AND device = ? AND version = ? ORDER BY at",
            (kernel, device, self.version),
        )
        out = []
        for point, us, error in rows:
            if error == MEASURING:
                error = "the measurement never finished (the process measuring it died)"
            out.append(Trial(json.loads(point), us, error))
        return out

    # -- picks -----------------------------------------------------------------------------------

    def set_pick(self, kernel: str, device: str, point: Mapping[str, Any], us: float, default_us: float,
                 trials: int, confirmed: bool, method: str = "", name: str = "") -> None:  # fmt: skip
        self._write(
            "INSERT OR REPLACE INTO picks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (kernel, device, self.version, canonical(point), us, default_us, trials, int(confirmed),
             method, name, time.time()),
        )  # fmt: skip

    def pick(self, kernel: str, device: str) -> Pick | None:
        """`kernel`'s pick on `device` for this dpl version, or None."""
        rows = self._read(
            "SELECT point, us, default_us, trials, confirmed, method FROM picks "
            "WHERE kernel = ? AND device = ? AND version = ?",
            (kernel, device, self.version),
        )
        if not rows:
            self._note_other_versions(kernel, device)
            return None
        point, us, default_us, trials, confirmed, method = rows[0]
        return Pick(json.loads(point), us, default_us, trials, bool(confirmed), method or "")

    def _note_other_versions(self, kernel: str, device: str) -> None:
        rows = self._read(
            "SELECT DISTINCT version FROM picks WHERE kernel = ? AND device = ? AND version != ?",
            (kernel, device, self.version),
        )
        others = sorted({r[0] for r in rows} - self._warned_versions)
        if others:
            self._warned_versions |= set(others)
            _warn(f"tuning cache {self.path} holds schedules tuned by dpl {', '.join(others)}, not by "
                  f"this dpl ({self.version}); they are not used (run dpl tune again)")  # fmt: skip

    def picks(self, device: str | None = None) -> list[dict[str, Any]]:
        """Every pick of this dpl version (on `device`, or all), as dicts, for reports."""
        sql = "SELECT kernel, device, point, us, default_us, trials, confirmed, method, name FROM picks WHERE version = ?"
        args: tuple = (self.version,)
        if device is not None:
            sql, args = sql + " AND device = ?", (*args, device)
        keys = ("kernel", "device", "point", "us", "default_us", "trials", "confirmed", "method", "name")
        return [dict(zip(keys, r), point=json.loads(r[2])) for r in self._read(sql, args)]


class _Empty(Exception):
    """An empty database file (read as an empty cache)."""


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")

"""Opening the indexer's SQLite databases: one writer, many readers."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

# SQLite's limit on variables in one statement is far above this.
_CHUNK = 500
# Bytes of a database page, for a new database (an existing one keeps its
# own). A page store row is some 3 KB (a page's text compressed): one fits
# in SQLite's default 4 KiB, and the rest of the page stays empty; with 16
# KiB, five do, and the store is a sixth smaller.
PAGE_SIZE = 16384


def connect(path: Path, schema: str, readonly: bool = False) -> sqlite3.Connection:
    """A connection to ``path``: read-only for search, or the writer's.

    The writer's database runs in WAL mode, so readers (search, while the
    indexer works) never wait for it and never see half a commit.
    """
    if readonly:
        return _reader(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, check_same_thread=False)
    db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # before WAL mode, which fixes it
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(schema)
    return db


def _reader(path: Path) -> sqlite3.Connection:
    """A read-only connection to ``path``.

    A reader of a WAL database creates its shared-memory file beside it
    (``-shm``), which a full disk refuses ("disk I/O error"). When no
    write-ahead log is left, the database file holds every commit: it is
    then read as an immutable file, so that search and ``stats`` still work
    on a full disk. With a log left, the error stands (the file alone may
    lack the log's commits).
    """
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    try:
        db.execute("PRAGMA schema_version").fetchone()
    except sqlite3.OperationalError:
        db.close()
        log = path.with_name(path.name + "-wal")
        if log.exists() and log.stat().st_size:
            raise
        return sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
    return db


def rows_in(db: sqlite3.Connection, query: str, values: Iterable[Any], suffix: str = "") -> Iterator[Any]:
    """The rows of ``query`` (ending in ``... IN``) for ``values``, asked in
    chunks: ``rows_in(db, "SELECT url, lang FROM pages WHERE url IN", urls)``."""
    values = list(values)
    for start in range(0, len(values), _CHUNK):
        chunk = values[start : start + _CHUNK]
        yield from db.execute(f"{query} ({','.join('?' * len(chunk))}){suffix}", chunk)

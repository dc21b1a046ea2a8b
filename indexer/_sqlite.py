"""Opening the indexer's SQLite databases: one writer, many readers."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

# SQLite's limit on variables in one statement is far above this.
_CHUNK = 500


def connect(path: Path, schema: str, readonly: bool = False) -> sqlite3.Connection:
    """A connection to ``path``: read-only for search, or the writer's.

    The writer's database runs in WAL mode, so readers (search, while the
    indexer works) never wait for it and never see half a commit.
    """
    if readonly:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(schema)
    return db


def rows_in(db: sqlite3.Connection, query: str, values: Iterable[Any], suffix: str = "") -> Iterator[Any]:
    """The rows of ``query`` (ending in ``... IN``) for ``values``, asked in
    chunks: ``rows_in(db, "SELECT url, lang FROM pages WHERE url IN", urls)``."""
    values = list(values)
    for start in range(0, len(values), _CHUNK):
        chunk = values[start : start + _CHUNK]
        yield from db.execute(f"{query} ({','.join('?' * len(chunk))}){suffix}", chunk)

"""The data directory's layout: every name directly inside ``DATA_DIR``, spelled once.

The crawler, the indexer and search share one data directory (``-s
DATA_DIR``, ``--data``). Each program finds the parts it reads or writes
through these functions, so a part is renamed or added here alone; what
lies inside a part belongs to the module named beside it.

===========================================  =====================================================================
``DATA_DIR/...``                             what (owner of what is inside)
===========================================  =====================================================================
``redis/``                                   the embedded Redis server's files: the frontier, seen URLs, the item
                                             queue (:mod:`crawler.embedded`)
``index/``                                   the Whoosh parts: ``pages-N`` and ``anchors-N`` shards, the writer lock
                                             (:mod:`indexer.layout`)
``pages.sqlite`` (``-wal``, ``-shm``)        the page store (:mod:`indexer.store`)
``graph/``                                   the link graph and PageRank (:mod:`indexer.graph`)
``archive/``                                 every response, in WARC files (:mod:`crawler.archive`)
``purged.txt``                               the URLs ``python -m indexer purge`` removed, as blacklist lines
                                             (:mod:`indexer.purge`, read by :mod:`crawler.linkfilter`)
``reports/``                                 one report per crawl node and run (:mod:`crawler.monitor`)
``.rebuild/``, ``.rebuild-old-<pid>/``       ``python -m indexer rebuild``'s new parts, and the old ones while
                                             they are swapped (:mod:`indexer.rebuild`)
===========================================  =====================================================================

The crawl writes ``redis/``, ``archive/`` and ``reports/``; the indexer
writes :data:`INDEXER_PARTS` and ``purged.txt``; search only reads.

The module is pure: names and paths, no I/O.

>>> pages_path("data"), index_dir("data"), rebuild_old_dir("data", 42)
(PosixPath('data/pages.sqlite'), PosixPath('data/index'), PosixPath('data/.rebuild-old-42'))
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "ARCHIVE_DIR",
    "GRAPH_DIR",
    "INDEXER_PARTS",
    "INDEX_DIR",
    "PAGES_FILE",
    "PURGED_FILE",
    "REBUILD_DIR",
    "REDIS_DIR",
    "REPORTS_DIR",
    "archive_dir",
    "graph_dir",
    "index_dir",
    "pages_files",
    "pages_path",
    "purged_path",
    "rebuild_dir",
    "rebuild_old_dir",
    "redis_dir",
    "reports_dir",
]

REDIS_DIR = "redis"
INDEX_DIR = "index"
PAGES_FILE = "pages.sqlite"
GRAPH_DIR = "graph"
ARCHIVE_DIR = "archive"
PURGED_FILE = "purged.txt"
REPORTS_DIR = "reports"
REBUILD_DIR = ".rebuild"

#: What the indexer writes from the crawl's items, each name with whatever
#: starts with it (SQLite's ``-wal`` and ``-shm`` files): what ``python -m
#: indexer rebuild`` replaces.
INDEXER_PARTS = (INDEX_DIR, GRAPH_DIR, PAGES_FILE)

# What SQLite keeps beside a database in WAL mode.
_SQLITE_SIDE_FILES = ("-wal", "-shm")

PathLike = str | os.PathLike[str]


def redis_dir(data_dir: PathLike) -> Path:
    return Path(data_dir) / REDIS_DIR


def index_dir(data_dir: PathLike) -> Path:
    return Path(data_dir) / INDEX_DIR


def pages_path(data_dir: PathLike) -> Path:
    return Path(data_dir) / PAGES_FILE


def pages_files(data_dir: PathLike) -> list[Path]:
    """The page store and the files SQLite keeps beside it.

    >>> [path.name for path in pages_files("data")]
    ['pages.sqlite', 'pages.sqlite-wal', 'pages.sqlite-shm']
    """
    return [Path(data_dir) / (PAGES_FILE + suffix) for suffix in ("", *_SQLITE_SIDE_FILES)]


def graph_dir(data_dir: PathLike) -> Path:
    return Path(data_dir) / GRAPH_DIR


def archive_dir(data_dir: PathLike) -> Path:
    return Path(data_dir) / ARCHIVE_DIR


def purged_path(data_dir: PathLike) -> Path:
    return Path(data_dir) / PURGED_FILE


def reports_dir(data_dir: PathLike) -> Path:
    return Path(data_dir) / REPORTS_DIR


def rebuild_dir(data_dir: PathLike) -> Path:
    """Where ``python -m indexer rebuild`` builds the new parts."""
    return Path(data_dir) / REBUILD_DIR


def rebuild_old_dir(data_dir: PathLike, pid: int) -> Path:
    """Where the rebuild of process ``pid`` moves the old parts while it swaps."""
    return Path(data_dir) / f"{REBUILD_DIR}-old-{pid}"

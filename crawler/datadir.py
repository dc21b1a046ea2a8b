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
``format``                                   the data directory's format, a number (this module)
===========================================  =====================================================================

The crawl writes ``redis/``, ``archive/`` and ``reports/``; the indexer
writes :data:`INDEXER_PARTS` and ``purged.txt``; search only reads. Each
program that writes creates what it writes for the owner only, unless
``DATA_DIR_MODE`` says otherwise (:func:`create_with`).  What
each part holds, for a user: docs/indexing.md, "The data directory".
:func:`claim_format` records :data:`DATA_FORMAT` in a new directory's
``format`` (:func:`stamp_format` after a rebuild), :func:`check_format`
refuses a directory of another format; why, and why there are no upgrade
paths: ARCHITECTURE.md, "The data directory's format".  The module is pure
but for that one small file, which it reads and writes.

>>> pages_path("data"), index_dir("data"), rebuild_old_dir("data", 42)
(PosixPath('data/pages.sqlite'), PosixPath('data/index'), PosixPath('data/.rebuild-old-42'))
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "ARCHIVE_DIR",
    "DATA_FORMAT",
    "FORMAT_FILE",
    "GRAPH_DIR",
    "INDEXER_PARTS",
    "INDEX_DIR",
    "PAGES_FILE",
    "PURGED_FILE",
    "REBUILD_DIR",
    "REDIS_DIR",
    "REPORTS_DIR",
    "OtherFormat",
    "archive_dir",
    "check_format",
    "access_mode",
    "claim_format",
    "create_with",
    "format_path",
    "graph_dir",
    "index_dir",
    "pages_files",
    "pages_path",
    "purged_path",
    "rebuild_dir",
    "rebuild_old_dir",
    "redis_dir",
    "reports_dir",
    "stamp_format",
]

REDIS_DIR = "redis"
INDEX_DIR = "index"
PAGES_FILE = "pages.sqlite"
GRAPH_DIR = "graph"
ARCHIVE_DIR = "archive"
PURGED_FILE = "purged.txt"
REPORTS_DIR = "reports"
REBUILD_DIR = ".rebuild"
FORMAT_FILE = "format"

#: The format of the data directory: how the index, the page store and the
#: link graph are laid out and encoded. A change that this version's code
#: cannot read in an older directory, or an older version's code in this
#: one, takes the next number; a directory of another number is rebuilt
#: from its archive (ARCHITECTURE.md, "The data directory's format").
DATA_FORMAT = 3

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


def format_path(data_dir: PathLike) -> Path:
    return Path(data_dir) / FORMAT_FILE


def access_mode(value: int | str) -> int:
    """``DATA_DIR_MODE`` as a number (``-s`` gives it as octal text); ValueError
    for a mode that would keep the owner out of the directory.

    >>> oct(access_mode(0o700)), oct(access_mode("0o750")), oct(access_mode("750"))
    ('0o700', '0o750', '0o750')
    >>> access_mode("640")
    Traceback (most recent call last):
    ...
    ValueError: DATA_DIR_MODE must give the owner read, write and execute (0o7..), not '640'
    """
    try:
        mode = value if isinstance(value, int) else int(str(value).strip(), 8)
    except ValueError:
        mode = -1
    if not 0 <= mode <= 0o777 or mode & 0o700 != 0o700:
        raise ValueError(f"DATA_DIR_MODE must give the owner read, write and execute (0o7..), not {value!r}")
    return mode


def create_with(mode: int) -> None:
    """From now on, this process and those it starts (the embedded Redis,
    the indexer beside the crawl) create directories with at most ``mode``
    and files with at most its read and write bits: the umask, as Whoosh,
    SQLite and redis-server create their files themselves."""
    os.umask(0o777 & ~mode)


class OtherFormat(RuntimeError):
    """The data directory is of another format than this version reads
    (older, newer, or older than formats): rebuild it from its archive."""


def check_format(data_dir: PathLike) -> None:
    """Raise :class:`OtherFormat` unless ``data_dir`` is of :data:`DATA_FORMAT`,
    or holds nothing of the indexer's yet (a new directory, or none): read
    only, for the programs that read a data directory (search)."""
    found = _recorded_format(data_dir)
    if found == str(DATA_FORMAT):
        return
    if found is None:
        if not any((Path(data_dir) / part).exists() for part in INDEXER_PARTS):
            return  # nothing in it is of any format yet
        said = "an older version of Lantern (no data format recorded"
    elif found.isdigit() and int(found) < DATA_FORMAT:
        said = f"an older version of Lantern (data format {found}"
    elif found.isdigit():
        said = f"a newer version of Lantern (data format {found}"
    else:
        said = f"another program (data format {found!r}"
    raise OtherFormat(
        f"{data_dir} was written by {said}; this version reads format {DATA_FORMAT}): "
        f"run `python -m indexer rebuild --data {data_dir}` to rebuild it from its archive"
    )


def claim_format(data_dir: PathLike) -> None:
    """:func:`check_format`, then record :data:`DATA_FORMAT` in a directory
    that does not say its format yet (making the directory): for the
    programs that write one (the crawl, the indexer)."""
    check_format(data_dir)
    if _recorded_format(data_dir) is None:
        stamp_format(data_dir)


def stamp_format(data_dir: PathLike) -> None:
    """Record :data:`DATA_FORMAT` in ``data_dir``, whatever it said before (a
    rebuild, once the parts it made are in place). Replaced whole: a reader
    sees the old number or the new one."""
    path = format_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = path.with_name(f".{FORMAT_FILE}-{os.getpid()}")
    written.write_text(f"{DATA_FORMAT}\n")
    os.replace(written, path)


def _recorded_format(data_dir: PathLike) -> str | None:
    """What ``data_dir`` says its format is (None: nothing)."""
    try:
        return format_path(data_dir).read_text().strip()
    except FileNotFoundError:
        return None

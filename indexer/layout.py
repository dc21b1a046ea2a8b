"""Where the Whoosh indexes of a data directory live, and which one holds a URL.

``DATA_DIR/index`` holds one Whoosh index per part, each in a directory of
its own, all of one schema (:func:`indexer.schema.schema`): the page
shards ``pages-N`` and as many anchor shards ``anchors-N``.
:func:`shard_of` says which page shard holds a URL; :class:`Layout` lists,
creates and opens the parts, after refusing a data directory of another
format (:func:`crawler.datadir.check_format`), and holds the writer lock;
:class:`IndexDamaged` and :data:`CORRUPTION` name a part that cannot be
read.  Search reads every part through one reader (:mod:`search.corpus`).
Why the parts are split so: ARCHITECTURE.md, "The index", Parts.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import pickle
import sqlite3
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whoosh import index as whoosh_index
from whoosh.index import EmptyIndexError

from crawler.datadir import check_format, index_dir
from indexer.packing import UNPACK_ERRORS

__all__ = [
    "Layout",
    "IndexBusy",
    "IndexMissing",
    "IndexBeingBuilt",
    "IndexDamaged",
    "CORRUPTION",
    "DamagedPostings",
    "DamagedData",
    "is_corruption",
    "stored_documents",
    "shard_of",
]

# Inside DATA_DIR/index (crawler.datadir names the data directory's parts).
_ANCHOR_SHARD = "anchors-"
_PAGES = "pages-"
_LOCK = "writer.lock"


class IndexBusy(RuntimeError):
    """Another process is writing this index."""


class IndexMissing(RuntimeError):
    """The data directory has no index (yet)."""


class IndexBeingBuilt(IndexMissing):
    """The index directory is there, its first commit not yet."""


class IndexDamaged(RuntimeError):
    """A part of the index, or the page store, cannot be read: cut short,
    overwritten, or a file of it lost."""

    def __init__(self, data_dir: str | Path, what: str) -> None:
        # What the reader said may quote the damaged bytes: shown escaped, on one line.
        what = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in what)
        super().__init__(
            f"{what} in {data_dir} is damaged; rebuild the index from the crawl's archive: "
            f"python -m indexer rebuild --data {data_dir}"
        )


class DamagedPostings(ValueError):
    """A posting list that does not start as Whoosh writes one (bytes
    overwritten in a segment); Whoosh's own reader raises a bare Exception."""


class DamagedData(ValueError):
    """Bytes of the index that do not read as what was written there: a
    stored field that does not unpickle, a document number past its segment."""


# What reading a file that is not what it should be raises: Whoosh's
# pickles, zlib blocks and structs cut short or overwritten, its table of
# contents unreadable ("created on different architecture"), a posting
# list's header overwritten, text or JSON that does not decode (bytes
# changed inside a term, a stored field or a page store's column), SQLite's
# "file is not a database" or "disk image is malformed" (not a lock: that is
# an OperationalError, and transient).
CORRUPTION: tuple[type[BaseException], ...] = (
    EOFError,
    *UNPACK_ERRORS,
    struct.error,
    pickle.UnpicklingError,
    whoosh_index.IndexError,
    whoosh_index.IndexVersionError,
    DamagedPostings,
    DamagedData,
    UnicodeDecodeError,
    json.JSONDecodeError,
    sqlite3.DatabaseError,
)


def is_corruption(error: BaseException) -> bool:
    """Whether ``error``, one of :data:`CORRUPTION`, says a file is damaged:
    an OperationalError does only for text SQLite cannot give back as UTF-8
    (a lock, the other kind, passes)."""
    if isinstance(error, sqlite3.OperationalError):
        return str(error).startswith("Could not decode to UTF-8")
    return isinstance(error, CORRUPTION)


def shard_of(url: str, shards: int) -> int:
    """The page shard a URL belongs to, out of ``shards``: always the same
    one (by the URL's MD5), so each shard has one writer and several indexer
    processes can write at once.  The URL's anchor document is in the anchor
    shard of the same number, written by the same process.

    >>> shard_of("http://a.test/", 1), shard_of("http://a.test/", 4), shard_of("http://b.test/", 4)
    (0, 0, 3)
    """
    if shards <= 1:
        return 0
    return int.from_bytes(hashlib.md5(url.encode("utf-8"), usedforsecurity=False).digest()[:4], "big") % shards


@dataclass(frozen=True)
class Layout:
    """The index directories of ``data_dir``."""

    data_dir: Path

    @property
    def root(self) -> Path:
        return index_dir(self.data_dir)

    def page_dirs(self) -> list[Path]:
        """The page shards there are, in shard order."""
        return self._numbered(_PAGES)

    def anchor_dirs(self) -> list[Path]:
        """The anchor shards there are, in shard order."""
        return self._numbered(_ANCHOR_SHARD)

    def _numbered(self, prefix: str) -> list[Path]:
        """The directories named ``prefix`` and a number, in number order:
        read in one listing, with each entry's type (a search checks the
        parts there are before each query)."""
        try:
            with os.scandir(self.root) as entries:
                found = [
                    (int(entry.name[len(prefix) :]), Path(entry.path))
                    for entry in entries
                    if entry.name.startswith(prefix) and entry.name[len(prefix) :].isdigit() and entry.is_dir()
                ]
        except (FileNotFoundError, NotADirectoryError):
            return []
        return [path for _, path in sorted(found, key=lambda numbered: numbered[0])]

    def shard_dir(self, number: int) -> Path:
        return self.root / f"{_PAGES}{number}"

    def anchor_dir(self, number: int) -> Path:
        return self.root / f"{_ANCHOR_SHARD}{number}"

    def lock(self) -> Any:
        """Hold the index for writing (released when the file closes, or the
        process ends), or raise :class:`IndexBusy`: one writer at a time,
        whatever it writes first (the page store, a shard, the anchors)."""
        self.root.mkdir(parents=True, exist_ok=True)
        handle = open(self.root / _LOCK, "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise IndexBusy(
                f"{self.root} is being written by another process; only one indexer may run at a time"
            ) from None
        return handle

    def check(self) -> None:
        """Refuse a data directory of another format (:class:`crawler.datadir.OtherFormat`)."""
        check_format(self.data_dir)

    def create(self, schema: Any, shards: int) -> tuple[list[Any], list[Any]]:
        """Open the page shards and the anchor shards (as many), creating what is missing.

        ``shards`` is how many page shards a new index gets; an existing one
        keeps its own number (it decides where every URL already is).
        """
        self.check()
        existing = self.page_dirs()
        count = len(existing) or max(1, shards)
        pages = [_open_or_create(self.shard_dir(number), schema) for number in range(count)]
        return pages, [_open_or_create(self.anchor_dir(number), schema) for number in range(count)]

    def open(self) -> tuple[list[Any], list[Any]]:
        """Open the page shards and the anchor parts for reading."""
        self.check()
        dirs = self.page_dirs()
        if not dirs:
            if self.root.is_dir():
                raise IndexBeingBuilt(f"the index in {self.data_dir} is being created")
            raise IndexMissing(f"no index in {self.data_dir}")
        try:
            pages = [whoosh_index.open_dir(str(path)) for path in dirs]
            anchors = [
                whoosh_index.open_dir(str(path)) for path in self.anchor_dirs() if whoosh_index.exists_in(str(path))
            ]
        except EmptyIndexError:
            if self.writing():
                raise IndexBeingBuilt(f"the index in {self.data_dir} is being created") from None
            # Segments without a table of contents, and no indexer writing one.
            raise IndexDamaged(self.data_dir, "the index's table of contents") from None
        except CORRUPTION as exc:
            raise IndexDamaged(self.data_dir, f"the index ({type(exc).__name__}: {exc})") from None
        return pages, anchors

    def writing(self) -> bool:
        """Whether an indexer holds the writer lock right now."""
        try:
            handle = open(self.root / _LOCK, "a+")
        except OSError:
            return False
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
            return False


def _open_or_create(path: Path, schema: Any) -> Any:
    path.mkdir(parents=True, exist_ok=True)
    if not whoosh_index.exists_in(str(path)):
        return whoosh_index.create_in(str(path), schema)
    return whoosh_index.open_dir(str(path))


def stored_documents(data_dir: str | Path) -> dict[str, dict[str, Any]]:
    """Every URL of the index with its stored fields: a page's own, and the
    anchor text and linking-page count of its anchor document (a page known
    only by links has only those). For tests, statistics and inspection;
    search reads the parts through one reader instead."""
    pages, anchors = Layout(Path(data_dir)).open()
    found: dict[str, dict[str, Any]] = {}
    try:
        for index in pages:
            with index.searcher() as searcher:
                for stored in searcher.all_stored_fields():
                    found[stored["url"]] = dict(stored)
        for index in anchors:
            with index.searcher() as searcher:
                for stored in searcher.all_stored_fields():
                    found[stored["url"]] = {**stored, **found.get(stored["url"], {})}
    finally:
        for index in [*pages, *anchors]:
            index.close()
    return found

"""The page store: every extracted page, compressed, in SQLite.

The index holds what ranking needs; the store holds the page itself (the
Google paper's repository, ARCHITECTURE.md, item 31), so that snippets can
be cut from the full text; its links are kept in the link graph alone
(:mod:`indexer.graph`), whose anchor texts the anchor documents are made
of. It also records URL aliases (redirects,
duplicate content), which map onto the page that stands for them, and each
page's revisit state: the validators (``ETag``, ``Last-Modified``) and text
digest of its last fetch, its revisit interval and when it is next due
(which a recrawl reads: :func:`crawler.revisit.due_pages`).

One writer (the indexer) and any number of readers (search): the database
runs in WAL mode so readers never wait for the writer.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from crawler.items import PageItem
from indexer._sqlite import connect, rows_in
from indexer.packing import FIRST_TRAINING, Packer
from indexer.schema import language_tag

__all__ = ["PageStore", "STORED_FIELDS"]

# Page fields kept compressed in one blob (the text in a blob of its own);
# the rest are columns. A page's links are the link graph's (indexer.graph),
# kept there alone: here they had been a third of the store.
STORED_FIELDS = ("description", "keywords", "headings", "emphasis", "text")
# A page's sections are compressed when their JSON is longer than this
# (most pages' are "[]", or a heading or two).
_SHORT_SECTIONS = 64
# Pages stored before the store's first dictionary that are compressed
# again with it: those of a new store (an older store's pages stay as
# they were, read as before).
_REPACKED = 2 * FIRST_TRAINING

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    url TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    title TEXT NOT NULL,
    lang TEXT NOT NULL DEFAULT '',
    status INTEGER,
    depth INTEGER,
    fetched REAL,
    data BLOB NOT NULL,
    members_only INTEGER NOT NULL DEFAULT 0,
    kind TEXT NOT NULL DEFAULT '',
    size INTEGER,
    sections TEXT,
    text BLOB
);
CREATE TABLE IF NOT EXISTS aliases (
    alias TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    kind TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS gone (
    url TEXT PRIMARY KEY,
    status INTEGER
);
CREATE TABLE IF NOT EXISTS vocabulary (
    word TEXT PRIMARY KEY,
    pages INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS indexed (
    url TEXT PRIMARY KEY,
    anchor_hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS revisits (
    url TEXT PRIMARY KEY,
    etag TEXT,
    last_modified TEXT,
    digest TEXT,
    fetched REAL NOT NULL,
    interval REAL NOT NULL,
    due REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS revisits_due ON revisits (due);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS dictionaries (
    id INTEGER PRIMARY KEY,
    pages INTEGER NOT NULL,
    data BLOB NOT NULL
);
"""


# Columns added since the first stores: (name, definition), added to an older
# store when its writer opens it.
_ADDED_COLUMNS = (
    # Fetched with a site owner's credentials (ARCHITECTURE.md, item 12).
    ("members_only", "INTEGER NOT NULL DEFAULT 0"),
    # Which extractor read the page (html, pdf, text, media; '': stored before
    # kinds were), and the bytes of its body (NULL: not known).
    ("kind", "TEXT NOT NULL DEFAULT ''"),
    ("size", "INTEGER"),
    # The page's sections again (JSON, compressed unless short), read
    # without its text: a search looks at the headings of many pages and
    # shows the text of a few (NULL: stored before; read from the page's data).
    ("sections", "TEXT"),
    # The page's text, compressed UTF-8 (indexer.packing), out of the page's data: a
    # result's snippet is cut from it without decompressing and parsing the
    # page's links and other fields (NULL: stored before; the text is in
    # the page's data).
    ("text", "BLOB"),
)
# The added columns a page row is read with (:func:`_page`).
_PAGE_COLUMNS = ("members_only", "kind", "size", "text", "sections")


class PageStore:
    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.path = Path(path)
        self.db = connect(self.path, _SCHEMA, readonly)
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(pages)")}
        if not readonly:
            for name, definition in _ADDED_COLUMNS:
                if name not in columns:
                    self.db.execute(f"ALTER TABLE pages ADD COLUMN {name} {definition}")
            self.db.commit()
            columns.update(name for name, _ in _ADDED_COLUMNS)
        # What a page row is read as: an older store read by search lacks the new columns.
        self._row = "url, host, title, lang, status, depth, fetched, data, " + ", ".join(
            name if name in columns else "NULL" for name in _PAGE_COLUMNS
        )
        self._sections = "sections" in columns
        # The text and sections columns, as :meth:`bodies` reads them (NULL: a store from before).
        self._columns = ", ".join(name if name in columns else "NULL" for name in ("text", "sections"))
        self._packer = self._opened_packer(readonly)
        # Pages stored before this store had a dictionary, compressed again once it has.
        self._unpacked: list[str] = []

    def _opened_packer(self, readonly: bool) -> Packer:
        """The packer of this store: for its writer, where its dictionaries stand."""
        if readonly:
            return Packer(self._dictionary)
        newest = self.db.execute("SELECT data, pages FROM dictionaries ORDER BY pages DESC LIMIT 1").fetchone()
        stored = int(self.db.execute("SELECT count(*) FROM pages").fetchone()[0])
        if newest is None:
            return Packer(self._dictionary, stored)
        return Packer(self._dictionary, stored, bytes(newest[0]), int(newest[1]))

    def _dictionary(self, number: int) -> bytes | None:
        row = self._one("SELECT data FROM dictionaries WHERE id = ?", number)
        return None if row is None else bytes(row[0])

    def _one(self, query: str, *args: Any) -> tuple[Any, ...] | None:
        """The row ``query`` finds (None: none, or its table is not in this
        store, one from before it opened read-only)."""
        try:
            return self.db.execute(query, args).fetchone()
        except sqlite3.OperationalError:
            return None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> PageStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def commit(self) -> None:
        self.db.commit()

    def put(self, item: PageItem, host: str) -> None:
        """Store (or replace) a page item as the crawler produced it."""
        data = {name: item.get(name) for name in STORED_FIELDS}
        text = data.pop("text")
        if not isinstance(text, str):  # no text: the data says so, as in a row from before the text column
            data["text"] = text
        pack = self._packer.pack
        raw = text.encode() if isinstance(text, str) else None
        blob = pack(json.dumps(data, ensure_ascii=False).encode())
        sections = json.dumps(item.get("sections") or [], ensure_ascii=False)
        self.db.execute(
            "INSERT OR REPLACE INTO pages (url, host, title, lang, status, depth, fetched, data, members_only,"
            " kind, size, sections, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                item["url"],
                host,
                item.get("title") or "",
                language_tag(item.get("lang") or ""),
                item.get("status"),
                item.get("depth"),
                item.get("fetched"),
                blob,
                int(bool(item.get("members_only"))),
                item.get("kind") or "",
                item.get("size"),
                pack(sections.encode()) if len(sections) > _SHORT_SECTIONS else sections,
                None if raw is None else pack(raw),
            ),
        )
        self._stored(item["url"], raw)
        # A page fetched under its own URL is no longer anybody's alias.
        self.db.execute("DELETE FROM aliases WHERE alias = ?", (item["url"],))
        self.db.execute("DELETE FROM gone WHERE url = ?", (item["url"],))

    def _stored(self, url: str, text: bytes | None) -> None:
        """Count a page stored; once the first dictionary is trained, the
        pages stored before it are compressed again with it."""
        if not self._packer.has_dictionary() and len(self._unpacked) < _REPACKED:
            self._unpacked.append(url)
        trained = self._packer.stored_one(text or b"")
        if trained is None:
            return
        self.db.execute(
            "INSERT OR REPLACE INTO dictionaries (id, pages, data) VALUES (?, ?, ?)",
            (trained.dict_id, self._packer.stored, trained.dict_content),
        )
        earlier, self._unpacked = self._unpacked, []
        repack = self._packer.repack
        for url, blob, text_blob, sections in rows_in(
            self.db, "SELECT url, data, text, sections FROM pages WHERE url IN", earlier
        ):
            self.db.execute(
                "UPDATE pages SET data = ?, text = ?, sections = ? WHERE url = ?",
                (repack(blob), repack(text_blob), repack(sections), url),
            )

    def mark_gone(self, url: str, status: int | None) -> None:
        """``url`` answered with an error: no document, not even from anchors."""
        self.db.execute("DELETE FROM pages WHERE url = ?", (url,))
        self.db.execute("DELETE FROM revisits WHERE url = ?", (url,))
        self.db.execute("INSERT OR REPLACE INTO gone (url, status) VALUES (?, ?)", (url, status))

    def gone(self) -> set[str]:
        return {url for (url,) in self.db.execute("SELECT url FROM gone")}

    def get(self, url: str) -> dict[str, Any] | None:
        row = self.db.execute(f"SELECT {self._row} FROM pages WHERE url = ?", (url,)).fetchone()
        return None if row is None else self._page(row)

    def pages(self) -> Iterator[dict[str, Any]]:
        cursor = self.db.execute(f"SELECT {self._row} FROM pages ORDER BY url")
        for row in cursor:
            yield self._page(row)

    def bodies(self, urls: Iterable[str]) -> dict[str, tuple[str, list[list[str]]]]:
        """Body text and sections (``[id, text]``) of each stored page among
        ``urls``: what a result's snippet and deep link are cut from. Read
        from their own columns; from the page's data where a page was
        stored before one of them."""
        found: dict[str, tuple[str, list[list[str]]]] = {}
        older = []
        for url, text, sections in rows_in(self.db, f"SELECT url, {self._columns} FROM pages WHERE url IN", urls):
            if text is None or sections is None:
                older.append(url)
            else:
                found[url] = (self._packer.unpack(text).decode(), self._sections_of(sections))
        if older:
            found.update(self._from_data(older))
        return found

    def sections(self, urls: Iterable[str]) -> dict[str, list[list[str]]]:
        """The sections of each stored page among ``urls``, as :meth:`bodies`
        gives them, without reading the pages' text."""
        found: dict[str, list[list[str]]] = {}
        older = []
        column = "sections" if self._sections else "NULL"
        for url, sections in rows_in(self.db, f"SELECT url, {column} FROM pages WHERE url IN", urls):
            if sections is None:
                older.append(url)
            else:
                found[url] = self._sections_of(sections)
        if older:
            found.update((url, sections) for url, (_, sections) in self._from_data(older).items())
        return found

    def _from_data(self, urls: list[str]) -> dict[str, tuple[str, list[list[str]]]]:
        """:meth:`bodies` of pages stored before the text or sections column:
        what their column lacks, from their data."""
        found: dict[str, tuple[str, list[list[str]]]] = {}
        query = f"SELECT url, data, {self._columns} FROM pages WHERE url IN"
        for url, blob, text, sections in rows_in(self.db, query, urls):
            data = json.loads(self._packer.unpack(blob))
            found[url] = (
                data.get("text") or "" if text is None else self._packer.unpack(text).decode(),
                data.get("sections") or [] if sections is None else self._sections_of(sections),
            )
        return found

    def _page(self, row: tuple[Any, ...]) -> dict[str, Any]:
        url, host, title, lang, status, depth, fetched, blob, members_only, kind, size, text, sections = row
        page = json.loads(self._packer.unpack(blob))
        if text is not None:
            page["text"] = self._packer.unpack(text).decode()
        if sections is not None:
            page["sections"] = self._sections_of(sections)
        page.update(url=url, host=host, title=title, lang=lang, status=status, depth=depth, fetched=fetched)
        if members_only:
            page["members_only"] = True
        if kind:
            page["kind"] = kind
        if size is not None:
            page["size"] = size
        return page

    def _sections_of(self, column: str | bytes) -> list[list[str]]:
        """A page's sections from their column: JSON, compressed unless short."""
        return json.loads(self._packer.unpack(column) if isinstance(column, bytes) else column)

    def hosts(self) -> set[str]:
        """The hosts (with a port other than the default) that pages were crawled from."""
        return {host for (host,) in self.db.execute("SELECT DISTINCT host FROM pages")}

    def urls(self) -> set[str]:
        return {url for (url,) in self.db.execute("SELECT url FROM pages")}

    def members_only(self) -> set[str]:
        """The stored pages fetched with a site owner's credentials."""
        return {url for (url,) in self.db.execute("SELECT url FROM pages WHERE members_only = 1")}

    def meta(self, key: str) -> str | None:
        """A fact the indexer keeps about the data directory (None: never set)."""
        row = self._one("SELECT value FROM meta WHERE key = ?", key)
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def sites(self) -> list[tuple[str, int, float]]:
        """Each host's pages and its last fetch (epoch seconds), most pages first."""
        return [
            (host, int(count), float(last or 0))
            for host, count, last in self.db.execute(
                "SELECT host, count(*), max(fetched) FROM pages GROUP BY host ORDER BY count(*) DESC, host"
            )
        ]

    def languages(self) -> list[tuple[str, int]]:
        """Each page language ('' unknown) and its pages, most pages first."""
        return [
            (lang, int(count))
            for lang, count in self.db.execute(
                "SELECT lang, count(*) FROM pages GROUP BY lang ORDER BY count(*) DESC, lang"
            )
        ]

    def __len__(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM pages").fetchone()[0])

    def add_alias(self, alias: str, url: str, kind: str) -> None:
        """``alias`` stands for ``url`` (kind: ``redirect`` or ``duplicate``)."""
        if alias != url:
            self.db.execute(
                "INSERT OR REPLACE INTO aliases (alias, url, kind) VALUES (?, ?, ?)",
                (alias, url, kind),
            )
            # A page that now redirects, or now copies another, moves there.
            self.db.execute("DELETE FROM pages WHERE url = ?", (alias,))
            self.db.execute("DELETE FROM revisits WHERE url = ?", (alias,))

    def aliases(self) -> dict[str, str]:
        """Every alias mapped to the page it stands for, chains followed."""
        direct = dict(self.db.execute("SELECT alias, url FROM aliases"))
        resolved = {}
        for alias in direct:
            target, hops = direct[alias], 0
            while target in direct and hops < 10:
                target, hops = direct[target], hops + 1
            resolved[alias] = target
        return resolved

    def add_vocabulary(self, counts: Mapping[str, int]) -> None:
        """Count each word's pages (for spelling suggestions)."""
        self.db.executemany(
            "INSERT INTO vocabulary (word, pages) VALUES (?, ?)"
            " ON CONFLICT (word) DO UPDATE SET pages = pages + excluded.pages",
            counts.items(),
        )

    def word_pages(self, word: str) -> int:
        row = self.db.execute("SELECT pages FROM vocabulary WHERE word = ?", (word,)).fetchone()
        return int(row[0]) if row else 0

    def similar_words(self, word: str, spread: int = 2) -> list[tuple[str, int]]:
        """Known words with the same first letter and a length within ``spread``."""
        if not word:
            return []
        low, high = word[0], chr(ord(word[0]) + 1)
        return list(
            self.db.execute(
                "SELECT word, pages FROM vocabulary WHERE word >= ? AND word < ? AND length(word) BETWEEN ? AND ?",
                (low, high, len(word) - spread, len(word) + spread),
            )
        )

    def indexed_hashes(self, urls: Iterable[str] | None = None) -> dict[str, str]:
        """The digest of each anchor document in the index (among ``urls``)."""
        if urls is None:
            return dict(self.db.execute("SELECT url, anchor_hash FROM indexed"))
        return self._by_url("SELECT url, anchor_hash FROM indexed", urls)

    def marks(self, urls: Iterable[str]) -> dict[str, tuple[str, str, bool]]:
        """The language, kind and members-only mark of each stored page
        among ``urls``: what its anchor document repeats of it."""
        return {
            url: (lang, kind, bool(members_only))
            for url, lang, kind, members_only in rows_in(
                self.db, "SELECT url, lang, kind, members_only FROM pages WHERE url IN", urls
            )
        }

    def _by_url(self, query: str, urls: Iterable[str]) -> dict[str, Any]:
        return dict(rows_in(self.db, f"{query} WHERE url IN", urls))

    def set_indexed(self, rows: Iterable[tuple[str, str]]) -> None:
        self.db.executemany("INSERT OR REPLACE INTO indexed (url, anchor_hash) VALUES (?, ?)", rows)

    def forget_indexed(self, urls: Iterable[str]) -> None:
        self.db.executemany("DELETE FROM indexed WHERE url = ?", ((url,) for url in urls))

    # --- revisits ------------------------------------------------------------------

    def revisit(self, url: str) -> dict[str, Any] | None:
        """The revisit state of ``url``: validators, digest, last fetch, interval, due."""
        row = self.db.execute(
            "SELECT etag, last_modified, digest, fetched, interval, due FROM revisits WHERE url = ?",
            (url,),
        ).fetchone()
        if row is None:
            return None
        return dict(zip(("etag", "last_modified", "digest", "fetched", "interval", "due"), row, strict=False))

    def set_revisit(
        self,
        url: str,
        etag: str | None,
        last_modified: str | None,
        digest: str | None,
        fetched: float,
        interval: float,
    ) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO revisits (url, etag, last_modified, digest, fetched, interval, due)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (url, etag, last_modified, digest, fetched, interval, fetched + interval),
        )

    # --- purging ---------------------------------------------------------------------

    def remove(self, urls: Iterable[str]) -> None:
        """Forget everything about ``urls``: pages, revisit state, aliases to or from them."""
        rows = [(url,) for url in urls]
        for statement in (
            "DELETE FROM pages WHERE url = ?",
            "DELETE FROM revisits WHERE url = ?",
            "DELETE FROM indexed WHERE url = ?",
            "DELETE FROM aliases WHERE alias = ?",
            "DELETE FROM aliases WHERE url = ?",
        ):
            self.db.executemany(statement, rows)

    def known(self, prefix: str | None = None, url: str | None = None) -> set[str]:
        """Every URL the store knows (pages, documents, aliases) that is ``url``,
        or starts with ``prefix``."""
        found: set[str] = set()
        args: tuple[str, ...]  # the URL, or the two ends of the prefix's range
        for table, column in (("pages", "url"), ("indexed", "url"), ("aliases", "alias"), ("revisits", "url")):
            if url is not None:
                query, args = f"SELECT {column} FROM {table} WHERE {column} = ?", (url,)
            else:
                assert prefix is not None
                # A range, not LIKE: the prefix needs no escaping and the key index serves it.
                query = f"SELECT {column} FROM {table} WHERE {column} >= ? AND {column} < ?"
                args = (prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1))
            found.update(value for (value,) in self.db.execute(query, args))
        return found

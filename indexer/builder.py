"""Build the index: pages into the store, links into the graph, documents into Whoosh.

:meth:`IndexBuilder.add` takes the crawler's items in batches (one Whoosh
commit each) and indexes every page with the anchor texts known so far;
:meth:`IndexBuilder.finalize` runs when a crawl ends: it re-indexes the pages
whose inbound anchor text changed since, adds a document for every page that
was linked but not fetched (blocked by robots.txt, out of scope, media), known
only by its anchor texts (SEEDS.md items 22 and 27), and computes PageRank.

Revisits (``scrapy crawl web -a recrawl=1``) come back as the same items: a
page replaces its earlier version and out-links, ``unchanged`` (a 304) keeps
it, ``gone`` removes it, a redirect moves it; each sets when the URL is due
again. Items for URLs that ``python -m indexer purge`` removed are dropped.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from whoosh import index as whoosh_index
from whoosh.writing import LockError

from crawler.linkfilter import PURGED_FILE
from crawler.revisit import next_interval
from crawler.traps import Blacklist
from indexer import schema as fields
from indexer.codec import Codec
from indexer.graph import LinkGraph
from indexer.store import PageStore

logger = logging.getLogger(__name__)

__all__ = ["IndexBuilder", "IndexBusy", "FinalizeReport", "host_of", "anchor_text", "PURGED_FILE"]

# An anchor text repeated by many pages says more than one said once, but
# with diminishing returns (and a stable document, as counts grow).
_MAX_ANCHOR_REPEATS = 4
_MAX_ANCHOR_TEXTS = 200
_WRITER_MB = 256
# The crawl's bounds when an item carries none (crawler/settings.py RECRAWL_*).
_DEFAULT_REVISIT = (86400.0, 3600.0, 30 * 86400.0)


class IndexBusy(RuntimeError):
    """Another process is writing this index."""


@dataclass
class FinalizeReport:
    documents: int
    pages: int
    anchor_only: int
    reindexed: int
    links: int
    seconds: float


def host_of(url: str) -> str:
    """The host as users name a site: with the port when it is not the default.

    >>> host_of("http://Docs.Example.org/x"), host_of("http://127.0.0.1:8001/")
    ('docs.example.org', '127.0.0.1:8001')
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return f"{host}:{port}" if port and port != default else host


def anchor_text(texts: Iterable[str]) -> str:
    """The anchor field of a page from the anchor texts of its inbound links.

    Case-insensitively equal texts merge; each appears 1 + log2(count) times
    (at most 4), in a stable order so the field changes only when it must.

    >>> anchor_text(["JSON", "json", "json", "json", "Encoder"])
    'Encoder\\nJSON\\nJSON\\nJSON'
    """
    counts: Counter[str] = Counter()
    first_form: dict[str, str] = {}
    for text in texts:
        text = " ".join(text.split())
        if not text:
            continue
        key = text.casefold()
        counts[key] += 1
        first_form.setdefault(key, text)
    lines = []
    for key in sorted(counts, key=lambda k: (-counts[k], k))[:_MAX_ANCHOR_TEXTS]:
        repeats = min(_MAX_ANCHOR_REPEATS, 1 + int(math.log2(counts[key])))
        lines.extend([first_form[key]] * repeats)
    return "\n".join(sorted(lines, key=str.casefold))


def _urlwords(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname or ''} {parts.path} {parts.query}"


class IndexBuilder:
    """The one writer of ``DATA_DIR/index``, ``DATA_DIR/pages.sqlite`` and ``DATA_DIR/graph``."""

    def __init__(self, data_dir: str | Path, cjk: str = "bigram") -> None:
        """Open (or create, analysing Chinese text by ``cjk``) the index of ``data_dir``."""
        self.data_dir = Path(data_dir)
        index_dir = self.data_dir / "index"
        index_dir.mkdir(parents=True, exist_ok=True)
        if whoosh_index.exists_in(str(index_dir)):
            self.index = whoosh_index.open_dir(str(index_dir))
        else:
            self.index = whoosh_index.create_in(str(index_dir), fields.schema(cjk))
        self.store = PageStore(self.data_dir / "pages.sqlite")
        self.graph = LinkGraph(self.data_dir / "graph")
        self._pending: Any = None
        self._added: set[str] = set()
        self._vocabulary: Counter[str] = Counter()
        self._purged_rules: Blacklist | None = None
        self._purged_stamp: int | None = None

    def close(self) -> None:
        if self._pending is not None:
            self.cancel()
        self.store.close()
        self.graph.close()
        self.index.close()

    def __enter__(self) -> IndexBuilder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _writer(self) -> Any:
        try:
            return self.index.writer(limitmb=_WRITER_MB, codec=Codec())
        except LockError:
            raise IndexBusy(
                f"{self.data_dir / 'index'} is being written by another process; "
                "only one indexer may run at a time"
            ) from None

    def add(self, items: Iterable[dict[str, Any]]) -> Counter[str]:
        """Index crawler items (uncommitted until :meth:`commit`); counts by type."""
        counts: Counter[str] = Counter()
        purged = self._purged()
        for item in items:
            kind = item.get("type", "page")
            if purged and purged.reason(item["url"]):
                counts["purged"] += 1  # fetched before its purge reached the crawl
                continue
            counts[kind] += 1
            if kind == "unchanged":
                self._revisited(item, changed=False)
                continue
            writer = self._writer_for(item["url"])
            if kind == "page":
                if purged:
                    item["links"] = [link for link in item.get("links") or () if not purged.reason(link[0])]
                self._add_page(writer, item)
            elif kind == "duplicate":
                self._add_alias(writer, item["url"], item["of"], "duplicate")
                for alias in item.get("aliases") or ():
                    self._add_alias(writer, alias, item["of"], "redirect")
            elif kind == "gone":
                self.store.mark_gone(item["url"], item.get("status"))
                self.graph.remove([item["url"]])
                writer.delete_by_term(fields.URL, item["url"])
                self.store.forget_indexed([item["url"]])
            else:
                logger.warning("Skipping an item of unknown type %r: %s", kind, item["url"])
        return counts

    def _purged(self) -> Blacklist | None:
        """The URLs ``python -m indexer purge`` removed (``DATA_DIR/purged.txt``),
        reread when the file changes: their items are dropped."""
        path = self.data_dir / PURGED_FILE
        try:
            stamp = path.stat().st_mtime_ns
        except FileNotFoundError:
            return None
        if stamp != self._purged_stamp:
            self._purged_rules, self._purged_stamp = Blacklist.from_file(path), stamp
        return self._purged_rules

    def _revisited(self, item: dict[str, Any], changed: bool) -> None:
        """Record a fetch of ``item["url"]`` and set when to fetch it next.

        A page seen for the first time starts at the crawl's first interval;
        after that the interval halves when the text changed and doubles when
        it did not (a 304, or the same digest), within the site's bounds that
        the crawl put into the item (:mod:`crawler.revisit`).
        """
        url = item["url"]
        before = self.store.revisit(url)
        if before is None and item.get("type") == "unchanged":
            return  # no longer a page of this index (gone, moved, purged meanwhile)
        first, low, high = item.get("revisit") or _DEFAULT_REVISIT
        fetched = item.get("fetched") or time.time()
        etag, last_modified = item.get("etag"), item.get("last_modified")
        digest = item.get("digest")
        if before is None:
            interval = min(max(first, low), high)
        else:
            changed = changed and (digest is None or digest != before["digest"])
            interval = next_interval(before["interval"], changed, low, high)
            if item.get("type") == "unchanged":
                etag = etag or before["etag"]
                last_modified = last_modified or before["last_modified"]
                digest = before["digest"]
        self.store.set_revisit(url, etag, last_modified, digest, fetched, interval)

    def _writer_for(self, url: str) -> Any:
        """The pending writer, committed first if it already holds ``url``.

        Whoosh deletes by term only in committed segments: a URL added twice
        in one writer would be indexed twice.
        """
        if url in self._added:
            self.commit()
        if self._pending is None:
            self._pending = self._writer()
        self._added.add(url)
        return self._pending

    def commit(self) -> None:
        """Make everything added so far durable and searchable."""
        if self._vocabulary:
            self.store.add_vocabulary(self._vocabulary)
            self._vocabulary.clear()
        self.store.commit()
        self.graph.commit()
        self._added.clear()
        if self._pending is not None:
            writer, self._pending = self._pending, None
            writer.commit()

    def cancel(self) -> None:
        """Drop what was added since the last commit (its items stay queued)."""
        self.store.db.rollback()
        self.graph.db.rollback()
        self._added.clear()
        self._vocabulary.clear()
        if self._pending is not None:
            writer, self._pending = self._pending, None
            writer.cancel()

    def remove(self, urls: Iterable[str]) -> None:
        """Take ``urls`` out of the index, the store and the link graph (purge)."""
        urls = list(urls)
        writer = self._pending if self._pending is not None else self._writer()
        self._pending = writer
        for url in urls:
            writer.delete_by_term(fields.URL, url)
        self.store.remove(urls)
        self.graph.remove(urls, inbound=True)

    def _add_alias(self, writer: Any, alias: str, url: str, kind: str) -> None:
        self.store.add_alias(alias, url, kind)
        self.graph.remove([alias])  # the links of the page it used to be
        writer.delete_by_term(fields.URL, alias)
        self.store.forget_indexed([alias])

    def _add_page(self, writer: Any, item: dict[str, Any]) -> None:
        url = item["url"]
        item.setdefault("fetched", time.time())
        self.store.put(item, host_of(url))
        for alias in item.get("aliases") or ():
            self._add_alias(writer, alias, url, "redirect")
        links = [(link[0], link[1]) for link in item.get("links") or () if link and link[0] != url]
        self.graph.set_links(url, links)
        names = [url, *(item.get("aliases") or ())]
        anchors = anchor_text(text for source, text in self.graph.anchors_to(names) if source != url)
        writer.update_document(**self._page_document(item, anchors))
        self.store.set_indexed([(url, _digest(anchors))])
        self._vocabulary.update(_words(item))
        self._revisited(item, changed=True)

    @staticmethod
    def _page_document(page: dict[str, Any], anchors: str) -> dict[str, Any]:
        url = page["url"]
        return {
            fields.URL: url,
            fields.HOST: host_of(url),
            fields.SITE: fields.host_suffixes(host_of(url)),
            fields.URLWORDS: _urlwords(url),
            fields.TITLE: page.get("title") or "",
            fields.HEADINGS: "\n".join(page.get("headings") or ()),
            fields.EMPHASIS: "\n".join(page.get("emphasis") or ()),
            fields.DESCRIPTION: " ".join(
                filter(None, (page.get("description"), page.get("keywords")))
            ),
            fields.BODY: page.get("text") or "",
            fields.ANCHOR: anchors,
            fields.CRAWLED: True,
            fields.LANG: fields.lang_terms(page.get("lang") or ""),
            fields.FETCHED: page.get("fetched"),
        }

    @staticmethod
    def _anchor_document(url: str, anchors: str, sources: int) -> dict[str, Any]:
        title = Counter(anchors.split("\n")).most_common(1)[0][0] if anchors else url
        return {
            fields.URL: url,
            fields.HOST: host_of(url),
            fields.SITE: fields.host_suffixes(host_of(url)),
            fields.URLWORDS: _urlwords(url),
            fields.TITLE: title,
            fields.ANCHOR: anchors,
            fields.CRAWLED: False,
            fields.SOURCES: sources,
        }

    def finalize(self) -> FinalizeReport:
        """Merge anchors into every document, add anchor-only documents, PageRank."""
        started = time.monotonic()
        self.commit()
        aliases = self.store.aliases()
        crawled = self.store.urls()
        gone = self.store.gone()
        purged = self._purged()
        inbound: dict[str, list[str]] = defaultdict(list)
        sources: dict[str, set[str]] = defaultdict(set)
        for source, target, text in self.graph.links():
            source = aliases.get(source, source)
            target = aliases.get(target, target)
            if source == target or source not in crawled or target in gone:
                continue
            if purged and purged.reason(target):
                continue
            inbound[target].append(text)
            sources[target].add(source)

        indexed = self.store.indexed_hashes()
        documents = crawled | set(inbound)
        stale = [url for url in indexed if url not in documents]
        reindexed = anchor_only = 0
        writer = self._writer()
        try:
            for url in stale:
                writer.delete_by_term(fields.URL, url)
            self.store.forget_indexed(stale)
            updated = []
            for url in sorted(documents):
                anchors = anchor_text(inbound.get(url, ()))
                linking = len(sources.get(url, ()))
                if url not in crawled:
                    anchor_only += 1
                digest = _digest(anchors if url in crawled else f"{anchors}\n{linking}")
                if indexed.get(url) == digest:
                    continue
                if url in crawled:
                    page = self.store.get(url)
                    assert page is not None
                    writer.update_document(**self._page_document(page, anchors))
                else:
                    writer.update_document(**self._anchor_document(url, anchors, linking))
                updated.append((url, digest))
            reindexed = len(updated)
            self.store.set_indexed(updated)
            # The same links as the anchors above, as a matrix of node ids.
            matrix = self.graph.derive_matrix(crawled, aliases, gone)
            self.graph.set_ranks(matrix.nodes, matrix.pagerank())
            self.store.commit()
            self.graph.commit()
            # One segment: queries then open one matcher per term, not one
            # per term and segment (a crawl commits many small segments).
            writer.commit(optimize=True)
        except BaseException:
            writer.cancel()
            raise
        return FinalizeReport(
            documents=len(documents),
            pages=len(crawled),
            anchor_only=anchor_only,
            reindexed=reindexed,
            links=matrix.link_count(),
            seconds=time.monotonic() - started,
        )


_WORD = re.compile(r"[a-z]{3,24}")


def _words(page: dict[str, Any]) -> set[str]:
    """The distinct plain words of a page, for the spelling vocabulary."""
    text = " ".join(
        [page.get("title") or "", *(page.get("headings") or ()), (page.get("text") or "")[:20000]]
    )
    return set(_WORD.findall(text.lower()))


def _digest(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()

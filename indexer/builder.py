"""Build the index: pages into the store, links into the graph, documents into Whoosh.

:meth:`IndexBuilder.add` takes the crawler's items in batches (one Whoosh
commit each) and indexes every page with the anchor texts known so far;
:meth:`IndexBuilder.finalize` runs when a crawl ends: it re-indexes the pages
whose inbound anchor text changed since, adds a document for every page that
was linked but not fetched (blocked by robots.txt, out of scope, media), known
only by its anchor texts (SEEDS.md items 22 and 27), and computes PageRank.
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

from indexer import schema as fields
from indexer.graph import LinkGraph, pagerank
from indexer.store import PageStore

logger = logging.getLogger(__name__)

__all__ = ["IndexBuilder", "IndexBusy", "FinalizeReport", "host_of", "anchor_text"]

# An anchor text repeated by many pages says more than one said once, but
# with diminishing returns (and a stable document, as counts grow).
_MAX_ANCHOR_REPEATS = 4
_MAX_ANCHOR_TEXTS = 200
_WRITER_MB = 256


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
            return self.index.writer(limitmb=_WRITER_MB)
        except LockError:
            raise IndexBusy(
                f"{self.data_dir / 'index'} is being written by another process; "
                "only one indexer may run at a time"
            ) from None

    def add(self, items: Iterable[dict[str, Any]]) -> Counter[str]:
        """Index crawler items (uncommitted until :meth:`commit`); counts by type."""
        counts: Counter[str] = Counter()
        for item in items:
            kind = item.get("type", "page")
            counts[kind] += 1
            writer = self._writer_for(item["url"])
            if kind == "page":
                self._add_page(writer, item)
            elif kind == "duplicate":
                self._add_alias(writer, item["url"], item["of"], "duplicate")
                for alias in item.get("aliases") or ():
                    self._add_alias(writer, alias, item["of"], "redirect")
            elif kind == "gone":
                self.store.mark_gone(item["url"], item.get("status"))
                writer.delete_by_term(fields.URL, item["url"])
                self.store.forget_indexed([item["url"]])
            else:
                logger.warning("Skipping an item of unknown type %r: %s", kind, item["url"])
        return counts

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

    def _add_alias(self, writer: Any, alias: str, url: str, kind: str) -> None:
        self.store.add_alias(alias, url, kind)
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
            fields.LANG: page.get("lang") or "",
            fields.FETCHED: page.get("fetched"),
        }

    @staticmethod
    def _anchor_document(url: str, anchors: str) -> dict[str, Any]:
        title = Counter(anchors.split("\n")).most_common(1)[0][0] if anchors else url
        return {
            fields.URL: url,
            fields.HOST: host_of(url),
            fields.SITE: fields.host_suffixes(host_of(url)),
            fields.URLWORDS: _urlwords(url),
            fields.TITLE: title,
            fields.ANCHOR: anchors,
            fields.CRAWLED: False,
        }

    def finalize(self) -> FinalizeReport:
        """Merge anchors into every document, add anchor-only documents, PageRank."""
        started = time.monotonic()
        self.commit()
        aliases = self.store.aliases()
        crawled = self.store.urls()
        gone = self.store.gone()
        inbound: dict[str, list[str]] = defaultdict(list)
        edges: list[tuple[str, str]] = []
        for source, target, text in self.graph.links():
            source = aliases.get(source, source)
            target = aliases.get(target, target)
            if source == target or source not in crawled or target in gone:
                continue
            edges.append((source, target))
            inbound[target].append(text)

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
                if url not in crawled:
                    anchor_only += 1
                digest = _digest(anchors)
                if indexed.get(url) == digest:
                    continue
                if url in crawled:
                    page = self.store.get(url)
                    assert page is not None
                    writer.update_document(**self._page_document(page, anchors))
                else:
                    writer.update_document(**self._anchor_document(url, anchors))
                updated.append((url, digest))
            reindexed = len(updated)
            self.store.set_indexed(updated)
            # In a fixed order: the sums, to the last bit, do not depend on
            # the order pages were crawled in (a rebuild gives the same ranks).
            ranks = pagerank(sorted(edges), nodes=sorted(documents))
            self.graph.set_pagerank(ranks)
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
            links=len(edges),
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

"""Build the index: pages into the store, links into the graph, documents into Whoosh.

:meth:`IndexBuilder.add` takes the crawler's items in batches (one commit
each). A page is analysed and written once per fetch, into its page shard
(:mod:`indexer.layout`), and is searchable from that commit on. The anchor
text of links to a page lives in a document of its own in the anchor
shard of the same number (written by the same process as the page shard),
rewritten as links arrive (:meth:`IndexBuilder.flush_anchors`, when the
indexer has a moment, and at the end): a few lines, cheap to analyse
again, where rewriting the page would cost its whole body.
:meth:`IndexBuilder.finalize` runs when a crawl ends: it brings every anchor
document up to date with the stored links, including those of pages that
were linked but not fetched (blocked by robots.txt, out of scope, media),
known only by their anchor texts (ARCHITECTURE.md, items 22 and 27), and computes
PageRank.

Revisits (``scrapy crawl web -a recrawl=1``) come back as the same items: a
page replaces its earlier version and out-links, ``unchanged`` (a 304) keeps
it, ``gone`` removes it, a redirect moves it; each sets when the URL is due
again. Items for URLs that ``python -m indexer purge`` removed are dropped.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import math
import re
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from crawler import settings as defaults
from crawler.datadir import claim_format, graph_dir, pages_path, purged_path
from crawler.extractors.doctype import document_type
from crawler.extractors.lang import contained_languages
from crawler.items import Item, PageItem, UnchangedItem
from crawler.revisit import next_interval
from crawler.sites import host_of
from crawler.traps import Blacklist
from indexer import schema as fields
from indexer.graph import PERSONALIZATION, LinkGraph, personalization_weights, stored_personalization
from indexer.layout import IndexBusy, Layout
from indexer.places import HubPlaces
from indexer.shards import LocalShards, ProcessShards
from indexer.store import PageStore

logger = logging.getLogger(__name__)

__all__ = ["IndexBuilder", "IndexBusy", "FinalizeReport", "anchor_state", "anchor_text"]

# An anchor text repeated by many pages says more than one said once, but
# with diminishing returns (and a stable document, as counts grow).
_MAX_ANCHOR_REPEATS = 4
_MAX_ANCHOR_TEXTS = 200
# The anchor documents of the URLs whose links changed are rewritten this
# many URLs at a time: the links into them are read at once, as Python
# strings (some 300 bytes a link). Beside a crawl, the URLs whose links
# changed since the last rewrite, every few seconds, are half the web or
# more (a page links to some 60), and the links into all of them at once
# grew with the crawl: 180,000 rows at 3,000 pages, most of the indexer's
# peak memory (930 MiB at 30,000 pages). A thousand URLs of 60 inbound
# links each: some 20 MiB.
_ANCHOR_CHUNK = 1000
# The crawl's bounds when an item carries none.
_DEFAULT_REVISIT = (
    float(defaults.RECRAWL_INTERVAL),
    float(defaults.RECRAWL_MIN_INTERVAL),
    float(defaults.RECRAWL_MAX_INTERVAL),
)


@dataclass
class FinalizeReport:
    documents: int
    pages: int
    anchor_only: int
    reindexed: int
    links: int
    seconds: float


def anchor_text(texts: Iterable[str]) -> str:
    """The anchor field of a page from the anchor texts of its inbound links.

    Case-insensitively equal texts merge; each appears 1 + log2(count) times
    (at most 4), in a stable order so the field changes only when it must.

    >>> anchor_text(["JSON", "json", "json", "json", "Encoder"])
    'Encoder\\nJSON\\nJSON\\nJSON'
    """
    counts: Counter[str] = Counter()
    first_form: dict[str, str] = {}
    for text, repeats in Counter(texts).items():  # each distinct text once, in the order they came
        text = " ".join(text.split())
        if not text:
            continue
        key = text.casefold()
        counts[key] += repeats
        first_form.setdefault(key, text)
    lines = []
    for key in sorted(counts, key=lambda k: (-counts[k], k))[:_MAX_ANCHOR_TEXTS]:
        repeats = min(_MAX_ANCHOR_REPEATS, 1 + int(math.log2(counts[key])))
        lines.extend([first_form[key]] * repeats)
    return "\n".join(sorted(lines, key=str.casefold))


def _urlwords(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname or ''} {parts.path} {parts.query}"


def _page_document(page: PageItem, place: list[str] | None = None) -> dict[str, Any]:
    """The page document of ``page``; ``place``: where the hub that
    lists it does (:mod:`indexer.places`), for a page without a
    breadcrumb. The hub's title is shown, not indexed: on every page it
    lists, it would outscore the hub itself on its own name."""
    url = page["url"]
    return {
        fields.URL: url,
        fields.HOST: host_of(url),
        fields.SITE: fields.host_suffixes(host_of(url)),
        fields.URLWORDS: _urlwords(url),
        fields.TITLE: page.get("title") or "",
        fields.HEADINGS: "\n".join(page.get("headings") or ()),
        fields.EMPHASIS: "\n".join(page.get("emphasis") or ()),
        fields.DESCRIPTION: " ".join(filter(None, (page.get("description"), page.get("keywords")))),
        fields.BODY: page.get("text") or "",
        fields.CRAWLED: True,
        fields.LANG: fields.lang_terms(page.get("lang") or ""),
        fields.FETCHED: page.get("fetched"),
        fields.TYPE: document_type(page.get("kind"), url),
        **({fields.SIZE: page["size"]} if page.get("size") is not None else {}),
        **({fields.MEMBERS_ONLY: True, fields.ACCESS: fields.MEMBERS} if page.get("members_only") else {}),
        **_place_and_languages(page),
        **({fields.HUB: place[0], fields.HIERARCHY: "\n".join(place[1:])} if place else {}),
    }


def _place_and_languages(page: PageItem) -> dict[str, Any]:
    """A page's hierarchy, translations and the other languages it holds
    running text in, the fields a page has only when it has them."""
    found: dict[str, Any] = {}
    if page.get("hierarchy"):
        found[fields.HIERARCHY] = "\n".join(page["hierarchy"])
    if page.get("alternates"):
        found[fields.ALTERNATES] = page["alternates"]
    contains = contained_languages(page.get("text") or "", page.get("lang") or "")
    if contains:
        found[fields.CONTAINS] = contains
    return found


class IndexBuilder:
    """The one writer of ``DATA_DIR/index``, ``DATA_DIR/pages.sqlite`` and ``DATA_DIR/graph``."""

    def __init__(
        self, data_dir: str | Path, cjk: str = "bigram", shards: int | None = None, processes: int = 1
    ) -> None:
        """Open (or create, with ``shards`` page shards, by default one per
        writer process, and Chinese text analysed by ``cjk``) the index of
        ``data_dir``; its pages written by ``processes`` processes (at most
        one per shard: an index keeps the shards it was created with). A data
        directory of another format is refused (:class:`crawler.datadir.OtherFormat`);
        a new one is given this version's (:func:`crawler.datadir.claim_format`)."""
        self.data_dir = Path(data_dir)
        self.layout = Layout(self.data_dir)
        claim_format(self.data_dir)
        self._lock = self.layout.lock()
        pages, anchors = self.layout.create(fields.schema(cjk), shards or processes)
        self.shards = len(pages)
        self.parts: LocalShards | ProcessShards
        if processes > 1 and self.shards > 1:
            for index in [*pages, *anchors]:
                index.close()
            self.parts = ProcessShards(self.data_dir, self.shards, processes)
        else:
            self.parts = LocalShards(pages, anchors, str(self.layout.root))
        if processes > self.shards:
            logger.info(
                "The index has %d page shard(s): %d writer process(es), not %d (python -m "
                "indexer rebuild --shards %d re-divides it)",
                self.shards,
                self.parts.processes,
                processes,
                processes,
            )
        self.store = PageStore(pages_path(self.data_dir))
        self.graph = LinkGraph(graph_dir(self.data_dir))
        self.places = HubPlaces(self.graph, self.store)
        self._dirty: set[str] = set()  # URLs whose anchor document may have changed
        self._unsettled: set[str] = set()  # those whose documents were sent, not yet committed
        # Whether the anchor documents on disk were complete when this writer
        # opened the index: then every change since is in _dirty, and
        # finalize rewrites only those. Cleared on disk until this writer
        # finalizes (a writer that dies leaves the next finalize a full pass).
        self._anchors_complete = self.store.meta(_ANCHORS_COMPLETE) == _COMPLETE or len(self.store) == 0
        self.store.set_meta(_ANCHORS_COMPLETE, "0")
        self.store.commit()
        self._vocabulary: Counter[str] = Counter()
        self._purged_rules: Blacklist | None = None
        self._purged_stamp: int | None = None

    def close(self) -> None:
        self.cancel()
        self.store.close()
        self.graph.close()
        self.parts.close()
        self._lock.close()

    def __enter__(self) -> IndexBuilder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _delete_page(self, url: str) -> None:
        self.parts.delete(url)

    def add(self, items: Iterable[Item]) -> Counter[str]:
        """Index crawler items (uncommitted until :meth:`commit`); counts by type."""
        counts: Counter[str] = Counter()
        purged = self._purged()
        for item in items:
            if purged and purged.reason(item["url"]):
                counts["purged"] += 1  # fetched before its purge reached the crawl
                continue
            counts[item["type"]] += 1
            if item["type"] == "unchanged":
                self._revisited(item, changed=False)
            elif item["type"] == "page":
                if purged:
                    item["links"] = [link for link in item.get("links") or () if not purged.reason(link[0])]
                self._add_page(item)
            elif item["type"] == "duplicate":
                self._add_alias(item["url"], item["of"], "duplicate")
                for alias in item.get("aliases") or ():
                    self._add_alias(alias, item["of"], "redirect")
            elif item["type"] == "gone":
                self.store.mark_gone(item["url"], item.get("status"))
                self._dirty.update(self.graph.targets_of(item["url"]))
                self.graph.remove([item["url"]])
                self._delete_page(item["url"])
                self._dirty.add(item["url"])
        return counts

    def _purged(self) -> Blacklist | None:
        """The URLs ``python -m indexer purge`` removed (``DATA_DIR/purged.txt``),
        reread when the file changes: their items are dropped."""
        path = purged_path(self.data_dir)
        try:
            stamp = path.stat().st_mtime_ns
        except FileNotFoundError:
            return None
        if stamp != self._purged_stamp:
            self._purged_rules, self._purged_stamp = Blacklist.from_file(path), stamp
        return self._purged_rules

    def _revisited(self, item: PageItem | UnchangedItem, changed: bool) -> None:
        """Record a fetch of ``item["url"]`` and set when to fetch it next.

        A page seen for the first time starts at the crawl's first interval;
        after that the interval halves when the text changed and doubles when
        it did not (a 304, or the same digest), within the site's bounds that
        the crawl put into the item (:mod:`crawler.revisit`).
        """
        url = item["url"]
        unchanged = item["type"] == "unchanged"
        before = self.store.revisit(url)
        if before is None and unchanged:
            return  # no longer a page of this index (gone, moved, purged meanwhile)
        first, low, high = item.get("revisit") or _DEFAULT_REVISIT
        fetched = item.get("fetched") or time.time()
        etag, last_modified = item.get("etag"), item.get("last_modified")
        digest = item.get("digest") if item["type"] == "page" else None
        if before is None:
            interval = min(max(first, low), high)
        else:
            changed = changed and (digest is None or digest != before["digest"])
            interval = next_interval(before["interval"], changed, low, high)
            if unchanged:
                etag = etag or before["etag"]
                last_modified = last_modified or before["last_modified"]
                digest = before["digest"]
        self.store.set_revisit(url, etag, last_modified, digest, fetched, interval)

    def commit(self) -> None:
        """Make everything added so far durable and searchable."""
        if self._vocabulary:
            self.store.add_vocabulary(self._vocabulary)
            self._vocabulary.clear()
        self.parts.start_commit()  # writer processes commit meanwhile
        self.graph.commit()
        if self.parts.processes > 1:
            importlib.import_module("indexer.linkmatrix")  # numpy and scipy, for finalize's PageRank
        self.parts.commit()
        # The store after the index: what it says of the anchor documents
        # (their digests) is then never ahead of them.
        self.store.commit()
        self._unsettled.clear()

    def check(self) -> None:
        """Raise :class:`indexer.shards.ShardFailed` if a page writer process has died."""
        self.parts.check()

    def cancel(self) -> None:
        """Drop what was added since the last commit (its items stay queued)."""
        self.store.db.rollback()
        self.graph.rollback()
        self._vocabulary.clear()
        self.parts.cancel()
        self._dirty |= self._unsettled
        self._unsettled.clear()

    def remove(self, urls: Iterable[str]) -> None:
        """Take ``urls`` out of the index, the store and the link graph (purge)."""
        urls = list(urls)
        for url in urls:
            self._dirty.update(self.graph.targets_of(url))
            self._delete_page(url)
            self.parts.delete_anchor(url)
        self.store.remove(urls)
        self.graph.remove(urls, inbound=True)
        self._dirty.difference_update(urls)

    def _add_alias(self, alias: str, url: str, kind: str) -> None:
        self.store.add_alias(alias, url, kind)
        self._dirty.update(self.graph.targets_of(alias))
        self.graph.remove([alias])  # the links of the page it used to be
        self._delete_page(alias)
        self._dirty.update((alias, url))

    def _add_page(self, item: PageItem) -> None:
        url = item["url"]
        item.setdefault("fetched", time.time())
        self._dirty.update(self.graph.targets_of(url))  # links it no longer has
        place = [] if item.get("hierarchy") else self.places.place_of(url)  # no breadcrumb: where its hub lists it
        self.places.forget(url)
        self.store.put(item, host_of(url))
        for alias in item.get("aliases") or ():
            self._add_alias(alias, url, "redirect")
        links = [(link[0], link[1]) for link in item.get("links") or () if link and link[0] != url]
        self.graph.set_links(url, links)
        self.parts.update(url, _page_document(item, place))
        self._dirty.add(url)
        self._dirty.update(target for target, _ in links)
        self._vocabulary.update(_words(item))
        self._revisited(item, changed=True)

    @staticmethod
    def _anchor_document(
        url: str, anchors: str, sources: int, crawled: bool, lang: str, doctype: str, members_only: bool, shown: str
    ) -> dict[str, Any]:
        """The anchor document of ``url``: the text of the links to it, and,
        for a page never fetched, what to show for it (its commonest anchor
        text as its title, the anchor texts as its snippet), unindexed: such a
        page is known by its anchor text alone (not by its URL's words either:
        on Python's documentation, 3,600 links to a bug tracker and source
        files made a third of the anchor index's terms). The page's language,
        type and members-only mark are repeated, so the filters on them keep
        or drop the URL whichever of its documents a query matched.

        ``shown`` is the anchor text to show: that of the links on public
        pages. A page never fetched that only members' pages link to is
        marked members-only itself, its anchor text shown as a members'
        page's text is (search limits its snippet)."""
        host = host_of(url)
        document = {
            fields.URL: url,
            fields.HOST: host,
            fields.SITE: fields.host_suffixes(host),
            fields.ANCHOR: anchors,
            fields.CRAWLED: crawled,
            fields.SOURCES: sources,
            fields.LANG: fields.lang_terms(lang),
        }
        if doctype:
            document[fields.TYPE] = doctype
        if members_only:
            document[fields.ACCESS] = fields.MEMBERS
        if not crawled:
            document[fields.LABEL] = Counter(shown.split("\n")).most_common(1)[0][0] if shown else url
            document[fields.LINKED] = shown
            if members_only:
                document[fields.MEMBERS_ONLY] = True
        return document

    def personalization(self) -> dict[str, float]:
        """The PageRank personalization finalize uses (``{}``: none)."""
        return stored_personalization(self.store)

    def flush_anchors(self, commit: bool = True) -> int:
        """Bring the anchor documents of the URLs whose links changed since
        the last flush up to date, and commit them (unless not ``commit``:
        then with the next commit); how many were rewritten.

        The indexer calls it every few seconds while a crawl runs (and
        ``finalize`` covers whatever is left): anchor text that arrives
        later costs a rewrite of a few lines, never of the page.
        """
        if not self._dirty:
            return 0
        written = self._write_dirty_anchors()
        if commit:
            self.commit()
        return written

    def _write_dirty_anchors(self) -> int:
        """Rewrite (uncommitted) the anchor documents of the URLs whose links
        changed, ``_ANCHOR_CHUNK`` of them at a time; how many were rewritten."""
        if not self._dirty:
            return 0
        targets, self._dirty = self._dirty, set()
        self._unsettled |= targets
        ordered = sorted(targets)
        pages = self._stored_pages()
        written = 0
        for start in range(0, len(ordered), _ANCHOR_CHUNK):
            chunk = set(ordered[start : start + _ANCHOR_CHUNK])
            wanted = {pages.aliases.get(url, url) for url in chunk}
            names = wanted | {alias for alias, url in pages.aliases.items() if url in wanted}
            state = self._anchor_state(self.graph.inbound(names), pages)
            written += self._write_anchors(state, chunk | wanted)
        return written

    def _stored_pages(self) -> _StoredPages:
        """What the page store says of every URL that the anchor documents depend on."""
        store = self.store
        return _StoredPages(store.urls(), store.gone(), store.aliases(), store.members_only())

    def _anchor_state(self, rows: Iterable[tuple[str, str, str]], pages: _StoredPages | None = None) -> _AnchorState:
        """The inbound anchor texts and linking pages of the targets of
        ``rows`` (stored links), by what the store says of their ends
        (``pages``, read now if not given): aliases mapped to the page they
        stand for, only links out of crawled pages, none into gone or purged
        pages."""
        pages = pages or self._stored_pages()
        purged = self._purged()
        return anchor_state(rows, pages.crawled, pages.gone, pages.aliases, pages.members, [purged] if purged else [])

    def _write_anchors(self, state: _AnchorState, urls: Iterable[str] | None = None) -> int:
        """Rewrite the anchor documents of ``urls`` (None: every URL the
        state or the index knows) whose content changed; delete those that
        have no reason to exist."""
        indexed = self.store.indexed_hashes() if urls is None else self.store.indexed_hashes(urls)
        if urls is None:
            urls = state.crawled | set(state.inbound) | set(indexed)
        urls = sorted(set(urls))
        marks = self.store.marks(url for url in urls if url in state.crawled)
        updated: list[tuple[str, str]] = []
        stale: list[str] = []
        for url in urls:
            texts = state.inbound.get(url)
            if not texts or url in state.gone:
                if url in indexed:
                    stale.append(url)
                continue
            anchors = anchor_text(texts)
            crawled = url in state.crawled
            linking = len(state.sources[url])
            lang, kind, members_only = marks.get(url, ("", "", False))
            public = state.public.get(url)
            shown = anchor_text(public) if public else anchors
            members_only = members_only or not crawled and not public  # only members' pages link to it
            doctype = document_type(kind, url)
            digest = _digest(f"{anchors}\n{linking}\n{crawled}\n{lang}\n{doctype}\n{members_only}\n{shown}")
            if indexed.get(url) == digest:
                continue
            self.parts.update_anchor(
                url, self._anchor_document(url, anchors, linking, crawled, lang, doctype, members_only, shown)
            )
            updated.append((url, digest))
        for url in stale:
            self.parts.delete_anchor(url)
        self.store.forget_indexed(stale)
        self.store.set_indexed(updated)
        return len(updated)

    def finalize(self, full: bool = False, personalization: Mapping[str, float] | None = None) -> FinalizeReport:
        """Every anchor document up to date with the stored links, PageRank.

        The anchor documents of the URLs whose links changed are rewritten
        (all of them if this writer cannot know which: the ones on disk were
        not complete when it opened the index, or ``full``), then PageRank
        is computed over every link. ``personalization`` (sites or URL
        prefixes and their weights; ``{}``: none) is kept for the finalizes
        after this one too.
        """
        if personalization is not None:
            self.store.set_meta(PERSONALIZATION, json.dumps(dict(personalization), sort_keys=True))
        weights = self.personalization()
        started = time.monotonic()
        self.commit()
        try:
            if self._anchors_complete and not full:
                # Committed with PageRank below: writer processes analyse
                # them while this process computes it.
                rewritten = self._write_dirty_anchors()
                state = self._anchor_state(())  # the crawled, gone and aliased URLs only
            else:
                self._dirty.clear()
                state = self._anchor_state(self.graph.links())
                rewritten = self._write_anchors(state)
            self.graph.forget_unused_anchors()
            # The same links as the anchors above, as a matrix of node ids.
            matrix = self.graph.derive_matrix(state.crawled, state.aliases, state.gone)
            teleport = personalization_weights(self.graph.urls_of(matrix.nodes), weights) if weights else None
            self.graph.set_ranks(matrix.nodes, matrix.pagerank(personalization=teleport))
            self.commit()
        except BaseException:
            self.cancel()
            raise
        self.store.set_meta(_ANCHORS_COMPLETE, _COMPLETE)  # once the anchor documents are committed
        self.store.commit()
        self._anchors_complete = True
        anchor_only = sum(1 for url in self.store.indexed_hashes() if url not in state.crawled)
        return FinalizeReport(
            documents=len(state.crawled) + anchor_only,
            pages=len(state.crawled),
            anchor_only=anchor_only,
            reindexed=rewritten,
            links=matrix.link_count(),
            seconds=time.monotonic() - started,
        )


class _StoredPages(NamedTuple):
    crawled: set[str]
    gone: set[str]
    aliases: dict[str, str]
    members: set[str]  # crawled with a site owner's credentials


@dataclass
class _AnchorState:
    crawled: set[str]
    gone: set[str]
    aliases: dict[str, str]
    inbound: defaultdict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    sources: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    public: defaultdict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # texts on public pages


def anchor_state(
    rows: Iterable[tuple[str, str, str]],
    crawled: set[str],
    gone: set[str],
    aliases: dict[str, str],
    members: set[str],
    purged: Iterable[Blacklist],
) -> _AnchorState:
    """The inbound anchor texts and linking pages of the targets of ``rows``
    (``(source, target, anchor text)``): aliases mapped to the page they
    stand for, only links out of ``crawled`` pages, none into ``gone`` or
    ``purged`` ones. Also for several data directories' links read as one
    graph (:mod:`indexer.federation`)."""
    rules = list(purged)
    state = _AnchorState(crawled, gone, aliases)
    for source, target, text in rows:
        source = aliases.get(source, source)
        target = aliases.get(target, target)
        if source == target or source not in crawled or target in gone:
            continue
        if any(blacklist.reason(target) for blacklist in rules):
            continue
        state.inbound[target].append(text)
        state.sources[target].add(source)
        if source not in members:
            state.public[target].append(text)
    return state


_WORD = re.compile(r"[a-z]{3,24}")
# Page store key: whether the anchor documents on disk are complete (this
# value when they are; "0" from when a writer opens the index until it
# finalizes).
_ANCHORS_COMPLETE = "anchors_complete"
_COMPLETE = "2"


def _words(page: PageItem) -> set[str]:
    """The distinct plain words of a page, for the spelling vocabulary."""
    text = " ".join([page.get("title") or "", *(page.get("headings") or ()), (page.get("text") or "")[:20000]])
    return set(_WORD.findall(text.lower()))


def _digest(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()

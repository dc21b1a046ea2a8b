"""The index's parts read as one corpus: page shards and anchor documents together.

A data directory's index is several Whoosh indexes (:mod:`indexer.layout`):
page shards, and anchor shards, where each linked URL has a document of
the text of the links to it. :class:`Corpus` opens them all through one
reader, so one query matches pages by their own words and by the words
others link to them with, and scores both with one set of statistics:

- the number of documents (for IDF) is the number of URLs, pages and pages
  known only by links, not of Whoosh documents (a page with inbound links
  has two);
- a field's average length is over the documents that can have it: anchor
  text over the anchor documents, every other text field over the pages. (One index
  with anchor-only documents in it averaged the body over those too, and
  long pages looked even longer.)

So K shards of pages score exactly as one index of the same pages, and a
page's score is the same BM25F over its fields as if its anchor text were a
field of its own document. The shards may be in several data directories
(indexers that drained disjoint partitions of one crawl,
:mod:`indexer.share`): they are read as one index all the same.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from whoosh.reading import MultiReader, TermNotFound
from whoosh.scoring import BM25F, BM25FScorer
from whoosh.searching import Searcher

from indexer import schema as fields
from indexer.layout import Layout
from search.topdocs import TopDocs, field_lengths

__all__ = ["Corpus", "CorpusBM25F"]

# The one text field of anchor documents; pages have the others.
_ANCHOR_FIELDS = frozenset([fields.ANCHOR])


class CorpusBM25F(BM25F):
    """Whoosh's BM25F with the corpus's document count and field populations."""

    def __init__(self, urls: int, pages: int, anchors: int, lengths: dict[str, float], **options: Any) -> None:
        """``lengths``: by field, the total length of the live documents (:func:`_live_lengths`)."""
        super().__init__(**options)
        self.urls = max(1, urls)
        self.pages = max(1, pages)
        self.anchor_docs = max(1, anchors)
        self.lengths = lengths

    def average_length(self, searcher: Any, fieldname: str) -> float:
        """The field's average length over the live documents that can have it."""
        return self.lengths.get(fieldname, 0.0) / self.population(fieldname) or 1

    def idf(self, searcher: Any, fieldname: str, text: bytes) -> float:
        return self.idf_of(_live_frequency(searcher.get_parent().reader(), fieldname, text))

    def idf_of(self, documents: int) -> float:
        """The IDF of a term that ``documents`` documents hold."""
        return math.log(self.urls / (documents + 1)) + 1

    def population(self, fieldname: str) -> int:
        return self.anchor_docs if fieldname in _ANCHOR_FIELDS else self.pages

    def parameters(
        self, searcher: Any, fieldname: str, text: bytes, documents: int | None = None
    ) -> tuple[float, float, float, float] | None:
        """The numbers :meth:`scorer`'s scorer scores a term with (IDF,
        average field length, B, K1); None for a field scored by weight
        alone. ``documents``: the term's document frequency, if the caller
        knows it (else the searcher looks it up)."""
        if not searcher.schema[fieldname].scorable:
            return None
        avgfl = self.average_length(searcher, fieldname)
        idf = searcher.get_parent().idf(fieldname, text) if documents is None else self.idf_of(documents)
        return idf, avgfl, self._field_B.get(fieldname, self.B), self.K1

    def scorer(self, searcher: Any, fieldname: str, text: bytes, qf: int = 1) -> Any:
        scorer = super().scorer(searcher, fieldname, text, qf=qf)
        if isinstance(scorer, BM25FScorer):
            scorer.avgfl = self.average_length(searcher, fieldname)
            # The bound Whoosh skips and prunes by, computed with the average
            # it had before: with a smaller average (anchor text) it was too
            # low, and pages linked with a common word were dropped from the top.
            info = searcher.term_info(fieldname, text)
            scorer._maxquality = scorer._score(info.max_weight(), info.min_length())
        return scorer


class Corpus:
    """Every index part of a data directory, or of several, open for searching."""

    def __init__(self, data_dir: str | Path | Sequence[str | Path], options: dict[str, Any]) -> None:
        """``options``: the BM25F parameters (``B``, ``K1``, ``<field>_B``)."""
        dirs = [data_dir] if isinstance(data_dir, (str, Path)) else list(data_dir)
        self.layouts = [Layout(Path(each)) for each in dirs]
        self.options = options
        self.pages, self.anchors = self._open()
        self._anchor_dirs = self._every_anchor_dir()
        self.schema = self.pages[0].schema
        self._searcher: Any = None
        self._top_docs: TopDocs | None = None
        self._anchors_from = 0
        self._generations: tuple[int, ...] = ()

    def _open(self) -> tuple[list[Any], list[Any]]:
        """Every directory's page shards, then every directory's anchor shards."""
        pages: list[Any] = []
        anchors: list[Any] = []
        try:
            for layout in self.layouts:
                found = layout.open()
                pages += found[0]
                anchors += found[1]
        except BaseException:
            for index in [*pages, *anchors]:
                index.close()
            raise
        return pages, anchors

    def _every_anchor_dir(self) -> list[Path]:
        return [path for layout in self.layouts for path in layout.anchor_dirs()]

    def _indexes(self) -> list[Any]:
        return [*self.pages, *self.anchors]

    def generations(self) -> tuple[int, ...]:
        """What changes when any part commits."""
        return tuple(index.latest_generation() for index in self._indexes())

    def searcher(self) -> Any:
        """A searcher over every part at its latest commit (reopened only when one changed)."""
        anchor_dirs = self._every_anchor_dir()
        if anchor_dirs != self._anchor_dirs or len(self.anchors) != len(anchor_dirs):
            # Created since, or the anchor index of earlier versions moved into shards.
            self.pages, self.anchors = self._open()
            self._anchor_dirs = anchor_dirs
            self._generations = ()
        generations = self.generations()
        if self._searcher is not None and generations == self._generations:
            return self._searcher
        page_readers = [reader for index in self.pages for reader in _leaves(index.reader())]
        anchor_readers = [reader for index in self.anchors for reader in _leaves(index.reader())]
        readers = page_readers + anchor_readers
        reader = MultiReader(readers) if len(readers) != 1 else readers[0]
        pages = sum(r.doc_count() for r in page_readers)
        anchors = sum(r.doc_count() for r in anchor_readers)
        stubs = sum(_frequency(r, fields.CRAWLED, False) for r in anchor_readers)
        weighting = CorpusBM25F(pages + stubs, pages, anchors, _live_lengths(readers), **self.options)
        old, self._searcher = self._searcher, Searcher(reader, weighting=weighting)
        self._top_docs = None
        self._anchors_from = sum(r.doc_count_all() for r in page_readers)
        self._generations = generations
        if old is not None:
            old.close()
        return self._searcher

    def top_docs(self) -> TopDocs:
        """Array scoring (:mod:`search.topdocs`) over the searcher the last
        :meth:`searcher` call gave. A search asks for that once, at its
        start: all its arrays then come from one commit, however often the
        indexer commits meanwhile (a searcher reopened mid-search gave
        arrays of two sizes, and closed the one the search was reading)."""
        searcher = self._searcher if self._searcher is not None else self.searcher()
        if self._top_docs is None or self._top_docs.searcher is not searcher:
            self._top_docs = TopDocs(searcher, fields.URL, fields.ANCHOR, self._anchors_from)
        return self._top_docs

    def documents_of(self, searcher: Any, urls: Iterable[str]) -> dict[str, list[int]]:
        """Every document number of each URL: its page and its anchor document."""
        found: dict[str, list[int]] = {}
        for url in urls:
            try:
                matcher = searcher.reader().postings(fields.URL, url)
            except TermNotFound:
                continue
            found[url] = list(matcher.all_ids())
        return found

    def close(self) -> None:
        if self._searcher is not None:
            self._searcher.close()
            self._searcher = None
        for index in self._indexes():
            index.close()


def _leaves(reader: Any) -> list[Any]:
    if reader.is_atomic():
        return [reader]
    return [leaf for child in reader.readers for leaf in _leaves(child)]


def _frequency(reader: Any, fieldname: str, value: Any) -> int:
    try:
        return _live_frequency(reader, fieldname, reader.schema[fieldname].to_bytes(value))
    except (TermNotFound, KeyError):
        return 0


def _live_frequency(reader: Any, fieldname: str, text: bytes) -> int:
    """How many live documents have the term: Whoosh's document frequency
    counts the deleted ones too, until their segment is merged (an anchor
    document rewritten as links came, a page fetched again)."""
    if not reader.has_deletions():
        return int(reader.doc_frequency(fieldname, text))
    count = 0
    for leaf in _leaves(reader):
        if not leaf.has_deletions():
            count += int(leaf.doc_frequency(fieldname, text))
        elif (fieldname, text) in leaf:
            deleted = leaf.deleted_docs_set
            count += sum(1 for docnum in leaf.postings(fieldname, text).all_ids() if docnum not in deleted)
    return count


def _live_lengths(readers: list[Any]) -> dict[str, float]:
    """By text field, the total length of the live documents of ``readers``
    (segments), each length as scoring reads it (a byte per document).
    Whoosh's own totals are exact, but count deleted documents until their
    segment is merged, and the exact lengths of those are lost: an anchor
    document rewritten five times as links came would weigh in five times.
    Summed from the bytes, the same pages give the same averages however
    their segments came about (a crawl's index, its rebuild, its shards)."""
    found: dict[str, float] = {}
    for reader in readers:
        count = reader.doc_count_all()
        if not count:
            continue
        live: Any = slice(None)
        if reader.has_deletions():
            live = np.ones(count, dtype=bool)
            live[np.fromiter(reader.deleted_docs_set, dtype=np.int64)] = False
        for fieldname in reader.indexed_field_names():
            if reader.schema[fieldname].scorable:
                lengths = field_lengths(reader, fieldname, count)[live]
                found[fieldname] = found.get(fieldname, 0.0) + float(lengths.sum())
    return found

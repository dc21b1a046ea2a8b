"""The best documents for a query of words, scored a posting list at a time.

Whoosh matches a query one document at a time through a tree of Python
matchers: a query of three words over seven fields is a tree of 21 leaves,
and each document a common word matches costs a walk of that tree (10,000
pages: 70-100 ms for a query with one common word). Here each leaf's posting
list is read whole, per segment, into arrays, and scored at once:

- a term leaf: BM25F per posting with the numbers of the searcher's own
  scorer (IDF, average field length, ``B``, ``K1``), from the document's
  field length as the index stores it, times the leaf's boost;
- ``Or``: the sum of its children, matching where any child matches;
- ``And``: the sum of its children, matching where every child matches;

then the top documents by score (ties by document number, as Whoosh's
collector orders them), deleted documents left out, a filter and a mask
applied. The scores are Whoosh's BM25F scores of the same query (summed in
another order, so equal to the last bit or two). Queries of other shapes
(phrases, ``NOT``, prefixes, ...) are left to Whoosh: :func:`supports`
says which.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from whoosh.query import And, Or, Phrase, Query, QueryError, Term
from whoosh.reading import TermNotFound
from whoosh.scoring import BM25FScorer
from whoosh.util.numeric import byte_to_length

from indexer.codec import StoredColumns, length_bytes
from indexer.layout import DamagedData
from search.postings import Chunk, CorpusPostings, kept

__all__ = ["TopDocs", "Hit", "Hits", "field_lengths", "supports"]

# Term leaves kept scored (two arrays of the index's size each).
_KEPT_TERMS = 64
# Documents whose stored fields (about a kB each), and URLs whose other
# documents, are kept: a query reads those of a hundred or two candidates,
# and common words bring the same pages back query after query.
_KEPT_DOCUMENTS = 20_000
# Field length of each length byte Whoosh stores (byte 0: no length).
_LENGTHS = np.array([0.0] + [float(byte_to_length(b)) for b in range(1, 256)])
# A URL with more than one live document on one side (pages, anchor
# documents): looked up by its URL, not in the array of partners.
_SEVERAL = -2


def supports(query: Query) -> bool:
    """Whether ``query`` is made only of terms, phrases of words one after
    another, ``And`` and ``Or``."""
    if type(query) is Term:
        return True
    if type(query) is Phrase:
        return query.slop == 1 and len(query.words) > 1 and None not in query.words
    if isinstance(query, Or):
        if getattr(query, "scale", None) or getattr(query, "minmatch", 0):
            return False
    elif type(query) is not And:
        return False
    return all(supports(child) for child in query.subqueries)


class Hit:
    """One matching document: its number, score and stored fields."""

    __slots__ = ("docnum", "score", "_top", "_fields")

    def __init__(self, top: TopDocs, docnum: int, score: float) -> None:
        self.docnum = docnum
        self.score = score
        self._top = top
        self._fields: dict[str, Any] | None = None

    def fields(self) -> dict[str, Any]:
        """The document's stored fields (shared: read them, never change them)."""
        if self._fields is None:
            self._fields = self._top.stored_fields(self.docnum)
        return self._fields

    def __getitem__(self, name: str) -> Any:
        return self.fields()[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields().get(name, default)


class Hits:
    """The best hits, best first, and how many documents matched in all."""

    def __init__(self, hits: list[Hit], matched: np.ndarray) -> None:
        """``matched``: True for every document that matched (not only the best)."""
        self.hits = hits
        self.mask = matched
        self.matched = int(matched.sum())

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def scored_length(self) -> int:
        return len(self.hits)

    def estimated_length(self) -> int:
        return self.matched


class TopDocs:
    """Array scoring over one Whoosh searcher (kept as long as the searcher is).

    Each segment's field lengths are read once, when a query first needs
    that field, and kept for the life of this object.
    """

    def __init__(
        self, searcher: Any, url_field: str = "url", anchor_field: str = "anchor", anchors_from: int | None = None
    ) -> None:
        """``anchors_from``: the first document number of the anchor
        documents (the segments from there on hold them), if any."""
        self.searcher = searcher
        self.segments: list[tuple[Any, Any, int]] = [
            (sub, sub.reader(), offset) for sub, offset in searcher.leaf_searchers()
        ]
        self.size = searcher.reader().doc_count_all()
        # Whether some document is deleted (its postings and length still there).
        self.deletions = any(reader.has_deletions() for _, reader, _ in self.segments)
        self.url_field = url_field
        self.anchor_field = anchor_field
        self.anchors_from = self.size if anchors_from is None else anchors_from
        self._lengths: dict[str, np.ndarray] = {}
        self._live: np.ndarray | None = None
        self._terms: OrderedDict[tuple[str, str], _Scored] = OrderedDict()
        self._labels: dict[tuple[str, Any], tuple[list[str], np.ndarray]] = {}
        self._label_orders: dict[tuple[str, Any], np.ndarray] = {}
        self._stored: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._documents: OrderedDict[tuple[str, bool], list[int]] = OrderedDict()
        self._partners: np.ndarray | None = None
        self._none: _Scored | None = None
        self._every_stored = False
        self._columns = StoredColumns.of(self.segments, searcher.schema)
        self._postings = CorpusPostings(self.segments)

    def keep_stored(self) -> None:
        """Read every live document's stored fields now, in order, if they
        all fit among the ``_KEPT_DOCUMENTS`` kept (10,000 pages and their
        anchor documents: about 0.2 s): a server does it before its first
        search, as the searches would, one candidate at a time."""
        if self._columns is None or int(self.live().sum()) > _KEPT_DOCUMENTS:
            return
        live = self.live()
        for start, column in zip(self._columns.starts, self._columns.columns, strict=False):
            for docnum, found in enumerate(column, start):
                if live[docnum] and docnum not in self._stored:
                    self._stored[docnum] = self._columns.checked(found)
        self._every_stored = True

    def stored_fields(self, docnum: int) -> dict[str, Any]:
        """A document's stored fields, as the searcher reads them (the last
        ``_KEPT_DOCUMENTS`` kept: read them, never change them in place)."""
        if self._every_stored:  # every live document's are kept: none is dropped, no order of use to keep
            found = self._stored.get(docnum)
            if found is not None:
                return found
        read = self._columns.read if self._columns is not None else self.searcher.stored_fields
        return kept(self._stored, docnum, lambda: read(docnum), _KEPT_DOCUMENTS)

    # --- what the index holds, as arrays ------------------------------------------

    def live(self) -> np.ndarray:
        """True for every document that is not deleted."""
        if self._live is None:
            live = np.ones(self.size, dtype=bool)
            for _, reader, offset in self.segments:
                if reader.has_deletions():
                    deleted = np.fromiter(reader.deleted_docs_set, dtype=np.int64)
                    live[deleted + offset] = False
            self._live = live
        return self._live

    def lengths(self, fieldname: str) -> np.ndarray:
        """Every document's length in ``fieldname``, as its scorer reads it."""
        found = self._lengths.get(fieldname)
        if found is None:
            found = np.zeros(self.size)
            for _, reader, offset in self.segments:
                count = reader.doc_count_all()
                found[offset : offset + count] = field_lengths(reader, fieldname, count)
            self._lengths[fieldname] = found
        return found

    # --- scoring --------------------------------------------------------------------

    def evaluate(self, query: Query) -> tuple[np.ndarray, np.ndarray]:
        """Every document's score for ``query`` and whether it matches (a
        document that does not match scores 0). The arrays may be those kept
        for a term: read them, never change them in place."""
        found = self._evaluate(query)
        if found is None:
            return np.zeros(self.size), np.zeros(self.size, dtype=bool)
        if isinstance(found, _Scored):
            return found.scores, found.matched
        return found

    def _evaluate(self, query: Query) -> _Scored | tuple[np.ndarray, np.ndarray] | None:
        """:meth:`evaluate`, or None when nothing matches ``query``: the
        fields a word is not in add nothing to an ``Or`` of them, and make
        an ``And`` match nothing (a sum with zeros is the same sum). A term
        stays as its postings (:class:`_Scored`): an ``Or`` or ``And`` adds
        each child's scores where it has them, in the children's order, so
        the sums are those of adding whole arrays, without making one for
        every term."""
        if type(query) is Term or type(query) is Phrase:
            term = self._scored(query)
            return None if term.empty else _boosted(term, query.boost, self.size)
        parts: list[_Scored | tuple[np.ndarray, np.ndarray]] = []
        for child in query.subqueries:
            part = self._evaluate(child)
            if part is not None:
                parts.append(part)
            elif type(query) is And:
                return None
        if not parts:
            return None
        if len(parts) == 1:  # scores 0 wherever it does not match: an And of it alone too
            return _boosted(parts[0], query.boost, self.size)
        return _summed(parts, type(query) is And, query.boost, self.size)

    def _scored(self, query: Term | Phrase) -> _Scored:
        if type(query) is Phrase:
            return kept(
                self._terms,
                (query.fieldname, tuple(query.words)),
                lambda: self._score_phrase(query),
                _KEPT_TERMS,
            )
        return kept(
            self._terms,
            (query.fieldname, query.text),
            lambda: self._score_term(query),
            _KEPT_TERMS,
        )

    def _score_phrase(self, query: Phrase) -> _Scored:
        """A phrase's unboosted scores where its words stand one after
        another, as Whoosh's phrase matcher scores it: the sum of its words'
        scores (in the order its tree of intersections adds them)."""
        words = [self._scored(Term(query.fieldname, word)) for word in query.words]
        if any(word.empty for word in words):
            return self._nothing()
        if any(word.chunks is None for word in words):
            raise QueryError(f"Phrase search: {query.fieldname!r} field has no positions")
        docnums = words[0].ids
        for word in words[1:]:
            docnums = np.intersect1d(docnums, word.ids, assume_unique=True)
        docnums = docnums[_in_turn([self._positions(query.fieldname, word, docnums) for word in words])]
        if not len(docnums):
            return self._nothing()
        return _Scored(docnums, _tree_sum([word.at(docnums) for word in words]), self.size)

    def _nothing(self) -> _Scored:
        """What a term no document has scores (one pair of arrays for all such terms)."""
        if self._none is None:
            self._none = _Scored(np.zeros(0, dtype=np.int64), np.zeros(0), self.size)
            self._none.empty = True
        return self._none

    def _score_term(self, query: Term) -> _Scored:
        fieldname = query.fieldname
        text = _term_bytes(self.searcher.schema, fieldname, query.text)
        infos = [] if text is None else self._postings.entries(fieldname, text)
        if text is None or not infos:
            return self._nothing()
        format_ = self.searcher.schema[fieldname].format
        chunks: list[Chunk] | None = [] if format_ is not None and format_.supports("positions") else None
        ids, weights = self._postings.arrays(infos, chunks)
        # The term's document frequency over the corpus, from the entries
        # just read (the searcher would look the term up again in every
        # part); where documents were deleted (a page fetched again, an
        # anchor document rewritten as links came), the live ones among its
        # postings (the field's average, :class:`search.corpus.CorpusBM25F`,
        # leaves their lengths out too).
        documents = sum(info.doc_frequency() for _, info in infos)
        if self.deletions:
            documents = int(np.count_nonzero(self.live()[ids]))
        bm25 = self._bm25(self.segments[infos[0][0]][0], fieldname, text, documents)
        if bm25 is not None:
            idf, avgfl, b, k1 = bm25
            lengths = self.lengths(fieldname)[ids]
            values = idf * ((weights * (k1 + 1)) / (weights + k1 * ((1 - b) + b * lengths / avgfl)))
        else:  # a field without lengths scores by the term's weight
            values = weights
        scored = _Scored(ids, values, self.size)
        scored.chunks = chunks
        scored.documents = documents
        return scored

    def _bm25(self, sub: Any, fieldname: str, text: bytes, documents: int) -> tuple[float, float, float, float] | None:
        """The numbers a term is scored with (IDF, average field length, B,
        K1), the searcher's scorer's; None for a field scored by weight alone."""
        weighting = self.searcher.weighting
        parameters = getattr(weighting, "parameters", None)
        if parameters is not None:
            return parameters(sub, fieldname, text, documents)
        return _parameters(weighting.scorer(sub, fieldname, text))

    def positions(self, fieldname: str, text: str, docnums: Sequence[int]) -> list[list[int] | None] | None:
        """The term's positions in each of ``docnums`` (ascending; None: not
        there), read from its posting blocks, if a query scored it lately
        (None if not, or if the field keeps no positions)."""
        found = self._terms.get((fieldname, text))
        if found is None or found.chunks is None:
            return None
        return self._positions(fieldname, found, docnums)

    def _positions(self, fieldname: str, found: _Scored, docnums: Sequence[int] | np.ndarray) -> list[list[int] | None]:
        """:meth:`positions` of the term scored as ``found`` (a field with positions)."""
        assert found.chunks is not None
        decode = self.searcher.schema[fieldname].format.decoder("positions")
        return self._postings.positions(found.ids, found.chunks, docnums, decode)

    def labels(self, fieldname: str, keep: Any = None) -> tuple[list[str], np.ndarray]:
        """The values of a field of one term per document (a host, a
        language), and each document's value as an index into them (-1:
        none); terms ``keep`` refuses are left out. Read once per searcher."""
        key = (fieldname, keep)
        found = self._labels.get(key)
        if found is None:
            values: list[str] = []
            codes = np.full(self.size, -1, dtype=np.int32)
            number: dict[str, int] = {}
            for _, reader, offset in self.segments:
                if not reader.doc_count_all() or fieldname not in reader.indexed_field_names():
                    continue
                for text in reader.lexicon(fieldname):
                    value = text.decode("utf-8")
                    if keep is not None and not keep(value):
                        continue
                    code = number.setdefault(value, len(number))
                    if code == len(values):
                        values.append(value)
                    try:
                        ids = np.fromiter(reader.postings(fieldname, text).all_ids(), dtype=np.int64)
                    except TermNotFound:  # listed, yet not found: the term table damaged
                        raise DamagedData(f"the term {fieldname}:{value} cannot be looked up") from None
                    if ids.size and not 0 <= ids.min() <= ids.max() < reader.doc_count_all():
                        raise DamagedData(f"the postings of {fieldname}:{value} name documents the segment lacks")
                    codes[ids + offset] = code
            found = self._labels[key] = (values, codes)
        return found

    def label_order(self, fieldname: str, keep: Any = None) -> np.ndarray:
        """The place of each of :meth:`labels`' values among them sorted."""
        key = (fieldname, keep)
        found = self._label_orders.get(key)
        if found is None:
            values = self.labels(fieldname, keep)[0]
            found = np.empty(len(values), dtype=np.int64)
            found[sorted(range(len(values)), key=values.__getitem__)] = np.arange(len(values))
            self._label_orders[key] = found
        return found

    def idf(self, fieldname: str, text: str) -> float:
        """The searcher's IDF of a term; from the document frequency its
        scoring read, if a query scored it lately (the searcher would look
        the term up again in every part of the index)."""
        found = self._terms.get((fieldname, text))
        idf_of = getattr(self.searcher.weighting, "idf_of", None)
        if found is None or idf_of is None:
            return float(self.searcher.idf(fieldname, text))
        return float(idf_of(found.documents))

    def kept_matches(self, fieldname: str, text: str) -> np.ndarray | None:
        """True for every document with the term, if its arrays are kept
        (a query scored it lately); None if they are not."""
        found = self._terms.get((fieldname, text))
        return None if found is None else found.matched

    def term_matches(self, fieldname: str, value: Any) -> np.ndarray:
        """True for every document with the term (deleted ones included)."""
        return self._scored(Term(fieldname, value)).matched

    def matches_any(self, fieldnames: Iterable[str], text: str) -> np.ndarray:
        """True for every document that has the term ``text`` in one of the fields."""
        found = np.zeros(self.size, dtype=bool)
        for fieldname in fieldnames:
            found[self._scored(Term(fieldname, text)).ids] = True
        return found

    def term_scores(self, query: Query, anchor: bool, docnums: Sequence[int] | None = None) -> np.ndarray:
        """Every document's (or each of ``docnums``') summed score for the
        terms of ``query`` in the anchor field (``anchor``) or in the other
        fields, whether or not the document matches the query as a whole."""
        picked = None if docnums is None else np.asarray(docnums, dtype=np.int64)
        total = np.zeros(self.size if picked is None else len(picked))
        for leaf in _terms_of(query):
            if (leaf.fieldname == self.anchor_field) == anchor:
                term = self._scored(leaf)
                if not term.empty:  # no document has it: it adds nothing
                    total += (term.scores if picked is None else term.at(picked)) * leaf.boost
        return total

    def link_documents(self) -> None:
        """Pair every page with its URL's anchor document, reading every
        live document's URL once (from the stored fields :meth:`keep_stored`
        read, else from each part's URLs: 10,000 pages, about 0.4 s): a
        server does it before its first search, and :meth:`other_documents`
        then looks no URL up."""
        if self._partners is None:
            self._partners = _partners(self._urls(), self.size, self.anchors_from)

    def _urls(self) -> Iterator[tuple[int, Any]]:
        """Every live document's number and URL (as text, or as the bytes of its term)."""
        live = self.live()
        if self._every_stored:  # every live document's stored fields are kept (none will be dropped)
            for docnum, stored in self._stored.items():
                yield docnum, stored.get(self.url_field)
            return
        for _, reader, offset in self.segments:
            if not reader.doc_count_all() or self.url_field not in reader.indexed_field_names():
                continue
            for text, info in reader.iter_field(self.url_field):
                ids = (
                    info.inlined_postings()[0]
                    if info.is_inlined()
                    else reader._terms.matcher(self.url_field, text, reader.schema[self.url_field].format).all_ids()
                )
                for docnum in ids:
                    if live[docnum + offset]:
                        yield docnum + offset, text

    def other_documents(self, urls: Iterable[tuple[str, bool, int]]) -> dict[str, list[int]]:
        """For each ``(url, anchor, docnum)``, where ``docnum`` is one of the
        URL's documents: its live anchor documents (``anchor`` true) or
        pages (false); the last ``_KEPT_DOCUMENTS`` URLs' kept (read them,
        never change them in place)."""
        found: dict[str, list[int]] = {}
        partners = self._partners
        for url, anchor, docnum in urls:
            partner = _SEVERAL if partners is None else int(partners[docnum])
            if partner == _SEVERAL:
                docs = kept(
                    self._documents,
                    (url, anchor),
                    lambda url=url, anchor=anchor: self._other_documents(url, anchor),
                    _KEPT_DOCUMENTS,
                )
            else:
                docs = [partner] if partner >= 0 else []
            if docs:
                found[url] = docs
        return found

    def _other_documents(self, url: str, anchor: bool) -> list[int]:
        live = self.live()
        found: list[int] = []
        text = url.encode("utf-8")
        for _, reader, offset in self.segments:
            if (offset >= self.anchors_from) != anchor or not reader.doc_count_all():
                continue
            try:
                info = reader._terms.term_info(self.url_field, text)
            except TermNotFound:
                continue
            if info.is_inlined():
                ids = [offset + d for d in info.inlined_postings()[0]]
            else:
                ids = [offset + d for d in reader.postings(self.url_field, text).all_ids()]
            found.extend(d for d in ids if live[d])
        return found

    def search(self, query: Query, limit: int, filter: Query | None = None, mask: Query | None = None) -> Hits:
        """The ``limit`` best documents matching ``query`` (and ``filter``, not ``mask``)."""
        scores, matched = self.evaluate(query)
        matched = matched & self.live()
        if filter is not None:
            matched = matched & self.evaluate(filter)[1]
        if mask is not None:
            matched = matched & ~self.evaluate(mask)[1]
        docnums = np.flatnonzero(matched)
        if len(docnums) > limit:
            # The limit-th best score; everything above it, and the documents
            # tied with it: which of them would make the cut depends only on
            # the order they were indexed in, so they all go on to be ranked
            # (by PageRank, title...), as many as ``limit`` more at most.
            cut = -np.partition(-scores[docnums], limit - 1)[limit - 1]
            docnums = docnums[scores[docnums] >= cut]
            limit = min(len(docnums), 2 * limit)
        order = np.lexsort((docnums, -scores[docnums]))[:limit]
        best = docnums[order]
        hits = [Hit(self, int(d), float(scores[d])) for d in best]
        return Hits(hits, matched)


def _terms_of(query: Query) -> Iterator[Term | Phrase]:
    """The terms and phrases a query of :func:`supports` scores with."""
    if type(query) is Term or type(query) is Phrase:
        yield query
    else:
        for child in query.subqueries:
            yield from _terms_of(child)


def _partners(urls: Iterable[tuple[int, Any]], size: int, anchors_from: int) -> np.ndarray:
    """For each of ``size`` documents, given every live one's ``(docnum,
    url)``: the other document of its URL (its anchor document, for a
    page; its page, for an anchor document, whose numbers start at
    ``anchors_from``), -1 if it has none, ``_SEVERAL`` if either side has
    more than one.

    >>> _partners([(0, "a"), (1, "b"), (2, "b"), (3, "a"), (4, "c")], 6, 3).tolist()
    [3, -2, -2, 0, -1, -1]
    """
    partners = np.full(size, -1, dtype=np.int64)
    sides: tuple[dict[Any, int], dict[Any, int]] = ({}, {})  # pages, anchor documents: URL -> docnum
    several: set[Any] = set()
    for docnum, url in urls:
        side = sides[docnum >= anchors_from]
        if url in side:
            several.add(url)
            partners[docnum] = _SEVERAL
        else:
            side[url] = docnum
    pages, anchors = sides
    for url, anchor in anchors.items():
        page = pages.get(url)
        if page is not None:
            partners[anchor], partners[page] = page, anchor
    for url in several:
        for side in sides:
            if url in side:
                partners[side[url]] = _SEVERAL
    return partners


def _term_bytes(schema: Any, fieldname: str, text: Any) -> bytes | None:
    """A term's bytes in a field of ``schema``; None if the schema has no
    such field, or the text is no value of it (a number field's word)."""
    if fieldname not in schema:
        return None
    try:
        return schema[fieldname].to_bytes(text)
    except ValueError:
        return None


def _boosted(found: _Scored | tuple[np.ndarray, np.ndarray], boost: float, size: int) -> Any:
    """A term's or a query's scores (and matches) times ``boost``."""
    if boost == 1.0:
        return found
    if isinstance(found, _Scored):
        return _Scored(found.ids, found.values * boost, size)
    return found[0] * boost, found[1]


def _summed(
    parts: list[_Scored | tuple[np.ndarray, np.ndarray]], both: bool, boost: float, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The scores and matches of an ``And`` (``both``) or an ``Or`` of
    ``parts`` (terms' scores where they match, or every document's scores
    and matches), times ``boost``."""
    scores = np.zeros(size)
    matched = np.ones(size, dtype=bool) if both else np.zeros(size, dtype=bool)
    for part in parts:
        if isinstance(part, _Scored):
            scores[part.ids] += part.values
            if both:
                matched &= part.matched
            else:
                matched[part.ids] = True
        else:
            scores += part[0]
            (np.logical_and if both else np.logical_or)(matched, part[1], out=matched)
    if both:
        scores[~matched] = 0.0  # an And scores only where it matches
    if boost != 1.0:
        scores *= boost
    return scores, matched


def _in_turn(lists: list[list[list[int] | None]]) -> np.ndarray:
    """For each document, whether words stand one after another in it,
    given each word's positions in each document (None: not there).

    >>> _in_turn([[[1, 5], [2], None], [[6], [3], [1]]]).tolist()
    [True, True, False]
    """
    found = np.zeros(len(lists[0]), dtype=bool)
    for at in range(len(found)):
        ends = set(lists[0][at] or ())
        for positions in lists[1:]:
            ends = {position for position in positions[at] or () if position - 1 in ends}
            if not ends:
                break
        found[at] = bool(ends)
    return found


def _parameters(scorer: Any) -> tuple[float, float, float, float] | None:
    """A Whoosh scorer's BM25 numbers (IDF, average field length, B, K1), or
    None for a scorer that scores by weight alone."""
    if isinstance(scorer, BM25FScorer):
        return scorer.idf, scorer.avgfl, scorer.B, scorer.K1
    return None


def _tree_sum(arrays: list[np.ndarray]) -> np.ndarray:
    """The sum of ``arrays`` as Whoosh's tree of intersections adds their
    scores: the first half's sum plus the second half's."""
    if len(arrays) == 1:
        return arrays[0]
    half = len(arrays) // 2
    return _tree_sum(arrays[:half]) + _tree_sum(arrays[half:])


class _Scored:
    """A term's scores where it matches (``ids`` ascending, ``values``), and
    where its positions lie (None: a field without positions); as arrays of
    every document, made when first asked for: most terms of a query are
    only added up where they match."""

    __slots__ = ("ids", "values", "size", "chunks", "empty", "documents", "_scores", "_matched")

    def __init__(self, ids: np.ndarray, values: np.ndarray, size: int) -> None:
        self.ids = ids
        self.values = values
        self.size = size
        self.chunks: list[Chunk] | None = None
        self.empty = False  # no document has the term
        self.documents = 0  # a term's document frequency, live documents only (a phrase's: 0)
        self._scores: np.ndarray | None = None
        self._matched: np.ndarray | None = None

    @property
    def scores(self) -> np.ndarray:
        """Every document's score (0 where the term is not): read it, never change it."""
        if self._scores is None:
            self._scores = np.zeros(self.size)
            self._scores[self.ids] = self.values
        return self._scores

    @property
    def matched(self) -> np.ndarray:
        """True for every document with the term: read it, never change it."""
        if self._matched is None:
            self._matched = np.zeros(self.size, dtype=bool)
            self._matched[self.ids] = True
        return self._matched

    def at(self, docnums: np.ndarray) -> np.ndarray:
        """The scores of ``docnums`` (0 where the term is not)."""
        where = self.ids.searchsorted(docnums)
        inside = where < len(self.ids)
        found = np.zeros(len(docnums))
        hits = inside.copy()
        hits[inside] = self.ids[where[inside]] == docnums[inside]
        found[hits] = self.values[where[hits]]
        return found


def field_lengths(reader: Any, fieldname: str, count: int) -> np.ndarray:
    """The length in a field of each of a segment's ``count`` documents, as scoring reads it."""
    found = np.zeros(count, dtype=np.uint8)
    if count:  # (a reader of no documents may have no per-document reader)
        stored = length_bytes(reader._perdoc, fieldname, count)
        found[: len(stored)] = np.frombuffer(stored, dtype=np.uint8)
    return _LENGTHS[found]

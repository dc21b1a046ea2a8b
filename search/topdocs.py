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

import struct
import zlib
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from whoosh.codec.whoosh3 import WHOOSH3_HEADER_MAGIC
from whoosh.query import And, Or, Phrase, Query, QueryError, Term
from whoosh.reading import TermNotFound
from whoosh.scoring import BM25FScorer
from whoosh.util.numeric import byte_to_length

from indexer.codec import STORED_FIELDS, PackedBlock, block_data
from indexer.layout import DamagedPostings

__all__ = ["TopDocs", "Hit", "Hits", "field_lengths", "supports"]

# Term leaves kept scored (two arrays of the index's size each).
_KEPT_TERMS = 64
# Documents whose stored fields (about a kB each), and URLs whose other
# documents, are kept: a query reads those of a hundred or two candidates,
# and common words bring the same pages back query after query.
_KEPT_DOCUMENTS = 20_000
# Posting blocks of positional fields kept decoded (their ids and position
# lists, about 5 kB each): the proximity of a query's words reads the
# positions of its best candidates from the blocks its scoring just read.
_KEPT_BLOCKS = 512
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
        self._blocks: OrderedDict[tuple[int, int], tuple[np.ndarray, Sequence[bytes]]] = OrderedDict()
        self._partners: np.ndarray | None = None
        self._none: _Scored | None = None
        self._every_stored = False
        self._columns = _StoredColumns.of(self.segments, searcher.schema)

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
        return _kept(self._stored, docnum, lambda: read(docnum), _KEPT_DOCUMENTS)

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

    def _evaluate(self, query: Query) -> _Scored | tuple[np.ndarray, np.ndarray] | None:  # noqa: PLR0912 (one branch per kind of query node)
        """:meth:`evaluate`, or None when nothing matches ``query``: the
        fields a word is not in add nothing to an ``Or`` of them, and make
        an ``And`` match nothing (a sum with zeros is the same sum). A term
        stays as its postings (:class:`_Scored`): an ``Or`` or ``And`` adds
        each child's scores where it has them, in the children's order, so
        the sums are those of adding whole arrays, without making one for
        every term."""
        if type(query) is Term or type(query) is Phrase:
            term = self._scored(query)
            if term.empty:
                return None
            if query.boost != 1.0:
                return _Scored(term.ids, term.values * query.boost, self.size)
            return term
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
            found = parts[0]
            if query.boost == 1.0:
                return found
            if isinstance(found, _Scored):
                return _Scored(found.ids, found.values * query.boost, self.size)
            return found[0] * query.boost, found[1]
        both = type(query) is And
        scores = np.zeros(self.size)
        matched = np.ones(self.size, dtype=bool) if both else np.zeros(self.size, dtype=bool)
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
        if query.boost != 1.0:
            scores *= query.boost
        return scores, matched

    def _scored(self, query: Term | Phrase) -> _Scored:
        if type(query) is Phrase:
            return _kept(
                self._terms,
                (query.fieldname, tuple(query.words)),
                lambda: self._score_phrase(query),
                _KEPT_TERMS,
            )
        return _kept(
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
        lists = [self._positions(query.fieldname, word, docnums) for word in words]
        found = np.zeros(len(docnums), dtype=bool)
        for at in range(len(docnums)):
            ends = set(lists[0][at] or ())
            for positions in lists[1:]:
                ends = {position for position in positions[at] or () if position - 1 in ends}
                if not ends:
                    break
            found[at] = bool(ends)
        docnums = docnums[found]
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
        schema = self.searcher.schema
        if fieldname not in schema:
            return self._nothing()
        field = schema[fieldname]
        try:
            text = field.to_bytes(query.text)
        except ValueError:
            return self._nothing()
        infos = []
        for number, (_, reader, _) in enumerate(self.segments):
            # A segment without the field (anchor documents have only anchor
            # text of the text fields) need not look the term up.
            if not reader.doc_count_all() or fieldname not in reader.indexed_field_names():
                continue
            try:
                infos.append((number, reader._terms.term_info(fieldname, text)))
            except TermNotFound:
                continue
        if not infos:
            return self._nothing()
        chunks: list[_Chunk] | None = None
        if field.format is not None and field.format.supports("positions"):
            chunks = []
        pieces = [self._postings(number, info, chunks) for number, info in infos]
        ids = pieces[0][0] if len(pieces) == 1 else np.concatenate([found for found, _ in pieces])
        weights = pieces[0][1] if len(pieces) == 1 else np.concatenate([found for _, found in pieces])
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

    def _postings(self, number: int, info: Any, chunks: list[_Chunk] | None) -> tuple[np.ndarray, np.ndarray]:
        """A term's document numbers (in the corpus) and weights in one
        segment, deleted documents included; where its positions lie added
        to ``chunks``, unless None."""
        _, reader, offset = self.segments[number]
        if info.is_inlined():
            ids, weights, values = info.inlined_postings()
            found = np.asarray(ids, dtype=np.int64) + offset
            if chunks is not None and len(found):
                chunks.append((int(found[-1]), found, values, None))
            if isinstance(weights, (int, float)):
                return found, np.full(len(found), float(weights))
            return found, np.asarray(weights, dtype=np.float64) if weights else np.ones(len(found))
        postfile = reader._terms._postfile
        blocks: list[np.ndarray] = []
        weights_: list[np.ndarray] = []
        for start, end, compression in _block_places(postfile, info.extent()[0]):
            where = (number, start, end, compression, False)
            found, weights, values = _block(postfile, where, offset)
            blocks.append(found)
            weights_.append(weights)
            if chunks is not None:
                chunks.append((int(found[-1]), None, None, where))
                self._blocks[where[:2]] = found, values
                self._blocks.move_to_end(where[:2])
                if len(self._blocks) > _KEPT_BLOCKS:
                    self._blocks.popitem(last=False)
        if len(blocks) == 1:
            return blocks[0], weights_[0]
        return np.concatenate(blocks), np.concatenate(weights_)

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
        decode = self.searcher.schema[fieldname].format.decoder("positions")
        chunks = found.chunks
        assert chunks is not None
        wanted = np.asarray(docnums, dtype=np.int64)
        answer: list[list[int] | None] = [None] * len(docnums)
        # The chunks hold the term's postings one after another: each
        # document's posting, found among them all, is in the chunk whose
        # postings end after it, at its place past those before.
        postings = found.ids
        at = postings.searchsorted(wanted)
        places = np.flatnonzero(postings[np.minimum(at, len(postings) - 1)] == wanted)  # the documents with the term
        ends = postings.searchsorted(np.array([chunk[0] for chunk in chunks], dtype=np.int64), side="right")
        numbers = ends.searchsorted(at[places], side="right")
        starts = [0, *ends.tolist()]
        opened: dict[int, Sequence[bytes]] = {}
        for place, posting, number in zip(places.tolist(), at[places].tolist(), numbers.tolist(), strict=False):
            values = opened.get(number)
            if values is None:
                values = opened[number] = self._chunk(chunks[number])[1]
            answer[place] = decode(values[posting - starts[number]])
        return answer

    def _chunk(self, chunk: _Chunk) -> tuple[np.ndarray, Sequence[bytes]]:
        """A chunk's document numbers and values, its block decoded again if it is no longer kept."""
        _, ids, values, where = chunk
        if where is None:
            return ids, values  # type: ignore[return-value]

        def decode() -> tuple[np.ndarray, Sequence[bytes]]:
            _, reader, offset = self.segments[where[0]]
            found, _, values = _block(reader._terms._postfile, where, offset)
            return found, values

        return _kept(self._blocks, where[:2], decode, _KEPT_BLOCKS)

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
                    ids = np.fromiter(reader.postings(fieldname, text).all_ids(), dtype=np.int64)
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
        if self._partners is not None:
            return
        partners = np.full(self.size, -1, dtype=np.int64)
        sides: tuple[dict[Any, int], dict[Any, int]] = ({}, {})  # pages, anchor documents: URL -> docnum
        several: set[Any] = set()
        for docnum, url in self._urls():
            side = sides[docnum >= self.anchors_from]
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
        self._partners = partners

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
                docs = _kept(
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


def _kept(cache: OrderedDict[Any, Any], key: Any, make: Any, most: int) -> Any:
    """``cache[key]``, made by ``make()`` if it is not there; the ``most``
    used last are kept.

    >>> cache = OrderedDict()
    >>> [_kept(cache, k, lambda: k * 10, 2) for k in (1, 2, 1, 3)], list(cache)
    ([10, 20, 10, 30], [1, 3])
    """
    found = cache.get(key)
    if found is None:
        found = cache[key] = make()
        if len(cache) > most:
            cache.popitem(last=False)
    else:
        cache.move_to_end(key)
    return found


def _terms_of(query: Query) -> Iterator[Term | Phrase]:
    """The terms and phrases a query of :func:`supports` scores with."""
    if type(query) is Term or type(query) is Phrase:
        yield query
    else:
        for child in query.subqueries:
            yield from _terms_of(child)


def _parameters(scorer: Any) -> tuple[float, float, float, float] | None:
    """A Whoosh scorer's BM25 numbers (IDF, average field length, B, K1), or
    None for a scorer that scores by weight alone."""
    if isinstance(scorer, BM25FScorer):
        return scorer.idf, scorer.avgfl, scorer.B, scorer.K1
    return None


# Where a term's positions lie in part of the corpus: the last document
# number there, then its document numbers and values (a posting list inlined
# in the term's entry), or where its block is (segment number, data start
# and end, compressed, ids as bytes).
_Chunk = tuple[int, "np.ndarray | None", "Sequence[bytes] | None", "tuple[int, int, int, int, bool] | None"]


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
        self.chunks: list[_Chunk] | None = None
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


# Each posting block's length, before its header (negative: the list's last block).
_BLOCK_LENGTH = struct.Struct("!i")


def _block_places(postfile: Any, start: int) -> Iterator[tuple[int, int, int]]:
    """Where the data of each block of the posting list at ``start`` begins
    and ends, and its compression: Whoosh 3's layout, read as its matcher
    reads it (a dozen calls a block: most of the cost of a short list)."""
    magic = postfile.get(start, len(WHOOSH3_HEADER_MAGIC))
    if magic != WHOOSH3_HEADER_MAGIC:
        raise DamagedPostings(f"a posting list starts with {magic!r}, not {WHOOSH3_HEADER_MAGIC!r}")
    position = start + len(WHOOSH3_HEADER_MAGIC)
    while True:
        (length,) = _BLOCK_LENGTH.unpack(postfile.get(position, _BLOCK_LENGTH.size))
        postfile.seek(position + _BLOCK_LENGTH.size)
        compression = postfile.read_pickle()[3]  # (count, last id, max weight, compression, lengths)
        end = position + _BLOCK_LENGTH.size + abs(length)
        yield postfile.tell(), end, compression
        if length < 0:
            return
        position = end


def _block(postfile: Any, where: tuple[int, int, int, int, bool], offset: int) -> tuple[np.ndarray, np.ndarray, Any]:
    """A posting block's document numbers (in the corpus: ``offset`` added),
    weights, and values (a sequence: the positions of each posting, in a
    positional field)."""
    _, start, end, compressed, byteids = where
    data = postfile.get(start, end - start)
    block = block_data(zlib.decompress(data) if compressed else data)
    if isinstance(block, PackedBlock):
        gaps = np.frombuffer(block.data, _LITTLE[block.idtype], block.count, block.ids_at)
        found = gaps.astype(np.int64)  # cast, then summed: np.cumsum(gaps, dtype=...) takes twice as long
        if not byteids:
            found = found.cumsum()
        found += offset
        if block.weight_type is not None:
            weights = np.frombuffer(block.data, _LITTLE[block.weight_type], block.count, block.weights_at).astype(
                np.float64
            )
        else:
            same = block.weights()
            weights = np.full(block.count, 1.0 if same is None else same)
        return found, weights, _PackedValues(block)
    # Whoosh 3's own block: (ids, weights, values), ids as gaps, weights
    # None (all 1), one number for all, or a tuple.
    ids, weights_, values = block
    found = np.asarray(ids, dtype=np.int64)
    found = (found if byteids else np.cumsum(found)) + offset
    if weights_ is None or isinstance(weights_, (int, float)):
        weights = np.full(len(found), 1.0 if weights_ is None else float(weights_))
    else:
        weights = np.asarray(weights_, dtype=np.float64)
    return found, weights, values


# The numpy types of a packed block's arrays (little-endian).
_LITTLE: dict[str, np.dtype[Any]] = {
    "B": np.dtype("<u1"),
    "H": np.dtype("<u2"),
    "I": np.dtype("<u4"),
    "f": np.dtype("<f4"),
}


class _PackedValues:
    """A packed block's values as a sequence (each read when asked for)."""

    __slots__ = ("block",)

    def __init__(self, block: PackedBlock) -> None:
        self.block = block

    def __getitem__(self, index: int) -> bytes:
        return self.block.value(index)


class _StoredColumns:
    """Each segment's column of stored fields, read without the layers of
    Whoosh's readers (a multi-reader, a segment reader, a per-document
    reader, each a Python call): what ``Searcher.stored_fields`` answers."""

    def __init__(self, starts: list[int], columns: list[Any], names: frozenset[str]) -> None:
        self.starts = starts
        self.columns = columns
        self.names = names

    @classmethod
    def of(cls, segments: list[tuple[Any, Any, int]], schema: Any) -> _StoredColumns | None:
        """The columns of Whoosh 3 segments; None for other readers."""
        columns = []
        for _, reader, _ in segments:
            perdoc = getattr(reader, "_perdoc", None)
            if perdoc is None or not hasattr(perdoc, "_cached_reader"):
                return None
            columns.append(perdoc._cached_reader("_stored", STORED_FIELDS))
        return cls([offset for _, _, offset in segments], columns, frozenset(schema.names()))

    def read(self, docnum: int) -> dict[str, Any]:
        number = bisect_right(self.starts, docnum) - 1
        return self.checked(self.columns[number][docnum - self.starts[number]])

    def checked(self, found: dict[str, Any] | None) -> dict[str, Any]:
        """A document's stored fields as its column holds them, without fields since removed from the schema."""
        if not found:
            return {}
        if found.keys() <= self.names:
            return found
        return {name: value for name, value in found.items() if name in self.names}


def field_lengths(reader: Any, fieldname: str, count: int) -> np.ndarray:
    """The length in a field of each of a segment's ``count`` documents, as scoring reads it."""
    return _LENGTHS[_length_bytes(reader, fieldname, count)]


def _length_bytes(reader: Any, fieldname: str, count: int) -> np.ndarray:
    """The stored length byte of each of a segment's ``count`` documents in a field."""
    found = np.zeros(count, dtype=np.uint8)
    if not count:
        return found
    column = reader._perdoc._cached_reader(f"_{fieldname}_len", _lengths_column())
    if column is None:
        return found
    stored = min(count, column._count)
    found[:stored] = np.frombuffer(column._dbfile.get(column._basepos, stored), dtype=np.uint8)
    return found


def _lengths_column() -> Any:
    from whoosh.codec.whoosh3 import LENGTHS_COLUMN

    return LENGTHS_COLUMN

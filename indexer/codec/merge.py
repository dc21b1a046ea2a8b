"""Segments merged term by term, their postings never through the pool.

Whoosh merges a segment into a writer's new one by sending each of its
postings through the writer's pool, one call each, to be sorted again;
past the pool's memory (:data:`indexer.shards._WRITER_MB`) they go to
sorted runs on disk and are merged back. A merge of a few thousand pages
took two minutes that way, nearly all of it in the pool, with the crawl
waiting for the index. Yet each segment's postings are sorted already,
by field and term, and its documents come after those of the segments
before it: the merged segment's postings are the segments' term lists
merged in order, each term's postings those of every segment that has
it, one after the other, their documents renumbered. Nothing is sorted,
nothing held but a term's postings at a time.

:class:`SegmentPostings` reads a segment's, a block at a time where the
segment is this codec's; the writer's pool merges them with its own
(:func:`indexer.codec.pool.merged_groups`), as its groups, so the field
writer writes them a term at a time (small lists straight into their
entries).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from whoosh.reading import SegmentReader

from indexer.codec.blocks import PackedBlock, block_bytes, block_places
from indexer.codec.pool import Group, Key

__all__ = ["SegmentPostings", "renumbering"]


def renumbering(docmap: dict[int, int] | None, count: int) -> list[int] | None:
    """Whoosh's map of a merged segment's documents (``write_per_doc``'s:
    each live one's number in the new segment; None when none is deleted)
    as a list over the segment's ``count`` documents, -1 for the deleted."""
    if docmap is None:
        return None
    numbers = [-1] * count
    for docnum, number in docmap.items():
        numbers[docnum] = number
    return numbers


class SegmentPostings:
    """A segment's postings as groups, term by term in order, each
    document renumbered for the merged segment: the first at ``first``,
    or as ``numbers`` says (:func:`renumbering`)."""

    def __init__(self, storage: Any, schema: Any, segment: Any, first: int, numbers: list[int] | None) -> None:
        self.storage = storage
        self.schema = schema
        self.segment = segment
        self.first = first
        self.numbers = numbers
        self.reader: Any = None

    def groups(self) -> Iterator[tuple[Key, Group]]:
        """``((fieldname, btext), [(docnum, weight, vbytes), ...])`` of each
        term with a live posting, in order; the segment is open meanwhile."""
        self.reader = SegmentReader(self.storage, self.schema, self.segment)
        try:
            terms = self.reader._terms
            if hasattr(terms, "_postfile") and hasattr(terms, "items"):
                yield from self._packed_groups(terms)
            else:
                yield from self._matched_groups()
        finally:
            self.close()

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()
            self.reader = None

    def _packed_groups(self, terms: Any) -> Iterator[tuple[Key, Group]]:
        """The groups of a segment of this codec, from its term entries and
        posting blocks (Whoosh's own blocks, as a segment Whoosh's writer
        made has, through its matcher)."""
        schema, postfile = self.schema, terms._postfile
        fixed: dict[str, int | None] = {}
        for (fieldname, btext), info in terms.items():
            if fieldname not in schema:
                continue
            if fieldname not in fixed:
                fixed[fieldname] = schema[fieldname].format.fixed_value_size()
            if info.is_inlined():
                ids, weights, values = info.inlined_postings()
                group = self._renumbered(ids, weights, values)
            else:
                group = self._blocks(postfile, info, fieldname, btext, fixed[fieldname])
            if group:
                yield (fieldname, btext), group

    def _blocks(self, postfile: Any, info: Any, fieldname: str, btext: bytes, fixedsize: int | None) -> Group:
        """The postings of a term kept in the postings file, a block at a time."""
        offset, _ = info.extent()
        group: Group = []
        for start, end, compression in block_places(postfile, offset):
            data = block_bytes(postfile, start, end, compression)
            if data[:1] != b"\x01":  # not a packed block: Whoosh's matcher reads the list
                return self._matched(fieldname, btext)
            block = PackedBlock(data)
            ids = block.ids()
            weights = block.weights()
            if weights is None or isinstance(weights, float):
                weights = [1.0 if weights is None else weights] * len(ids)
            values = block.values(fixedsize)
            group.extend(self._renumbered(ids, weights, values))
        return group

    def _renumbered(self, ids: Sequence[int], weights: Sequence[float], values: Sequence[Any]) -> Group:
        if len(values) != len(ids):
            values = [None] * len(ids)
        numbers = self.numbers
        if numbers is None:
            first = self.first
            return [(first + docnum, weight, value) for docnum, weight, value in zip(ids, weights, values, strict=True)]
        return [
            (numbers[docnum], weight, value)
            for docnum, weight, value in zip(ids, weights, values, strict=True)
            if numbers[docnum] >= 0
        ]

    def _matched(self, fieldname: str, btext: bytes) -> Group:
        """A term's postings through the reader's matcher (deleted documents left out)."""
        matcher = self.reader.postings(fieldname, btext)
        ids, weights, values = [], [], []
        while matcher.is_active():
            ids.append(matcher.id())
            weights.append(matcher.weight())
            values.append(matcher.value())
            matcher.next()
        return self._renumbered(ids, weights, values)

    def _matched_groups(self) -> Iterator[tuple[Key, Group]]:
        """The groups of a segment of another codec, through Whoosh's matchers."""
        for fieldname, btext in self.reader.all_terms():
            if fieldname in self.schema:
                group = self._matched(fieldname, btext)
                if group:
                    yield (fieldname, btext), group

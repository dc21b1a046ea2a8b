"""A term's postings over the whole corpus as arrays, and its positions in
some of its documents.

Each segment's posting list of the term is read whole: an inlined one from
the term's entry, each block of a longer one as arrays over its packed data
(:meth:`indexer.codec.PackedBlock.arrays`). Where the field keeps
positions, where each part of the list lies is noted (a *chunk*), and the
blocks last read are kept: the proximity of a query's words reads the
positions of its best candidates from the blocks its scoring just read.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from whoosh.reading import TermNotFound

from indexer.codec import block_places, read_block
from indexer.layout import DamagedData

__all__ = ["Chunk", "CorpusPostings", "kept"]

# Posting blocks of positional fields kept decoded (their ids and position
# lists, about 5 kB each).
_KEPT_BLOCKS = 512

# Where a term's positions lie in part of the corpus: the last document
# number there, then its document numbers and values (a posting list inlined
# in the term's entry), or where its block is (segment number, data start
# and end, compression).
Chunk = tuple[int, "np.ndarray | None", "Sequence[bytes] | None", "tuple[int, int, int, int] | None"]


class CorpusPostings:
    """The posting lists of a searcher's segments, each ``(searcher,
    reader, offset)``: ``offset`` is where its document numbers start in
    the corpus."""

    def __init__(self, segments: list[tuple[Any, Any, int]]) -> None:
        self.segments = segments
        self._blocks: OrderedDict[tuple[int, int], tuple[np.ndarray, Sequence[bytes]]] = OrderedDict()

    def entries(self, fieldname: str, text: bytes) -> list[tuple[int, Any]]:
        """The term's entry in each segment that has it: the segment's number, the term's info."""
        found = []
        for number, (_, reader, _) in enumerate(self.segments):
            # A segment without the field (anchor documents have only anchor
            # text of the text fields) need not look the term up.
            if not reader.doc_count_all() or fieldname not in reader.indexed_field_names():
                continue
            try:
                found.append((number, reader._terms.term_info(fieldname, text)))
            except TermNotFound:
                continue
        return found

    def arrays(self, entries: list[tuple[int, Any]], chunks: list[Chunk] | None) -> tuple[np.ndarray, np.ndarray]:
        """The document numbers (in the corpus) and weights of the postings
        of ``entries`` (:meth:`entries`'), deleted documents included;
        where their positions lie added to ``chunks``, unless None."""
        pieces = [self._postings(number, info, chunks) for number, info in entries]
        if len(pieces) == 1:
            return pieces[0]
        return np.concatenate([found for found, _ in pieces]), np.concatenate([found for _, found in pieces])

    def _postings(self, number: int, info: Any, chunks: list[Chunk] | None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`arrays` of one segment's entry (:class:`DamagedData` for
        document numbers the segment does not have: its postings damaged)."""
        ids, weights = self._read_postings(number, info, chunks)
        _, reader, offset = self.segments[number]
        if ids.size and not offset <= ids.min() <= ids.max() < offset + reader.doc_count_all():
            raise DamagedData(f"postings of segment {number} name documents it does not have")
        return ids, weights

    def _read_postings(self, number: int, info: Any, chunks: list[Chunk] | None) -> tuple[np.ndarray, np.ndarray]:
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
        for start, end, compression in block_places(postfile, info.extent()[0]):
            where = (number, start, end, compression)
            block = read_block(postfile, start, end, compression)
            found, weights = block.arrays(offset)
            blocks.append(found)
            weights_.append(weights)
            if chunks is not None:
                chunks.append((int(found[-1]), None, None, where))
                self._blocks[where[:2]] = found, block.lazy_values()
                self._blocks.move_to_end(where[:2])
                if len(self._blocks) > _KEPT_BLOCKS:
                    self._blocks.popitem(last=False)
        if len(blocks) == 1:
            return blocks[0], weights_[0]
        return np.concatenate(blocks), np.concatenate(weights_)

    def positions(
        self,
        postings: np.ndarray,
        chunks: list[Chunk],
        docnums: Sequence[int] | np.ndarray,
        decode: Callable[[bytes], list[int]],
    ) -> list[list[int] | None]:
        """The positions in each of ``docnums`` (ascending; None: not
        there) of the term whose postings are ``postings`` (ascending) in
        ``chunks``, each decoded by ``decode``."""
        wanted = np.asarray(docnums, dtype=np.int64)
        answer: list[list[int] | None] = [None] * len(docnums)
        # The chunks hold the term's postings one after another: each
        # document's posting, found among them all, is in the chunk whose
        # postings end after it, at its place past those before.
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

    def _chunk(self, chunk: Chunk) -> tuple[np.ndarray, Sequence[bytes]]:
        """A chunk's document numbers and values, its block decoded again if it is no longer kept."""
        _, ids, values, where = chunk
        if where is None:
            return ids, values  # type: ignore[return-value]

        def decode() -> tuple[np.ndarray, Sequence[bytes]]:
            number, start, end, compression = where
            _, reader, offset = self.segments[number]
            block = read_block(reader._terms._postfile, start, end, compression)
            return block.arrays(offset)[0], block.lazy_values()

        return kept(self._blocks, where[:2], decode, _KEPT_BLOCKS)


def kept(cache: OrderedDict[Any, Any], key: Any, make: Any, most: int) -> Any:
    """``cache[key]``, made by ``make()`` if it is not there; the ``most``
    used last are kept.

    >>> cache = OrderedDict()
    >>> [kept(cache, k, lambda: k * 10, 2) for k in (1, 2, 1, 3)], list(cache)
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

"""The value of a posting in a field with positions: its count, then its positions as gaps."""

from __future__ import annotations

from typing import Any

from whoosh.formats import Positions

from indexer.codec.varint import ENCODINGS, SMALL, encode, encode_array, encodings, read, read_first

__all__ = ["CompactPositions"]


class CompactPositions(Positions):
    """Whoosh's ``Positions`` format with the positions as variable-length
    integers (one byte for a gap below 128) instead of a four-byte count
    and a pickled list: a term found once in a page takes 2 bytes, not 13.
    Small posting lists are stored uncompressed in the term index, where
    this is most of their size.

    >>> encoded = CompactPositions().encode([3, 10, 300])
    >>> len(encoded), CompactPositions().decode_positions(encoded), CompactPositions().decode_frequency(encoded)
    (5, [3, 10, 300], 3)
    """

    def encode(self, poslist: list[int]) -> bytes:
        table = ENCODINGS or encodings()
        if len(poslist) == 1:  # most postings: a count of one and a position
            position = poslist[0]
            return b"\x01" + (table[position] if position < SMALL else encode(position))
        deltas = [len(poslist), poslist[0]]
        deltas += [after - before for before, after in zip(poslist, poslist[1:], strict=False)]
        if max(deltas) < SMALL:
            return b"".join([table[delta] for delta in deltas])
        return b"".join([table[delta] if delta < SMALL else encode(delta) for delta in deltas])

    def encode_grouped(self, counts: Any, positions: Any) -> list[bytes]:
        """What :meth:`encode` gives for each of several terms at once (numpy
        arrays: how many positions each term has, and their positions, the
        first term's in order, then the second's...).

        >>> import numpy as np
        >>> CompactPositions().encode_grouped(np.array([1, 3]), np.array([200, 3, 10, 300]))
        [b'\\x01\\xc8\\x01', b'\\x03\\x03\\x07\\xa2\\x02']
        """
        import numpy as np

        heads = np.cumsum(counts) - counts  # where each term's positions start
        gaps = np.diff(positions, prepend=0)
        gaps[heads] = positions[heads]
        numbers = np.insert(gaps, heads, counts)  # each term: its count, its first position, then gaps
        raw, begins = encode_array(numbers)
        starts = begins[heads + np.arange(len(heads))].tolist()
        return [raw[start:stop] for start, stop in zip(starts, starts[1:] + [len(raw)], strict=False)]

    def decode_positions(self, valuestring: bytes) -> list[int]:
        numbers = read(valuestring, 0)[0]
        positions, position = [], 0
        for delta in numbers[1:]:
            position += delta
            positions.append(position)
        return positions

    def decode_frequency(self, valuestring: bytes) -> int:
        return read_first(valuestring)

    def decode_weight(self, valuestring: bytes) -> float:
        return self.decode_frequency(valuestring) * self.field_boost

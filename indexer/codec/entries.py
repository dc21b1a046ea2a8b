"""A term's entry in the term index: its statistics, and where its postings
are, or the postings themselves when there are few.

An entry is Whoosh 3's head (``W3TermInfo._struct``: a flag, the total
weight, the document frequency, the shortest and longest field length as
bytes, the largest weight, the first and last document), then:

- flag 0: where the posting list lies in the postings file (Whoosh's own);
- flag 2: the postings, inlined: how many, whether the weights are whole
  numbers, the document numbers as gaps, the weights (variable-length
  integers, else float32s), and each value after its length. Whoosh's
  inlined entry (flag 1) is a pickle, whose protocol 2 spells each
  ``bytes`` value as a call to ``_codecs.encode``: 40 bytes for a 2-byte
  position list; most terms of a crawl are rare and inlined, so that was a
  third of the index.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from itertools import accumulate
from typing import Any, cast

from whoosh.codec.whoosh3 import W3TermInfo
from whoosh.util.numeric import length_to_byte

from indexer.codec.varint import ENCODINGS, SMALL, encode, encodings, read, read_prefixed
from indexer.layout import DamagedPostings

__all__ = ["CompactTermInfo", "inlined_entry", "single_entry"]

# The first byte of an entry: its postings in the postings file, or inlined.
_IN_POSTINGS_FILE = 0
_INLINED = 2


class CompactTermInfo(W3TermInfo):
    r"""Whoosh's term info, its inlined postings written as this module says.

    >>> info = CompactTermInfo()
    >>> info.set_inlined([3, 7, 300], [1, 2, 3], [b"\x01\x04", b"", b"ab"])
    >>> CompactTermInfo.from_bytes(info.to_bytes()).inlined_postings()
    ((3, 7, 300), (1, 2, 3), (b'\x01\x04', b'', b'ab'))
    >>> info.set_inlined([5], [0.5], [b""])
    >>> CompactTermInfo.from_bytes(info.to_bytes()).inlined_postings()
    ((5,), (0.5,), (b'',))
    """

    def to_bytes(self) -> bytes:
        if not self.is_inlined():
            return super().to_bytes()
        ids, weights, values = self._inlined
        return inlined_entry(
            self._weight,
            self._df,
            self._minlength,
            self._maxlength,
            self._maxweight,
            self._minid,
            self._maxid,
            ids,
            weights,
            values,
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> Any:
        try:
            return cls._from_bytes(data)
        except (IndexError, ValueError) as exc:  # an entry's counts overwritten: read past its end
            raise DamagedPostings(f"a term entry that does not read ({type(exc).__name__}: {exc})") from None

    @classmethod
    def _from_bytes(cls, data: bytes) -> Any:
        if data[0] != _INLINED:
            return cls._postings_elsewhere(data)
        info = W3TermInfo.from_bytes(b"\x00" + data[1 : cls._struct.size] + b"\x00" * 12)
        info.__class__ = cls
        info._offset = info._length = None
        position = cls._struct.size
        count, whole = data[position], data[position + 1]
        gaps, position = read(data, position + 2, count)
        if whole:
            weights, position = read(data, position, count)
        else:
            weights = list(struct.unpack_from(f"!{count}f", data, position))
            position += 4 * count
        values, position = read_prefixed(data, position, count)
        info._inlined = (tuple(accumulate(gaps)), tuple(weights), tuple(values))
        return info

    @classmethod
    def _postings_elsewhere(cls, data: bytes) -> Any:
        """:meth:`from_bytes` of an entry whose postings are in the postings file (Whoosh's own entry)."""
        if data[0] != _IN_POSTINGS_FILE:
            raise DamagedPostings(f"a term entry of flag {data[0]}: not an entry this codec writes")
        info = W3TermInfo.from_bytes(data)
        info.__class__ = cls
        return info


def inlined_entry(
    weight: float,
    df: int,
    minlength: int | None,
    maxlength: int,
    maxweight: float,
    minid: int | None,
    maxid: int | None,
    ids: Sequence[int],
    weights: Sequence[float],
    values: Sequence[bytes],
) -> bytes:
    """A term's entry with its postings inlined, as :class:`CompactTermInfo` writes it."""
    header = CompactTermInfo._struct.pack(
        _INLINED,
        weight,
        df,
        0 if minlength is None else length_to_byte(minlength),
        length_to_byte(maxlength),
        maxweight,
        0xFFFFFFFF if minid is None else minid,
        0xFFFFFFFF if maxid is None else maxid,
    )
    table = ENCODINGS or encodings()
    whole = all(weight.__class__ is int and 0 <= weight < SMALL for weight in weights)
    parts = [header, bytes((len(ids), whole))]
    previous = 0
    for docnum in ids:
        gap = docnum - previous
        parts.append(table[gap] if gap < SMALL else encode(gap))
        previous = docnum
    if whole:
        parts.extend([table[weight] for weight in cast("Sequence[int]", weights)])
    else:
        parts.append(struct.pack(f"!{len(weights)}f", *weights))
    for value in values:
        parts.append(table[len(value)] if len(value) < SMALL else encode(len(value)))
        parts.append(value)
    return b"".join(parts)


def single_entry(docnum: int, weight: float, vbytes: bytes | None, length: int) -> bytes | None:
    """What :func:`inlined_entry` writes for a term of one posting (two
    thirds of a crawl's terms), without its lists; None unless the weight
    is a whole number the varint table holds (then that function writes it).

    >>> args = [(7, 2.0, b"\\x01\\x05", 12), (0, 1.0, None, 0), (20000, 3.0, b"", 300)]
    >>> all(single_entry(*a) == inlined_entry(
    ...     a[1], 1, a[3] or None, a[3], a[1], a[0], a[0], [a[0]], [int(a[1])], [a[2] or b""]) for a in args)
    True
    >>> single_entry(1, 0.5, None, 3) is None
    True
    """
    whole = int(weight)
    if whole != weight or not 0 <= whole < SMALL:
        return None
    table = ENCODINGS or encodings()
    value = vbytes or b""
    return b"".join(
        (
            CompactTermInfo._struct.pack(
                _INLINED,
                weight,
                1,
                length_to_byte(length) if length else 0,
                length_to_byte(length),
                max(0, weight),
                docnum,
                docnum,
            ),
            b"\x01\x01",  # one posting, a whole weight
            table[docnum] if docnum < SMALL else encode(docnum),
            table[whole],
            table[len(value)] if len(value) < SMALL else encode(len(value)),
            value,
        )
    )

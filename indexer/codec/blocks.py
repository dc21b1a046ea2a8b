"""A posting list in the postings file: Whoosh 3's frame of blocks, each
block's data packed in arrays.

A posting list is Whoosh 3's mark (``WHOOSH3_HEADER_MAGIC``), then its
blocks of up to 128 postings, each framed as Whoosh 3's matcher reads it:
its length (negative: the list's last block), its head (a pickled tuple:
how many postings, the last id, the largest weight, the zlib level of its
data, 0 for none, and the shortest and longest field length as bytes),
then its data, a :class:`PackedBlock`. Whoosh 3 pickles a tuple of the
block's lists there (:class:`WhooshBlock`), and every posting's value in
it as a call to ``_codecs.encode``: unpickling a block of 128 postings
took a tenth of a search's time.

Everything that writes or reads a block calls this module: the postings
writer (:mod:`indexer.codec.postings`), Whoosh's matcher through it, and
the array scoring of :mod:`search.postings`.
"""

from __future__ import annotations

import pickle
import struct
import sys
import zlib
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import Any

from whoosh.codec.whoosh3 import WHOOSH3_HEADER_MAGIC
from whoosh.util.numeric import length_to_byte

from indexer.layout import DamagedPostings

__all__ = ["COMPRESS_FROM", "PackedBlock", "WhooshBlock", "framed_block", "block_places", "block_bytes", "read_block"]

# Posting blocks (and stored fields) of fewer bytes than this are written
# uncompressed: zlib takes about 60 us to set up for each value it
# compresses, more than a few hundred bytes are worth (an anchor document's
# stored fields are about 200).
COMPRESS_FROM = 1024
# Each block's length, before its head (negative: the list's last block).
_BLOCK_LENGTH = struct.Struct("!i")

# The data of a posting block begins with this byte (Whoosh 3's, a pickle,
# with 0x80).
_PACKED = 1
# A packed block's head: the mark, its postings, the array type of its id
# gaps, the kind of its weights and of its values, how many values.
_BLOCK_HEAD = struct.Struct("<BHcBBH")
# Weights: all 1; one for all (a float32); whole numbers in bytes or in
# 16 bits; float32s.
_ONES, _SAME, _COUNTS8, _COUNTS16, _FLOATS = range(5)
_WEIGHT_TYPES = {_COUNTS8: "B", _COUNTS16: "H", _FLOATS: "f"}
# Values: none (the format keeps none); each of the format's fixed size;
# each of its own length (the lengths, in bytes, 16 or 32 bits, then the values).
_NO_VALUES, _FIXED, _LENGTHS8, _LENGTHS16, _LENGTHS32 = range(5)
_LENGTH_TYPES = {_LENGTHS8: "B", _LENGTHS16: "H", _LENGTHS32: "I"}
_ARRAY_SIZES = {"B": 1, "H": 2, "I": 4, "f": 4}
# The numpy types of the arrays (little-endian), made when first read: the
# indexer never reads blocks as numpy arrays.
_LITTLE: dict[str, Any] = {}


def _narrowest(largest: int) -> str:
    return "B" if largest < 1 << 8 else "H" if largest < 1 << 16 else "I"


def _packed(typecode: str, numbers: Iterable[Any]) -> bytes:
    """``numbers`` as a little-endian array."""
    found = array(typecode, numbers)
    if sys.byteorder != "little":
        found.byteswap()
    return found.tobytes()


def _unpacked(typecode: str, data: bytes, start: int, count: int) -> array:
    found = array(typecode)
    found.frombytes(data[start : start + count * _ARRAY_SIZES[typecode]])
    if sys.byteorder != "little":
        found.byteswap()
    return found


def _packed_weights(weights: Sequence[float]) -> tuple[int, list[bytes]]:
    """The kind of a block's weights, and their bytes."""
    first = weights[0]
    if all(weight == 1.0 for weight in weights):
        return _ONES, []
    if all(weight == first for weight in weights):
        return _SAME, [struct.pack("<f", first)]
    if all(weight.is_integer() and 0 <= weight < 1 << 16 for weight in weights):
        kind = _COUNTS8 if max(weights) < 1 << 8 else _COUNTS16
        return kind, [_packed(_WEIGHT_TYPES[kind], [int(weight) for weight in weights])]
    return _FLOATS, [_packed("f", weights)]


def _packed_values(values: Sequence[bytes], fixedsize: int | None) -> tuple[int, list[bytes]]:
    """The kind of a block's values, and their bytes (see :meth:`PackedBlock.pack`)."""
    if fixedsize == 0 or not values:
        return _NO_VALUES, []
    if fixedsize is not None and fixedsize > 0:
        return _FIXED, [b"".join(values)]
    lengths = [len(value) for value in values]
    kind = {"B": _LENGTHS8, "H": _LENGTHS16, "I": _LENGTHS32}[_narrowest(max(lengths))]
    return kind, [_packed(_LENGTH_TYPES[kind], lengths), *values]


def _little_types() -> dict[str, Any]:
    import numpy as np

    _LITTLE.update({"B": np.dtype("<u1"), "H": np.dtype("<u2"), "I": np.dtype("<u4"), "f": np.dtype("<f4")})
    return _LITTLE


class PackedBlock:
    """A block's data: a head, the gaps between its ids (the first id
    itself) in the narrowest array that holds them, the weights (all 1, one
    for all, whole numbers, or float32s), then the values (the positions of
    a term in each document...), each read only when asked for.

    >>> block = PackedBlock(PackedBlock.pack([3, 7, 300], [1.0, 2.0, 1.0], [b"\\x01\\x04", b"ab", b"c"], None))
    >>> block.ids(), list(block.weights()), block.value(1), block.values(None)
    ([3, 7, 300], [1.0, 2.0, 1.0], b'ab', (b'\\x01\\x04', b'ab', b'c'))
    >>> [array.tolist() for array in block.arrays(1000)]
    [[1003, 1007, 1300], [1.0, 2.0, 1.0]]
    """

    __slots__ = (
        "data",
        "count",
        "idtype",
        "ids_at",
        "weight_kind",
        "weight_type",
        "weights_at",
        "value_kind",
        "value_count",
        "values_at",
        "_starts",
    )

    def __init__(self, data: bytes) -> None:
        mark, self.count, idtype, self.weight_kind, self.value_kind, self.value_count = _BLOCK_HEAD.unpack_from(data)
        if mark != _PACKED:
            raise DamagedPostings(f"a posting block starts with {data[:1]!r}, not a packed block's mark")
        self.data = data
        self.idtype = idtype.decode()
        self.ids_at = _BLOCK_HEAD.size
        self.weights_at = self.ids_at + self.count * _ARRAY_SIZES[self.idtype]
        # The array type of the weights, if they are an array (else all 1, or one for all).
        self.weight_type = _WEIGHT_TYPES.get(self.weight_kind)
        self.values_at = self.weights_at + (
            4 if self.weight_kind == _SAME else self.count * _ARRAY_SIZES[self.weight_type] if self.weight_type else 0
        )
        self._starts: list[int] | None = None

    @staticmethod
    def pack(ids: Sequence[int], weights: Sequence[float], values: Sequence[bytes], fixedsize: int | None) -> bytes:
        """The block's bytes; ``values`` as Whoosh 3 keeps them for a
        format of ``fixedsize`` (None or negative: each its own length; 0:
        none; else each that long)."""
        gaps = [ids[0], *[after - before for before, after in zip(ids, ids[1:], strict=False)]]
        idtype = _narrowest(max(gaps))
        weight_kind, weight_parts = _packed_weights(weights)
        value_kind, value_parts = _packed_values(values, fixedsize)
        head = _BLOCK_HEAD.pack(_PACKED, len(ids), idtype.encode(), weight_kind, value_kind, len(values))
        return b"".join([head, _packed(idtype, gaps), *weight_parts, *value_parts])

    def gaps(self) -> array:
        return _unpacked(self.idtype, self.data, self.ids_at, self.count)

    def ids(self) -> list[int]:
        return list(accumulate(self.gaps()))

    def weights(self) -> Any:
        """As Whoosh 3 keeps them in a block: None (all 1), one float for all, or a sequence."""
        if self.weight_kind == _ONES:
            return None
        if self.weight_kind == _SAME or self.weight_type is None:
            return struct.unpack_from("<f", self.data, self.weights_at)[0]
        return [float(weight) for weight in _unpacked(self.weight_type, self.data, self.weights_at, self.count)]

    def arrays(self, offset: int) -> tuple[Any, Any]:
        """The ids, ``offset`` added (where the block's segment starts in
        the corpus), and the weights, as numpy arrays (int64, float64)
        read in place: a block a few numpy calls."""
        import numpy as np

        little = _LITTLE or _little_types()
        found = np.frombuffer(self.data, little[self.idtype], self.count, self.ids_at).astype(np.int64)
        found = found.cumsum()  # cast, then summed: np.cumsum(gaps, dtype=...) takes twice as long
        found += offset
        if self.weight_type is not None:
            weights = np.frombuffer(self.data, little[self.weight_type], self.count, self.weights_at)
            return found, weights.astype(np.float64)
        same = self.weights()
        return found, np.full(self.count, 1.0 if same is None else same)

    def value(self, index: int) -> bytes:
        """The value of the ``index``-th posting (values each of its own length)."""
        starts = self._starts or self._value_starts()
        return self.data[starts[index] : starts[index + 1]]

    def _value_starts(self) -> list[int]:
        lengths = _unpacked(_LENGTH_TYPES[self.value_kind], self.data, self.values_at, self.value_count)
        begin = self.values_at + self.value_count * _ARRAY_SIZES[lengths.typecode]
        self._starts = list(accumulate(lengths, initial=begin))
        return self._starts

    def values(self, fixedsize: int | None) -> tuple[Any, ...]:
        """Every posting's value, as Whoosh 3's matcher keeps them for a format of ``fixedsize``."""
        if self.value_kind == _NO_VALUES:
            return (None,) * self.count if fixedsize == 0 else ()
        if self.value_kind == _FIXED:
            data = self.data[self.values_at :]
            size = fixedsize or len(data)
            return tuple(data[at : at + size] for at in range(0, len(data), size))
        starts, data = self._starts or self._value_starts(), self.data
        return tuple([data[start:end] for start, end in zip(starts, starts[1:], strict=False)])

    def lazy_values(self) -> Any:
        """Every posting's value (each of its own length), by index, each read when asked for."""
        return _LazyValues(self)


class _LazyValues:
    """A packed block's values as a sequence (each read when asked for)."""

    __slots__ = ("block",)

    def __init__(self, block: PackedBlock) -> None:
        self.block = block

    def __getitem__(self, index: int) -> bytes:
        return self.block.value(index)

    def __len__(self) -> int:
        return self.block.value_count


def framed_block(
    data: bytes,
    compression: int,
    head: tuple[int, int, float, int | None, int],
    first: bool,
    last: bool,
) -> bytes:
    """A block's bytes in its posting list: ``data`` (a packed block,
    compressed at level ``compression`` unless short) framed, the list's
    mark before its first block. ``head``: how many postings, the last id,
    the largest weight, the shortest and the longest field length."""
    if len(data) < COMPRESS_FROM:
        compression = 0
    if compression:
        data = zlib.compress(data, compression)
    count, last_id, maxweight, minlength, maxlength = head
    info = pickle.dumps(
        (count, last_id, maxweight, compression, length_to_byte(minlength), length_to_byte(maxlength)),
        2,
    )
    length = len(info) + len(data)
    framed = _BLOCK_LENGTH.pack(-length if last else length) + info + data
    return WHOOSH3_HEADER_MAGIC + framed if first else framed


def block_places(postfile: Any, start: int) -> Iterator[tuple[int, int, int]]:
    """Where the data of each block of the posting list at ``start`` begins
    and ends, and its compression, read from the frames alone (a dozen
    calls a block in Whoosh's matcher: most of the cost of a short list)."""
    magic = postfile.get(start, len(WHOOSH3_HEADER_MAGIC))
    if magic != WHOOSH3_HEADER_MAGIC:
        raise DamagedPostings(f"a posting list starts with {magic!r}, not {WHOOSH3_HEADER_MAGIC!r}")
    position = start + len(WHOOSH3_HEADER_MAGIC)
    while True:
        (length,) = _BLOCK_LENGTH.unpack(postfile.get(position, _BLOCK_LENGTH.size))
        postfile.seek(position + _BLOCK_LENGTH.size)
        compression = postfile.read_pickle()[3]
        end = position + _BLOCK_LENGTH.size + abs(length)
        yield postfile.tell(), end, compression
        if length < 0:
            return
        position = end


def block_bytes(postfile: Any, start: int, end: int, compression: int) -> bytes:
    """The data of the block that lies from ``start`` to ``end`` (as
    :func:`block_places` gives them), decompressed."""
    data = postfile.get(start, end - start)
    return zlib.decompress(data) if compression else data


def read_block(postfile: Any, start: int, end: int, compression: int) -> PackedBlock | WhooshBlock:
    """The block that lies from ``start`` to ``end``, in a segment of this
    codec or of Whoosh's own (:class:`WhooshBlock`)."""
    data = block_bytes(postfile, start, end, compression)
    return PackedBlock(data) if data[0] == _PACKED else WhooshBlock(data)


class WhooshBlock:
    """A block Whoosh 3's own codec wrote: a pickled ``(ids, weights,
    values)``, the ids as gaps, the weights None (all 1), one number for
    all, or a tuple. A segment Whoosh's own writer makes has them: the
    commit that adds a field to an index's schema may merge its small
    segments (:func:`indexer.layout._open_or_create`), as may any writer
    a Whoosh user opens on the index.

    >>> block = WhooshBlock(pickle.dumps(((3, 4, 293), 2.0, (b"a", b"b", b"c")), 2))
    >>> [array.tolist() for array in block.arrays(1000)], block.lazy_values()[2]
    ([[1003, 1007, 1300], [2.0, 2.0, 2.0]], b'c')
    """

    __slots__ = ("gaps", "weights", "values")

    def __init__(self, data: bytes) -> None:
        self.gaps, self.weights, self.values = pickle.loads(data)

    def arrays(self, offset: int) -> tuple[Any, Any]:
        """As :meth:`PackedBlock.arrays`."""
        import numpy as np

        found = np.cumsum(np.asarray(self.gaps, dtype=np.int64)) + offset
        if self.weights is None or isinstance(self.weights, (int, float)):
            return found, np.full(len(found), 1.0 if self.weights is None else float(self.weights))
        return found, np.asarray(self.weights, dtype=np.float64)

    def lazy_values(self) -> Any:
        """Every posting's value (each of its own length), by index."""
        return self.values

"""Variable-length integers: seven bits a byte, the lowest first, the high bit
set on every byte but the last.

Positions (:mod:`indexer.codec.positions`) and term entries
(:mod:`indexer.codec.entries`) are made of them: most numbers of an index
are small (a position's gap from the one before, a posting's count, the
length of its value) and take one byte. Every reader and writer of them is
here.

>>> encode(3), encode(300), read(encode(3) + encode(300) + encode(20_000), 0)
(b'\\x03', b'\\xac\\x02', ([3, 300, 20000], 6))
"""

from __future__ import annotations

from typing import Any

__all__ = ["SMALL", "ENCODINGS", "encodings", "encode", "encode_array", "read", "read_first", "read_prefixed"]

# The numbers whose encodings are made once, all at a time (two bytes at
# most), when the first is written: a search never writes, and would pay
# 4 ms at every start to make them.
SMALL = 1 << 14
# The encoding of each number below SMALL, by number; empty until
# encodings() fills it. A writer takes ``ENCODINGS or encodings()`` and
# ``table[n] if n < SMALL else encode(n)``: no call for most numbers.
ENCODINGS: list[bytes] = []


def encodings() -> list[bytes]:
    """:data:`ENCODINGS`, filled at the first call.

    >>> table = ENCODINGS or encodings()
    >>> table[3], table[300], len(table) == SMALL
    (b'\\x03', b'\\xac\\x02', True)
    """
    if not ENCODINGS:
        ENCODINGS.extend([bytes((value,)) for value in range(0x80)])
        ENCODINGS.extend([bytes(((value & 0x7F) | 0x80, value >> 7)) for value in range(0x80, SMALL)])
    return ENCODINGS


def encode(value: int) -> bytes:
    """The encoding of any number (0 or more)."""
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode_array(numbers: Any) -> tuple[bytes, Any]:
    """The encodings of a numpy array of numbers (0 or more), one after
    another, and where each begins (a numpy array): numpy's, a few
    operations over the whole array per byte of the longest, for the
    positions of a page's every term at once.

    >>> import numpy as np
    >>> data, begins = encode_array(np.array([3, 300, 20_000]))
    >>> data == encode(3) + encode(300) + encode(20_000), begins.tolist()
    (True, [0, 1, 3])
    """
    import numpy as np

    sizes = np.ones(len(numbers), dtype=np.int64)
    rest = numbers >> 7
    while rest.any():
        sizes += rest > 0
        rest >>= 7
    ends = np.cumsum(sizes)
    begins = ends - sizes
    data = np.empty(int(ends[-1]), dtype=np.uint8)
    rest = numbers
    for byte in range(int(sizes.max())):
        here = sizes > byte
        data[begins[here] + byte] = (rest[here] & 0x7F) | np.where(sizes[here] > byte + 1, 0x80, 0)
        rest = rest >> 7
    return data.tobytes(), begins


def read(data: bytes, position: int, count: int = -1) -> tuple[list[int], int]:
    """``count`` numbers from ``position`` (-1: to the end), and the
    position after them."""
    numbers: list[int] = []
    value = shift = 0
    end = len(data)
    while position < end and len(numbers) != count:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            numbers.append(value)
            value = shift = 0
        else:
            shift += 7
    return numbers, position


def read_first(data: bytes) -> int:
    """The first number of ``data``, without reading the others.

    >>> read_first(encode(300) + encode(7))
    300
    """
    value = shift = 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value
        shift += 7
    return value


def read_prefixed(data: bytes, position: int, count: int) -> tuple[list[bytes], int]:
    """``count`` strings of bytes from ``position``, each after its length,
    and the position after them.

    >>> read_prefixed(encode(2) + b"ab" + encode(0) + encode(1) + b"c", 0, 3)
    ([b'ab', b'', b'c'], 6)
    """
    values = []
    for _ in range(count):
        length = data[position]
        if length < 0x80:  # most values are short: their length is a byte
            position += 1
        else:
            (length,), position = read(data, position, 1)
        values.append(data[position : position + length])
        position += length
    return values, position

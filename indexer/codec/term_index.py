"""A segment's term index (its ``.trm`` file) in the compact format: each
term's key and entry in key order, found by hash, or by order for a
prefix, a range or a cursor.

Whoosh's ``OrderedHashWriter`` spends some 36 bytes on each term besides
its key and entry: 8 for their lengths, 24 for two 12-byte slots in one of
256 hash tables, 4 for the key's place in the ordered array. A crawl's
terms are many and most are rare (their entry a few bytes), so that was a
third of the term index. This format spends about 8:

- a header: :data:`TAG`, then the format's :data:`VERSION` (a byte);
- the records, in key order: the key's length and the entry's (variable-
  length integers, :mod:`indexer.codec.varint`: a byte each, mostly),
  the key, the entry;
- the hash: the terms grouped in buckets of :data:`BUCKET_TERMS` on
  average by ``crc32(key) % buckets``; a fingerprint byte of each
  (the hash's top byte), then each one's record position, both by bucket;
  then where each bucket begins among them (``buckets + 1`` numbers, the
  last the term count). A look-up reads its bucket's few fingerprints at
  once and compares the key of those that match only: a missing term,
  as most look-ups are (each word asked of each field of each segment),
  is told in one ``find`` over a few bytes, where Whoosh's linear probe
  read a slot at a time;
- the samples: the record position of every :data:`SAMPLE_EVERY`-th key:
  the first key at or after another is found by a binary search over
  these, then a scan of a few records (a prefix, a range, a cursor's
  ``find``);
- the extras (Whoosh's: the field map) as JSON, and the trailer
  (:data:`_TRAILER`: where the records end, how many terms and buckets,
  the width of a record position, the extras' length).

Numbers of fixed width are little-endian; a record position is 4 bytes,
or 8 in a term index of over 4 GiB of records.
"""

from __future__ import annotations

import json
import struct
from array import array
from collections.abc import Iterator
from typing import Any
from zlib import crc32

from whoosh.filedb.filetables import FileFormatError

from indexer.codec.varint import ENCODINGS, SMALL, encode, encodings, read

__all__ = ["BUCKET_TERMS", "SAMPLE_EVERY", "TAG", "VERSION", "TermIndex", "TermIndexWriter"]

# What a term index of this format begins with (Whoosh's hash file: b"HSH3").
TAG = b"LTRM"
# The format's version, the byte after the tag.
VERSION = 1
_HEADER = TAG + bytes((VERSION,))
# Terms a hash bucket holds on average: a 4-byte bucket start per this
# many terms, and this many fingerprints read by a look-up.
BUCKET_TERMS = 4
# A record position is kept for every this many keys, in order.
SAMPLE_EVERY = 16
# Where the records end, the terms, the buckets, a position's width, the extras' length.
_TRAILER = struct.Struct("<QIIBI")
# Where a bucket begins among the fingerprints and positions; two read at once: where it ends.
_BUCKET_START = 4
_BUCKET = struct.Struct("<II")
_POSITION = {4: struct.Struct("<I"), 8: struct.Struct("<Q")}


def _record(buf: Any, position: int) -> tuple[int, int, int]:
    """Where the key of the record at ``position`` begins, its length, and its entry's length."""
    keylength = buf[position]
    if keylength < 0x80 and buf[position + 1] < 0x80:  # both lengths a byte: most records
        return position + 2, keylength, buf[position + 1]
    (keylength, length), start = read(buf, position, 2)
    return start, keylength, length


class TermIndexWriter:
    """Writes a term index of this format to ``dbfile``, as Whoosh's
    ``OrderedHashWriter`` does its own: keys added in increasing order,
    ``extras`` (a dictionary JSON can write) kept beside them."""

    def __init__(self, dbfile: Any) -> None:
        self.dbfile = dbfile
        self.extras: dict[str, Any] = {}
        self.lastkey = b""
        self._hashes = array("L")
        self._positions = array("Q")
        dbfile.write(_HEADER)

    def add(self, key: bytes, entry: bytes) -> None:
        if key <= self.lastkey:
            raise ValueError(f"Keys must increase: {self.lastkey!r}..{key!r}")
        dbfile = self.dbfile
        self._positions.append(dbfile.tell())
        self._hashes.append(crc32(key))
        table = ENCODINGS or encodings()
        keylength, length = len(key), len(entry)
        dbfile.write(
            (table[keylength] if keylength < SMALL else encode(keylength))
            + (table[length] if length < SMALL else encode(length))
            + key
            + entry
        )
        self.lastkey = key

    def close(self) -> int:
        """Write the hash, the samples, the extras and the trailer; close the file; its length."""
        import numpy as np

        dbfile = self.dbfile
        end = dbfile.tell()
        terms = len(self._positions)
        buckets = max(1, -(-terms // BUCKET_TERMS))
        width = 4 if end < 1 << 32 else 8
        hashes = np.array(self._hashes, dtype=np.uint64)
        positions = np.array(self._positions, dtype=np.uint64)
        bucket_of = hashes % buckets
        order = np.argsort(bucket_of, kind="stable")
        dbfile.write((hashes[order] >> 24).astype(np.uint8).tobytes())
        dbfile.write(positions[order].astype(f"<u{width}").tobytes())
        dbfile.write(np.searchsorted(bucket_of[order], np.arange(buckets + 1)).astype("<u4").tobytes())
        dbfile.write(positions[::SAMPLE_EVERY].astype(f"<u{width}").tobytes())
        extras = json.dumps(self.extras, sort_keys=True).encode()
        dbfile.write(extras + _TRAILER.pack(end, terms, buckets, width, len(extras)))
        length = dbfile.tell()
        dbfile.close()
        return int(length)


class TermIndex:
    """Reads a term index of this format where it lies (a mapped segment's
    bytes; a file of another storage is read whole), with the methods of
    Whoosh's ``OrderedHashReader`` its terms reader and field cursor call."""

    def __init__(self, dbfile: Any, length: int) -> None:
        self.dbfile = dbfile
        buf = getattr(dbfile, "_buf", None)
        self._buf = buf if buf is not None else dbfile.get(0, length)
        if bytes(self._buf[: len(_HEADER)]) != _HEADER or length < len(_HEADER) + _TRAILER.size:
            raise FileFormatError(f"not a term index of version {VERSION}: {bytes(self._buf[:5])!r}")
        self._end, terms, self._buckets, width, extras = _TRAILER.unpack_from(self._buf, length - _TRAILER.size)
        self._terms = terms
        self._width = width
        self._position = _POSITION[width]
        self._fingerprints = self._end
        self._offsets = self._fingerprints + terms
        self._directory = self._offsets + terms * width
        self._samples = self._directory + (self._buckets + 1) * _BUCKET_START
        self._sampled = -(-terms // SAMPLE_EVERY)
        start = length - _TRAILER.size - extras
        self.extras: dict[str, Any] = json.loads(bytes(self._buf[start : start + extras]))

    def __len__(self) -> int:
        return int(self._terms)

    def get(self, key: bytes, default: Any = None) -> Any:
        """The entry of ``key`` (bytes), or ``default``."""
        buf = self._buf
        hashed = crc32(key)
        first, end = _BUCKET.unpack_from(buf, self._directory + hashed % self._buckets * _BUCKET_START)
        if first == end:
            return default
        fingerprint = hashed >> 24
        found = bytes(buf[self._fingerprints + first : self._fingerprints + end])
        at = found.find(fingerprint)
        while at >= 0:
            (position,) = self._position.unpack_from(buf, self._offsets + (first + at) * self._width)
            start, keylength, length = _record(buf, position)
            if keylength == len(key) and buf[start : start + keylength] == key:
                return bytes(buf[start + keylength : start + keylength + length])
            at = found.find(fingerprint, at + 1)
        return default

    def __contains__(self, key: bytes) -> bool:
        return self.get(key) is not None

    def key_at(self, position: int) -> bytes:
        start, keylength, _ = _record(self._buf, position)
        return bytes(self._buf[start : start + keylength])

    def key_and_range_at(self, position: int) -> tuple[bytes, int, int] | None:
        """The key of the record at ``position``, where its entry begins and
        its length; None past the last record."""
        if position >= self._end:
            return None
        start, keylength, length = _record(self._buf, position)
        return bytes(self._buf[start : start + keylength]), start + keylength, length

    def closest_key_pos(self, key: bytes) -> int | None:
        """Where the record of the first key at or after ``key`` begins; None if there is none."""
        sample = self._sample
        low, high = 0, self._sampled
        while low < high:
            middle = (low + high) // 2
            if self.key_at(sample(middle)) < key:
                low = middle + 1
            else:
                high = middle
        if low == 0:
            return sample(0) if self._terms else None
        for position, keystart, keylength, _, _ in self._ranges(sample(low - 1)):
            if bytes(self._buf[keystart : keystart + keylength]) >= key:
                return position
        return None

    def closest_key(self, key: bytes) -> bytes | None:
        position = self.closest_key_pos(key)
        return None if position is None else self.key_at(position)

    def _sample(self, number: int) -> int:
        return int(self._position.unpack_from(self._buf, self._samples + number * self._width)[0])

    def _ranges(self, position: int) -> Iterator[tuple[int, int, int, int, int]]:
        """``(position, keystart, keylength, datastart, datalength)`` of each record from ``position`` on."""
        buf, end = self._buf, self._end
        while position < end:
            keylength = buf[position]
            if keylength < 0x80 and buf[position + 1] < 0x80:
                length = buf[position + 1]
                keystart = position + 2
            else:
                (keylength, length), keystart = read(buf, position, 2)
            datastart = keystart + keylength
            yield position, keystart, keylength, datastart, length
            position = datastart + length

    def keys(self) -> Iterator[bytes]:
        buf = self._buf
        for _, keystart, keylength, _, _ in self._ranges(len(_HEADER)):
            yield bytes(buf[keystart : keystart + keylength])

    def items(self) -> Iterator[tuple[bytes, bytes]]:
        buf = self._buf
        for _, keystart, keylength, datastart, length in self._ranges(len(_HEADER)):
            yield bytes(buf[keystart : keystart + keylength]), bytes(buf[datastart : datastart + length])

    def keys_from(self, key: bytes) -> Iterator[bytes]:
        position = self.closest_key_pos(key)
        if position is None:
            return
        buf = self._buf
        for _, keystart, keylength, _, _ in self._ranges(position):
            yield bytes(buf[keystart : keystart + keylength])

    def items_from(self, key: bytes) -> Iterator[tuple[bytes, bytes]]:
        position = self.closest_key_pos(key)
        if position is None:
            return
        buf = self._buf
        for _, keystart, keylength, datastart, length in self._ranges(position):
            yield bytes(buf[keystart : keystart + keylength]), bytes(buf[datastart : datastart + length])

    def close(self) -> None:
        self.dbfile.close()

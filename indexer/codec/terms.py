"""The terms reader: a segment's term index read and searched in place,
in either of its formats, which the file's first bytes tell apart: the
compact one (:mod:`indexer.codec.term_index`), which segments are written
in, and Whoosh's hash file (``OrderedHashWriter``'s, tagged ``HSH3``),
which segments written before it are in (and those Whoosh's own writer
makes): those read as they did, and a merge writes their terms in the
compact format. The entries are :mod:`indexer.codec.entries`'.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator
from typing import Any

from whoosh.codec.whoosh3 import W3FieldCursor, W3TermsReader
from whoosh.filedb.filetables import FileFormatError, OrderedHashReader, md5_hash
from whoosh.reading import TermNotFound

from indexer.codec.entries import CompactTermInfo
from indexer.codec.term_index import TAG, TermIndex

__all__ = ["KEY_VALUE_LENGTHS", "WHOOSH_HASH_FILE", "open_term_index", "term_hash", "TermsReader"]

# The term index format of Whoosh's hash file, as a codec names the one it
# writes (the compact format's is its version, term_index.VERSION).
WHOOSH_HASH_FILE = 0
# What a term index in Whoosh's hash file begins with.
_HASH_FILE_TAG = b"HSH3"

# What the term index writes before a key and its entry: their lengths.
KEY_VALUE_LENGTHS = struct.Struct("!ii")
# A hash table slot of Whoosh's hash files: the key's hash, where its item is.
_SLOT = struct.Struct("!Iq")


def term_hash(key: bytes) -> int:
    """Whoosh's ``md5_hash`` of a term index key (the low 32 bits of its
    MD5), from the digest's bytes rather than through its hex string.

    >>> all(term_hash(key) == md5_hash(key) for key in (b"", b"\\x00\\x05json", "西湖".encode() * 9))
    True
    """
    return int.from_bytes(hashlib.md5(key, usedforsecurity=False).digest()[-4:], "big")


def _hash_get(table: Any, key: bytes) -> bytes | None:
    """``table.get(key)``: the first value of ``key`` in a Whoosh hash file
    (None if it has none), found by the same probe of the same slots in
    one function where the file is in memory. Whoosh's takes a generator,
    a hash through a hex string and a method call for each read: most of
    the time of a term's look-up, which a search makes for each field of
    each word in each part of the index."""
    buf = getattr(table.dbfile, "_buf", None)
    if buf is None or table.hashfn is not md5_hash:
        return OrderedHashReader.get(table, key)
    keyhash = term_hash(key)
    start, slots = table.tables[keyhash & 255]
    if not slots:
        return None
    end = start + slots * _SLOT.size
    slot = start + (keyhash >> 8) % slots * _SLOT.size
    for _ in range(slots):
        found, item = _SLOT.unpack_from(buf, slot)
        if not item:
            return None
        if found == keyhash:
            keylength, length = KEY_VALUE_LENGTHS.unpack_from(buf, item)
            item += KEY_VALUE_LENGTHS.size
            if keylength == len(key) and buf[item : item + keylength] == key:
                return bytes(buf[item + keylength : item + keylength + length])
        slot += _SLOT.size
        if slot == end:
            slot = start
    return None


class _HashFile(OrderedHashReader):
    """A term index in Whoosh's hash file, its look-ups by :func:`_hash_get`."""

    def get(self, key: bytes, default: Any = None) -> Any:
        found = _hash_get(self, key)
        return default if found is None else found


def open_term_index(dbfile: Any, length: int) -> Any:
    """The term index in ``dbfile``, read by the reader of its format: a
    :class:`~indexer.codec.term_index.TermIndex`, or Whoosh's hash file."""
    tag = bytes(dbfile.get(0, len(TAG)))
    if tag == TAG:
        return TermIndex(dbfile, length)
    if tag == _HASH_FILE_TAG:
        return _HashFile(dbfile, length)
    raise FileFormatError(f"not a term index: it begins with {tag!r}")


# Term entries a segment's terms reader keeps decoded (and terms it lacks).
_KEPT_INFOS = 4096


class TermsReader(W3TermsReader):
    """Whoosh's terms reader, decoding :class:`CompactTermInfo`, the entries
    of the last terms asked for kept: a search asks for a term's entry, its
    frequency and its document frequency again and again (scoring it,
    scoring a phrase of it, its IDF), each a look-up in the hash table of
    every segment's terms (some 20 us in Python)."""

    def __init__(self, codec: Any, dbfile: Any, length: int, postfile: Any) -> None:
        # Whoosh's, but for the term index's reader, chosen by its format.
        self._codec = codec
        self._dbfile = dbfile
        self._tindex = open_term_index(dbfile, length)
        self._fieldmap = self._tindex.extras["fieldmap"]
        self._postfile = postfile
        self._fieldunmap = [None] * len(self._fieldmap)
        for fieldname, number in self._fieldmap.items():
            self._fieldunmap[number] = fieldname
        self._infos: dict[tuple[str, bytes], Any] = {}

    def _entry(self, fieldname: str, tbytes: bytes) -> Any:
        """The term's entry; None if the segment lacks the term (KeyError:
        the field, as Whoosh's reader)."""
        key = (fieldname, tbytes)
        infos = self._infos
        if key in infos:
            return infos[key]
        data = self._tindex.get(self._keycoder(fieldname, tbytes))
        found = None if data is None else CompactTermInfo.from_bytes(data)
        if len(infos) >= _KEPT_INFOS:
            infos.clear()
        infos[key] = found
        return found

    def __contains__(self, term: tuple[str, bytes]) -> bool:
        return self._entry(*term) is not None

    def frequency(self, fieldname: str, tbytes: bytes) -> float:
        found = self._entry(fieldname, tbytes)
        if found is None:
            raise KeyError(tbytes)
        return float(found.weight())

    def doc_frequency(self, fieldname: str, tbytes: bytes) -> int:
        found = self._entry(fieldname, tbytes)
        if found is None:
            raise KeyError(tbytes)
        return int(found.doc_frequency())

    def cursor(self, fieldname: str, fieldobj: Any) -> Any:
        return _FieldCursor(self._tindex, fieldname, self._keycoder, self._keydecoder, fieldobj)

    def items(self) -> Iterator[Any]:
        decode = self._keydecoder
        return ((decode(key), CompactTermInfo.from_bytes(value)) for key, value in self._tindex.items())

    def items_from(self, fieldname: str, prefix: bytes) -> Iterator[Any]:
        decode = self._keydecoder
        return (
            (decode(key), CompactTermInfo.from_bytes(value))
            for key, value in self._tindex.items_from(self._keycoder(fieldname, prefix))
        )

    def term_info(self, fieldname: str, tbytes: bytes) -> Any:
        try:
            found = self._entry(fieldname, tbytes)
        except KeyError:  # a field the segment lacks
            found = None
        if found is None:
            raise TermNotFound(f"No term {fieldname}:{tbytes!r}")
        return found


class _FieldCursor(W3FieldCursor):
    def term_info(self) -> Any:
        if self._pos is None:
            return None
        return CompactTermInfo.from_bytes(self._tindex.dbfile.get(self._datapos, self._datalen))

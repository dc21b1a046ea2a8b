"""The term index: Whoosh's hash file of term entries, read and searched in
place (the entries are :mod:`indexer.codec.entries`')."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator
from typing import Any

from whoosh.codec.whoosh3 import W3FieldCursor, W3TermsReader
from whoosh.filedb.filetables import md5_hash
from whoosh.reading import TermNotFound

from indexer.codec.entries import CompactTermInfo

__all__ = ["KEY_VALUE_LENGTHS", "term_hash", "TermsReader"]

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


# A hash table slot of Whoosh's hash files: the key's hash, where its item is.
_SLOT = struct.Struct("!Iq")


def _hash_get(table: Any, key: bytes) -> bytes | None:
    """``table.get(key)``: the first value of ``key`` in a Whoosh hash file
    (None if it has none), found by the same probe of the same slots in
    one function where the file is in memory. Whoosh's takes a generator,
    a hash through a hex string and a method call for each read: most of
    the time of a term's look-up, which a search makes for each field of
    each word in each part of the index."""
    buf = getattr(table.dbfile, "_buf", None)
    if buf is None or table.hashfn is not md5_hash:
        return table.get(key)
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


# Term entries a segment's terms reader keeps decoded (and terms it lacks).
_KEPT_INFOS = 4096


class TermsReader(W3TermsReader):
    """Whoosh's terms reader, decoding :class:`CompactTermInfo`, the entries
    of the last terms asked for kept: a search asks for a term's entry, its
    frequency and its document frequency again and again (scoring it,
    scoring a phrase of it, its IDF), each a look-up in the hash table of
    every segment's terms (some 20 us in Python)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._infos: dict[tuple[str, bytes], Any] = {}

    def _entry(self, fieldname: str, tbytes: bytes) -> Any:
        """The term's entry; None if the segment lacks the term (KeyError:
        the field, as Whoosh's reader)."""
        key = (fieldname, tbytes)
        infos = self._infos
        if key in infos:
            return infos[key]
        data = _hash_get(self._tindex, self._keycoder(fieldname, tbytes))
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

"""How the index is written: a text field that indexes fast, and postings inlined.

Changes to Whoosh's writing path and format:

- :class:`FastText` is Whoosh's ``TEXT`` field whose ``index()`` takes its
  terms and positions from :class:`indexer.analysis.TermPositions` (one
  dictionary look-up per word) instead of running the analyzer's token
  generators; queries, highlighting and phrases still use the analyzer,
  which gives the same terms.
- :class:`Codec` is Whoosh's ``W3Codec`` with small posting lists stored
  inside their term's entry (``inlinelimit``), which saves a block write
  and a seek per rare term; most terms of a crawl are rare (a code name, a
  number). whoosh-reloaded 2.7.5 breaks every ``inlinelimit`` above 1 (its
  postings writer calls ``set_inline``, the term info has ``set_inlined``):
  the writer here calls the right one.
- :class:`CompactTermInfo` stores those inlined postings in bytes of their
  own instead of a pickle, and :class:`CompactPositions` positions as
  variable-length integers: together they halved the index.
- Posting blocks are arrays (:class:`PackedBlock`) instead of a pickled
  tuple: Whoosh 3 pickles every posting's value as a call to
  ``_codecs.encode``, and unpickling a block of 128 postings took a tenth
  of a search's time. Blocks written before still read.
"""

from __future__ import annotations

import hashlib
import pickle
import struct
import sys
import zlib
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from io import BytesIO
from itertools import accumulate
from typing import Any, cast

from whoosh.analysis import CompositeAnalyzer, IDTokenizer, LowercaseFilter, RegexTokenizer
from whoosh.codec.whoosh3 import (
    LENGTHS_COLUMN,
    WHOOSH3_HEADER_MAGIC,
    W3Codec,
    W3FieldCursor,
    W3FieldWriter,
    W3LeafMatcher,
    W3PerDocReader,
    W3PerDocWriter,
    W3PostingsWriter,
    W3TermInfo,
    W3TermsReader,
    _lenfield,
)
from whoosh.columns import VarBytesColumn
from whoosh.fields import TEXT
from whoosh.filedb.compound import CompoundStorage
from whoosh.filedb.filetables import md5_hash
from whoosh.filedb.structfile import BufferFile, StructFile
from whoosh.formats import Existence, Frequency, Positions
from whoosh.matching import ReadTooFar
from whoosh.reading import TermNotFound
from whoosh.system import pack_uint, pack_ushort
from whoosh.util.numeric import byte_to_length, length_to_byte
from whoosh.writing import PostingPool, SegmentWriter

from indexer.analysis import GROUPED_PIECES, TermPositions, uncounted_tokens

__all__ = [
    "FastText",
    "CompactPositions",
    "CompactTermInfo",
    "Codec",
    "GroupedPool",
    "Writer",
    "INLINE_LIMIT",
    "PackedBlock",
    "block_data",
    "STORED_FIELDS",
]

# Posting lists shorter than this live in the term index.
INLINE_LIMIT = 32
# Posting blocks and stored fields of fewer bytes than this are written
# uncompressed: zlib takes about 60 us to set up for each value it
# compresses, more than a few hundred bytes are worth (an anchor document's
# stored fields are about 200).
_COMPRESS_FROM = 1024


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
        table = _VARINT or _varint_table()
        if len(poslist) == 1:  # most postings: a count of one and a position
            position = poslist[0]
            return b"\x01" + (table[position] if position < _TABLE else _varint(position))
        deltas = [len(poslist), poslist[0]]
        deltas += [after - before for before, after in zip(poslist, poslist[1:], strict=False)]
        if max(deltas) < _TABLE:
            return b"".join([table[delta] for delta in deltas])
        return b"".join([table[delta] if delta < _TABLE else _varint(delta) for delta in deltas])

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
        raw = data.tobytes()
        starts = begins[heads + np.arange(len(heads))].tolist()
        return [raw[start:stop] for start, stop in zip(starts, starts[1:] + [len(raw)], strict=False)]

    def decode_positions(self, valuestring: bytes) -> list[int]:
        numbers = _varints(valuestring)
        positions, position = [], 0
        for delta in numbers[1:]:
            position += delta
            positions.append(position)
        return positions

    def decode_frequency(self, valuestring: bytes) -> int:
        value = shift = 0
        for byte in valuestring:
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7
        return value

    def decode_weight(self, valuestring: bytes) -> float:
        return self.decode_frequency(valuestring) * self.field_boost


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


# The encodings of the numbers below this, ready-made (two bytes at most),
# when the first is written: a search never writes, and would pay 4 ms at
# every start to make them.
_TABLE = 1 << 14
_VARINT: tuple[bytes, ...] = ()


def _varint_table() -> tuple[bytes, ...]:
    global _VARINT
    if not _VARINT:
        _VARINT = tuple(
            [bytes((value,)) for value in range(0x80)]
            + [bytes(((value & 0x7F) | 0x80, value >> 7)) for value in range(0x80, _TABLE)]
        )
    return _VARINT


def _varints(data: bytes) -> list[int]:
    return _read_varints(data, 0)[0]


class FastText(TEXT):
    """A ``TEXT`` field indexed through :class:`TermPositions`.

    ``stoplist`` and ``cjk`` must be those of ``analyzer`` (the schema builds
    both from the same values)."""

    format: Any  # set by Whoosh's field type

    def __init__(self, analyzer: Any, stoplist: Iterable[str], cjk: str, **kwargs: Any) -> None:
        super().__init__(analyzer=analyzer, **kwargs)
        if isinstance(self.format, Positions):
            self.format = CompactPositions(field_boost=self.format.field_boost)
        self.stoplist = tuple(sorted(stoplist))
        self.cjk = cjk
        self._terms: TermPositions | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_terms"] = None  # a cache, not part of the schema written to the index
        return state

    def index(self, value: Any, **kwargs: Any) -> Iterable[tuple[bytes, int, float, bytes]]:
        if not isinstance(value, str):
            return super().index(value, **kwargs)
        if self._terms is None:
            self._terms = _shared_terms(self.stoplist, self.cjk)
        boost = self.format.field_boost
        compact = isinstance(self.format, CompactPositions)
        encode = self.format.encode if isinstance(self.format, Positions) else None
        pieces = value.split()
        if len(pieces) >= GROUPED_PIECES and (compact or not encode):  # a page's body: grouped by numpy
            terms, counts, positions = self._terms.grouped(value, pieces)
            if not terms:
                return []
            found = counts.tolist()
            values = self.format.encode_grouped(counts, positions) if compact else list(map(pack_uint, found))
            return list(
                zip(
                    [term.encode("utf-8") for term in terms],
                    found,
                    [count * boost for count in found],
                    values,
                    strict=False,
                )
            )
        return [
            (term.encode("utf-8"), len(where), len(where) * boost, encode(where) if encode else pack_uint(len(where)))
            for term, where in self._terms.of_pieces(pieces).items()
        ]


@lru_cache(maxsize=8)
def _shared_terms(stoplist: tuple[str, ...], cjk: str) -> TermPositions:
    """One :class:`TermPositions` (and its memory of words) for every field
    analysed alike: a page's title words are mostly in its body too."""
    return TermPositions(stoplist, cjk)


# What Whoosh's SpaceSeparatedTokenizer (a KEYWORD field's) matches.
_SPACE_SEPARATED = r"[^ \t\r\n]+"

Postings = Callable[[str], Iterable[tuple[bytes, int, float, bytes]]]


def plain_postings(field: Any) -> Postings | None:
    """What ``field.index(text)`` gives, without Whoosh's token objects and
    generators, for an ID or KEYWORD field (its value taken whole or split
    at spaces, maybe lower-cased; presence or frequency recorded); None
    for any other field. An anchor document has six such fields, and
    Whoosh's path took a fifth of its writing time.

    >>> from whoosh.fields import ID, KEYWORD
    >>> keywords = KEYWORD(lowercase=True)
    >>> [(term, count) for term, count, _, _ in sorted(plain_postings(keywords)("zh-cn zh ZH"))]
    [(b'zh', 2), (b'zh-cn', 1)]
    >>> sorted(plain_postings(keywords)("zh-cn zh ZH")) == sorted(keywords.index("zh-cn zh ZH"))
    True
    >>> list(plain_postings(ID())("http://a.test/"))
    [(b'http://a.test/', 1, 1.0, b'')]
    """
    analyzer = field.analyzer
    parts = list(analyzer.items) if isinstance(analyzer, CompositeAnalyzer) else [analyzer]
    lower = parts[1:] == [LowercaseFilter()]
    if len(parts) > 1 and not lower:
        return None
    tokenizer = parts[0]
    split: Callable[[str], list[str]]
    if type(tokenizer) is IDTokenizer:
        split = lambda value: [value]  # noqa: E731
    elif type(tokenizer) is RegexTokenizer and not tokenizer.gaps and tokenizer.expression.pattern == _SPACE_SEPARATED:
        split = tokenizer.expression.findall
    else:
        return None
    boost = field.format.field_boost
    if type(field.format) is Existence:

        def present(value: str) -> Iterable[tuple[bytes, int, float, bytes]]:
            words = split(value.lower() if lower else value)
            return [(word.encode("utf-8"), 1, boost, b"") for word in set(words)]

        return present
    if type(field.format) is Frequency:

        def counted(value: str) -> Iterable[tuple[bytes, int, float, bytes]]:
            counts = Counter(split(value.lower() if lower else value))
            return [(word.encode("utf-8"), count, count * boost, pack_uint(count)) for word, count in counts.items()]

        return counted
    return None


class _PostingsWriter(W3PostingsWriter):
    _terminfo: Any  # set by Whoosh's writer

    def _write_block(self, last: bool = False) -> None:
        """Whoosh 3's block (its header, then its data, compressed), the data a :class:`PackedBlock`."""
        if self._byteids:  # a term vector's block: Whoosh's own
            return super()._write_block(last)
        if not self._blockcount:
            self._postfile.write(WHOOSH3_HEADER_MAGIC)
        self._terminfo.add_block(self)
        data = PackedBlock.pack(self._ids, self._weights, self._values, self._format.fixed_value_size())
        compression = self._compression if len(data) >= _COMPRESS_FROM else 0
        if compression:
            data = zlib.compress(data, compression)
        ids = self._ids
        info = pickle.dumps(
            (
                len(ids),
                ids[-1],
                self._maxweight,
                compression,
                length_to_byte(self._minlength),
                length_to_byte(self._maxlength),
            ),
            2,
        )
        length = len(info) + len(data)
        self._postfile.write_int(-length if last else length)
        self._postfile.write(info)
        self._postfile.write(data)
        self._blockcount += 1
        self._new_block()
        return None

    def finish_postings(self) -> Any:
        if not self.written() and len(self) < self._inlinelimit:
            terminfo = self._terminfo
            terminfo.add_block(self)
            # Existence-format fields (ids, keywords) keep no value bytes:
            # inlined, each posting still needs one, as merging reads them.
            values = self._values if len(self._values) == len(self._ids) else [b""] * len(self._ids)
            # Whole-number weights (term counts) pickle in two bytes, a float in nine.
            weights = [int(weight) if weight == int(weight) else weight for weight in self._weights]
            terminfo.set_inlined(self._ids, weights, values)
            self._terminfo = None
            return terminfo
        return super().finish_postings()


class CompactTermInfo(W3TermInfo):
    r"""Whoosh's term info with inlined postings in a few bytes of their own
    instead of a pickle (whose protocol 2 spells each ``bytes`` value as a
    call to ``_codecs.encode``: 40 bytes for a 2-byte position list; most
    terms of a crawl are rare and inlined, so this was a third of the
    index). Flag 2 marks the format; Whoosh's own (flag 1, pickled) still
    reads.

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
        return _inlined_entry(
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
        if data[0] != 2:
            info = W3TermInfo.from_bytes(data)
            info.__class__ = cls
            return info
        info = W3TermInfo.from_bytes(b"\x00" + data[1 : cls._struct.size] + b"\x00" * 12)
        info.__class__ = cls
        info._offset = info._length = None
        position = cls._struct.size
        count, whole = data[position], data[position + 1]
        position += 2
        numbers, position = _read_varints(data, position, count)
        ids, docnum = [], 0
        for delta in numbers:
            docnum += delta
            ids.append(docnum)
        if whole:
            weights, position = _read_varints(data, position, count)
        else:
            weights = list(struct.unpack_from(f"!{count}f", data, position))
            position += 4 * count
        values = []
        for _ in range(count):
            length = data[position]
            if length < 0x80:  # most values are short: their length is a byte
                position += 1
            else:
                (length,), position = _read_varints(data, position, 1)
            values.append(data[position : position + length])
            position += length
        info._inlined = (tuple(ids), tuple(weights), tuple(values))
        return info


def _read_varints(data: bytes, position: int, count: int = -1) -> tuple[list[int], int]:
    """``count`` variable-length integers from ``position`` (-1: to the end),
    and the position after them."""
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


# Term entries a segment's terms reader keeps decoded (and terms it lacks).
_KEPT_INFOS = 4096


class _TermsReader(W3TermsReader):
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
    keyhash = _md5_hash(key)
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
            keylength, length = _KEY_VALUE_LENGTHS.unpack_from(buf, item)
            item += _KEY_VALUE_LENGTHS.size
            if keylength == len(key) and buf[item : item + keylength] == key:
                return bytes(buf[item + keylength : item + keylength + length])
        slot += _SLOT.size
        if slot == end:
            slot = start
    return None


class _FieldCursor(W3FieldCursor):
    def term_info(self) -> Any:
        if self._pos is None:
            return None
        return CompactTermInfo.from_bytes(self._tindex.dbfile.get(self._datapos, self._datalen))


_BYTE_LENGTHS = [0] + [byte_to_length(byte) for byte in range(1, 256)]


class _Lengths:
    """A segment's field lengths, each field's read once: Whoosh looks one
    up in the lengths column (a seek and a read) for every posting written."""

    def __init__(self, lengths: Any) -> None:
        self._lengths = lengths
        self._fields: dict[str, list[int]] = {}

    def doc_field_length(self, docnum: int, fieldname: str) -> int:
        found = self._fields.get(fieldname)
        if found is None:
            found = self._fields[fieldname] = self._read(fieldname)
        return found[docnum]

    def _read(self, fieldname: str) -> list[int]:
        count = self._lengths.doc_count_all()
        cached = getattr(self._lengths, "_cached_reader", None)
        if cached is None:  # not a Whoosh 3 segment: one lookup per document
            read = self._lengths.doc_field_length
            return [read(d, fieldname) or 0 for d in range(count)]
        # The lengths column holds a byte per document: read it at once
        # (a field no document has has no column: Whoosh would look for its
        # file again at every posting).
        reader = cached(_lenfield(fieldname), LENGTHS_COLUMN)
        if reader is None:
            return [0] * count
        raw = reader._dbfile.get(reader._basepos, min(reader._count, count))
        return [_BYTE_LENGTHS[byte] for byte in raw] + [0] * (count - len(raw))


def _inlined_entry(
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
        2,
        weight,
        df,
        0 if minlength is None else length_to_byte(minlength),
        length_to_byte(maxlength),
        maxweight,
        0xFFFFFFFF if minid is None else minid,
        0xFFFFFFFF if maxid is None else maxid,
    )
    table = _VARINT or _varint_table()
    whole = all(weight.__class__ is int and 0 <= weight < _TABLE for weight in weights)
    parts = [header, bytes((len(ids), whole))]
    previous = 0
    for docnum in ids:
        gap = docnum - previous
        parts.append(table[gap] if gap < _TABLE else _varint(gap))
        previous = docnum
    if whole:
        parts.extend([table[weight] for weight in cast("Sequence[int]", weights)])
    else:
        parts.append(struct.pack(f"!{len(weights)}f", *weights))
    for value in values:
        parts.append(table[len(value)] if len(value) < _TABLE else _varint(len(value)))
        parts.append(value)
    return b"".join(parts)


def _single_entry(docnum: int, weight: float, vbytes: bytes | None, length: int) -> bytes | None:
    """What :func:`_inlined_entry` writes for a term of one posting (two
    thirds of a crawl's terms), without its lists; None unless the weight
    is a whole number the varint table holds (then that function writes it).

    >>> from array import array
    >>> args = [(7, 2.0, b"\\x01\\x05", 12), (0, 1.0, None, 0), (20000, 3.0, b"", 300)]
    >>> all(_single_entry(*a) == _inlined_entry(
    ...     a[1], 1, a[3] or None, a[3], a[1], a[0], a[0], [a[0]], [int(a[1])], [a[2] or b""]) for a in args)
    True
    >>> _single_entry(1, 0.5, None, 3) is None
    True
    """
    whole = int(weight)
    if whole != weight or not 0 <= whole < _TABLE:
        return None
    table = _VARINT or _varint_table()
    value = vbytes or b""
    return b"".join(
        (
            CompactTermInfo._struct.pack(
                2,
                weight,
                1,
                length_to_byte(length) if length else 0,
                length_to_byte(length),
                max(0, weight),
                docnum,
                docnum,
            ),
            b"\x01\x01",  # one posting, a whole weight
            table[docnum] if docnum < _TABLE else _varint(docnum),
            table[whole],
            table[len(value)] if len(value) < _TABLE else _varint(len(value)),
            value,
        )
    )


class _AppendOnlyFile(StructFile):
    """A file being written from start to end, that knows its position.

    Whoosh's term and postings writers ask the file for its position at
    every term (``tell``): a buffered file's ``tell`` is a system call,
    15% of indexing time on Python's documentation.
    """

    def __init__(self, made: StructFile) -> None:
        super().__init__(made.file, name=made._name, onclose=made.onclose)
        self._position = made.tell()

    def write(self, data: bytes) -> int:
        self._position += len(data)
        return self.file.write(data)

    def tell(self) -> int:
        return self._position

    def write_pickle(self, value: Any, protocol: int = -1) -> None:
        self.write(pickle.dumps(value, protocol))

    def write_array(self, values: array) -> None:
        if sys.byteorder == "little":  # Whoosh writes arrays big-endian
            values = array(values.typecode, values)
            values.byteswap()
        self.write(values.tobytes())

    def seek(self, *args: Any) -> int:
        raise OSError("an index file being written is written in order")


# What the term index writes before a key and its entry: their lengths.
_KEY_VALUE_LENGTHS = struct.Struct("!ii")


def _md5_hash(key: bytes) -> int:
    """Whoosh's ``md5_hash`` of a term index key (the low 32 bits of its
    MD5), from the digest's bytes rather than through its hex string.

    >>> all(_md5_hash(key) == md5_hash(key) for key in (b"", b"\\x00\\x05json", "西湖".encode() * 9))
    True
    """
    return int.from_bytes(hashlib.md5(key, usedforsecurity=False).digest()[-4:], "big")


class _FieldWriter(W3FieldWriter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self._tindex.hashfn is md5_hash:
            self._tindex.hashfn = _md5_hash

    def _create_file(self, ext: str) -> StructFile:
        return _AppendOnlyFile(super()._create_file(ext))

    def _add_entry(self, key: bytes, entry: bytes) -> None:
        """``OrderedHashWriter.add`` of the term index (the same bytes), in one
        write: a term of a few postings costs little else."""
        terms = self._tindex
        if key <= terms.lastkey:
            raise ValueError(f"Keys must increase: {terms.lastkey!r}..{key!r}")
        dbfile = terms.dbfile
        position = dbfile.tell()
        terms.index.append(position)
        dbfile.write(_KEY_VALUE_LENGTHS.pack(len(key), len(entry)) + key + entry)
        hashed = terms.hashfn(key)
        terms.buckets[hashed & 255].append((hashed, position))
        terms.lastkey = key

    def start_term(self, btext: bytes) -> None:
        self._btext = btext
        self._postwriter.start_postings(self._fieldobj.format, CompactTermInfo())

    def add_postings(self, schema: Any, lengths: Any, items: Any) -> None:
        lengths = _Lengths(lengths) if lengths else lengths
        if not isinstance(items, _Grouped):
            return super().add_postings(schema, lengths, items)
        length_of = lengths.doc_field_length if lengths else (lambda docnum, fieldname: 0)
        add, finish_term, add_entry = self.add, self.finish_term, self._add_entry
        inline = self._codec._inlinelimit
        current = None
        prefix = b""
        for (fieldname, btext), postings in items.sorted_groups():
            if fieldname != current:
                if current is not None:
                    self.finish_field()
                self.start_field(fieldname, schema[fieldname])
                current = fieldname
                prefix = pack_ushort(self._fieldid)
            if len(postings) == 1 and inline > 1:
                docnum, weight, vbytes = postings[0]
                entry = _single_entry(docnum, weight, vbytes, length_of(docnum, fieldname))
                if entry is not None:
                    add_entry(prefix + btext, entry)
                    continue
            if len(postings) < inline:
                self._add_inlined(btext, postings, [length_of(docnum, fieldname) for docnum, _, _ in postings])
                continue
            self.start_term(btext)
            for docnum, weight, vbytes in postings:
                add(docnum, weight, vbytes or b"", length_of(docnum, fieldname))
            finish_term()
        if current is not None:
            self.finish_field()

    def _add_inlined(self, btext: bytes, postings: list[tuple[int, float, bytes | None]], lengths: list[int]) -> None:
        """A term whose postings fit in its entry, written straight to the
        term index: what start_term, add and finish_term write through
        Whoosh's posting writer and term info, byte for byte, at a third of
        the cost (most terms of a crawl are rare: 86% on Python's
        documentation)."""
        ids = [docnum for docnum, _, _ in postings]
        raw = [weight for _, weight, _ in postings]
        stored = array("f", raw)  # the posting writer keeps weights as 32-bit floats
        values = [vbytes for _, _, vbytes in postings if vbytes]
        if len(values) != len(ids):
            values = [b""] * len(ids)  # existence-format fields keep no value bytes
        known = [length for length in lengths if length]
        entry = _inlined_entry(
            sum(stored),
            len(ids),
            min(known) if known else None,
            max(known, default=0),
            max(0, *raw),
            ids[0],
            ids[-1],
            ids,
            [int(weight) if weight == int(weight) else weight for weight in stored],
            values,
        )
        self._add_entry(pack_ushort(self._fieldid) + btext, entry)

    def add(self, docnum: int, weight: float, vbytes: bytes, length: int) -> None:
        # W3PostingsWriter.add_posting without its per-posting type checks.
        writer = self._postwriter
        if len(writer._ids) >= writer._blocklimit:
            writer._write_block()
        writer._ids.append(docnum)
        writer._weights.append(weight)
        if weight > writer._maxweight:
            writer._maxweight = weight
        if vbytes:
            writer._values.append(vbytes)
        if length:
            if writer._minlength is None or length < writer._minlength:
                writer._minlength = length
            if length > writer._maxlength:
                writer._maxlength = length


# Bytes of a pickle unpickled from a copy (a posting block's header fits).
_PICKLE_HEAD = 256


class _MappedFile(BufferFile):
    """A file inside a compound segment, read where the segment is mapped.

    Whoosh's ``BufferFile`` copies the whole file into a ``BytesIO`` when
    it is opened, for the few readers that seek and read: the term index
    and postings of every segment, at every opening of a searcher (60 ms of
    a command-line query on 10,000 pages). Lookups, seeks and reads slice
    the mapping; the copy is made only if something asks for the stream
    itself (``file``), and then it starts where the reads stopped.
    """

    def __init__(self, buf: Any, name: str | None = None) -> None:
        self._buf = buf
        self._name = name
        self._stream: BytesIO | None = None
        self.onclose = None
        self.is_real = False
        self.is_closed = False

    _position = 0

    def read(self, size: int | None = -1) -> bytes:
        start = self._position
        end = len(self._buf) if size is None or size < 0 else min(start + size, len(self._buf))
        self._position = max(start, end)
        return bytes(self._buf[start:end])

    def seek(self, offset: int, whence: int = 0) -> int:
        base = (0, self._position, len(self._buf))[whence]
        self._position = base + offset
        return self._position

    def tell(self) -> int:
        return self._position

    def readline(self, size: int | None = -1) -> bytes:
        start, end = self._position, len(self._buf)
        if size is not None and size >= 0:
            end = min(end, start + size)
        stop = start
        while stop < end:
            found = bytes(self._buf[stop : min(end, stop + 4096)]).find(b"\n")
            if found >= 0:
                return self.read(stop + found + 1 - start)
            stop += 4096
        return self.read(end - start)

    def read_pickle(self) -> Any:
        """The pickle at the position. A posting block's header (a tuple of
        six numbers, a few dozen bytes) is unpickled from a copy of its first
        ``_PICKLE_HEAD`` bytes: unpickling from this object costs a Python
        call for each of its twenty reads (157 posting lists of the 10,000
        page index read whole: 24.6 -> 21.3 ms). A longer pickle is read
        from here (a cut one never unpickles: it ends at its STOP opcode)."""
        start = self._position
        head = bytes(self._buf[start : start + _PICKLE_HEAD])
        try:
            found = pickle.loads(head)  # what follows the pickle is left alone
        except (EOFError, ValueError, pickle.UnpicklingError):
            return pickle.load(self)
        # Where it ends: the same value pickled again, as a block's header
        # is (protocol 2), when that is how it begins (half the time of
        # unpickling from a stream, which tells where it stopped).
        again = pickle.dumps(found, 2)
        if head.startswith(again):
            self._position = start + len(again)
        else:
            stream = BytesIO(head)
            pickle.load(stream)
            self._position = start + stream.tell()
        return found

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
        self.is_closed = True

    @property
    def file(self) -> BytesIO:
        if self._stream is None:
            self._stream = BytesIO(self._buf)
            self._stream.seek(self._position)
        return self._stream

    @file.setter
    def file(self, value: BytesIO) -> None:
        self._stream = value


def _open(storage: Any, name: str) -> Any:
    """``storage.open_file(name)``, without the copy when the file lies in a mapped compound segment."""
    inner = getattr(storage, "a", None)  # an OverlayStorage: the compound segment first
    source = getattr(inner, "_source", None)
    if isinstance(inner, CompoundStorage) and source is not None and inner.file_exists(name):
        offset, length = inner.range(name)
        return _MappedFile(memoryview(source)[offset : offset + length], name)
    return storage.open_file(name)


_Postings = list[tuple[int, float, "bytes | None"]]


class _Grouped:
    """A pool's postings, grouped by field and term in sorted order:
    ``((fieldname, btext), [(docnum, weight, vbytes), ...])``."""

    def __init__(self, groups: dict[str, dict[bytes, _Postings]]) -> None:
        self.groups = groups

    def __iter__(self) -> Iterator[tuple[str, bytes, int, float, bytes | None]]:
        for (fieldname, btext), postings in self.sorted_groups():
            for docnum, weight, vbytes in postings:
                yield fieldname, btext, docnum, weight, vbytes

    def sorted_groups(self) -> Iterator[tuple[tuple[str, bytes], _Postings]]:
        for fieldname in sorted(self.groups):
            terms = self.groups[fieldname]
            for btext in sorted(terms):
                yield (fieldname, btext), terms[btext]


# What a posting and a term's group take in memory, roughly: a tuple in a
# list, its float weight, an int docnum, a bytes value; a key tuple, its
# bytes text, a list, a dict slot.
_POSTING_BYTES = 160
_GROUP_BYTES = 260


class GroupedPool(PostingPool):
    """Whoosh's posting pool, keeping postings grouped by term as they come.

    Whoosh's pool keeps one tuple per posting and sorts them all at the end
    (450,000 on Python's documentation); documents come in docnum order,
    so grouping by (field, term) and sorting the terms gives the same
    order. Over ``limitmb`` the groups are written out as a sorted run,
    as Whoosh's pool does, and merged with the runs at the end.
    """

    def __init__(self, tempstore: Any, segment: Any, limitmb: int = 128, **kwargs: Any) -> None:
        super().__init__(tempstore, segment, limitmb=limitmb, **kwargs)
        self.groups: dict[str, dict[bytes, _Postings]] = {}  # by field, then term

    def add(self, item: tuple[str, bytes, int, float, bytes | None]) -> None:
        fieldname, btext, docnum, weight, vbytes = item
        self.group(fieldname, btext).append((docnum, weight, vbytes))
        self.grown(_POSTING_BYTES + len(vbytes or b""))

    def group(self, fieldname: str, btext: bytes) -> _Postings:
        """The postings of a term, to append ``(docnum, weight, vbytes)`` to."""
        terms = self.terms(fieldname)
        group = terms.get(btext)
        if group is None:
            group = terms[btext] = []
            self.currentsize += _GROUP_BYTES + len(btext)
        return group

    def terms(self, fieldname: str) -> dict[bytes, _Postings]:
        """The postings of a field's terms, by term (:meth:`group` adds one)."""
        terms = self.groups.get(fieldname)
        if terms is None:
            terms = self.groups[fieldname] = {}
            self.fieldnames.add(fieldname)
        return terms

    def grown(self, size: int) -> None:
        """Count the bytes of postings just appended; write a run if over the limit."""
        self.currentsize += size
        if self.currentsize > self.limit:
            self.save()

    def save(self) -> None:
        self.current = list(_Grouped(self.groups))
        self.groups = {}
        super().save()  # resets currentsize

    def items(self, maxfiles: int = 128) -> Any:
        if not self.runs:
            return _Grouped(self.groups)
        return super().items(maxfiles)


class Writer(SegmentWriter):
    """Whoosh's segment writer with the grouped posting pool, and its
    ``add_document`` without a tuple and a call per posting."""

    def __init__(self, ix: Any, limitmb: int = 128, **kwargs: Any) -> None:
        super().__init__(ix, limitmb=limitmb, **kwargs)
        self.pool = GroupedPool(self._tempstorage, self.newsegment, limitmb=limitmb)
        self._plain: dict[str, Postings | None] = {}  # by field: its postings without Whoosh's analysis
        self._unique = [name for name, field in self.schema.items() if field.unique]

    def update_document(self, **values: Any) -> None:
        """Whoosh's ``update_document``: the committed documents with the
        same unique fields deleted, then ``values`` added; the schema's
        unique fields found once (Whoosh sorts every field at each call),
        and no search when nothing is committed (a new index)."""
        unique = [(name, values[name]) for name in self._unique if name in values]
        if unique and self.segments:
            for docnum in self.searcher()._find_unique(unique):
                self.delete_document(docnum)
        self.add_document(**values)

    def add_document(self, **values: Any) -> None:  # noqa: PLR0912 (one branch per kind of field, in the writer's inner loop)
        special = [name for name in values if name.startswith("_")]
        if special:  # boosts and custom stored values: Whoosh's own path
            return super().add_document(**values)
        self._check_state()
        schema, docnum, perdocwriter = self.schema, self.docnum, self.perdocwriter
        pool = self.pool
        groups, size = pool.groups, 0
        names = sorted(values)
        self._check_fields(schema, names)
        perdocwriter.start_doc(docnum)
        try:
            for name in names:
                value = values[name]
                if value is None:
                    continue
                field = schema[name]
                length = 0
                if field.indexed:
                    scorable = field.scorable
                    if name not in self._plain:
                        self._plain[name] = plain_postings(field)
                    plain = self._plain[name]
                    postings = plain(value) if plain is not None and isinstance(value, str) else field.index(value)
                    if not isinstance(postings, list):
                        postings = list(postings)
                    terms = groups.get(name)
                    if terms is None:
                        terms = pool.terms(name)
                    for btext, _, weight, vbytes in postings:
                        group = terms.get(btext)
                        if group is None:
                            group = pool.group(name, btext)
                        group.append((docnum, weight, vbytes))
                    if scorable:
                        length = sum([posting[1] for posting in postings])
                        if isinstance(field, FastText) and isinstance(value, str):
                            length -= uncounted_tokens(value, field.cjk)
                    size += _POSTING_BYTES * len(postings) + sum([len(posting[3] or b"") for posting in postings])
                if field.separate_spelling() or field.vector:
                    raise ValueError(f"field {name!r}: spelling and vectors are not written by this writer")
                perdocwriter.add_field(name, field, value if field.stored else None, length)
                column = field.column_type
                if column:
                    perdocwriter.add_column_value(name, column, field.to_column_value(value))
        except Exception:
            perdocwriter.cancel_doc()
            raise
        perdocwriter.finish_doc()
        self._added = True
        self.docnum += 1
        pool.grown(size)


# The first byte of a pickle (protocol 2 and later); a zlib stream begins with 0x78.
_PICKLE = 0x80


class _StoredColumn(VarBytesColumn):
    """A document's stored fields: a pickle, compressed by zlib from
    :data:`_COMPRESS_FROM` bytes on (Whoosh's column compresses every
    one). Reads Whoosh's columns too, whose values are all compressed."""

    class Writer(VarBytesColumn.Writer):
        def add(self, docnum: int, value: Any) -> None:
            data = pickle.dumps(value, 2) if value is not None else b""
            if len(data) >= _COMPRESS_FROM:
                data = zlib.compress(data, 3)
            super().add(docnum, data)

    class Reader(VarBytesColumn.Reader):
        def __getitem__(self, docnum: int) -> Any:
            data = super().__getitem__(docnum)
            if not data:
                return None
            return pickle.loads(data if data[0] == _PICKLE else zlib.decompress(data))

        def __iter__(self) -> Iterator[Any]:
            for number in range(self._doccount):
                yield self[number]


# The column of stored fields, to read any segment's (Whoosh's too).
STORED_FIELDS = _StoredColumn()


class _PerDocWriter(W3PerDocWriter):
    """Whoosh's, with the stored fields in a :class:`_StoredColumn`."""

    def _create_column(self, fieldname: str, column: Any) -> None:
        super()._create_column(fieldname, STORED_FIELDS if fieldname == "_stored" else column)


class _PerDocReader(W3PerDocReader):
    """Columns (stored fields, lengths) read where the compound segment is
    mapped: Whoosh copies each column file whole at every opening (7 of a
    command-line query's 110 ms on 10,000 pages)."""

    def _get_column_file(self, fieldname: str) -> tuple[Any, int, int]:
        filename = W3Codec.column_filename(self._segment, fieldname)
        return _open(self._storage, filename), 0, self._storage.file_length(filename)

    def stored_fields(self, docnum: int) -> dict[str, Any]:
        return self._cached_reader("_stored", STORED_FIELDS)[docnum] or {}


# The data of a posting block this codec writes begins with this byte; a
# block Whoosh 3 wrote is a pickle, which begins with 0x80.
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


class PackedBlock:
    """A block of postings as this codec writes it: a head, the gaps between
    its ids (the first id itself) in the narrowest array that holds them,
    the weights (all 1, one for all, whole numbers, or float32s), then the
    values (the positions of a term in each document...), each read only
    when asked for.

    >>> block = PackedBlock(PackedBlock.pack([3, 7, 300], [1.0, 2.0, 1.0], [b"\\x01\\x04", b"ab", b"c"], None))
    >>> block.ids(), list(block.weights()), block.value(1), block.values(None)
    ([3, 7, 300], [1.0, 2.0, 1.0], b'ab', (b'\\x01\\x04', b'ab', b'c'))
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
        _, self.count, idtype, self.weight_kind, self.value_kind, self.value_count = _BLOCK_HEAD.unpack_from(data)
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
        parts = [b"", _packed(idtype, gaps)]
        first = weights[0]
        if all(weight == 1.0 for weight in weights):
            weight_kind = _ONES
        elif all(weight == first for weight in weights):
            weight_kind = _SAME
            parts.append(struct.pack("<f", first))
        elif all(weight.is_integer() and 0 <= weight < 1 << 16 for weight in weights):
            weight_kind = _COUNTS8 if max(weights) < 1 << 8 else _COUNTS16
            parts.append(_packed(_WEIGHT_TYPES[weight_kind], [int(weight) for weight in weights]))
        else:
            weight_kind = _FLOATS
            parts.append(_packed("f", weights))
        if fixedsize == 0 or not values:
            value_kind = _NO_VALUES
        elif fixedsize is not None and fixedsize > 0:
            value_kind = _FIXED
            parts.append(b"".join(values))
        else:
            lengths = [len(value) for value in values]
            value_kind = {"B": _LENGTHS8, "H": _LENGTHS16, "I": _LENGTHS32}[_narrowest(max(lengths))]
            parts += [_packed(_LENGTH_TYPES[value_kind], lengths), *values]
        parts[0] = _BLOCK_HEAD.pack(_PACKED, len(ids), idtype.encode(), weight_kind, value_kind, len(values))
        return b"".join(parts)

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


def block_data(data: bytes) -> Any:
    """A posting block's data, decompressed: a :class:`PackedBlock`, or the
    ``(ids, weights, values)`` Whoosh 3 pickled (an index written before)."""
    return PackedBlock(data) if data[0] == _PACKED else pickle.loads(data)


class _LeafMatcher(W3LeafMatcher):
    """Whoosh 3's posting list matcher, reading packed blocks (and Whoosh's
    own), finding a document in a block by bisection: Whoosh steps through
    the block's ids one ``next()`` at a time, up to 128 Python calls where a
    search reads positions of a few documents far apart (the proximity of a
    query's words)."""

    _i: int  # set by Whoosh's matcher: the current posting's place in its block

    def _read_data(self) -> None:
        data = self._postfile.get(self._dataoffset, self._nextoffset - self._dataoffset)
        self._data = block_data(zlib.decompress(data) if self._compression else data)

    def _packed(self) -> PackedBlock | None:
        """The block's data (read now if not yet), if it is packed; None for Whoosh's own."""
        if self._data is None:
            self._read_data()
        return self._data if isinstance(self._data, PackedBlock) else None

    def _read_ids(self) -> None:
        block = self._packed()
        if block is None:
            return super()._read_ids()
        self._ids = block.ids() if not self._byteids else block.gaps().tolist()
        return None

    def _read_weights(self) -> None:
        block = self._packed()
        if block is None:
            return super()._read_weights()
        weights = block.weights()
        if weights is None or isinstance(weights, float):
            weights = array("f", [1.0 if weights is None else weights] * self._blocklength)
        self._weights = weights
        return None

    def _read_values(self) -> None:
        block = self._packed()
        if block is None:
            return super()._read_values()
        self._values = block.values(self._fixedsize)
        return None

    def skip_to(self, targetid: int) -> None:
        if not self.is_active():
            raise ReadTooFar
        if targetid <= self.id():
            return
        if targetid > self._maxid:
            self._skip_to_block(lambda: targetid > self._maxid)
        if self.is_active() and not self._byteids:
            if self._ids is None:
                self._read_ids()
            # Ids ascend in a block, and the block's last is at least the target.
            self._i = max(self._i, min(bisect_left(self._ids, targetid, self._i), self._blocklength - 1))
        while self.is_active() and self.id() < targetid:
            self.next()


class Codec(W3Codec):
    def __init__(self, blocklimit: int = 128, compression: int = 3, inlinelimit: int = INLINE_LIMIT) -> None:
        super().__init__(blocklimit=blocklimit, compression=compression, inlinelimit=inlinelimit)

    def field_writer(self, storage: Any, segment: Any) -> Any:
        return _FieldWriter(self, storage, segment)

    def per_document_writer(self, storage: Any, segment: Any) -> Any:
        return _PerDocWriter(self, storage, segment)

    def per_document_reader(self, storage: Any, segment: Any) -> Any:
        return _PerDocReader(storage, segment)

    def terms_reader(self, storage: Any, segment: Any) -> Any:
        name = segment.make_filename(self.TERMS_EXT)
        return _TermsReader(
            self, _open(storage, name), storage.file_length(name), _open(storage, segment.make_filename(self.POSTS_EXT))
        )

    def postings_reader(self, dbfile: Any, terminfo: Any, format_: Any, term: Any = None, scorer: Any = None) -> Any:
        if terminfo.is_inlined():
            return super().postings_reader(dbfile, terminfo, format_, term=term, scorer=scorer)
        offset, length = terminfo.extent()
        return _LeafMatcher(dbfile, offset, length, format_, term=term, scorer=scorer)

    def postings_writer(self, dbfile: Any, byteids: bool = False) -> Any:
        return _PostingsWriter(
            dbfile,
            blocklimit=self._blocklimit,
            byteids=byteids,
            compression=self._compression,
            inlinelimit=self._inlinelimit,
        )

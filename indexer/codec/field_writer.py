"""Whoosh 3's field writer (the term index and the postings file of a
segment), writing a pool's grouped postings a term at a time: a term of a
few postings straight to its entry."""

from __future__ import annotations

from array import array
from typing import Any

from whoosh.codec.whoosh3 import W3FieldWriter
from whoosh.filedb.filetables import md5_hash
from whoosh.filedb.structfile import StructFile
from whoosh.system import pack_ushort
from whoosh.util.numeric import byte_to_length

from indexer.codec.entries import CompactTermInfo, inlined_entry, single_entry
from indexer.codec.files import AppendOnlyFile
from indexer.codec.perdoc import length_bytes
from indexer.codec.pool import Grouped
from indexer.codec.terms import KEY_VALUE_LENGTHS, term_hash

__all__ = ["FieldWriter"]


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
        if not hasattr(self._lengths, "_cached_reader"):  # not a Whoosh 3 segment: one lookup per document
            read = self._lengths.doc_field_length
            return [read(d, fieldname) or 0 for d in range(count)]
        # The lengths column holds a byte per document: read it at once
        # (a field no document has has no column: Whoosh would look for its
        # file again at every posting).
        raw = length_bytes(self._lengths, fieldname, count)
        return [_BYTE_LENGTHS[byte] for byte in raw] + [0] * (count - len(raw))


class FieldWriter(W3FieldWriter):
    """Whoosh 3's field writer: its files written in order, the term
    index's hash made from the digest's bytes, and the postings of a
    :class:`indexer.codec.pool.GroupedPool` written a term at a time."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self._tindex.hashfn is md5_hash:
            self._tindex.hashfn = term_hash

    def _create_file(self, ext: str) -> StructFile:
        return AppendOnlyFile(super()._create_file(ext))

    def _add_entry(self, key: bytes, entry: bytes) -> None:
        """``OrderedHashWriter.add`` of the term index (the same bytes), in one
        write: a term of a few postings costs little else."""
        terms = self._tindex
        if key <= terms.lastkey:
            raise ValueError(f"Keys must increase: {terms.lastkey!r}..{key!r}")
        dbfile = terms.dbfile
        position = dbfile.tell()
        terms.index.append(position)
        dbfile.write(KEY_VALUE_LENGTHS.pack(len(key), len(entry)) + key + entry)
        hashed = terms.hashfn(key)
        terms.buckets[hashed & 255].append((hashed, position))
        terms.lastkey = key

    def start_term(self, btext: bytes) -> None:
        self._btext = btext
        self._postwriter.start_postings(self._fieldobj.format, CompactTermInfo())

    def add_postings(self, schema: Any, lengths: Any, items: Any) -> None:
        lengths = _Lengths(lengths) if lengths else lengths
        if not isinstance(items, Grouped):
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
                entry = single_entry(docnum, weight, vbytes, length_of(docnum, fieldname))
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
        entry = inlined_entry(
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

"""The index's format: how it is written and read, over Whoosh 3's codec.

Whoosh's codec seam (``whoosh/codec/base.py``) has a per-document writer
and reader, a field writer, a postings writer and reader, a terms reader;
:class:`Codec` gives Whoosh its own of each, and the formats they write:

- :mod:`~indexer.codec.varint`: variable-length integers, the one reader
  and writer of them;
- :mod:`~indexer.codec.positions`: a posting's positions (:class:`CompactPositions`),
  as variable-length integers instead of a pickled list;
- :mod:`~indexer.codec.entries`: a term's entry (:class:`CompactTermInfo`),
  small posting lists inlined in it (``inlinelimit``, which saves a block
  write and a seek per rare term: most terms of a crawl are, a code name,
  a number) in bytes of their own instead of a pickle; with the positions,
  this halved the index;
- :mod:`~indexer.codec.blocks`: posting lists, their blocks packed in
  arrays (:class:`PackedBlock`) instead of a pickled tuple;
- :mod:`~indexer.codec.perdoc`: stored fields, and columns read in place.

Writing: :class:`FastText`, Whoosh's ``TEXT`` field whose ``index()`` takes
its terms and positions from :class:`indexer.analysis.TermPositions` (one
dictionary look-up per word; queries, highlighting and phrases still use
the analyzer, which gives the same terms), and :func:`plain_postings` for
ID and KEYWORD fields (:mod:`~indexer.codec.fields`); :class:`Writer`, a
segment writer whose pool (:class:`GroupedPool`) keeps postings grouped by
term, and which merges segments term by term, without the pool
(:mod:`~indexer.codec.merge`); the field writer
(:mod:`~indexer.codec.field_writer`) and postings writer
(:mod:`~indexer.codec.postings`). Reading: the terms reader
(:mod:`~indexer.codec.terms`), the posting matcher, and files read where
the segment is mapped (:mod:`~indexer.codec.files`).

The codec overrides and calls private parts of Whoosh:
:mod:`~indexer.codec.upstream` names them, and the Whoosh version they are
those of.
"""

from __future__ import annotations

from typing import Any

from whoosh.codec.whoosh3 import W3Codec

from indexer.codec.blocks import PackedBlock, block_places, read_block
from indexer.codec.entries import CompactTermInfo
from indexer.codec.field_writer import FieldWriter
from indexer.codec.fields import FastText, plain_postings
from indexer.codec.files import open_mapped
from indexer.codec.perdoc import STORED_FIELDS, PerDocReader, PerDocWriter, StoredColumns, length_bytes
from indexer.codec.pool import GroupedPool
from indexer.codec.positions import CompactPositions
from indexer.codec.postings import LeafMatcher, PostingsWriter
from indexer.codec.terms import TermsReader
from indexer.codec.upstream import WHOOSH_VERSION
from indexer.codec.writer import Writer
from indexer.layout import DamagedPostings

__all__ = [
    "FastText",
    "CompactPositions",
    "CompactTermInfo",
    "Codec",
    "GroupedPool",
    "Writer",
    "INLINE_LIMIT",
    "PackedBlock",
    "STORED_FIELDS",
    "StoredColumns",
    "WHOOSH_VERSION",
    "block_places",
    "length_bytes",
    "plain_postings",
    "read_block",
]

# Posting lists shorter than this live in the term index.
INLINE_LIMIT = 32


class Codec(W3Codec):
    """Whoosh 3's codec with this package's writers and readers."""

    def __init__(self, blocklimit: int = 128, compression: int = 3, inlinelimit: int = INLINE_LIMIT) -> None:
        super().__init__(blocklimit=blocklimit, compression=compression, inlinelimit=inlinelimit)

    def field_writer(self, storage: Any, segment: Any) -> Any:
        return FieldWriter(self, storage, segment)

    def per_document_writer(self, storage: Any, segment: Any) -> Any:
        return PerDocWriter(self, storage, segment)

    def per_document_reader(self, storage: Any, segment: Any) -> Any:
        return PerDocReader(storage, segment)

    def terms_reader(self, storage: Any, segment: Any) -> Any:
        name = segment.make_filename(self.TERMS_EXT)
        terms = open_mapped(storage, name)
        return TermsReader(
            self, terms, storage.file_length(name), open_mapped(storage, segment.make_filename(self.POSTS_EXT))
        )

    def postings_reader(self, dbfile: Any, terminfo: Any, format_: Any, term: Any = None, scorer: Any = None) -> Any:
        if terminfo.is_inlined():
            return super().postings_reader(dbfile, terminfo, format_, term=term, scorer=scorer)
        offset, length = terminfo.extent()
        try:
            return LeafMatcher(dbfile, offset, length, format_, term=term, scorer=scorer)
        except Exception as exc:
            if type(exc) is not Exception:
                raise
            # Whoosh's block reader raises a bare Exception ("Block tag error").
            raise DamagedPostings(f"a posting list that does not read: {exc}") from None

    def postings_writer(self, dbfile: Any, byteids: bool = False) -> Any:
        return PostingsWriter(
            dbfile,
            blocklimit=self._blocklimit,
            byteids=byteids,
            compression=self._compression,
            inlinelimit=self._inlinelimit,
        )


# An index's table of contents pickles its schema (its fields, their
# formats) and each segment's codec, each class by the name of its module:
# these are known by the package's, which stays when the modules in it move.
for _pickled in (FastText, CompactPositions, Codec):
    _pickled.__module__ = __name__

"""What the codec relies on in Whoosh beyond its public interface: the
version it was written against, and the private names it overrides or
calls (and those :mod:`search.postings` and :mod:`search.topdocs` read its
files through).

Whoosh may change any of them in any release. A test fails while the
installed Whoosh is another version: check each name below against it
(there still, and still meaning what the codec takes it to mean), then
raise :data:`WHOOSH_VERSION`. Another test fails when the codec uses a
private name of Whoosh this list lacks.
"""

from __future__ import annotations

__all__ = ["WHOOSH_VERSION", "PRIVATE_NAMES"]

# The version of Whoosh-Reloaded whose private names are those below.
WHOOSH_VERSION = "2.7.5"

# By owner (a module, or a class by its module and name): the private
# names overridden, called, read or set.
PRIVATE_NAMES: dict[str, tuple[str, ...]] = {
    "whoosh.codec.whoosh3": ("_lenfield",),
    "whoosh.codec.whoosh3.W3Codec": ("_blocklimit", "_compression", "_inlinelimit"),
    "whoosh.codec.base.PerDocWriterWithColumns": ("_create_column",),
    "whoosh.codec.whoosh3.W3PerDocReader": ("_cached_reader", "_get_column_file", "_segment", "_storage"),
    "whoosh.codec.whoosh3.W3FieldWriter": (
        "_btext",
        "_codec",
        "_create_file",
        "_fieldid",
        "_fieldobj",
        "_postwriter",
        "_tindex",
    ),
    "whoosh.codec.whoosh3.W3PostingsWriter": (
        "_blockcount",
        "_blocklimit",
        "_byteids",
        "_compression",
        "_format",
        "_ids",
        "_inlinelimit",
        "_maxlength",
        "_maxweight",
        "_minlength",
        "_new_block",
        "_postfile",
        "_terminfo",
        "_values",
        "_weights",
        "_write_block",
    ),
    "whoosh.codec.whoosh3.W3LeafMatcher": (
        "_blocklength",
        "_compression",
        "_data",
        "_dataoffset",
        "_fixedsize",
        "_i",
        "_ids",
        "_maxid",
        "_nextoffset",
        "_postfile",
        "_read_data",
        "_read_ids",
        "_read_values",
        "_read_weights",
        "_skip_to_block",
        "_values",
        "_weights",
    ),
    "whoosh.reading.TermInfo": ("_df", "_maxid", "_maxlength", "_maxweight", "_minid", "_minlength", "_weight"),
    "whoosh.codec.whoosh3.W3TermInfo": ("_inlined", "_length", "_offset", "_struct"),
    "whoosh.codec.whoosh3.W3TermsReader": ("_keycoder", "_keydecoder", "_postfile", "_tindex"),
    "whoosh.codec.whoosh3.W3FieldCursor": ("_datalen", "_datapos", "_pos", "_tindex"),
    "whoosh.columns.ColumnReader": ("_doccount",),
    "whoosh.columns.FixedBytesColumn.Reader": ("_basepos", "_count", "_dbfile"),
    "whoosh.filedb.structfile.StructFile": ("_name",),
    "whoosh.filedb.structfile.BufferFile": ("_buf",),
    "whoosh.filedb.compound.CompoundStorage": ("_source",),
    "whoosh.reading.SegmentReader": ("_perdoc", "_terms"),
    "whoosh.searching.Searcher": ("_find_unique",),
    "whoosh.writing.SegmentWriter": ("_added", "_check_fields", "_check_state", "_tempstorage"),
}

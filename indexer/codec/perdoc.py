"""What the codec keeps per document: stored fields in a column of their
own format, and columns (stored fields, lengths) read where the segment is
mapped."""

from __future__ import annotations

import pickle
import zlib
from bisect import bisect_right
from collections.abc import Iterator
from typing import Any

from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3Codec, W3PerDocReader, W3PerDocWriter, _lenfield
from whoosh.columns import VarBytesColumn

from indexer.codec.blocks import COMPRESS_FROM
from indexer.codec.files import open_mapped
from indexer.layout import DamagedData

__all__ = ["STORED_FIELDS", "PerDocWriter", "PerDocReader", "StoredColumns", "length_bytes"]

# The first byte of a pickle (protocol 2 and later); a zlib stream begins with 0x78.
_PICKLE = 0x80


class _StoredColumn(VarBytesColumn):
    """A document's stored fields: a pickle, compressed by zlib from
    :data:`COMPRESS_FROM` bytes on (Whoosh's column compresses every
    one). Reads Whoosh's columns too, whose values are all compressed."""

    class Writer(VarBytesColumn.Writer):
        def add(self, docnum: int, value: Any) -> None:
            data = pickle.dumps(value, 2) if value is not None else b""
            if len(data) >= COMPRESS_FROM:
                data = zlib.compress(data, 3)
            super().add(docnum, data)

    class Reader(VarBytesColumn.Reader):
        def __getitem__(self, docnum: int) -> Any:
            data = super().__getitem__(docnum)
            if not data:
                return None
            try:
                return pickle.loads(data if data[0] == _PICKLE else zlib.decompress(data))
            except Exception as exc:  # bytes changed in a pickle fail in many ways
                raise DamagedData(f"stored fields of document {docnum} ({type(exc).__name__}: {exc})") from None

        def __iter__(self) -> Iterator[Any]:
            for number in range(self._doccount):
                yield self[number]


# The column of stored fields, to read any segment's (Whoosh's too).
STORED_FIELDS = _StoredColumn()


class PerDocWriter(W3PerDocWriter):
    """Whoosh's, with the stored fields in a :class:`_StoredColumn`."""

    def _create_column(self, fieldname: str, column: Any) -> None:
        super()._create_column(fieldname, STORED_FIELDS if fieldname == "_stored" else column)


class PerDocReader(W3PerDocReader):
    """Columns (stored fields, lengths) read where the compound segment is
    mapped: Whoosh copies each column file whole at every opening (7 of a
    command-line query's 110 ms on 10,000 pages)."""

    def _get_column_file(self, fieldname: str) -> tuple[Any, int, int]:
        filename = W3Codec.column_filename(self._segment, fieldname)
        return open_mapped(self._storage, filename), 0, self._storage.file_length(filename)

    def stored_fields(self, docnum: int) -> dict[str, Any]:
        return self._cached_reader("_stored", STORED_FIELDS)[docnum] or {}


def length_bytes(perdoc: Any, fieldname: str, count: int) -> bytes:
    """The length byte of each of a segment's first ``count`` documents in
    a field, as its lengths column holds them (a per-document reader's):
    fewer when the last documents have none, none when no document has the
    field (it has no column)."""
    if not count:
        return b""
    column = perdoc._cached_reader(_lenfield(fieldname), LENGTHS_COLUMN)
    if column is None:
        return b""
    return bytes(column._dbfile.get(column._basepos, min(column._count, count)))


class StoredColumns:
    """Each segment's column of stored fields, read without the layers of
    Whoosh's readers (a multi-reader, a segment reader, a per-document
    reader, each a Python call): what ``Searcher.stored_fields`` answers."""

    def __init__(self, starts: list[int], columns: list[Any], names: frozenset[str]) -> None:
        self.starts = starts
        self.columns = columns
        self.names = names

    @classmethod
    def of(cls, segments: list[tuple[Any, Any, int]], schema: Any) -> StoredColumns | None:
        """The columns of Whoosh 3 segments; None for other readers."""
        columns = []
        for _, reader, _ in segments:
            perdoc = getattr(reader, "_perdoc", None)
            if perdoc is None or not hasattr(perdoc, "_cached_reader"):
                return None
            columns.append(perdoc._cached_reader("_stored", STORED_FIELDS))
        return cls([offset for _, _, offset in segments], columns, frozenset(schema.names()))

    def read(self, docnum: int) -> dict[str, Any]:
        number = bisect_right(self.starts, docnum) - 1
        return self.checked(self.columns[number][docnum - self.starts[number]])

    def checked(self, found: dict[str, Any] | None) -> dict[str, Any]:
        """A document's stored fields as its column holds them, without fields since removed from the schema."""
        if not found:
            return {}
        if found.keys() <= self.names:
            return found
        return {name: value for name, value in found.items() if name in self.names}

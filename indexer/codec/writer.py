"""Whoosh's segment writer, adding a document's postings to a grouped pool
without a tuple and a call per posting."""

from __future__ import annotations

from typing import Any

from whoosh.reading import SegmentReader
from whoosh.writing import SegmentWriter

from indexer.analysis import uncounted_tokens
from indexer.codec.fields import FastText, Postings, plain_postings
from indexer.codec.merge import SegmentPostings, renumbering
from indexer.codec.pool import POSTING_BYTES, GroupedPool

__all__ = ["Writer"]


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

    def add_reader(self, reader: Any) -> None:
        """A segment of this index merged into this writer's (Whoosh's merge
        policies call this): see :meth:`add_segment`."""
        if not isinstance(reader, SegmentReader):
            return super().add_reader(reader)
        self._merge(reader, self.storage)
        return None

    def add_segment(self, storage: Any, segment: Any) -> None:
        """A segment (of the index in ``storage``) merged into this writer's:
        its documents (stored fields, lengths, columns) now, the live ones
        only, its postings at the commit, merged term by term with the
        others (:mod:`indexer.codec.merge`), never through the pool."""
        reader = SegmentReader(storage, self.schema, segment)
        try:
            self._merge(reader, storage)
        finally:
            reader.close()

    def _merge(self, reader: SegmentReader, storage: Any) -> None:
        self._check_state()
        first = self.docnum
        names = set(self.schema.names()) | {name for name in reader.indexed_field_names() if name in self.schema}
        docmap = self.write_per_doc(names, reader)
        numbers = renumbering(docmap, reader.doc_count_all())
        # Whoosh's merge policies close the reader: the segment is opened again to be merged.
        self.pool.merge_in(SegmentPostings(storage, self.schema, reader.segment(), first, numbers))
        self._added = True

    def add_document(self, **values: Any) -> None:
        if self.pool.merging:
            raise ValueError("documents are added to a writer before segments are merged into it")
        if any(name.startswith("_") for name in values):  # boosts and custom stored values: Whoosh's own path
            return super().add_document(**values)
        self._check_state()
        names = sorted(values)
        self._check_fields(self.schema, names)
        perdocwriter = self.perdocwriter
        perdocwriter.start_doc(self.docnum)
        size = 0
        try:
            for name in names:
                value = values[name]
                if value is not None:
                    size += self._add_field(name, value)
        except Exception:
            perdocwriter.cancel_doc()
            raise
        perdocwriter.finish_doc()
        self._added = True
        self.docnum += 1
        self.pool.grown(size)
        return None

    def _add_field(self, name: str, value: Any) -> int:
        """Add a field of the document being written: its postings to the
        pool, its length, stored value and column value to the per-document
        writer. How many bytes its postings take in the pool."""
        field = self.schema[name]
        length = size = 0
        if field.indexed:
            postings = self._postings(name, field, value)
            self._pool(name, postings)
            if field.scorable:
                length = sum([posting[1] for posting in postings])
                if isinstance(field, FastText) and isinstance(value, str):
                    length -= uncounted_tokens(value, field.cjk)
            size = POSTING_BYTES * len(postings) + sum([len(posting[3] or b"") for posting in postings])
        if field.separate_spelling() or field.vector:
            raise ValueError(f"field {name!r}: spelling and vectors are not written by this writer")
        self.perdocwriter.add_field(name, field, value if field.stored else None, length)
        column = field.column_type
        if column:
            self.perdocwriter.add_column_value(name, column, field.to_column_value(value))
        return size

    def _postings(self, name: str, field: Any, value: Any) -> list[tuple[bytes, int, float, bytes]]:
        """The postings of a field's value: ``(term, count, weight, value)``
        each, by :func:`plain_postings` where it can."""
        if name not in self._plain:
            self._plain[name] = plain_postings(field)
        plain = self._plain[name]
        postings = plain(value) if plain is not None and isinstance(value, str) else field.index(value)
        return postings if isinstance(postings, list) else list(postings)

    def _pool(self, name: str, postings: list[tuple[bytes, int, float, bytes]]) -> None:
        """Add the postings of a field of the document being written to the pool."""
        pool, docnum = self.pool, self.docnum
        terms = pool.groups.get(name)
        if terms is None:
            terms = pool.terms(name)
        for btext, _, weight, vbytes in postings:
            group = terms.get(btext)
            if group is None:
                group = pool.group(name, btext)
            group.append((docnum, weight, vbytes))

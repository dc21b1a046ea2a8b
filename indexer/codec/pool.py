"""The postings of the documents a writer adds, grouped by term as they come."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby
from operator import itemgetter
from typing import Any, Protocol

from whoosh.writing import PostingPool

__all__ = ["GroupedPool", "Grouped", "Group", "GroupSource", "MergedGroups", "POSTING_BYTES", "merged_groups"]

# The postings of one term: (docnum, weight, vbytes) each.
Group = list[tuple[int, float, "bytes | None"]]
# A term's postings, in a group: its key, (field name, term bytes).
Key = tuple[str, bytes]
_KEY = itemgetter(0)


class GroupSource(Protocol):
    """Groups from elsewhere, to be merged with a pool's (a segment's, :mod:`indexer.codec.merge`)."""

    def groups(self) -> Iterator[tuple[Key, Group]]: ...

    def close(self) -> None: ...


class Grouped:
    """A pool's postings, grouped by field and term in sorted order:
    ``((fieldname, btext), [(docnum, weight, vbytes), ...])``."""

    def __init__(self, groups: dict[str, dict[bytes, Group]]) -> None:
        self.groups = groups

    def __iter__(self) -> Iterator[tuple[str, bytes, int, float, bytes | None]]:
        for (fieldname, btext), postings in self.sorted_groups():
            for docnum, weight, vbytes in postings:
                yield fieldname, btext, docnum, weight, vbytes

    def sorted_groups(self) -> Iterator[tuple[Key, Group]]:
        for fieldname in sorted(self.groups):
            terms = self.groups[fieldname]
            for btext in sorted(terms):
                yield (fieldname, btext), terms[btext]


class MergedGroups(Grouped):
    """The groups of several sources merged (:func:`merged_groups`), to be written as a pool's."""

    def __init__(self, sources: Sequence[Iterable[tuple[Key, Group]]]) -> None:
        super().__init__({})
        self.sources = sources

    def sorted_groups(self) -> Iterator[tuple[Key, Group]]:
        return merged_groups(self.sources)


def merged_groups(sources: Sequence[Iterable[tuple[Key, Group]]]) -> Iterator[tuple[Key, Group]]:
    """The groups of ``sources`` (each sorted by key, its documents after
    those of the sources before it) as one sorted stream: a term's postings
    those of each source that has it, in the sources' order.

    >>> a = [(("body", b"a"), [(0, 1.0, None)]), (("body", b"c"), [(1, 1.0, None)])]
    >>> b = [(("body", b"a"), [(2, 2.0, None)]), (("body", b"b"), [(3, 1.0, None)])]
    >>> [(key[1], [docnum for docnum, _, _ in group]) for key, group in merged_groups([a, b])]
    [(b'a', [0, 2]), (b'b', [3]), (b'c', [1])]
    """
    if len(sources) == 1:
        yield from sources[0]
        return
    # heapq.merge is stable: of equal keys, the earlier source's comes first.
    for key, same in groupby(heapq.merge(*sources, key=_KEY), key=_KEY):
        groups = [postings for _, postings in same]
        yield key, groups[0] if len(groups) == 1 else [posting for postings in groups for posting in postings]


# What a posting and a term's group take in memory, roughly: a tuple in a
# list, its float weight, an int docnum, a bytes value; a key tuple, its
# bytes text, a list, a dict slot.
POSTING_BYTES = 160
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
        self.groups: dict[str, dict[bytes, Group]] = {}  # by field, then term
        # Segments merged in, after the documents added (their postings never in the pool).
        self.merging: list[GroupSource] = []

    def merge_in(self, segment: GroupSource) -> None:
        """Merge a segment's postings with the pool's when they are written."""
        self.merging.append(segment)

    def add(self, item: tuple[str, bytes, int, float, bytes | None]) -> None:
        fieldname, btext, docnum, weight, vbytes = item
        self.group(fieldname, btext).append((docnum, weight, vbytes))
        self.grown(POSTING_BYTES + len(vbytes or b""))

    def group(self, fieldname: str, btext: bytes) -> Group:
        """The postings of a term, to append ``(docnum, weight, vbytes)`` to."""
        terms = self.terms(fieldname)
        group = terms.get(btext)
        if group is None:
            group = terms[btext] = []
            self.currentsize += _GROUP_BYTES + len(btext)
        return group

    def terms(self, fieldname: str) -> dict[bytes, Group]:
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
        self.current = list(Grouped(self.groups))
        self.groups = {}
        super().save()  # resets currentsize

    def items(self, maxfiles: int = 128) -> Any:
        if not self.merging:
            return Grouped(self.groups) if not self.runs else super().items(maxfiles)
        own = Grouped(self.groups).sorted_groups() if not self.runs else _grouped(super().items(maxfiles))
        return MergedGroups([own, *[segment.groups() for segment in self.merging]])

    def cleanup(self) -> None:
        for segment in self.merging:
            segment.close()
        self.merging = []
        super().cleanup()


def _grouped(postings: Iterator[tuple[str, bytes, int, float, bytes | None]]) -> Iterator[tuple[Key, Group]]:
    """Sorted postings, ``(fieldname, btext, docnum, weight, vbytes)`` each, grouped by term."""
    for key, same in groupby(postings, key=lambda posting: (posting[0], posting[1])):
        yield key, [(docnum, weight, vbytes) for _, _, docnum, weight, vbytes in same]

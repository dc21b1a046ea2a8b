"""The postings of the documents a writer adds, grouped by term as they come."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from whoosh.writing import PostingPool

__all__ = ["GroupedPool", "Grouped", "Group", "POSTING_BYTES"]

# The postings of one term: (docnum, weight, vbytes) each.
Group = list[tuple[int, float, "bytes | None"]]


class Grouped:
    """A pool's postings, grouped by field and term in sorted order:
    ``((fieldname, btext), [(docnum, weight, vbytes), ...])``."""

    def __init__(self, groups: dict[str, dict[bytes, Group]]) -> None:
        self.groups = groups

    def __iter__(self) -> Iterator[tuple[str, bytes, int, float, bytes | None]]:
        for (fieldname, btext), postings in self.sorted_groups():
            for docnum, weight, vbytes in postings:
                yield fieldname, btext, docnum, weight, vbytes

    def sorted_groups(self) -> Iterator[tuple[tuple[str, bytes], Group]]:
        for fieldname in sorted(self.groups):
            terms = self.groups[fieldname]
            for btext in sorted(terms):
                yield (fieldname, btext), terms[btext]


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
        if not self.runs:
            return Grouped(self.groups)
        return super().items(maxfiles)

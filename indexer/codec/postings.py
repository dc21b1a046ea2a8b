"""Whoosh 3's postings writer and matcher, with blocks of
:mod:`indexer.codec.blocks` and small posting lists inlined in their term's
entry."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from typing import Any

from whoosh.codec.whoosh3 import W3LeafMatcher, W3PostingsWriter
from whoosh.matching import ReadTooFar

from indexer.codec.blocks import PackedBlock, block_bytes, framed_block

__all__ = ["PostingsWriter", "LeafMatcher"]


class PostingsWriter(W3PostingsWriter):
    """Whoosh 3's, writing :class:`PackedBlock` data, and posting lists
    shorter than its ``inlinelimit`` inlined. whoosh-reloaded 2.7.5 breaks
    every ``inlinelimit`` above 1 (its postings writer calls ``set_inline``,
    the term info has ``set_inlined``): this one calls the right one."""

    _terminfo: Any  # set by Whoosh's writer

    def _write_block(self, last: bool = False) -> None:
        if self._byteids:  # a term vector's block: Whoosh's own
            return super()._write_block(last)
        first = not self._blockcount
        self._terminfo.add_block(self)
        ids = self._ids
        data = PackedBlock.pack(ids, self._weights, self._values, self._format.fixed_value_size())
        head = (len(ids), ids[-1], self._maxweight, self._minlength, self._maxlength)
        self._postfile.write(framed_block(data, self._compression, head, first, last))
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


class LeafMatcher(W3LeafMatcher):
    """Whoosh 3's posting list matcher, reading packed blocks, finding a
    document in a block by bisection: Whoosh steps through the block's ids
    one ``next()`` at a time, up to 128 Python calls where a search reads
    positions of a few documents far apart (the proximity of a query's
    words)."""

    _i: int  # set by Whoosh's matcher: the current posting's place in its block
    _data: PackedBlock | None

    def _read_data(self) -> None:
        self._data = PackedBlock(block_bytes(self._postfile, self._dataoffset, self._nextoffset, self._compression))

    def _block(self) -> PackedBlock:
        """The block's data, read now if not yet."""
        if self._data is None:
            self._read_data()
        assert self._data is not None
        return self._data

    def _read_ids(self) -> None:
        self._ids = self._block().ids()

    def _read_weights(self) -> None:
        weights = self._block().weights()
        if weights is None or isinstance(weights, float):
            weights = array("f", [1.0 if weights is None else weights] * self._blocklength)
        self._weights = weights

    def _read_values(self) -> None:
        self._values = self._block().values(self._fixedsize)

    def skip_to(self, targetid: int) -> None:
        if not self.is_active():
            raise ReadTooFar
        if targetid <= self.id():
            return
        if targetid > self._maxid:
            self._skip_to_block(lambda: targetid > self._maxid)
        if self.is_active():
            if self._ids is None:
                self._read_ids()
            # Ids ascend in a block, and the block's last is at least the target.
            self._i = max(self._i, min(bisect_left(self._ids, targetid, self._i), self._blocklength - 1))
        while self.is_active() and self.id() < targetid:
            self.next()

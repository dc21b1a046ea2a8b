"""The index's files as the codec writes and reads them: written in order
without asking the system where it is, read where the segment is mapped."""

from __future__ import annotations

import pickle
import sys
from array import array
from io import BytesIO
from typing import Any

from whoosh.filedb.compound import CompoundStorage
from whoosh.filedb.structfile import BufferFile, StructFile

__all__ = ["AppendOnlyFile", "MappedFile", "open_mapped"]


class AppendOnlyFile(StructFile):
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


# Bytes of a pickle unpickled from a copy (a posting block's header fits).
_PICKLE_HEAD = 256


class MappedFile(BufferFile):
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


def open_mapped(storage: Any, name: str) -> Any:
    """``storage.open_file(name)``, without the copy when the file lies in a mapped compound segment."""
    inner = getattr(storage, "a", None)  # an OverlayStorage: the compound segment first
    source = getattr(inner, "_source", None)
    if isinstance(inner, CompoundStorage) and source is not None and inner.file_exists(name):
        offset, length = inner.range(name)
        return MappedFile(memoryview(source)[offset : offset + length], name)
    return storage.open_file(name)

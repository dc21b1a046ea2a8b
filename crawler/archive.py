"""The repository: every fetched response kept as WARC records (pure).

What came off the wire, request line, headers and body, is written in the
web-archive standard (WARC/1.1, through warcio), one gzip member a record,
in ``DATA_DIR/archive`` (ARCHITECTURE.md, item 31, the Google paper's repository):
any WARC tool reads it, and ``python -m indexer rebuild`` rebuilds the
index from it without the network.  :class:`ArchiveWriter` writes each
:class:`Fetch` as three records (its docstring gives their layout and the
files'); :class:`ArchiveReader` reads every writer's fetches back, in order.
"""

from __future__ import annotations

import heapq
import io
import json
import logging
import os
import re
import socket
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http import HTTPStatus
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from crawler.codings import decode

logger = logging.getLogger(__name__)

__all__ = [
    "ArchiveReader",
    "ArchiveWriter",
    "Damage",
    "Fetch",
    "INDEX_SUFFIX",
    "IndexedResponse",
    "REDACTED",
    "ROLES",
    "decode_body",
    "escaped",
    "index_line",
    "index_of",
    "joined_headers",
    "scan",
]

#: Why a request was made: a page (or anything a link led to), a site's
#: robots.txt, a sitemap, or a probe for the site's "not found" answer.
ROLES = ("page", "robots", "sitemap", "probe")
#: What an archived header holding credentials says instead.
REDACTED = "[redacted]"

_SUFFIX = ".warc.gz"
#: The file beside each WARC file that says where its responses are (:func:`index_line`).
INDEX_SUFFIX = ".cdxj"
_NAME = re.compile(r"^(?P<writer>lantern-\d{20}-.+-\d+)-(?P<serial>\d{5,})\.warc\.gz$")
_DATE = "%Y-%m-%dT%H:%M:%S.%fZ"
_GZIP_MAGIC = b"\x1f\x8b\x08"  # a gzip member's first bytes (deflate)
_SCAN_CHUNK = 1 << 16
# Bytes of one record, decompressed, at most: more is damage, not a fetch
# (a record holds one body of at most DOWNLOAD_MAXSIZE, 10 MiB by default).
_RECORD_MAX = 1 << 30
_SHOWN = 32  # damaged bytes a warning shows, escaped
_PROBE_STEP = 16  # bytes fed at a time to find where a damaged member fails
# Records are written with a faster gzip level than warcio's 9: on
# python3-doc's pages, level 3 compresses in 0.4 ms a page (6: 0.9 ms) to
# 14% of the bytes (6: 12%).
_GZIP_LEVEL = 3


@dataclass
class Fetch:
    """One request and the response it got, as archived and as read back.

    ``request_headers`` and ``headers`` are ``(name, value)`` pairs in order,
    values decoded as Latin-1 (the bytes of HTTP); ``body`` is the payload as
    received; ``date`` is the UTC time the response was archived.
    ``protocol`` is the HTTP version of the response's status line,
    ``request_protocol`` that of the request line as sent: they differ when
    a server answers an HTTP/1.1 request in HTTP/1.0.
    """

    url: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    method: str = "GET"
    request_headers: list[tuple[str, str]] = field(default_factory=list)
    protocol: str = "HTTP/1.1"
    request_protocol: str = "HTTP/1.1"
    role: str = "page"
    depth: int = 0
    redirects: list[str] = field(default_factory=list)
    truncated: bool = False
    date: str = ""
    members_only: bool = False  # fetched with a site owner's credentials

    def header_values(self, name: str) -> list[str]:
        """Every value of header ``name``, in order."""
        lowered = name.lower()
        return [value for key, value in self.headers if key.lower() == lowered]


def joined_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Headers as one string a name, repeated values joined with ``,`` (as
    Scrapy's ``Headers.to_unicode_dict()`` hands them to the spider).

    >>> joined_headers([("Set-Cookie", "a"), ("Content-Type", "text/html"), ("set-cookie", "b")])
    {'Set-Cookie': 'a,b', 'Content-Type': 'text/html'}
    """
    joined: dict[str, str] = {}
    names: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        if key in joined:
            joined[key] += "," + value
        else:
            joined[key] = value
            names[key] = name
    return {names[key]: value for key, value in joined.items()}


# --- Writing ------------------------------------------------------------------------


class _Gzip:
    """warcio's per-record gzip wrapper, at :data:`_GZIP_LEVEL`."""

    def __init__(self, out: BinaryIO) -> None:
        self.compressor = zlib.compressobj(_GZIP_LEVEL, zlib.DEFLATED, zlib.MAX_WBITS + 16)
        self.out = out

    def write(self, data: bytes) -> None:
        self.out.write(self.compressor.compress(data))

    def flush(self) -> None:
        self.out.write(self.compressor.flush())
        self.out.flush()


class _Writer(WARCWriter):
    """warcio's writer, each record its own gzip member at our level."""

    def _write_warc_record(self, out: BinaryIO, record: Any) -> None:
        self.gzip = False
        super()._write_warc_record(_Gzip(out), record)


class ArchiveWriter:
    """Appends fetches to gzip-compressed WARC files in ``directory``,
    starting a new file once one holds ``max_bytes``.

    Each fetch is three records, sharing ``WARC-Target-URI`` and ``WARC-Date``
    and tied to the response by ``WARC-Concurrent-To``, written in this order:

    - ``request``: the request line and headers as sent;
    - ``metadata`` (``application/warc-fields``): what the crawl knew of the
      request, Heritrix-style: ``via`` (the URL that redirected here), and the
      crawl's own ``lantern-role`` (page, robots, sitemap, probe),
      ``lantern-depth``, one ``lantern-redirect`` per URL of the redirect
      chain that led here, and ``lantern-members-only: true`` for a page
      fetched with a site owner's credentials (their headers, ``Authorization``
      and ``Cookie`` of the request and ``Set-Cookie`` of the response, are
      replaced by :data:`REDACTED`: ARCHITECTURE.md, item 12);
    - ``response``: the status line, the headers and the body as received
      (still compressed when the site compressed it). A body cut off by
      ``DOWNLOAD_MAXSIZE`` or stopped after its headers carries
      ``WARC-Truncated: length``.

    The response comes last, so a crawl killed while writing leaves at worst an
    incomplete last fetch, which a reader skips and counts.

    Beside each file, ``<file>.cdxj`` gets a line for each fetch once the
    file holds it whole (:func:`index_line`): where its response starts, so
    that search finds a cached copy without reading the file. It is written
    after the file is flushed, so it never names a record the file does not
    hold; a crawl killed between the two leaves it a fetch short, and a
    reader reads the file from where its index ends.

    Files are named ``lantern-<process start, UTC>-<host>-<pid>-<serial>.warc.gz``
    and created exclusively, so several crawl processes may share one
    directory. Reading merges every writer's files by ``WARC-Date``
    (:class:`ArchiveReader`).
    """

    def __init__(
        self,
        directory: str | Path,
        max_bytes: int,
        software: str = "Lantern",
        settings: dict[str, Any] | None = None,
    ) -> None:
        if max_bytes < 1:
            raise ValueError("max_bytes must be positive")
        self.directory = Path(directory)
        self.max_bytes = max_bytes
        self.software = software
        self.settings = settings or {}
        started = datetime.now(UTC).strftime("%Y%m%d%H%M%S%f")
        host = re.sub(r"[^A-Za-z0-9.]+", "_", socket.gethostname()) or "host"
        self.prefix = f"lantern-{started}-{host}-{os.getpid()}"
        self.files: list[Path] = []
        self._serial = 0
        self._file: BinaryIO | None = None
        self._index: BinaryIO | None = None
        self._warc = _Writer(io.BytesIO(), warc_version="1.1")

    def _open(self) -> BinaryIO:
        self.directory.mkdir(parents=True, exist_ok=True)
        while True:
            path = self.directory / f"{self.prefix}-{self._serial:05d}{_SUFFIX}"
            self._serial += 1
            try:
                out = open(path, "xb")  # never another writer's file
            except FileExistsError:
                continue
            self.files.append(path)
            self._file = out
            self._index = self._open_index(path)
            self._warc.out = out
            self._warc.write_record(
                self._warc.create_warcinfo_record(
                    path.name,
                    {
                        "software": self.software,
                        "format": "WARC File Format 1.1",
                        "conformsTo": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
                        "hostname": socket.gethostname(),
                        "lantern-settings": json.dumps(self.settings, sort_keys=True),
                    },
                )
            )
            return out

    def write(self, fetch: Fetch) -> int:
        """Archive one fetch (request, metadata, response); bytes written."""
        out = self._file or self._open()
        start = out.tell()
        date = fetch.date or datetime.now(UTC).strftime(_DATE)
        warc = self._warc
        base = {"WARC-Date": date}
        response_headers = dict(base)
        if fetch.truncated:
            response_headers["WARC-Truncated"] = "length"
        response = warc.create_warc_record(
            fetch.url,
            "response",
            payload=io.BytesIO(fetch.body),
            length=len(fetch.body),
            warc_headers_dict=response_headers,
            http_headers=StatusAndHeaders(_status_line(fetch.status), fetch.headers, protocol=fetch.protocol),
        )
        concurrent = {**base, "WARC-Concurrent-To": response.rec_headers.get_header("WARC-Record-ID")}
        request = warc.create_warc_record(
            fetch.url,
            "request",
            payload=io.BytesIO(b""),
            length=0,
            warc_headers_dict=dict(concurrent),
            http_headers=StatusAndHeaders(
                f"{fetch.method} {_target(fetch.url)} {fetch.request_protocol}",
                _with_host(fetch.url, fetch.request_headers),
                is_http_request=True,
            ),
        )
        metadata = _metadata(fetch).encode("utf-8")
        info = warc.create_warc_record(
            fetch.url,
            "metadata",
            payload=io.BytesIO(metadata),
            length=len(metadata),
            warc_content_type="application/warc-fields",
            warc_headers_dict=dict(concurrent),
        )
        try:
            warc.write_record(request)
            warc.write_record(info)
            response_at = out.tell()
            warc.write_record(response)
            out.flush()  # whole records reach the file: a killed crawl leaves them readable
        except OSError:
            self._close_file()  # a half-written record ends this file; the next write opens another
            raise
        self._indexed(
            IndexedResponse(
                fetch.url, date, response_at, out.tell(), fetch.members_only, fetch.status, _media_type(fetch.headers)
            )
        )
        written = out.tell() - start
        if out.tell() >= self.max_bytes:
            self._close_file()
        return written

    def _open_index(self, path: Path) -> BinaryIO | None:
        try:
            return open(index_of(path), "wb")
        except OSError as exc:
            logger.warning("Cannot write the index of %s (%s): its readers will read the file", path.name, exc)
            return None

    def _indexed(self, response: IndexedResponse) -> None:
        """The file's index told of a fetch the file now holds whole. An
        index that cannot be written is given up (the file is not): its
        readers read on where it ends."""
        if self._index is None:
            return
        try:
            self._index.write(index_line(response, self.files[-1].name).encode("ascii"))
            self._index.flush()
        except OSError as exc:
            logger.warning(
                "Cannot write the index of %s (%s): its readers will read the rest of the file",
                self.files[-1].name,
                exc,
            )
            self._close_index()

    def _close_index(self) -> None:
        if self._index is not None:
            index, self._index = self._index, None
            try:
                index.close()
            except OSError:
                pass  # what it holds is a prefix of the truth; its readers stop at a broken line

    def _close_file(self) -> None:
        self._close_index()
        if self._file is not None:
            out, self._file = self._file, None
            out.close()

    def close(self) -> None:
        self._close_file()

    def __enter__(self) -> ArchiveWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@dataclass
class IndexedResponse:
    """Where one fetch's response is in its WARC file, as the file's index
    (``<file>.cdxj``) says: its gzip member from ``offset`` to ``end``,
    which ends the fetch (the response is its last record)."""

    url: str
    date: str  # its WARC-Date
    offset: int
    end: int
    members_only: bool = False
    status: int = 0
    mime: str = ""


def index_of(path: Path) -> Path:
    """The index beside a WARC file.

    >>> index_of(Path("archive/a.warc.gz")).name
    'a.warc.gz.cdxj'
    """
    return path.with_name(path.name + INDEX_SUFFIX)


_SPACE = re.compile(r"\s")


def index_line(response: IndexedResponse, filename: str) -> str:
    """One line of a WARC file's index, in the shape of pywb's CDXJ: a key,
    the 14-digit timestamp, and a JSON object with the fields pywb reads
    (``url``, ``mime``, ``status``, ``offset``, ``length``, ``filename``)
    and ours: ``date`` (the WARC-Date whole, which orders a URL's fetches)
    and ``members-only`` (a page fetched with credentials; never the
    credentials). Our key is the URL itself (not pywb's SURT: no package
    for it here), and lines come in the order of the file, not sorted: an
    index of our own, which pywb does not read, in a shape it would.

    >>> line = index_line(IndexedResponse("http://a.test/x y", "2026-12-07T11:53:48.5Z", 10, 90, True), "a.warc.gz")
    >>> line.partition("{")[0]
    'http://a.test/x%20y 20261207115348 '
    >>> json.loads(line.partition(" ")[2].partition(" ")[2])["length"]
    80
    """
    key = _SPACE.sub(lambda space: f"%{ord(space.group()):02X}", response.url)
    fields: dict[str, Any] = {
        "url": response.url,
        "mime": response.mime,
        "status": str(response.status),
        "offset": response.offset,
        "length": response.end - response.offset,
        "filename": filename,
        "date": response.date,
    }
    if response.members_only:
        fields["members-only"] = True
    return f"{key} {re.sub(r'[^0-9]', '', response.date)[:14]} {json.dumps(fields)}\n"


def _media_type(headers: list[tuple[str, str]]) -> str:
    """A response's media type, as pywb's index keeps it (without parameters)."""
    value = next((value for name, value in headers if name.lower() == "content-type"), "")
    return value.split(";")[0].strip().lower()


def _status_line(status: int) -> str:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    return f"{status} {phrase}".rstrip()


def _target(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _with_host(url: str, headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The request's headers with the ``Host`` it was sent with: the host and
    port, never a ``user:password@`` the URL may hold.

    >>> _with_host("http://u:secret@a.test:8080/p", [])
    [('Host', 'a.test:8080')]
    """
    if any(name.lower() == "host" for name, _ in headers):
        return list(headers)
    return [("Host", urlsplit(url).netloc.rpartition("@")[2]), *headers]


def _metadata(fetch: Fetch) -> str:
    lines = []
    if fetch.redirects:
        lines.append(f"via: {fetch.redirects[-1]}")
    lines.append(f"lantern-role: {fetch.role}")
    lines.append(f"lantern-depth: {fetch.depth}")
    lines.extend(f"lantern-redirect: {url}" for url in fetch.redirects)
    if fetch.members_only:
        lines.append("lantern-members-only: true")
    return "".join(f"{line}\r\n" for line in lines)


# --- Reading ------------------------------------------------------------------------


def escaped(data: bytes) -> str:
    """Bytes as printable ASCII, any other byte escaped: what an archive
    holds is shown this way, never written raw to a terminal or a log.

    >>> print(escaped(b"WARC/1.1\\r\\n\\x1b[2J\\xff"))
    WARC/1.1\\r\\n\\x1b[2J\\xff
    """
    return repr(bytes(data))[2:-1]


@dataclass
class Damage:
    """A stretch of an archive file that holds no readable record: bytes
    overwritten, or a record cut short. Reading skips it and resumes at the
    next gzip member that holds a WARC record."""

    path: Path
    start: int
    end: int
    why: str
    at: int  # where reading failed, as near as decompression tells
    found: bytes  # the bytes there (at most _SHOWN)
    record: str = ""  # what the damaged record was, when its headers could be read

    def __str__(self) -> str:
        what = f"{self.record}; " if self.record else ""
        return (
            f"{self.end - self.start:,} damaged bytes at offset {self.start:,} "
            f"({what}{self.why} at offset {self.at:,}: {escaped(self.found)})"
        )


class _Unreadable(Exception):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def scan(path: Path, start: int = 0) -> Iterator[tuple[int, int, Any] | Damage]:
    """Every WARC record of a file, with the offsets where its gzip member
    starts and ends, and a :class:`Damage` for each stretch between records
    that holds none; from offset ``start`` on (a member's first byte: where
    an earlier reading, or the file's index, left off).

    Each record is its own gzip member (as the crawl writes them, and as
    the WARC standard recommends), decompressed and checked (its CRC) on its
    own before it is parsed: a damaged member costs its own record, and
    reading resumes at the next member that holds a record. A record must be
    read before the next one is asked for. A file that is not gzip-compressed
    is read as it is, up to its first bad bytes, from its start whatever
    ``start`` says (its records' end offsets are not known).
    """
    with open(path, "rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        if stream.read(len(_GZIP_MAGIC)) != _GZIP_MAGIC:
            yield from _plain_records(path, stream, size)
            return
        position, damage = start, None
        while position < size:
            try:
                end, data = _inflate(stream, position)
                records = iter(ArchiveIterator(io.BytesIO(data), no_record_parse=False, arc2warc=False))
                first = _first_record(records)
            except _Unreadable as exc:
                if damage is None:
                    head, at = _probe(stream, position)
                    stream.seek(at)
                    damage = Damage(path, position, position, exc.why, at, stream.read(_SHOWN), _named(head))
                position = damage.end = _next_member(stream, position + 1, size)
                continue
            if damage is not None:
                yield damage
                damage = None
            yield position, end, first
            for record in _rest(records, Damage(path, position, end, "a member of several records", position, b"")):
                yield record if isinstance(record, Damage) else (position, end, record)
            position = end
        if damage is not None:
            yield damage


def _inflate(stream: BinaryIO, start: int) -> tuple[int, bytes]:
    """The gzip member at ``start``: where it ends, and its bytes decompressed
    (its CRC checked); :class:`_Unreadable` when it cannot be read whole."""
    stream.seek(start)
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
    parts: list[bytes] = []
    size, read = 0, 0
    try:
        while not inflater.eof:
            chunk = stream.read(_SCAN_CHUNK)
            if not chunk:
                raise _Unreadable("cut short: the file ends inside it")
            read += len(chunk)
            parts.append(inflater.decompress(chunk))
            size += len(parts[-1])
            if size > _RECORD_MAX:
                raise _Unreadable(f"more than {_RECORD_MAX:,} bytes decompressed")
    except zlib.error as exc:
        raise _Unreadable(str(exc)) from None
    return start + read - len(inflater.unused_data), b"".join(parts)


def _first_record(records: Iterator[Any]) -> Any:
    try:
        return next(records)
    except StopIteration:
        raise _Unreadable("no WARC record in it") from None
    except Exception as exc:  # warcio fails on bad bytes in many ways
        raise _Unreadable(f"not a WARC record ({type(exc).__name__})") from None


def _rest(records: Iterator[Any], damage: Damage) -> Iterator[Any]:
    """The records after the first in one member (another tool's archive)."""
    try:
        yield from records
    except Exception as exc:
        damage.why = f"{damage.why}, unreadable after the first ({type(exc).__name__})"
        yield damage


def _next_member(stream: BinaryIO, start: int, size: int) -> int:
    """The offset of the next gzip member's first bytes from ``start`` (``size`` if none)."""
    stream.seek(start)
    carry, offset = b"", start
    while chunk := stream.read(_SCAN_CHUNK):
        buffer = carry + chunk
        found = buffer.find(_GZIP_MAGIC)
        if found >= 0:
            return offset - len(carry) + found
        carry = buffer[-(len(_GZIP_MAGIC) - 1) :]
        offset += len(chunk)
    return size


def _probe(stream: BinaryIO, start: int) -> tuple[bytes, int]:
    """A damaged member read again a little at a time: what decompresses
    before its damage (its WARC headers, most often), and the offset of the
    bytes at which decompression fails (``start`` when it does not)."""
    stream.seek(start)
    data = stream.read(_SCAN_CHUNK)
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
    head = b""
    for at in range(0, len(data), _PROBE_STEP):
        try:
            out = inflater.decompress(data[at : at + _PROBE_STEP])
        except zlib.error:
            return head, start + at
        if len(head) < _SCAN_CHUNK:
            head += out
        if inflater.eof:
            break
    return head, start


_NAMED = re.compile(rb"^WARC-(Type|Target-URI): *([^\r\n]*)", re.IGNORECASE | re.MULTILINE)


def _named(partial: bytes) -> str:
    """What a damaged record was ("response record for URL"), from the part
    of it that could be read: its WARC headers, when they came through."""
    head = partial[: partial.find(b"\r\n\r\n")] if b"\r\n\r\n" in partial else b""
    found = {name.lower(): value for name, value in _NAMED.findall(head)}
    if b"type" not in found:
        return ""
    uri = found.get(b"target-uri")
    return escaped(found[b"type"]) + (f" record for {escaped(uri)}" if uri else " record")


def _plain_records(path: Path, stream: BinaryIO, size: int) -> Iterator[tuple[int, int, Any] | Damage]:
    """The records of an uncompressed WARC file, up to its first bad bytes."""
    stream.seek(0)
    records = ArchiveIterator(stream, no_record_parse=False, arc2warc=False)
    start = 0
    try:
        for record in records:
            start = records.get_record_offset()
            yield start, start, record
    except Exception as exc:
        stream.seek(start)
        why = f"the rest of the file, unreadable ({type(exc).__name__})"
        yield Damage(path, start, size, why, start, stream.read(_SHOWN))


class ArchiveReader:
    """Every complete fetch in a directory's WARC files, oldest first.

    Each writer's files are read in the order they were written, and the
    writers' fetches are merged by ``WARC-Date``. What cannot be read (a
    corrupt file, a record cut short by a killed crawl, a response without
    its request) is skipped and counted in :attr:`skipped`, with a warning
    naming the file.
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.records = 0
        self.skipped = 0
        self.files = 0
        #: Each stretch of a file that held no readable record, in reading order.
        self.damaged: list[Damage] = []
        self._positions: dict[Path, int] = {}
        #: Each writer's crawl settings (``lantern-settings`` of its warcinfo), once read.
        self.settings: dict[str, dict[str, Any]] = {}

    @property
    def bytes_read(self) -> int:
        """Compressed bytes read so far, of all files (for progress)."""
        return sum(self._positions.values())

    def total_bytes(self) -> int:
        """The size of every archive file: what :attr:`bytes_read` grows to."""
        return sum(path.stat().st_size for files in self.writers().values() for path in files)

    def writers(self) -> dict[str, list[Path]]:
        """Archive files by the process that wrote them, each writer's in order."""
        groups: dict[str, list[tuple[int, Path]]] = {}
        if not self.directory.is_dir():
            return {}
        for path in self.directory.iterdir():
            match = _NAME.match(path.name)
            if match is None:
                if path.name.endswith((".warc.gz", ".warc")):
                    groups.setdefault(path.name, []).append((0, path))
                continue
            groups.setdefault(match["writer"], []).append((int(match["serial"]), path))
        return {writer: [path for _, path in sorted(files)] for writer, files in sorted(groups.items())}

    def __iter__(self) -> Iterator[tuple[str, Fetch]]:
        """``(writer, fetch)`` pairs, merged by date across writers."""
        streams = [self._stream(order, writer, files) for order, (writer, files) in enumerate(self.writers().items())]
        for _, _, writer, fetch in heapq.merge(*streams, key=lambda entry: entry[:2]):
            yield writer, fetch

    def _stream(self, order: int, writer: str, files: Iterable[Path]) -> Iterator[tuple[str, int, str, Fetch]]:
        for path in files:
            self.files += 1
            for fetch in self._read_file(writer, path):
                yield fetch.date, order, writer, fetch

    def _read_file(self, writer: str, path: Path) -> Iterator[Fetch]:
        request: dict[str, Any] | None = None
        info: dict[str, list[str]] = {}
        try:
            for found in scan(path):
                if isinstance(found, Damage):
                    self.damaged.append(found)
                    self._skip(path, str(found))
                    # The fetch a damaged record belonged to is not completed
                    # by what follows: its metadata may have said members only.
                    request, info = None, {}
                    continue
                _, self._positions[path], record = found
                self.records += 1
                kind = record.rec_type
                if kind == "request":
                    request = {
                        "for": record.rec_headers.get_header("WARC-Concurrent-To"),
                        "method": record.http_headers.protocol if record.http_headers else "GET",
                        "headers": list(record.http_headers.headers) if record.http_headers else [],
                        # warcio splits the method off: "/path HTTP/1.1" is left
                        "protocol": record.http_headers.statusline.rpartition(" ")[2] if record.http_headers else "",
                    }
                elif kind == "warcinfo":
                    fields = _fields(_read_all(record).decode("utf-8", "replace"))
                    for value in fields.get("lantern-settings", ())[:1]:
                        self.settings.setdefault(writer, json.loads(value))
                elif kind == "metadata":
                    info = _fields(_read_all(record).decode("utf-8", "replace"))
                elif kind == "response":
                    fetch = self._response(path, record, request, info)
                    if fetch is not None:
                        yield fetch
                    request, info = None, {}
        except Exception as exc:  # the file unreadable; warcio fails on bad bytes in many ways
            self._skip(
                path,
                f"the rest of the file, unreadable ({type(exc).__name__}: {_shown(str(exc)[:120])})",
            )
        self._positions[path] = path.stat().st_size
        if request is not None:
            self._skip(path, "a request whose response was never written")

    def _response(
        self, path: Path, record: Any, request: dict[str, Any] | None, info: dict[str, list[str]]
    ) -> Fetch | None:
        body = _read_all(record)
        http = record.http_headers
        if http is None or record.raw_stream.limit > 0:
            self._skip(path, "a response record cut short")
            return None
        record_id = record.rec_headers.get_header("WARC-Record-ID")
        if request is None or request["for"] != record_id:
            self._skip(
                path,
                f"a response without its request record ({_shown(_target_of(record))})",
            )
            return None
        return _fetch(record, http, body, request, info)

    def _skip(self, path: Path, why: str) -> None:
        self.skipped += 1
        logger.warning("Skipping %s in %s", why, path.name)


def _target_of(record: Any) -> str:
    return record.rec_headers.get_header("WARC-Target-URI") or "no URL"


def _shown(text: str) -> str:
    """Text read from an archive, escaped as :func:`escaped` shows bytes."""
    return escaped(text.encode("utf-8", "backslashreplace"))


def _read_all(record: Any) -> bytes:
    """A record's payload (what the reader left of it: less if cut short)."""
    chunks = []
    while chunk := record.raw_stream.read(1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _fields(text: str) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep:
            fields.setdefault(name.strip().lower(), []).append(value.strip())
    return fields


def _fetch(
    record: Any, http: StatusAndHeaders, body: bytes, request: dict[str, Any], info: dict[str, list[str]]
) -> Fetch:
    status_line = http.get_statuscode() or "0"
    role = (info.get("lantern-role") or ["page"])[0]
    try:
        depth = int((info.get("lantern-depth") or ["0"])[0])
    except ValueError:
        depth = 0
    return Fetch(
        url=record.rec_headers.get_header("WARC-Target-URI"),
        status=int(status_line) if status_line.isdigit() else 0,
        headers=list(http.headers),
        body=body,
        request_headers=request["headers"],
        protocol=http.protocol or "HTTP/1.1",
        request_protocol=request["protocol"] or "HTTP/1.1",
        role=role if role in ROLES else "page",
        depth=depth,
        redirects=info.get("lantern-redirect", []),
        truncated=bool(record.rec_headers.get_header("WARC-Truncated")),
        date=record.rec_headers.get_header("WARC-Date") or "",
        members_only=(info.get("lantern-members-only") or [""])[0].lower() == "true",
    )


# --- What the spider saw of a body --------------------------------------------------


def decode_body(
    headers: list[tuple[str, str]],
    body: bytes,
    limit: int,
) -> tuple[bytes, list[tuple[str, str]]]:
    """The body and headers as the crawl's spider saw them: every
    ``Content-Encoding`` it could decode undone, in reverse order, and that
    header dropped (or left naming what could not be decoded), by the
    crawl's own decoder (:func:`crawler.codings.decode`), which inflates a
    body to ``limit`` bytes at most (the crawl's ``DOWNLOAD_MAXSIZE``; 0: no
    limit): a page rebuilt from the archive is cut where the crawl cut it,
    and a decompression bomb in the archive costs no more memory than it
    did the crawl. ValueError for a body that does not decode.
    """
    codings = [
        part.strip().lower()
        for name, value in headers
        if name.lower() == "content-encoding"
        for part in value.split(",")
        if part.strip()
    ]
    if not codings:
        return body, headers
    body, left, _ = decode(body, codings, limit)
    kept = [(name, value) for name, value in headers if name.lower() != "content-encoding"]
    if left:
        kept.append(("Content-Encoding", ", ".join(left)))
    return body, kept

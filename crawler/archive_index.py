"""Where each response is in a WARC file: the index beside it, read, and made when missing.

The crawl writes ``<file>.cdxj`` beside each WARC file as it writes the file
(:class:`crawler.archive.ArchiveWriter`, :func:`crawler.archive.index_line`),
so that search finds its cached copies without reading gigabytes first.
What an index says is trusted only as far as it can be checked: each line
whole and well formed, offsets rising within the file, the last one a
response of that URL and date. Whatever it does not cover, its file is
read for (:func:`responses`), from where it ends; a file without one is
read whole, and ``python -m crawler archive-index`` writes the missing ones
(:func:`index_archive`).
"""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warcio.archiveiterator import ArchiveIterator

from crawler.archive import Damage, IndexedResponse, index_line, index_of, scan

__all__ = ["Reading", "index_archive", "read_index", "responses", "write_index"]

logger = logging.getLogger(__name__)

# The metadata line of a page fetched with credentials (crawler/archive.py's _metadata).
_MEMBERS_ONLY = b"lantern-members-only: true"
_METADATA_BYTES = 64 * 1024  # a metadata record is a few lines; its redirect chain at most ten URLs
_INDEXED = ".warc.gz"  # the files an index may stand beside: each record its own gzip member


@dataclass
class Reading:
    """How far a WARC file has been read for its responses, and what the
    rest of it needs of what was read: reading goes on from ``read_to``,
    the end of the last whole record, when the file grows."""

    read_to: int = 0
    #: Record ids of members-only responses whose metadata was read, the response not yet.
    members: set[str] = field(default_factory=set)
    #: After damage, until the next fetch's request: a response whose
    #: metadata may be lost, so whether it was members only is not known.
    unsure: bool = False


def responses(path: Path, reading: Reading) -> Iterator[IndexedResponse | Damage]:
    """The complete responses of a WARC file from ``reading.read_to`` on,
    and each stretch of damage, ``reading`` advanced past each whole
    record (not past damage at the end, which may be a fetch being
    written: the next reading reads it again). A response after damage,
    before the next request, is left out: its metadata may have said
    members only."""
    unsure = reading.unsure
    for entry in scan(path, reading.read_to):
        if isinstance(entry, Damage):
            unsure = True
            yield entry
            continue
        offset, end, record = entry
        kind = record.rec_type
        if kind == "request":
            unsure = False
        elif kind == "metadata" and _MEMBERS_ONLY in record.raw_stream.read(_METADATA_BYTES):
            reading.members.add(record.rec_headers.get_header("WARC-Concurrent-To") or "")
        if end > offset:  # a member of its own (an uncompressed file is read whole each time)
            reading.read_to, reading.unsure = end, unsure
        if kind != "response" or unsure:
            continue
        record_id = record.rec_headers.get_header("WARC-Record-ID") or ""
        members_only = record_id in reading.members
        reading.members.discard(record_id)
        url = record.rec_headers.get_header("WARC-Target-URI") or ""
        if url:
            yield IndexedResponse(
                url,
                record.rec_headers.get_header("WARC-Date") or "",
                offset,
                end,
                members_only,
                *_status_and_mime(record),
            )


def _status_and_mime(record: Any) -> tuple[int, str]:
    http = record.http_headers
    if http is None:
        return 0, ""
    status = http.get_statuscode() or "0"
    mime = (http.get_header("Content-Type") or "").split(";")[0].strip().lower()
    return int(status) if status.isdigit() else 0, mime


def read_index(path: Path) -> list[IndexedResponse]:
    """What the index beside WARC file ``path`` says of it, as far as it
    can be trusted: its lines up to the first that is cut short, malformed,
    of another file, or past the file's end; none at all if the last of
    those is not the response it names (an index of another file by that
    name). No index, no lines."""
    if not path.name.endswith(_INDEXED):
        return []
    try:
        with open(index_of(path), "rb") as stream:
            lines = stream.read().split(b"\n")
        size = path.stat().st_size
    except OSError:
        return []
    trusted: list[IndexedResponse] = []
    for line in lines[:-1]:  # the last is what follows the last newline: nothing, or a line cut short
        response = _parsed(line, path.name)
        if response is None or response.offset < (trusted[-1].end if trusted else 0) or response.end > size:
            logger.warning(
                "The index of %s is trusted up to its line %d, which is not whole", path.name, len(trusted) + 1
            )
            break
        trusted.append(response)
    if trusted and not _holds(path, trusted[-1]):
        logger.warning("The index of %s does not match the file; reading the file instead", path.name)
        return []
    return trusted


def _parsed(line: bytes, filename: str) -> IndexedResponse | None:
    """An index line read back (None if it is not one, of ``filename``)."""
    parts = line.split(b" ", 2)
    try:
        fields = json.loads(parts[2]) if len(parts) == 3 else None
    except ValueError:
        return None
    if not isinstance(fields, dict) or fields.get("filename") != filename:
        return None
    url, date, offset, length = (fields.get(name) for name in ("url", "date", "offset", "length"))
    members_only = fields.get("members-only", False)
    if not (isinstance(url, str) and url and isinstance(date, str) and isinstance(members_only, bool)):
        return None
    if type(offset) is not int or type(length) is not int or offset < 0 or length <= 0:
        return None
    status = str(fields.get("status", ""))
    return IndexedResponse(
        url,
        date,
        offset,
        offset + length,
        members_only,
        int(status) if status.isdigit() else 0,
        str(fields.get("mime", "")),
    )


def _holds(path: Path, response: IndexedResponse) -> bool:
    """Whether ``path`` holds the response record an index line names, where it says."""
    try:
        with open(path, "rb") as stream:
            stream.seek(response.offset)
            record = next(iter(ArchiveIterator(stream)), None)
            return (
                record is not None
                and record.rec_type == "response"
                and record.rec_headers.get_header("WARC-Target-URI") == response.url
                and record.rec_headers.get_header("WARC-Date") == response.date
            )
    except Exception:  # warcio fails on bad bytes in many ways
        return False


def write_index(path: Path) -> int:
    """Write the index of WARC file ``path`` from the file itself (an
    archive of a crawl older than its indexes, or one whose index was
    lost); the number of responses it holds. Damaged stretches are skipped
    as search skips them. It is written whole under another name, then
    renamed: a reader never sees it half done. It is as readable as its
    file (it names every URL the file holds), whatever the umask."""
    lines = []
    for found in responses(path, Reading()):
        if isinstance(found, Damage):
            logger.warning("Indexing %s: skipping %s", path.name, found)
        else:
            lines.append(index_line(found, path.name))
    index = index_of(path)
    partial = index.with_name(f".{index.name}.partial")
    partial.write_text("".join(lines), encoding="ascii")
    os.chmod(partial, stat.S_IMODE(path.stat().st_mode))
    os.replace(partial, index)
    return len(lines)


def index_archive(directory: Path) -> tuple[int, int, int]:
    """Write the missing index of each WARC file in ``directory``: how many
    files were indexed, their responses, and how many had their index."""
    written = responses_indexed = had = 0
    for path in sorted(directory.iterdir()):
        if not path.name.endswith(_INDEXED):
            continue
        if index_of(path).exists():
            had += 1
            continue
        responses_indexed += write_index(path)
        written += 1
    return written, responses_indexed, had

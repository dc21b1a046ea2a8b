"""The archive: every response of a real crawl kept as WARC records.

Each test crawls a small literal site on 127.0.0.1 with a real `scrapy
crawl` and reads what it left in DATA_DIR/archive with warcio, the way any
web-archive tool would.
"""

from __future__ import annotations

import gzip
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from warcio.archiveiterator import ArchiveIterator

from crawler.archive import ArchiveReader
from crawler.datadir import archive_dir
from tests.commands import crawl
from tests.webserver import Reply, Site, page, serve_site, text

FAST = ("DOWNLOAD_DELAY=0", "CONCURRENT_REQUESTS_PER_DOMAIN=4", "LOG_LEVEL=INFO")
BIG = "<title>Big</title>" + "<p>long tide tables for the harbour</p>" * 2000  # about 80 KB
ROUTES = {
    "/robots.txt": text("User-agent: *\nDisallow: /private/\n"),
    "/": page(
        "<title>Home</title><a href='/a'>A</a> <a href='/old'>Old</a> <a href='/gone'>Gone</a>"
        " <a href='/zipped'>Zipped</a> <a href='/big'>Big</a> <a href='/private/x'>X</a>"
    ),
    "/a": page("<title>A</title><p>Lighthouse keepers of the northern coast.</p>"),
    "/old": Reply(b"", 301, {"Location": "/new"}),
    "/new": page("<title>New</title><p>The lighthouse moved here.</p>"),
    "/zipped": Reply(
        gzip.compress(b"<title>Zipped</title><p>Kept compressed.</p>"),
        200,
        {"Content-Type": "text/html; charset=utf-8", "Content-Encoding": "gzip"},
    ),
    "/big": page(BIG),
}


def records(directory: Path) -> list[tuple[str, dict, object]]:
    """``(file name, WARC headers, record)`` of every record, in file order, with its payload."""
    found = []
    for path in sorted(directory.glob("*.warc.gz")):
        with open(path, "rb") as stream:
            for record in ArchiveIterator(stream):
                headers = dict(record.rec_headers.headers)
                record.payload = record.raw_stream.read()  # as received, not decoded
                found.append((path.name, headers, record))
    return found


@pytest.fixture(scope="module")
def archived(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, Path, str]]:
    """One crawl of the site with small archive files and a small DOWNLOAD_MAXSIZE."""
    data = tmp_path_factory.mktemp("data")
    with serve_site(ROUTES) as site:
        done = crawl([site.url("/")], data, *FAST, "ARCHIVE_MAX_BYTES=4000", "DOWNLOAD_MAXSIZE=20000")
        assert done.returncode == 0, done.stderr[-3000:]
        yield site, archive_dir(data), done.stderr


def test_every_request_the_server_answered_is_archived_with_its_response(archived) -> None:
    site, archive, _ = archived
    found = records(archive)
    responses = {h["WARC-Record-ID"]: (h, r) for _, h, r in found if h["WARC-Type"] == "response"}
    requests = [(h, r) for _, h, r in found if h["WARC-Type"] == "request"]
    # One request record per response, tied to it, with the same target.
    assert sorted(h["WARC-Concurrent-To"] for h, _ in requests) == sorted(responses)
    for headers, record in requests:
        response_headers, _ = responses[headers["WARC-Concurrent-To"]]
        assert headers["WARC-Target-URI"] == response_headers["WARC-Target-URI"]
        assert record.http_headers.protocol == "GET"
        assert record.http_headers.get_header("User-Agent").startswith("LanternBot/")
    archived_paths = Counter(
        urlsplit(h["WARC-Target-URI"]).path
        + (f"?{urlsplit(h['WARC-Target-URI']).query}" if urlsplit(h["WARC-Target-URI"]).query else "")
        for h, _ in responses.values()
    )
    assert archived_paths == Counter(site.paths())
    assert {"/robots.txt", "/old", "/new", "/gone"} <= set(archived_paths)


def test_request_records_say_the_version_sent_and_responses_the_version_answered(archived) -> None:
    """The crawler asks in HTTP/1.1; this server answers in HTTP/1.0, as old
    servers do. Each record says its own side's version, and the reader
    gives both back."""
    site, archive, _ = archived
    assert {request.version for request in site.requests} == {"HTTP/1.1"}
    found = records(archive)
    request_lines = {r.http_headers.statusline.rpartition(" ")[2] for _, h, r in found if h["WARC-Type"] == "request"}
    status_lines = {r.http_headers.protocol for _, h, r in found if h["WARC-Type"] == "response"}
    assert (request_lines, status_lines) == ({"HTTP/1.1"}, {"HTTP/1.0"})
    fetches = [fetch for _, fetch in ArchiveReader(archive)]
    assert fetches and {(fetch.request_protocol, fetch.protocol) for fetch in fetches} == {("HTTP/1.1", "HTTP/1.0")}


def test_redirects_errors_and_compressed_bodies_are_kept_as_received(archived) -> None:
    _, archive, _ = archived
    by_path = {urlsplit(h["WARC-Target-URI"]).path: r for _, h, r in records(archive) if h["WARC-Type"] == "response"}
    old = by_path["/old"]
    assert old.http_headers.get_statuscode() == "301"
    assert old.http_headers.get_header("Location") == "/new"
    assert by_path["/gone"].http_headers.get_statuscode() == "404"
    robots = by_path["/robots.txt"]
    assert robots.payload == b"User-agent: *\nDisallow: /private/\n"
    zipped = by_path["/zipped"]
    assert zipped.http_headers.get_header("Content-Encoding") == "gzip"
    assert zipped.payload[:2] == b"\x1f\x8b"
    assert gzip.decompress(zipped.payload) == b"<title>Zipped</title><p>Kept compressed.</p>"
    assert "/private/x" not in by_path  # robots.txt forbids it: never fetched, nothing to archive


def test_the_redirect_chain_is_kept_beside_the_response(archived) -> None:
    _, archive, _ = archived
    metadata = {
        urlsplit(h["WARC-Target-URI"]).path: r.payload.decode()
        for _, h, r in records(archive)
        if h["WARC-Type"] == "metadata"
    }
    assert "lantern-redirect: http://127.0.0.1:" in metadata["/new"]
    assert "lantern-role: robots" in metadata["/robots.txt"]
    assert "lantern-depth: 1" in metadata["/a"]


def test_a_body_cut_off_at_download_maxsize_is_archived_as_received_and_marked(archived) -> None:
    _, archive, _ = archived
    (big,) = [
        (h, r) for _, h, r in records(archive) if h["WARC-Type"] == "response" and h["WARC-Target-URI"].endswith("/big")
    ]
    headers, record = big
    assert headers["WARC-Truncated"] == "length"
    assert 20000 < len(record.payload) < len(BIG.encode())
    assert BIG.encode().startswith(record.payload)


def test_files_are_gzip_members_rolled_over_by_size(archived) -> None:
    _, archive, log = archived
    files = sorted(archive.glob("*.warc.gz"))
    assert len(files) >= 3
    for path in files:
        assert path.name.startswith("lantern-")
        assert gzip.decompress(path.read_bytes()).startswith(b"WARC/1.1\r\nWARC-Type: warcinfo")
        # Rolled over after the fetch that passed the size: one fetch's records at most beyond it.
        assert path.stat().st_size < 4000 + 40000
    assert f"'archive/files': {len(files)}" in log
    # One writer, serial numbers in order, every fetch whole within one file.
    writers = {path.name.rsplit("-", 1)[0] for path in files}
    assert len(writers) == 1
    per_file = Counter((name, h["WARC-Type"]) for name, h, _ in records(archive))
    for path in files:
        assert per_file[(path.name, "request")] == per_file[(path.name, "response")]


def test_archive_enabled_false_keeps_nothing(tmp_path: Path) -> None:
    with serve_site(ROUTES) as site:
        done = crawl([site.url("/")], tmp_path, *FAST, "ARCHIVE_ENABLED=False")
    assert done.returncode == 0, done.stderr[-3000:]
    assert not list(tmp_path.glob("archive/*"))
    assert "archive/responses" not in done.stderr

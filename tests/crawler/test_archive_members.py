"""The archive keeps members-only pages for a rebuild, without their credentials, and offers no copy of them."""

from __future__ import annotations

import gzip
from pathlib import Path

from scrapy import Request
from scrapy.http import HtmlResponse

from crawler.archive import REDACTED, ArchiveReader, ArchiveWriter
from crawler.archive_middleware import fetch_of
from crawler.pages import PageLogic, replay
from search.cached import ArchiveIndex

TOKEN = "c2VjcmV0LXRva2Vu"
PAGE = b"<html><head><title>Q3 report</title></head><body><p>Revenue grew by a third.</p></body></html>"
PUBLIC = b"<html><head><title>Timetable</title></head><body><p>The ferry leaves at nine.</p></body></html>"


def _exchange(url: str, members_only: bool, body: bytes = PAGE) -> tuple[Request, HtmlResponse]:
    meta = {"members_only": True, "auth_headers": ("X-Api-Key",)} if members_only else {}
    headers = {"Authorization": f"Basic {TOKEN}", "Cookie": f"sid={TOKEN}", "Accept": "text/html"}
    if members_only:
        headers["X-Api-Key"] = TOKEN  # an entry's own header
    request = Request(url, headers=headers, meta=meta)
    response = HtmlResponse(
        url, body=body, request=request, headers={"Content-Type": "text/html", "Set-Cookie": f"sid={TOKEN}; Path=/"}
    )
    return request, response


def test_credentials_are_redacted_and_the_mark_kept(tmp_path: Path) -> None:
    members = "http://127.0.0.1:8080/members/q3.html"
    public = "http://127.0.0.1:8080/q3.html"
    with ArchiveWriter(tmp_path / "archive", max_bytes=10**9) as writer:
        for url, mark in ((members, True), (public, False)):
            writer.write(fetch_of(*_exchange(url, mark)))
    raw = b"".join(gzip.decompress(path.read_bytes()) for path in (tmp_path / "archive").glob("*.warc.gz"))
    assert TOKEN.encode() not in raw.replace(f"Set-Cookie: sid={TOKEN}".encode(), b"")  # the public page's own
    (index,) = (tmp_path / "archive").glob("*.warc.gz.cdxj")  # the file's index: the mark, no credentials
    assert TOKEN.encode() not in index.read_bytes()
    assert [b'"members-only": true' in line for line in index.read_bytes().splitlines()] == [True, False]
    fetches = {fetch.url: fetch for _, fetch in ArchiveReader(tmp_path / "archive")}
    archived = fetches[members]
    assert archived.members_only and not fetches[public].members_only
    sent = dict(archived.request_headers)
    assert sent["Authorization"] == sent["Cookie"] == sent["X-Api-Key"] == REDACTED
    assert sent["Accept"] == "text/html"
    assert archived.header_values("Set-Cookie") == [REDACTED]
    # Authorization and Cookie are redacted whatever request carried them; a
    # public page's cookie is the site's own.
    assert dict(fetches[public].request_headers)["Authorization"] == REDACTED
    assert fetches[public].header_values("Set-Cookie") == [f"sid={TOKEN}; Path=/"]


def test_a_rebuild_marks_them_and_no_cached_copy_is_offered(tmp_path: Path) -> None:
    members = "http://127.0.0.1:8080/members/q3.html"
    public = "http://127.0.0.1:8080/q3.html"
    with ArchiveWriter(tmp_path / "archive", max_bytes=10**9) as writer:
        writer.write(fetch_of(*_exchange(members, True)))
        writer.write(fetch_of(*_exchange(public, False, PUBLIC)))
    logic = PageLogic.from_settings({"TRAPS_NEAR_DUPLICATE_BITS": 0})
    items = {}
    for _, fetch in ArchiveReader(tmp_path / "archive"):
        for item in replay(logic, fetch):
            items[item["url"]] = item
    assert items[members]["type"] == "page" and items[members]["members_only"] is True
    assert items[public]["type"] == "page" and "members_only" not in items[public]
    index = ArchiveIndex(tmp_path / "archive")
    assert index.locate(members) is None
    assert index.locate(public) is not None

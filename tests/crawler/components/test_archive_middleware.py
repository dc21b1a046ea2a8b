"""ArchiveMiddleware: every response as received, in WARC files a rebuild reads,
and never a credential."""

from __future__ import annotations

import gzip
import logging
from pathlib import Path

import pytest
from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Response
from scrapy.utils.misc import build_from_crawler

from crawler.archive import REDACTED, ArchiveReader, Fetch
from crawler.archive_middleware import ArchiveMiddleware
from crawler.datadir import archive_dir
from tests.crawler.components.crawlers import crawler_with


def _archived(crawler: Crawler, *exchanges: tuple[Request, Response]) -> list[Fetch]:
    """The fetches read back from the archive once the spider has closed."""
    archive = build_from_crawler(ArchiveMiddleware, crawler)
    for request, response in exchanges:
        assert archive.process_response(request, response) is response
    archive.close()  # as the spider closes
    return [fetch for _, fetch in ArchiveReader(archive_dir(crawler.settings.get("DATA_DIR")))]


def _exchange(url: str, status: int = 200, body: bytes = b"<p>x</p>", headers: dict | None = None, **meta: object):
    request = Request(url, meta=meta, headers={"User-Agent": "LanternBot/0.1"})
    return request, HtmlResponse(url, status=status, headers=headers, body=body, request=request)


def test_switched_off_by_archive_enabled(tmp_path: Path) -> None:
    with pytest.raises(NotConfigured, match="ARCHIVE_ENABLED"):
        build_from_crawler(ArchiveMiddleware, crawler_with(tmp_path, ARCHIVE_ENABLED=False))


def test_each_response_is_kept_as_received_with_what_the_crawl_knew_of_it(tmp_path: Path) -> None:
    crawler = crawler_with(tmp_path)
    squeezed = gzip.compress(b"<title>Zipped</title><p>Kept as it came.</p>")
    fetches = _archived(
        crawler,
        _exchange("http://a.test/robots.txt", 404, robots_txt=True),
        _exchange("http://a.test/old", 301, b"", {"Location": "/new"}),
        _exchange(
            "http://a.test/new",
            body=squeezed,
            headers={"Content-Encoding": "gzip"},
            depth=2,
            redirect_urls=["http://a.test/old"],
        ),
        _exchange("http://a.test/sitemap.xml", sitemap=True),
    )
    assert [(f.url, f.status, f.role) for f in fetches] == [
        ("http://a.test/robots.txt", 404, "robots"),
        ("http://a.test/old", 301, "page"),
        ("http://a.test/new", 200, "page"),
        ("http://a.test/sitemap.xml", 200, "sitemap"),
    ]
    page = fetches[2]
    assert page.body == squeezed and page.header_values("Content-Encoding") == ["gzip"], "still compressed"
    assert page.depth == 2 and page.redirects == ["http://a.test/old"]
    assert ("User-Agent", "LanternBot/0.1") in page.request_headers
    assert crawler.stats.get_value("archive/responses") == 4 and crawler.stats.get_value("archive/files") == 1
    [written] = archive_dir(tmp_path).glob("*.warc.gz")
    assert 0 < crawler.stats.get_value("archive/bytes") < written.stat().st_size  # the file's own record apart


def test_credentials_are_redacted_and_login_exchanges_not_kept(tmp_path: Path) -> None:
    members, members_page = _exchange(
        "https://m.test/area/report",
        headers={"Set-Cookie": "sid=abc"},
        members_only=True,
        auth_headers=("X-Api-Key",),
    )
    for name, value in (("Authorization", "Basic YW5uOnMzY3JldA=="), ("Cookie", "sid=abc"), ("X-Api-Key", "k-1")):
        members.headers[name] = value
    public, public_page = _exchange("https://m.test/public", headers={"Set-Cookie": "theme=dark"})
    login = _exchange("https://m.test/login", headers={"Set-Cookie": "sid=abc"}, auth_login="https://m.test/area/")
    fetches = _archived(crawler_with(tmp_path), (members, members_page), (public, public_page), login)
    assert [fetch.url for fetch in fetches] == ["https://m.test/area/report", "https://m.test/public"]
    kept = fetches[0]
    assert kept.members_only and not fetches[1].members_only
    for name in ("Authorization", "Cookie", "X-Api-Key"):
        assert dict(kept.request_headers)[name] == REDACTED
    assert kept.header_values("Set-Cookie") == [REDACTED]
    assert fetches[1].header_values("Set-Cookie") == ["theme=dark"], "a public page's cookie is no credential"


def test_an_archive_that_cannot_be_written_is_said_once_and_the_crawl_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "data"
    blocked.write_text("a file where the data directory should be")
    crawler = crawler_with(blocked)
    fetches = _archived(crawler, _exchange("http://a.test/1"), _exchange("http://a.test/2"))
    assert fetches == []
    assert crawler.stats.get_value("archive/errors") == 2 and crawler.stats.get_value("archive/responses") is None
    errors = [record for record in caplog.records if record.levelno == logging.ERROR]
    assert len(errors) == 1 and "Cannot write the archive" in errors[0].getMessage()

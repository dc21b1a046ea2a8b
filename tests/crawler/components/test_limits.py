"""What is worth downloading: DownloadLimits (media stopped after their headers,
long bodies cut off), Decompression (a compressed body inflated to the same
bound) and TimeoutRetry (a stalled download tried once more, later)."""

from __future__ import annotations

import gzip
import logging
from pathlib import Path
from typing import Any

import pytest
from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DownloadTimeoutError, IgnoreRequest, NotConfigured, StopDownload
from scrapy.http import Headers, HtmlResponse, Response, TextResponse
from scrapy.utils.misc import build_from_crawler
from twisted.python.failure import Failure

from crawler.codings import ACCEPT_ENCODING
from crawler.frontier import Frontier, decode_request
from crawler.limits import Decompression, TimeoutRetry
from crawler.robots import MAX_ROBOTS_BYTES
from tests.crawler.components.crawlers import crawler_with, open_engine, stays_open, until

# --- DownloadLimits: the extension, through the signals the download handler sends ----------


def _raised(crawler: Crawler, signal: object, **arguments: object) -> list[BaseException]:
    """What the crawler's handlers of ``signal`` raised, as the download handler reads it."""
    results = crawler.signals.send_catch_log(signal, dont_log=StopDownload, spider=None, **arguments)
    return [result.value for _, result in results if isinstance(result, Failure) and result.value is not None]


def _headers(crawler: Crawler, request: Request, content_type: str) -> list[BaseException]:
    headers = Headers({"Content-Type": content_type})
    return _raised(crawler, signals.headers_received, headers=headers, body_length=1000, request=request)


def _stopped(raised: list[BaseException]) -> bool:
    """Stopped, keeping what arrived (``fail=False``: the response goes on to the spider)."""
    return len(raised) == 1 and isinstance(raised[0], StopDownload) and not raised[0].fail


def test_media_are_stopped_once_their_headers_are_in(tmp_path: Path) -> None:
    crawler = crawler_with(tmp_path)
    page = Request("http://a.test/photo.png")
    assert _stopped(_headers(crawler, page, "image/png"))
    assert _stopped(_headers(crawler, page, "video/mp4; codecs=avc1"))
    assert _headers(crawler, page, "text/html; charset=utf-8") == []
    assert _headers(crawler, page, "application/pdf") == [], "a PDF has text to index"
    sitemap = Request("http://a.test/sitemap.xml.gz", meta={"sitemap": True})
    assert _headers(crawler, sitemap, "application/gzip") == [], "a gzipped sitemap is read"
    assert crawler.stats.get_value("limits/media_stopped") == 2


def test_a_body_longer_than_the_limit_is_cut_off_and_kept(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="crawler.limits")
    crawler = crawler_with(tmp_path, DOWNLOAD_MAXSIZE=1000)
    for url in ("http://a.test/long", "http://b.test/long"):
        request = Request(url)
        assert _raised(crawler, signals.bytes_received, data=b"x" * 600, request=request) == []
        assert _stopped(_raised(crawler, signals.bytes_received, data=b"x" * 600, request=request))
    assert crawler.stats.get_value("limits/truncated") == 2
    assert len([r for r in caplog.records if "larger than DOWNLOAD_MAXSIZE" in r.getMessage()]) == 1


def test_robots_txt_is_cut_off_at_its_own_limit(tmp_path: Path) -> None:
    crawler = crawler_with(tmp_path, DOWNLOAD_MAXSIZE=10 * MAX_ROBOTS_BYTES)
    robots = Request("http://a.test/robots.txt", meta={"robots_txt": True, "body_limit": MAX_ROBOTS_BYTES})
    assert _raised(crawler, signals.bytes_received, data=b"#" * MAX_ROBOTS_BYTES, request=robots) == []
    assert _stopped(_raised(crawler, signals.bytes_received, data=b"Disallow: /\n", request=robots))
    assert crawler.stats.get_value("robots/truncated") == 1 and crawler.stats.get_value("limits/truncated") is None


def test_a_request_that_left_the_downloader_starts_its_count_again(tmp_path: Path) -> None:
    crawler = crawler_with(tmp_path, DOWNLOAD_MAXSIZE=1000)
    request = Request("http://a.test/page")
    assert _raised(crawler, signals.bytes_received, data=b"x" * 900, request=request) == []
    crawler.signals.send_catch_log(signals.request_left_downloader, request=request, spider=None)
    assert _raised(crawler, signals.bytes_received, data=b"x" * 900, request=request) == []


# --- Decompression -----------------------------------------------------------------------


def _decompression(tmp_path: Path, **overrides: Any) -> Decompression:
    return build_from_crawler(Decompression, crawler_with(tmp_path, **overrides))


def _compressed(body: bytes, method: str = "GET", **meta: object) -> tuple[Request, Response]:
    request = Request("http://a.test/page", method=method, meta=meta)
    headers = {"Content-Encoding": "gzip", "Content-Type": "text/html; charset=utf-8"}
    return request, Response(request.url, headers=headers, body=gzip.compress(body), request=request)


def test_switched_off_by_compression_enabled(tmp_path: Path) -> None:
    with pytest.raises(NotConfigured, match="COMPRESSION_ENABLED"):
        _decompression(tmp_path, COMPRESSION_ENABLED=False)


def test_compressed_bodies_are_asked_for_and_inflated_into_pages(tmp_path: Path) -> None:
    decompression = _decompression(tmp_path)
    request = Request("http://a.test/")
    decompression.process_request(request)
    assert request.headers[b"Accept-Encoding"] == ACCEPT_ENCODING
    response = decompression.process_response(*_compressed(b"<title>Inflated</title><p>Hello</p>"))
    assert isinstance(response, HtmlResponse) and response.css("title::text").get() == "Inflated"
    assert b"Content-Encoding" not in response.headers


def test_a_decompression_bomb_inflates_to_the_download_limit_only(tmp_path: Path) -> None:
    decompression = _decompression(tmp_path, DOWNLOAD_MAXSIZE=64 * 1024)
    bomb = b"<title>Bomb</title><p>" + b"a" * (20 * 1024 * 1024)
    response = decompression.process_response(*_compressed(bomb))
    assert len(response.body) == 64 * 1024 and response.body.startswith(b"<title>Bomb</title>")
    assert "decompressed_truncated" in response.flags
    stats = decompression.stats
    assert stats.get_value("limits/truncated") == stats.get_value("limits/truncated/decompressed") == 1


def test_a_compressed_robots_txt_inflates_to_its_own_limit(tmp_path: Path) -> None:
    decompression = _decompression(tmp_path)
    rules = b"User-agent: *\n" + b"Disallow: /x\n" * 100_000
    request, response = _compressed(rules, robots_txt=True, body_limit=MAX_ROBOTS_BYTES)
    inflated = decompression.process_response(request, response)
    assert len(inflated.body) == MAX_ROBOTS_BYTES and isinstance(inflated, TextResponse)
    assert decompression.stats.get_value("robots/truncated") == 1
    assert decompression.stats.get_value("limits/truncated") is None


def test_a_body_not_in_its_declared_coding_is_skipped_and_counted(tmp_path: Path) -> None:
    decompression = _decompression(tmp_path)
    request = Request("http://a.test/page")
    lying = Response(request.url, headers={"Content-Encoding": "gzip"}, body=b"<p>plain</p>", request=request)
    with pytest.raises(IgnoreRequest):
        decompression.process_response(request, lying)
    assert decompression.stats.get_value("limits/undecodable") == 1


def test_the_answer_to_a_head_request_is_left_as_it_came(tmp_path: Path) -> None:
    decompression = _decompression(tmp_path)
    request, response = _compressed(b"", method="HEAD")
    assert decompression.process_response(request, response) is response


# --- TimeoutRetry ------------------------------------------------------------------------


def _timed_out(retry: TimeoutRetry, request: Request) -> IgnoreRequest | None:
    """What the middleware makes of ``request``'s timeout: IgnoreRequest (held
    for later), or None (left to Scrapy's RetryMiddleware, or given up)."""
    try:
        retry.process_exception(request, DownloadTimeoutError("Getting http://a.test/ took longer than 30 s"))
    except IgnoreRequest as held:
        return held
    return None


def test_switched_off_by_retry_enabled(tmp_path: Path) -> None:
    with pytest.raises(NotConfigured, match="RETRY_ENABLED"):
        build_from_crawler(TimeoutRetry, crawler_with(tmp_path, RETRY_ENABLED=False))


async def test_a_timeout_is_held_for_later_once_and_a_second_is_given_up(tmp_path: Path) -> None:
    retry = build_from_crawler(TimeoutRetry, crawler_with(tmp_path))
    first = Request("http://a.test/stalls", meta={"lease": 7, "depth": 2})
    assert isinstance(_timed_out(retry, first), IgnoreRequest)
    retried = Request("http://a.test/stalls", meta={"retry_times": 1})
    assert _timed_out(retry, retried) is None and retried.meta["dont_retry"] is True
    other = Request("http://a.test/refused")
    retry.process_exception(other, ConnectionRefusedError())  # left to Scrapy's RetryMiddleware
    assert "dont_retry" not in other.meta
    assert _timed_out(retry, Request("http://a.test/x", meta={"dont_retry": True})) is None
    stats = retry.stats
    assert stats.get_value("retry/timeout/later") == 1 and stats.get_value("retry/timeout/given_up") == 1


async def test_a_held_request_is_crawled_after_the_delay_or_when_the_crawl_is_idle(
    tmp_path: Path, redis_url: str
) -> None:
    crawler = crawler_with(tmp_path, REDIS_URL=redis_url, RETRY_TIMEOUT_DELAY=0.1)
    scheduled: list[Request] = []
    crawler.signals.connect(lambda request: scheduled.append(request), signal=signals.request_scheduled, weak=False)
    async with open_engine(crawler):
        retry = crawler.get_downloader_middleware(TimeoutRetry)
        assert retry is not None
        _timed_out(retry, Request("http://a.test/soon", meta={"lease": 7}))
        await until(lambda: scheduled)
        [again] = scheduled
        assert again.url == "http://a.test/soon" and again.meta["retry_times"] == 1 and again.dont_filter
        assert "lease" not in again.meta, "the original's lease is released when it is done"
        retry.delay = 3600.0
        _timed_out(retry, Request("http://a.test/idle"))
        assert stays_open(crawler), "the crawl goes on with it"
        assert [request.url for request in scheduled] == ["http://a.test/soon", "http://a.test/idle"]


async def test_requests_still_held_when_the_crawl_stops_are_queued_for_the_next_run(
    tmp_path: Path, redis_url: str
) -> None:
    crawler = crawler_with(tmp_path, REDIS_URL=redis_url)
    async with open_engine(crawler):
        retry = crawler.get_downloader_middleware(TimeoutRetry)
        assert retry is not None
        _timed_out(retry, Request("http://a.test/later", meta={"depth": 3}))
    frontier = Frontier.for_crawler(crawler)
    leases = frontier.leases()
    [(_, data)] = leases.take(10)
    queued = decode_request(data)
    assert queued.url == "http://a.test/later" and queued.meta["depth"] == 3 and queued.meta["retry_times"] == 1

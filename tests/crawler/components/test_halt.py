"""Halt: a crawl that can reach no site ends after one retry round of robots.txt,
in one line, rather than retry for minutes; once it halts, the errors that
follow are counted, not logged.

Its other reason, a full disk, is not tested here: the first record that says
so is handed to the event loop through the Twisted reactor, which these tests
run without (tests/test_full_disk.py crawls a full disk)."""

from __future__ import annotations

import errno
import logging
from pathlib import Path

import pytest
from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse

from crawler.halt import CRAWLED_NOTHING, Halt
from crawler.monitor import CrawlMonitor, RobotsWait
from crawler.robots_middleware import RobotsMiddleware
from crawler.sites import site_of
from tests.crawler.components.crawlers import crawler_with, open_engine, stays_open, until
from tests.webserver import page, serve_site


async def test_a_crawl_that_reaches_no_site_ends_after_one_retry_round(
    tmp_path: Path, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    closed: list[str] = []
    with serve_site({"/robots.txt": page("<p>Busy</p>", status=503)}) as site:
        crawler = crawler_with(tmp_path, REDIS_URL=redis_url, DOWNLOAD_DELAY=0, ROBOTS_RETRY_DELAY=0.1)
        crawler.signals.connect(lambda reason: closed.append(reason), signal=signals.spider_closed, weak=False)
        async with open_engine(crawler) as engine:
            robots = crawler.get_downloader_middleware(RobotsMiddleware)
            monitor, halt = crawler.get_extension(CrawlMonitor), crawler.get_extension(Halt)
            assert robots is not None and monitor is not None and halt is not None
            with pytest.raises(IgnoreRequest, match="parked"):
                await robots.process_request(Request(site.url("/page")))
            key = site_of(site.url("/"))
            assert monitor.robots_waiting == {key: RobotsWait(1, "HTTP 503")}
            stays_open(crawler)
            assert halt.reason is None, "its retry is to come"
            await until(lambda: monitor.robots_waiting[key].tries >= 2)
            stays_open(crawler)
            assert halt.reason == CRAWLED_NOTHING
            await until(lambda: engine.spider is None)
            logging.getLogger("crawler.archive_middleware").error(
                "Cannot write the archive in %s (%s)", tmp_path, OSError(errno.ENOSPC, "No space left on device")
            )
    assert closed == [CRAWLED_NOTHING] and crawler.stats.get_value("halt/reason") == CRAWLED_NOTHING
    [said] = [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]
    assert said.startswith("Crawled nothing: no site answered for its robots.txt") and key in said
    assert "1 request stays queued" in said
    assert crawler.stats.get_value("halt/suppressed"), "the error that followed was counted, not logged"


def test_a_crawl_that_fetched_a_page_or_has_every_robots_txt_is_not_halted(tmp_path: Path) -> None:
    crawler = crawler_with(tmp_path)
    monitor, halt = crawler.get_extension(CrawlMonitor), crawler.get_extension(Halt)
    assert monitor is not None and halt is not None
    for url, meta in (("http://a.test/robots.txt", {"robots_txt": True}), ("http://a.test/", {})):
        request = Request(url, meta=meta)
        monitor.process_request(request)
        monitor.process_response(request, HtmlResponse(url, body=b"", request=request))
    stays_open(crawler)  # every robots.txt answered
    request = Request("http://b.test/robots.txt", meta={"robots_txt": True})
    for _ in range(2):
        monitor.process_request(request)
        monitor.process_exception(request, ConnectionRefusedError())
    stays_open(crawler)  # b.test is unreachable, but a.test gave a page
    assert monitor.robots_waiting == {"http://b.test:80": RobotsWait(2, "connection refused")}
    assert halt.reason is None and crawler.stats.get_value("halt/reason") is None

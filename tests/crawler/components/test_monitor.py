"""CrawlMonitor: every HTTP exchange counted once, sites waiting for robots.txt,
alerts, and the report written when the spider closes."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import redis
from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import DownloadTimeoutError
from scrapy.http import HtmlResponse
from scrapy.utils.misc import build_from_crawler
from twisted.internet.error import DNSLookupError

from crawler.monitor import CrawlMonitor, RobotsWait, last_finish
from crawler.robots_middleware import ForbiddenByRobots
from tests.crawler.components.crawlers import crawler_with, open_engine

SITE = "http://a.test:80"


def _monitor(crawler: Crawler) -> CrawlMonitor:
    """The monitor as the downloader builds it (the extension is built with the crawler)."""
    return build_from_crawler(CrawlMonitor, crawler)


def _exchange(monitor: CrawlMonitor, url: str, status: int = 200, body: bytes = b"<p>x</p>", **meta: object) -> None:
    """A request that leaves and is answered."""
    request = Request(url, meta=meta)
    monitor.process_request(request)
    monitor.process_response(request, HtmlResponse(url, status=status, body=body, request=request))


def _failure(monitor: CrawlMonitor, url: str, error: Exception, **meta: object) -> None:
    """A request that leaves and gets no answer."""
    request = Request(url, meta=meta)
    monitor.process_request(request)
    monitor.process_exception(request, error)


def test_the_extension_and_the_downloader_middleware_are_one_monitor(tmp_path: Path) -> None:
    crawler = crawler_with(tmp_path)
    assert _monitor(crawler) is crawler.get_extension(CrawlMonitor)


def test_every_exchange_is_counted_once_by_kind_status_and_site(tmp_path: Path) -> None:
    monitor = _monitor(crawler_with(tmp_path))
    _exchange(monitor, "http://a.test/robots.txt", status=404, robots_txt=True)
    _exchange(monitor, "http://a.test/", body=b"x" * 100)
    _exchange(monitor, "http://a.test/missing", status=404)
    _exchange(monitor, "http://a.test/sitemap.xml", sitemap=True)
    _failure(monitor, "http://b.test/", DownloadTimeoutError("took too long"))
    request = Request("http://a.test/answered-above")  # never left: a response made by a middleware above
    monitor.process_response(request, HtmlResponse(request.url, body=b"", request=request))
    tally = monitor.tally
    assert (tally.requests, tally.pages, tally.errors) == (5, 3, 1)
    assert dict(tally.kinds) == {"robots_txt": 1, "page": 3, "sitemap": 1}
    assert dict(tally.classes) == {"4xx": 2, "2xx": 2, "network_error": 1}
    assert tally.sites[SITE].requests["page"] == 2 and tally.sites["http://b.test:80"].errors == 1


def test_a_request_robots_txt_forbids_is_a_refusal_not_an_error(tmp_path: Path) -> None:
    monitor = _monitor(crawler_with(tmp_path))
    monitor.process_exception(Request("http://a.test/private"), ForbiddenByRobots("Forbidden by robots.txt"))
    assert monitor.tally.requests == 0 and monitor.tally.errors == 0
    assert monitor.tally.sites[SITE].robots_refused == 1


def test_sites_waiting_for_robots_txt_are_known_until_it_answers(tmp_path: Path) -> None:
    crawler = crawler_with(tmp_path)
    monitor = _monitor(crawler)
    _exchange(monitor, "http://a.test/robots.txt", status=503, robots_txt=True)
    _failure(monitor, "http://a.test/robots.txt", ConnectionRefusedError("refused"), robots_txt=True)
    _failure(monitor, "http://nowhere.test/robots.txt", DNSLookupError("no such host"), robots_txt=True)
    assert monitor.robots_waiting == {
        SITE: RobotsWait(2, "connection refused"),
        "http://nowhere.test:80": RobotsWait(1, "no such host"),  # its requests wait too: a resolver may be down
    }
    # Once per site; before any page, a host that does not resolve is the seeds' fault, said with them.
    assert crawler.stats.get_value("alerts/robots_unreachable") == 1
    _exchange(monitor, "http://a.test/robots.txt", robots_txt=True)
    assert set(monitor.robots_waiting) == {"http://nowhere.test:80"}


def test_a_site_whose_answers_are_mostly_errors_raises_one_alert(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    crawler = crawler_with(tmp_path, MONITOR_ERROR_RATE=0.2)
    monitor = _monitor(crawler)
    for n in range(12):
        _exchange(monitor, f"http://a.test/{n}", status=500 if n % 3 == 0 else 200)
    assert crawler.stats.get_value("alerts/error_rate") == 1
    assert [record.levelno for record in caplog.records if "Alert error_rate" in record.getMessage()] == [
        logging.WARNING
    ]
    calm = crawler_with(tmp_path, MONITOR_ERROR_RATE=0.5)
    for n in range(12):
        _exchange(_monitor(calm), f"http://a.test/{n}", status=500 if n % 3 == 0 else 200)
    assert calm.stats.get_value("alerts/error_rate") is None


async def test_the_report_is_written_and_the_finish_recorded_when_the_spider_closes(
    tmp_path: Path, redis_url: str
) -> None:
    crawler = crawler_with(tmp_path / "crawl", REDIS_URL=redis_url)
    async with open_engine(crawler):
        monitor = crawler.get_extension(CrawlMonitor)
        assert monitor is not None
        _exchange(monitor, "http://a.test/robots.txt", status=404, robots_txt=True)
        _exchange(monitor, "http://a.test/", body=b"y" * 50)
        _exchange(monitor, "http://a.test/broken", status=503)
        crawler.stats.inc_value("robots/denied")
    [written] = (tmp_path / "crawl" / "reports").glob("crawl-*.json")
    report = json.loads(written.read_text())
    assert report["finish_reason"] == "finished"
    assert report["requests"] == {"total": 3, "pages": 2, "robots_txt": 1, "sitemaps": 0, "probes": 0}
    assert report["status_classes"]["5xx"] == 1 and report["robots"]["refused"] == 1
    assert report["sites"][SITE]["bytes"] == 50 + 2 * len(b"<p>x</p>")
    assert written.with_suffix(".txt").read_text().strip()
    finish = last_finish(redis.Redis.from_url(redis_url))
    assert finish is not None and finish["reason"] == "finished" and finish["pages"] == 2

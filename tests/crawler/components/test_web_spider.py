"""The ``web`` spider: its seeds, a page's item and the links it follows, the
404s it reports, sitemaps, and start URLs pushed into Redis."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import redis
from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import UsageError
from scrapy.http import HtmlResponse, Response, XmlResponse
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.misc import build_from_crawler
from twisted.python.failure import Failure

from crawler.__main__ import seed
from crawler.frontier import Frontier
from crawler.spiders.web import WebSpider
from tests.crawler.components.crawlers import crawler_with, open_engine

_HOME = """<html><head><title>Docs home</title></head><body>
<h1>Documentation</h1><p>Welcome to the documentation of the example project.</p>
<a href="/guide/">The guide</a> <a href="/guide/#install">Installing</a>
<a href="https://elsewhere.test/">A friend</a> <a href="/private/" rel="nofollow">Private</a>
<a href="/logo.png">Logo</a></body></html>"""


def _crawler(tmp_path: Path, redis_url: str, **overrides: Any) -> Crawler:
    return crawler_with(tmp_path, WebSpider, REDIS_URL=redis_url, **overrides)


def _spider(crawler: Crawler) -> WebSpider:
    spider = crawler.spider
    assert isinstance(spider, WebSpider)
    return spider


def _page(url: str, body: str, status: int = 200, **meta: Any) -> HtmlResponse:
    return HtmlResponse(url, status=status, body=body.encode(), encoding="utf-8", request=Request(url, meta=meta))


async def _parsed(spider: WebSpider, response: Response) -> tuple[list[dict[str, Any]], list[Request]]:
    out = [thing async for thing in spider.parse(response)]
    return [x for x in out if isinstance(x, dict)], [x for x in out if isinstance(x, Request)]


@pytest.mark.parametrize(
    "arguments, said",
    [
        ({"seeds": "http://a.test/,ftp://a.test/"}, "only http and https can be crawled"),
        ({"seeds": "https://user:pw@a.test/"}, "a seed URL holds credentials"),
        ({"seeds": "http://a.test/", "scope": "planet"}, "planet"),
        ({"seeds": "http://a.test/", "recrawl": "sometimes"}, "bad recrawl value"),
    ],
)
def test_arguments_the_crawl_cannot_use_are_refused_by_name(tmp_path: Path, arguments: dict, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        build_from_crawler(WebSpider, crawler_with(tmp_path, WebSpider), **arguments)


def test_seeds_are_canonical_once_each_from_the_command_line_and_a_file(tmp_path: Path) -> None:
    listed = tmp_path / "seeds.txt"
    listed.write_text("# our sites\nhttp://B.test:80/docs/../index.html\n\nhttp://a.test/#top  # again\n")
    spider = build_from_crawler(
        WebSpider, crawler_with(tmp_path, WebSpider), seeds="http://a.test/, https://c.test", seeds_file=str(listed)
    )
    assert spider.seeds == ["http://a.test/", "https://c.test/", "http://b.test/index.html"]


async def test_seeds_are_its_first_requests_and_their_hosts_its_scope(tmp_path: Path, redis_url: str) -> None:
    crawler = _crawler(tmp_path, redis_url)
    async with open_engine(crawler, seeds="http://a.test/,http://b.test/start"):
        spider = _spider(crawler)
        requests = [request async for request in spider.start()]
        assert [(r.url, r.meta["seed"], r.errback) for r in requests] == [
            ("http://a.test/", True, spider.failed),
            ("http://b.test/start", True, spider.failed),
        ]
        assert Frontier.for_crawler(crawler).scope() == {"a.test", "b.test"}, "shared with every node"


async def test_a_page_yields_its_item_and_requests_for_its_new_links_in_scope(tmp_path: Path, redis_url: str) -> None:
    crawler = _crawler(tmp_path, redis_url)
    async with open_engine(crawler, seeds="https://docs.test/"):
        items, requests = await _parsed(_spider(crawler), _page("https://docs.test/", _HOME, depth=0))
    [item] = items
    assert item["type"] == "page" and item["url"] == "https://docs.test/" and item["title"] == "Docs home"
    assert "Welcome to the documentation" in item["text"]
    assert ["https://docs.test/guide/", "The guide"] in item["links"]
    assert ["https://elsewhere.test/", "A friend"] in item["links"], "its anchor text is indexed for the other site"
    assert [request.url for request in requests] == ["https://docs.test/guide/"]
    stats = crawler.stats.get_stats()
    assert stats["links/out_of_scope"] == 1 and stats["links/nofollow"] == 1 and stats["links/media"] == 1


async def test_a_copy_of_a_page_seen_before_is_recorded_as_a_duplicate_and_not_followed(
    tmp_path: Path, redis_url: str
) -> None:
    crawler = _crawler(tmp_path, redis_url)
    async with open_engine(crawler, seeds="https://docs.test/"):
        spider = _spider(crawler)
        await _parsed(spider, _page("https://docs.test/", _HOME))
        items, requests = await _parsed(spider, _page("https://docs.test/index.html", _HOME))
    assert items == [
        {"type": "duplicate", "url": "https://docs.test/index.html", "of": "https://docs.test/", "aliases": []}
    ]
    assert requests == [] and crawler.stats.get_value("dupes/content") == 1


async def test_pages_noindex_and_nofollow_keep_out_of_the_index_and_the_queue(tmp_path: Path, redis_url: str) -> None:
    crawler = _crawler(tmp_path, redis_url)
    hidden = _HOME.replace("<head>", '<head><meta name="robots" content="noindex, nofollow">')
    async with open_engine(crawler, seeds="https://docs.test/"):
        items, requests = await _parsed(_spider(crawler), _page("https://docs.test/", hidden))
    assert items == [] and requests == []
    assert crawler.stats.get_value("meta/noindex") == 1 and crawler.stats.get_value("meta/nofollow") == 1


@pytest.mark.parametrize("status, gone", [(404, True), (410, True), (500, False)])
async def test_a_page_that_is_gone_is_reported_to_the_index(
    tmp_path: Path, redis_url: str, status: int, gone: bool
) -> None:
    crawler = _crawler(tmp_path, redis_url)
    async with open_engine(crawler, seeds="https://docs.test/"):
        error = HttpError(_page("https://docs.test/Old#x", "<p>no</p>", status=status), "Ignoring non-200 response")
        items = list(_spider(crawler).failed(Failure(error)))
    assert items == ([{"type": "gone", "url": "https://docs.test/Old", "status": status}] if gone else [])


async def test_a_sitemaps_urls_in_scope_are_queued(tmp_path: Path, redis_url: str) -> None:
    urls = "".join(
        f"<url><loc>{url}</loc></url>"
        for url in ("https://docs.test/a.html", "https://docs.test/b.html#x", "https://elsewhere.test/c.html")
    )
    sitemap = f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    index = (
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<sitemap><loc>https://docs.test/more.xml</loc></sitemap>"
        "<sitemap><loc>https://elsewhere.test/theirs.xml</loc></sitemap></sitemapindex>"
    )
    crawler = _crawler(tmp_path, redis_url)
    async with open_engine(crawler, seeds="https://docs.test/"):
        spider = _spider(crawler)

        def read(body: str, status: int = 200) -> list[str]:
            url = "https://docs.test/sitemap.xml"
            response = XmlResponse(url, status=status, body=body.encode(), request=Request(url))
            return [request.url for request in spider.parse_sitemap(response)]

        assert read(sitemap) == ["https://docs.test/a.html", "https://docs.test/b.html"]
        assert read(index) == ["https://docs.test/more.xml"], "another site's sitemaps are its own business"
        assert read("<!DOCTYPE html><html><title>Not found</title></html>") == []
        assert read("", status=404) == []
    stats = crawler.stats.get_stats()
    assert stats["sitemap/urls"] == 3 and stats["sitemaps/not_xml"] == 1 and stats["sitemap/missing"] == 1


async def test_start_urls_pushed_into_redis_become_seeds(tmp_path: Path, redis_url: str) -> None:
    crawler = _crawler(tmp_path, redis_url)
    async with open_engine(crawler, seeds="https://docs.test/"):
        spider = _spider(crawler)
        redis.Redis.from_url(redis_url).lpush("web:start_urls", "https://NEW.test/a#b", "mailto:x@new.test")
        requests = spider.next_requests()
        assert [(r.url, r.meta) for r in requests] == [("https://new.test/a", {"seed": True})]
        assert "https://new.test/more" in spider.scope and "new.test" in Frontier.for_crawler(crawler).scope()
        assert spider.next_requests() == []
    assert crawler.stats.get_value("start_urls/read") == 2 and crawler.stats.get_value("start_urls/refused") == 1


async def test_start_urls_the_crawl_knows_are_said_to_be_known(
    tmp_path: Path, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A start URL queued before (here by ``lantern seed``), or pushed twice
    in one look, is not fetched again: the line that says what was read says
    so, rather than counting it among the new."""
    crawler = _crawler(tmp_path, redis_url)
    async with open_engine(crawler, seeds="https://docs.test/"):
        spider = _spider(crawler)
        seed(Frontier.for_crawler(crawler), ["https://docs.test/faq"])
        redis.Redis.from_url(redis_url).lpush(
            "web:start_urls", "https://docs.test/faq", "https://docs.test/new", "https://docs.test/new"
        )
        with caplog.at_level(logging.INFO, logger="crawler.start_urls"):
            spider.next_requests()
            redis.Redis.from_url(redis_url).lpush("web:start_urls", "https://docs.test/other")
            spider.next_requests()
    assert [record.getMessage() for record in caplog.records if "start URL(s)" in record.getMessage()] == [
        "Read 3 start URL(s) from web:start_urls: 1 new, 2 already known (not fetched again): "
        "https://docs.test/new, https://docs.test/faq",
        "Read 1 start URL(s) from web:start_urls",
    ]
    assert crawler.stats.get_value("start_urls/known") == 2

"""RobotsMiddleware: no request leaves before its site's robots.txt is known, and
each answer means what ARCHITECTURE.md, item 14 says. robots.txt is fetched by a
real engine from a literal site on 127.0.0.1; the outcome is shared in Redis."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.utils.misc import build_from_crawler

from crawler.frontier import Frontier, decode_request
from crawler.politeness import PolitenessMiddleware
from crawler.robots_middleware import ForbiddenByRobots, RobotsMiddleware
from crawler.sites import site_of
from crawler.spiders.web import WebSpider
from tests.crawler.components.crawlers import crawler_with, open_engine, stays_open, until
from tests.webserver import Reply, Site, page, serve_site, text

_RULES = "User-agent: *\nDisallow: /private\nCrawl-delay: 4\n"


@asynccontextmanager
async def _robots(tmp_path: Path, redis_url: str, **overrides: Any) -> AsyncIterator[RobotsMiddleware]:
    """The middleware of an open engine, which fetches robots.txt for it."""
    crawler = crawler_with(tmp_path, REDIS_URL=redis_url, DOWNLOAD_DELAY=0, **overrides)
    async with open_engine(crawler):
        robots = crawler.get_downloader_middleware(RobotsMiddleware)
        assert robots is not None
        yield robots


def _fetches(site: Site) -> int:
    return site.paths().count("/robots.txt")


def _queued(frontier: Frontier) -> list[str]:
    """The URLs of every request queued in the frontier, taken as a node takes them."""
    leases, urls = frontier.leases(), []
    while taken := leases.take(10):
        urls += [decode_request(data).url for _, data in taken]
        leases.done(lease for lease, _ in taken)
    return sorted(urls)


def _stats(crawler: Crawler, prefix: str) -> dict[str, int]:
    return {key: value for key, value in crawler.stats.get_stats().items() if key.startswith(prefix)}


def test_switched_off_by_robotstxt_obey(tmp_path: Path) -> None:
    with pytest.raises(NotConfigured, match="ROBOTSTXT_OBEY"):
        build_from_crawler(RobotsMiddleware, crawler_with(tmp_path, ROBOTSTXT_OBEY=False))


def test_an_unknown_4xx_policy_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(NotConfigured, match="ROBOTS_4XX_POLICY must be 'disallow' or 'allow', not 'deny'"):
        build_from_crawler(RobotsMiddleware, crawler_with(tmp_path, ROBOTS_4XX_POLICY="deny"))


async def test_a_disallowed_url_is_refused_and_counted_the_rest_goes_after_one_fetch(
    tmp_path: Path, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="crawler.robots_middleware")
    with serve_site({"/robots.txt": text(_RULES)}) as site:
        async with _robots(tmp_path, redis_url) as robots:
            await robots.process_request(Request(site.url("/public/a")))
            for path in ("/private/a", "/private/b"):
                with pytest.raises(ForbiddenByRobots):
                    await robots.process_request(Request(site.url(path)))
            await robots.process_request(Request(site.url("/public/b")))
            stats = _stats(robots.crawler, "robots/")
    assert stats == {"robots/status/200": 1, "robots/outcome/parse": 1, "robots/denied": 2}
    assert site.paths() == ["/robots.txt"], "robots.txt once, and nothing else sent by the middleware"
    asked = site.requests[0].headers
    assert asked["User-Agent"].startswith("LanternBot/") and asked["From"], "robots.txt asked with our identity"
    said = [record.getMessage() for record in caplog.records if "forbids" in record.getMessage()]
    assert len(said) == 1 and "Disallow: /private" in said[0], "the first refusal on a site is logged, once"


@pytest.mark.parametrize(
    "reply, policy, allowed, outcome",
    [
        (page("<p>Not found</p>", status=404), "disallow", True, "allow_all"),
        (page("<p>Gone</p>", status=410), "disallow", True, "allow_all"),
        (page("<p>Members only</p>", status=401), "disallow", False, "disallow_all"),
        (page("<p>Forbidden</p>", status=403), "disallow", False, "disallow_all"),
        (page("<p>Forbidden</p>", status=403), "allow", True, "allow_all"),
        (page("<title>Welcome</title><p>A home page, not a robots.txt</p>"), "disallow", True, "allow_all"),
    ],
)
async def test_what_each_answer_for_robots_txt_means(
    tmp_path: Path, redis_url: str, reply: Reply, policy: str, allowed: bool, outcome: str
) -> None:
    with serve_site({"/robots.txt": reply}) as site:
        async with _robots(tmp_path, redis_url, ROBOTS_4XX_POLICY=policy) as robots:
            try:
                await robots.process_request(Request(site.url("/any/page")))
            except ForbiddenByRobots:
                refused = True
            else:
                refused = False
            stats = _stats(robots.crawler, "robots/")
    assert refused is not allowed
    assert stats[f"robots/outcome/{outcome}"] == 1 and stats[f"robots/status/{reply.status}"] == 1
    assert ("robots/denied" in stats) is not allowed


async def test_redirects_of_robots_txt_are_followed(tmp_path: Path, redis_url: str) -> None:
    routes = {
        "/robots.txt": Reply(b"", 301, {"Location": "/moved/robots.txt"}),
        "/moved/robots.txt": text("User-agent: *\nDisallow: /old\n"),
    }
    with serve_site(routes) as site:
        async with _robots(tmp_path, redis_url) as robots:
            with pytest.raises(ForbiddenByRobots):
                await robots.process_request(Request(site.url("/old/page")))
    assert site.paths() == ["/robots.txt", "/moved/robots.txt"]


async def test_while_robots_txt_is_unavailable_requests_wait_in_redis_and_go_back_once_it_answers(
    tmp_path: Path, redis_url: str
) -> None:
    routes: dict[str, Reply] = {"/robots.txt": page("<p>Busy</p>", status=503)}
    with serve_site(routes) as site:
        async with _robots(tmp_path, redis_url, ROBOTS_RETRY_DELAY=0.2) as robots:
            started = time.time()
            with pytest.raises(IgnoreRequest, match="parked") as parked:
                await robots.process_request(Request(site.url("/page"), meta={"depth": 1}))
            assert not isinstance(parked.value, ForbiddenByRobots)
            key = site_of(site.url("/"))
            state = robots.shared.get(key)
            assert state is not None and state["outcome"] == "retry" and state["attempts"] == 1
            assert started + 0.2 <= state["retry_at"] <= time.time() + 0.2
            assert robots.shared.parked(key) == 1
            assert _stats(robots.crawler, "robots/") == {
                "robots/status/503": 1,
                "robots/outcome/retry": 1,
                "robots/deferred": 1,
            }
            assert stays_open(robots.crawler), "the crawl waits for the retry"
            routes["/robots.txt"] = text(_RULES)  # the site is back
            await until(lambda: robots.shared.parked(key) == 0)
            frontier = Frontier.for_crawler(robots.crawler)
            frontier.drain_inbox()  # as the scheduler does when it opens, and every heartbeat
            assert _queued(frontier) == [site.url("/page")], "the parked request is queued again"
    assert _fetches(site) == 2 and "/page" not in site.paths()


async def test_each_sites_robots_txt_is_fetched_once_for_every_node(tmp_path: Path, redis_url: str) -> None:
    with serve_site({"/robots.txt": text(_RULES)}) as site:
        async with _robots(tmp_path / "a", redis_url) as first, _robots(tmp_path / "b", redis_url) as second:
            await first.process_request(Request(site.url("/a")))
            await second.process_request(Request(site.url("/b")))
            with pytest.raises(ForbiddenByRobots):
                await second.process_request(Request(site.url("/private/b")))
            assert second.crawler.stats.get_value("robots/cache/shared") == 1
    assert _fetches(site) == 1


async def test_requests_for_robots_txt_itself_or_told_to_ignore_it_go_unchecked(tmp_path: Path, redis_url: str) -> None:
    with serve_site({"/robots.txt": text("User-agent: *\nDisallow: /\n")}) as site:
        async with _robots(tmp_path, redis_url) as robots:
            await robots.process_request(Request(site.url("/robots.txt"), meta={"robots_txt": True}))
            await robots.process_request(Request(site.url("/login"), meta={"dont_obey_robotstxt": True}))
    assert site.paths() == []


async def test_the_crawl_delay_reaches_the_politeness_of_the_site(tmp_path: Path, redis_url: str) -> None:
    with serve_site({"/robots.txt": text(_RULES)}) as site, serve_site({}) as other:
        async with _robots(tmp_path, redis_url, ROBOTS_CRAWL_DELAY_MAX=30.0) as robots:
            await robots.process_request(Request(site.url("/a")))
            await robots.process_request(Request(other.url("/a")))  # a 404: no delay of its own
            politeness = robots.crawler.get_downloader_middleware(PolitenessMiddleware)
            assert politeness is not None
            assert politeness.delay_for(site_of(site.url("/"))) == 4.0
            assert politeness.delay_for(site_of(other.url("/"))) == 0.0


async def test_a_sites_sitemaps_and_a_soft_404_probe_are_queued_when_its_robots_txt_is_first_read(
    tmp_path: Path, redis_url: str
) -> None:
    with serve_site({}) as site:
        rules = f"User-agent: *\nDisallow: /private\nSitemap: {site.url('/maps/pages.xml')}\n"
        with serve_site({"/robots.txt": text(rules)}) as mapped:
            crawler = crawler_with(tmp_path, WebSpider, REDIS_URL=redis_url, DOWNLOAD_DELAY=0)
            async with open_engine(crawler, seeds=mapped.url("/")):
                robots = crawler.get_downloader_middleware(RobotsMiddleware)
                assert robots is not None
                await robots.process_request(Request(mapped.url("/a")))
                await robots.process_request(Request(site.url("/a")))
                await robots.process_request(Request(mapped.url("/b")))  # known: nothing queued again
            queued = _queued(Frontier.for_crawler(crawler))
    probes = [url for url in queued if "/lantern-probe-" in url]
    assert sorted(set(queued) - set(probes)) == [site.url("/maps/pages.xml"), site.url("/sitemap.xml")]
    assert sorted(site_of(url) for url in probes) == sorted([site_of(mapped.url("/")), site_of(site.url("/"))])

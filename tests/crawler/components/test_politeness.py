"""PolitenessMiddleware: each site's delay, in its download slot and in the
frontier's turns; Retry-After pauses; the shared wait of several nodes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import redis
from scrapy import Request
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse
from scrapy.utils.misc import build_from_crawler

from crawler.frontier import Frontier
from crawler.politeness import PolitenessMiddleware
from crawler.sites import site_of
from crawler.turns import site_key
from tests.crawler.components.crawlers import crawler_with, open_engine
from tests.webserver import page, serve_site

SITE = "http://a.test:80"


@asynccontextmanager
async def _politeness(tmp_path: Path, redis_url: str, **overrides: Any) -> AsyncIterator[PolitenessMiddleware]:
    """The middleware of an open engine (it keeps the delays in the engine's download slots)."""
    crawler = crawler_with(tmp_path, REDIS_URL=redis_url, **overrides)
    async with open_engine(crawler):
        politeness = crawler.get_downloader_middleware(PolitenessMiddleware)
        assert politeness is not None
        yield politeness


def _turns(frontier: Frontier | None, site: str) -> dict[str, int]:
    """The site's turn state in Redis: its own delay (``delay``), its next turn
    (``next``) and its last request's departure (``sent``), in ms."""
    assert frontier is not None
    state = frontier.client.hgetall(site_key(frontier.part(site).queue, site))
    return {key.decode(): int(value) for key, value in state.items()}


def _redis_ms(frontier: Frontier | None) -> int:
    assert frontier is not None
    seconds, micros = frontier.client.time()
    return seconds * 1000 + micros // 1000


def _answer(
    url: str, status: int = 200, latency: float | None = None, headers: dict[str, str] | None = None
) -> tuple[Request, HtmlResponse]:
    request = Request(url, meta={} if latency is None else {"download_latency": latency})
    return request, HtmlResponse(url, status=status, headers=headers, body=b"<p>x</p>", request=request)


def test_autothrottle_sets_the_delays_instead(tmp_path: Path) -> None:
    with pytest.raises(NotConfigured, match="AutoThrottle"):
        build_from_crawler(PolitenessMiddleware, crawler_with(tmp_path, AUTOTHROTTLE_ENABLED=True))


async def test_a_slow_site_is_asked_less_often_and_more_often_again_once_it_recovers(
    tmp_path: Path, redis_url: str
) -> None:
    async with _politeness(tmp_path, redis_url, DOWNLOAD_DELAY=1.0, POLITENESS_SLOWDOWN=2.0) as politeness:
        assert politeness.delay_for(SITE) == 1.0
        politeness.process_response(*_answer("http://a.test/1", latency=2.5))
        assert politeness.delay_for(SITE) == 5.0  # twice its response time
        assert politeness.crawler.stats.get_value("politeness/slowdown") == 1
        assert _turns(politeness.frontier, SITE)["delay"] == 5000, "every node's turns follow"
        politeness.process_response(*_answer("http://a.test/2", latency=2.5))
        assert politeness.crawler.stats.get_value("politeness/slowdown") == 1  # counted once per slow spell
        politeness.process_response(*_answer("http://a.test/3", status=503, latency=30.0))
        assert politeness.delay_for(SITE) == 5.0, "an error's time is no response time"
        for n in range(20):
            politeness.process_response(*_answer(f"http://a.test/q{n}", latency=0.1))
        assert politeness.delay_for(SITE) == 1.0
        assert _turns(politeness.frontier, SITE)["delay"] == 1000
        assert politeness.delay_for("http://b.test:80") == 1.0, "another site keeps its own delay"


async def test_a_slow_answer_is_backed_off_up_to_the_maximum_delay(tmp_path: Path, redis_url: str) -> None:
    async with _politeness(tmp_path, redis_url, POLITENESS_MAX_DELAY=20.0) as politeness:
        politeness.process_response(*_answer("http://a.test/", latency=50.0))
        assert politeness.delay_for(SITE) == 20.0


async def test_a_crawl_delay_is_kept_up_to_its_maximum_and_told_to_the_frontier(tmp_path: Path, redis_url: str) -> None:
    async with _politeness(tmp_path, redis_url, DOWNLOAD_DELAY=1.0, ROBOTS_CRAWL_DELAY_MAX=30.0) as politeness:
        politeness.set_crawl_delay(SITE, 7.0)
        politeness.set_crawl_delay("http://b.test:80", 90.0)
        assert politeness.delay_for(SITE) == 7.0 and politeness.delay_for("http://b.test:80") == 30.0
        assert _turns(politeness.frontier, SITE)["delay"] == 7000
        assert _turns(politeness.frontier, "http://b.test:80")["delay"] == 30000


async def test_a_delay_close_to_the_crawls_own_is_not_told_to_the_frontier(tmp_path: Path, redis_url: str) -> None:
    async with _politeness(tmp_path, redis_url, DOWNLOAD_DELAY=1.0) as politeness:
        politeness.set_crawl_delay(SITE, 1.05)
        assert politeness.delay_for(SITE) == 1.05
        assert "delay" not in _turns(politeness.frontier, SITE)


@pytest.mark.parametrize(
    "status, retry_after, paused",
    [(429, "120", 120), (503, "7200", 3600), (429, None, None), (500, "120", None)],
)
async def test_retry_after_pauses_the_site_for_every_node(
    tmp_path: Path, redis_url: str, status: int, retry_after: str | None, paused: int | None
) -> None:
    headers = {"Retry-After": retry_after} if retry_after else {}
    async with _politeness(tmp_path, redis_url, POLITENESS_RETRY_AFTER_MAX=3600.0) as politeness:
        before = _redis_ms(politeness.frontier)
        politeness.process_response(*_answer("http://a.test/x", status, headers=headers))
        turns, after = _turns(politeness.frontier, SITE), _redis_ms(politeness.frontier)
        counted = politeness.crawler.stats.get_value("politeness/retry_after")
    if paused is None:
        assert "next" not in turns and counted is None
    else:
        assert before + paused * 1000 <= turns["next"] <= after + paused * 1000
        assert counted == 1


async def test_retry_after_as_a_date_pauses_until_then_at_most_the_maximum(tmp_path: Path, redis_url: str) -> None:
    async with _politeness(tmp_path, redis_url, POLITENESS_RETRY_AFTER_MAX=600.0) as politeness:
        before = _redis_ms(politeness.frontier)
        politeness.process_response(
            *_answer("http://a.test/x", 503, headers={"Retry-After": "Fri, 31 Dec 2100 23:59:59 GMT"})
        )
        assert before + 600_000 <= _turns(politeness.frontier, SITE)["next"] <= _redis_ms(politeness.frontier) + 600_000


async def test_with_a_shared_frontier_a_request_waits_for_another_nodes_last_one_to_the_site(
    tmp_path: Path, redis_url: str
) -> None:
    other_node = Frontier(redis.Redis.from_url(redis_url))
    async with _politeness(tmp_path, redis_url, DOWNLOAD_DELAY=0.3) as politeness:
        assert other_node.sending(SITE, 0.3) == 0  # its request to the site leaves now
        await politeness.take_turn(Request("http://a.test/mine"))  # as this one leaves (TurnTakingHandler)
        waited = politeness.crawler.stats.get_value("politeness/shared_wait_ms")
        assert 150 <= waited <= 300, waited
        assert 0 < other_node.sending(SITE, 0.3) <= 0.3, "this node's request is the site's last one now"


async def test_robots_txt_takes_no_turn(tmp_path: Path, redis_url: str) -> None:
    async with _politeness(tmp_path, redis_url, DOWNLOAD_DELAY=2.0) as politeness:
        await politeness.take_turn(Request("http://a.test/robots.txt", meta={"robots_txt": True}))
        assert "sent" not in _turns(politeness.frontier, SITE)
        await politeness.take_turn(Request("http://a.test/page"))
        assert "sent" in _turns(politeness.frontier, SITE)


async def test_a_crawl_without_a_delay_waits_for_no_other_node(tmp_path: Path, redis_url: str) -> None:
    async with _politeness(tmp_path, redis_url, DOWNLOAD_DELAY=0) as politeness:
        await politeness.take_turn(Request("http://b.test/"))
        await politeness.take_turn(Request("http://b.test/again"))
        assert "sent" not in _turns(politeness.frontier, "http://b.test:80")
        assert politeness.crawler.stats.get_value("politeness/shared_wait_ms") is None


async def test_the_download_slot_keeps_the_sites_delay_without_jitter_and_a_retry_after_holds_it(
    tmp_path: Path, redis_url: str
) -> None:
    with serve_site({"/a": page("<p>A</p>")}) as site:
        async with _politeness(tmp_path, redis_url, ROBOTSTXT_OBEY=False, DOWNLOAD_DELAY=0) as politeness:
            engine = politeness.crawler.engine
            await engine.download_async(Request(site.url("/a")))
            slot = engine.downloader.slots[site_of(site.url("/a"))]
            assert slot.delay == 0.0
            politeness.process_response(*_answer(site.url("/slow"), latency=10.0))  # after /a's quick answer
            delay = politeness.delay_for(site_of(site.url("/")))
            assert delay >= 3.0
            await politeness.process_request(Request(site.url("/b")))
            assert slot.delay == delay and slot.download_delay() == delay  # the slowdown's, without jitter
            assert slot.latercall is None
            politeness.process_response(*_answer(site.url("/c"), 429, headers={"Retry-After": "60"}))
            assert slot.latercall is not None, "the slot's queue waits out the pause in this node"

"""Scheduler: Scrapy's scheduler over the Redis frontier. Each URL once, breadth
first, a site's requests spaced by its turns, the work of a node that stops
given back, and no new work while the indexer is far behind."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import redis
from scrapy import Request

from crawler.scheduler import Scheduler
from crawler.turns import site_key
from tests.crawler.components.crawlers import crawler_with, open_engine, stays_open


@asynccontextmanager
async def _node(tmp_path: Path, redis_url: str, **overrides: Any) -> AsyncIterator[Scheduler]:
    """One node's scheduler, opened by its engine (each node with a data directory of its own)."""
    async with open_engine(crawler_with(tmp_path, REDIS_URL=redis_url, **overrides)) as engine:
        scheduler = engine.scheduler
        assert isinstance(scheduler, Scheduler)
        yield scheduler


def _urls(scheduler: Scheduler) -> list[str]:
    """What the node fetches next, in order, as long as it has something."""
    urls = []
    while (request := scheduler.next_request()) is not None:
        urls.append(request.url)
    return urls


async def test_a_queued_request_comes_back_with_its_lease_and_is_counted(tmp_path: Path, redis_url: str) -> None:
    async with _node(tmp_path, redis_url, DOWNLOAD_DELAY=0) as scheduler:
        assert scheduler.enqueue_request(Request("http://a.test/page", meta={"depth": 1}))
        assert len(scheduler) == 1 and scheduler.has_pending_requests()
        request = scheduler.next_request()
        assert request is not None and request.url == "http://a.test/page" and request.meta["depth"] == 1
        assert isinstance(request.meta["lease"], int)
        assert scheduler.next_request() is None and scheduler.leases.held() == 1, "taken once, not done yet"
        scheduler.done(request)
        assert scheduler.next_request() is None and scheduler.leases.held() == 0
        assert not scheduler.has_pending_requests()
        stats = scheduler.stats.get_stats()
        assert stats["scheduler/enqueued/redis"] == 1 and stats["scheduler/dequeued/redis"] == 1


async def test_each_url_is_queued_once_by_every_node_whatever_its_spelling(tmp_path: Path, redis_url: str) -> None:
    async with (
        _node(tmp_path / "a", redis_url, DOWNLOAD_DELAY=0) as one,
        _node(tmp_path / "b", redis_url, DOWNLOAD_DELAY=0) as other,
    ):
        assert one.enqueue_request(Request("http://a.test/x?b=2&a=1"))
        assert not one.enqueue_request(Request("http://A.test:80/x?a=1&b=2#part"))
        one.next_request()  # (sends what the node found to Redis)
        assert other.enqueue_request(Request("http://a.test/x?a=1&b=2"))  # this node has not seen it...
        assert other.next_request() is None  # ...Redis has
        assert other.enqueue_request(Request("http://a.test/x?a=1&b=2", dont_filter=True))
        assert _urls(other) == ["http://a.test/x?a=1&b=2"]
        assert one.stats.get_value("frontier/duplicate/local") == 1
        assert other.stats.get_value("frontier/duplicate/shared") == 1


async def test_breadth_first_within_a_site(tmp_path: Path, redis_url: str) -> None:
    async with _node(tmp_path, redis_url, DOWNLOAD_DELAY=0, CONCURRENT_REQUESTS_PER_DOMAIN=8) as scheduler:
        for url, depth in (("http://a.test/deep", 3), ("http://a.test/near", 1), ("http://a.test/mid", 2)):
            scheduler.enqueue_request(Request(url, meta={"depth": depth}))
        assert _urls(scheduler) == ["http://a.test/near", "http://a.test/mid", "http://a.test/deep"]


async def test_a_sites_second_request_waits_for_its_next_turn_while_other_sites_go(
    tmp_path: Path, redis_url: str
) -> None:
    async with _node(tmp_path, redis_url, DOWNLOAD_DELAY=30.0, POLITENESS_JITTER=0) as scheduler:
        for url in ("http://a.test/1", "http://a.test/2", "http://b.test/1"):
            scheduler.enqueue_request(Request(url))
        seconds, micros = scheduler.frontier.client.time()
        assert sorted(_urls(scheduler)) == ["http://a.test/1", "http://b.test/1"]
        assert scheduler.leases.next_turn is not None and 29.0 < scheduler.leases.next_turn <= 30.0
        state = scheduler.frontier.client.hget(site_key(scheduler.frontier.queue_key, "http://a.test:80"), "next")
        assert int(state) - (seconds * 1000 + micros // 1000) == pytest.approx(30_000, abs=1000)


async def test_a_sites_budget_of_pages_is_kept_and_said_once(
    tmp_path: Path, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with _node(tmp_path, redis_url, DOWNLOAD_DELAY=0, TRAPS_MAX_PAGES_PER_SITE=2) as scheduler:
        for n in range(4):
            scheduler.enqueue_request(Request(f"http://a.test/{n}"))
        scheduler.enqueue_request(Request("http://b.test/0"))
        scheduler.next_request()
        assert scheduler.stats.get_value("traps/site_budget") == 2
        assert scheduler.stats.get_value("scheduler/enqueued/redis") == 3
    assert len([r for r in caplog.records if "TRAPS_MAX_PAGES_PER_SITE" in r.getMessage()]) == 1


async def test_no_new_work_is_taken_while_the_indexer_is_far_behind(
    tmp_path: Path, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    redis.Redis.from_url(redis_url).rpush("web:items", b"{}", b"{}", b"{}")
    async with _node(tmp_path, redis_url, DOWNLOAD_DELAY=0, INDEX_QUEUE_MAX=2) as scheduler:
        scheduler.enqueue_request(Request("http://a.test/"))
        assert scheduler.next_request() is None
        assert scheduler.stats.get_value("scheduler/paused_for_indexer") == 1
    assert [r.levelno for r in caplog.records if "INDEX_QUEUE_MAX" in r.getMessage()] == [logging.WARNING]


async def test_a_node_that_stops_gives_its_taken_requests_back(tmp_path: Path, redis_url: str) -> None:
    async with _node(tmp_path / "a", redis_url, DOWNLOAD_DELAY=0) as staying:
        async with _node(tmp_path / "b", redis_url, DOWNLOAD_DELAY=0) as stopping:
            stopping.enqueue_request(Request("http://a.test/unfinished"))
            assert stopping.next_request() is not None
            assert staying.next_request() is None, "leased to the other node"
        assert _urls(staying) == ["http://a.test/unfinished"]


async def test_a_node_with_nothing_to_do_stays_while_others_may_find_work(tmp_path: Path, redis_url: str) -> None:
    async with _node(tmp_path / "a", redis_url, DOWNLOAD_DELAY=0, FRONTIER_IDLE_GRACE=0) as idle:
        async with _node(tmp_path / "b", redis_url, DOWNLOAD_DELAY=0) as busy:
            busy.enqueue_request(Request("http://a.test/"))
            busy.next_request()
            assert stays_open(idle.crawler), "another node holds a request: it may find links"
        assert stays_open(idle.crawler), "that request is queued again"
        [request] = [request for request in [idle.next_request()] if request]
        idle.done(request)
        assert not stays_open(idle.crawler)


async def test_flush_on_start_forgets_the_queue_and_the_urls_seen(tmp_path: Path, redis_url: str) -> None:
    async with _node(tmp_path / "a", redis_url, DOWNLOAD_DELAY=0) as first:
        first.enqueue_request(Request("http://a.test/seen"))
        first.enqueue_request(Request("http://a.test/queued"))
        first.next_request()
    async with _node(tmp_path / "b", redis_url, DOWNLOAD_DELAY=0, SCHEDULER_FLUSH_ON_START=True) as fresh:
        assert len(fresh.frontier) == 0
        assert fresh.enqueue_request(Request("http://a.test/seen"))
        assert _urls(fresh) == ["http://a.test/seen"]

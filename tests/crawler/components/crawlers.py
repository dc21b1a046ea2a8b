"""Crawlers for one component at a time, as Scrapy's own tests build them.

``crawler_with()`` is Scrapy's ``get_crawler()`` over the project's settings
(``crawler/settings.py``) and a test's overrides, which take the place of
``scrapy crawl -s NAME=value``. It starts no process: a component that needs
Redis is given the test's server (the ``redis_url`` fixture, a real one);
without it, ``REDIS_URL`` names a port nothing listens on, so a component
that reaches for Redis fails at once instead of starting an embedded server
the test did not ask for. No process parses pages or indexes them beside it.

``open_engine()`` is the smallest real engine, for the components that fetch
(robots.txt, a login) or hand requests back to the engine: every component
built and the spider opened, but the engine not started, so nothing is
fetched but what a component or the test asks for. It runs in the asyncio
event loop of the test (Scrapy without a Twisted reactor), as does every
coroutine of a component: the tests that need one are written ``async def``
(tests/crawler/components/conftest.py runs them).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from scrapy import Spider, signals
from scrapy.core.engine import ExecutionEngine
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.reactor import is_reactor_installed
from scrapy.utils.spider import DefaultSpider
from scrapy.utils.test import get_crawler

from crawler import settings as defaults

__all__ = ["NOWHERE", "crawler_with", "open_engine", "stays_open", "until"]

#: A Redis URL nothing answers at: connecting fails at once.
NOWHERE = "redis://127.0.0.1:1/0"

_ALONE = {
    "REDIS_URL": NOWHERE,
    "CRAWLER_EXTRACT_PROCESSES": 0,  # pages parsed in this process
    "INDEX_WITH_CRAWL": False,  # no indexer process beside the crawl
    # Scrapy's memory watch starts with the engine (engine_started), which an
    # engine that is never started does not send; it would fail at engine_stopped.
    "MEMUSAGE_ENABLED": False,
}


def crawler_with(data_dir: Path, spider: type[Spider] = DefaultSpider, **overrides: Any) -> Crawler:
    """A crawler of the project's settings and ``overrides``, its data in
    ``data_dir``; its extensions are built (Scrapy builds them with the crawler)."""
    project = {name: getattr(defaults, name) for name in dir(defaults) if name.isupper()}
    return get_crawler(spider, {**project, **_ALONE, "DATA_DIR": str(data_dir), **overrides})


def stays_open(crawler: Crawler) -> bool:
    """Send ``spider_idle`` (the crawl is out of work), as the engine does: whether
    a handler keeps the spider open (DontCloseSpider)."""
    results = crawler.signals.send_catch_log(signals.spider_idle, dont_log=DontCloseSpider, spider=crawler.spider)
    return any(isinstance(getattr(result, "value", None), DontCloseSpider) for _, result in results)


async def until(condition: Callable[[], object], timeout: float = 10.0) -> None:
    """Let the event loop run until ``condition()`` holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"still waiting after {timeout} s"
        await asyncio.sleep(0.01)


@asynccontextmanager
async def open_engine(crawler: Crawler, **spider_arguments: Any) -> AsyncIterator[ExecutionEngine]:
    """The crawler's engine with its spider open (``spider_opened`` sent), not
    started; closed as a crawl ends (``spider_closed``, then ``engine_stopped``)."""
    # Its downloads go through Scrapy's asyncio download handler: a Twisted
    # reactor installed by an earlier test would take them, and never run.
    assert not is_reactor_installed(), "a Twisted reactor is installed in this process: the engine cannot fetch"
    crawler.spider = crawler._create_spider(**spider_arguments)
    crawler.engine = engine = crawler._create_engine()
    await engine.open_spider_async(close_if_idle=False)
    try:
        yield engine
    finally:
        if engine.spider is not None:
            await engine.close_spider_async(reason="finished")
        await crawler.signals.send_catch_log_async(signals.engine_stopped)

"""Shared fixtures: real services on this machine, stopped by the test that starts them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from crawler.embedded import EmbeddedRedis
from tests.commands import crawl
from tests.demoweb import DemoWeb, serve

# Politeness off: the demo web is ours and local.
FAST = ("DOWNLOAD_DELAY=0", "CONCURRENT_REQUESTS_PER_DOMAIN=8", "LOG_LEVEL=INFO")


@pytest.fixture
def redis_client(tmp_path: Path) -> Iterator[redis.Redis]:
    """A real redis-server (the embedded one) on a unix socket in tmp_path."""
    server = EmbeddedRedis(tmp_path / "data")
    client = redis.Redis.from_url(server.start())
    try:
        yield client
    finally:
        client.close()
        server.stop()


@pytest.fixture(scope="session")
def demo_crawl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[DemoWeb, Path, str]]:
    """The demo web crawled once by a real ``scrapy crawl`` (embedded Redis,
    inline indexer): the web (stopped once crawled; its request log, sites
    and facts remain), the data directory, and the crawl's log."""
    data = tmp_path_factory.mktemp("demo")
    with serve() as web:
        done = crawl(web.seeds[:1], data, *FAST)
    assert done.returncode == 0, done.stderr[-3000:]
    yield web, data, done.stderr

"""ItemQueuePipeline: each page goes to the indexer through Redis, as JSON the
indexer reads back whole; never lost while Redis is away."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import redis
from scrapy.utils.misc import build_from_crawler

from crawler.embedded import EmbeddedRedis
from crawler.frontier import Frontier
from crawler.pipelines import ItemQueuePipeline
from indexer.queue import ItemQueue
from tests.crawler.components.crawlers import crawler_with, until

_PAGE: dict[str, Any] = {
    "type": "page",
    "url": "http://a.test/北京",
    "aliases": ["http://a.test/beijing"],
    "status": 200,
    "depth": 1,
    "title": "北京 — a page",
    "text": "Grüße aus 北京.",
    "links": [["http://a.test/", "Home"]],
    "revisit": [86400, 3600, 2592000],
}


def _pipeline(tmp_path: Path, redis_url: str, **overrides: Any) -> ItemQueuePipeline:
    return build_from_crawler(ItemQueuePipeline, crawler_with(tmp_path, REDIS_URL=redis_url, **overrides))


@pytest.mark.parametrize("partitions", [1, 4])
async def test_a_page_reaches_the_indexers_queue_whole_as_utf8_json(
    tmp_path: Path, redis_url: str, partitions: int
) -> None:
    pipeline = _pipeline(tmp_path, redis_url, FRONTIER_PARTITIONS=partitions)
    gone = {"type": "gone", "url": "http://b.test/old", "status": 404}
    assert await pipeline.process_item(_PAGE) is _PAGE
    await pipeline.process_item(gone)
    client = redis.Redis.from_url(redis_url)
    [raw] = [raw for raw in client.lrange(pipeline.frontier.items_key_for(_PAGE["url"]), 0, -1) if b"a.test" in raw]
    assert "北京".encode() in raw and json.loads(raw) == _PAGE  # UTF-8 as it is, not \\u escapes
    assert sorted(ItemQueue(client).take(10), key=lambda item: item["url"]) == [_PAGE, gone]
    stats = pipeline.stats
    assert stats.get_value("items/page") == 1 and stats.get_value("items/gone") == 1


def test_the_indexer_runs_beside_the_crawl_only_when_asked_on_a_shared_redis(tmp_path: Path, redis_url: str) -> None:
    assert _pipeline(tmp_path, redis_url, INDEX_WITH_CRAWL=None).indexer is None
    pipeline = _pipeline(tmp_path, redis_url, INDEX_WITH_CRAWL=True, INDEX_NICENESS=7, INDEX_PROCESSES=3)
    indexer = pipeline.indexer
    assert indexer is not None  # (started when the spider opens)
    assert (indexer.redis_url, indexer.items_key) == (pipeline.frontier.url, "web:items")
    assert (indexer.niceness, indexer.processes) == (7, 3)
    assert indexer.data_dir == str(tmp_path.resolve())


async def test_an_item_waits_for_redis_rather_than_being_lost(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "redis")
    url = server.start()
    try:
        pipeline = _pipeline(tmp_path, url)
        frontier: Frontier = pipeline.frontier
        server.stop()
        pushing = asyncio.ensure_future(pipeline.process_item(_PAGE))
        await until(lambda: pipeline.stats.get_value("items/redis_retries"))
        assert not pushing.done()
        server.start()
        assert await asyncio.wait_for(pushing, 30) is _PAGE
        assert ItemQueue(frontier.client).take(10) == [_PAGE]
        assert pipeline.stats.get_value("items/page") == 1
    finally:
        server.stop()

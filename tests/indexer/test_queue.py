"""Draining the item queue: acknowledged after commit, one consumer, the CLI."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from crawler.items import Item, PageItem, encode_item
from indexer.builder import IndexBuilder
from indexer.drain import Stop, _Drain
from indexer.queue import ItemQueue, QueueBusy
from tests.items import page

ROOT = Path(__file__).parents[2]


def _push(client: redis.Redis, *items: Item) -> None:
    client.rpush("web:items", *(encode_item(item) for item in items))


def _item(n: int) -> PageItem:
    return PageItem(type="page", url=f"http://a.test/{n}", title=f"Page number {n}", text="words")


def test_items_stay_queued_until_acknowledged(redis_client: redis.Redis) -> None:
    _push(redis_client, *(_item(n) for n in range(5)))
    first = ItemQueue(redis_client)
    assert [item["url"] for item in first.take(3)] == [f"http://a.test/{n}" for n in range(3)]
    assert len(first) == 2 and first.pending == 3
    # The consumer dies here, before its commit: a new one sees everything.
    second = ItemQueue(redis_client)
    assert len(second.take(10)) == 5
    second.ack()
    assert redis_client.llen("web:items") == 0


def test_junk_items_are_skipped_not_fatal(redis_client: redis.Redis) -> None:
    redis_client.rpush("web:items", b"\xff not json", json.dumps([1, 2]), json.dumps(_item(1)))
    queue = ItemQueue(redis_client)
    assert [item["url"] for item in queue.take(10)] == ["http://a.test/1"]
    assert queue.pending == 3  # the junk is acknowledged with the batch, not retried forever


def test_only_one_consumer(redis_client: redis.Redis) -> None:
    ItemQueue(redis_client).acquire()
    with pytest.raises(QueueBusy, match="only one may run"):
        ItemQueue(redis_client).acquire(wait=0)


def test_the_last_batch_is_committed_once_the_crawl_is_over(redis_client: redis.Redis, tmp_path: Path) -> None:
    # Following a crawl, a batch in hand waits for more items (a commit per
    # batch, not per item); once the crawl says it is over, none will come.
    _push(redis_client, *(_item(n) for n in range(3)))
    stop = _stop()
    with IndexBuilder(tmp_path) as builder:
        loop = _Drain(builder, ItemQueue(redis_client), follow=True, stop=stop)
        assert loop.index_batch() and not loop.index_batch()
        assert not loop.commit_due(idle=True, now=loop.last_commit)
        stop.finish = True  # SIGUSR1, from the crawl
        assert loop.commit_due(idle=True, now=loop.last_commit)


def _stop() -> Stop:
    """A :class:`Stop`, the test's own signal handlers left as they were."""
    handlers = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1)}
    try:
        return Stop()
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)


def test_a_crawl_that_runs_and_ends_while_the_indexer_is_busy_is_followed_to_its_end(
    redis_client: redis.Redis, tmp_path: Path
) -> None:
    _push(redis_client, *(_item(n) for n in range(3)))
    with IndexBuilder(tmp_path) as builder:
        loop = _Drain(builder, ItemQueue(redis_client), follow=True, stop=_stop())
        redis_client.sadd("web:nodes", "node-1")  # a node crawls while the indexer works on its items
        assert loop.index_batch()
        assert not loop.done(idle=False, now=loop.last_check + 3)
        redis_client.srem("web:nodes", "node-1")  # the crawl ends
        loop.commit(loop.last_commit)
        assert not loop.index_batch()
        assert loop.done(idle=True, now=loop.last_check + 3)  # nothing more will come: the indexer stops


def test_a_busy_indexer_beside_a_crawl_writes_anchor_text_with_its_commits(
    redis_client: redis.Redis, tmp_path: Path
) -> None:
    # Never idle while the crawl goes on, the indexer still brings the anchor
    # documents up to date every few seconds, in a commit of items: a search
    # during the crawl finds a page by the words of the links to it, and
    # finalize is left little to do.
    from search.engine import SearchEngine

    _push(
        redis_client,
        page("http://a.test/hub", "Hub", "words", [("http://a.test/elsewhere", "distant beacon")]),
    )
    with IndexBuilder(tmp_path) as builder:
        loop = _Drain(builder, ItemQueue(redis_client), follow=True, stop=_stop())
        assert loop.index_batch()
        loop.commit(loop.anchors_due - 1)  # sooner than every few seconds: pages only
        with SearchEngine(tmp_path) as engine:
            assert engine.search("distant beacon").total == 0
        _push(redis_client, _item(1))
        assert loop.index_batch()
        loop.commit(loop.anchors_due)
        with SearchEngine(tmp_path) as engine:
            assert [result.url for result in engine.search("distant beacon").results] == ["http://a.test/elsewhere"]
        assert builder.finalize().reindexed == 0


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_indexer_cli_drains_finalizes_and_search_finds(redis_client: redis.Redis, tmp_path: Path) -> None:
    url = "unix://{}?db=0".format(redis_client.connection_pool.connection_kwargs["path"])
    _push(redis_client, *(_item(n) for n in range(3)))
    _push(
        redis_client,
        page("http://a.test/hub", "Hub", "", [("http://a.test/elsewhere", "distant beacon")]),
    )
    data = tmp_path / "out"
    done = _run("indexer", "--data", str(data), "--redis", url, "finalize")
    assert done.returncode == 0, done.stderr
    assert "Index ready: 5 documents (4 pages, 1 known by anchor text only)" in done.stderr
    assert redis_client.llen("web:items") == 0
    found = _run("search", "--data", str(data), "--json", "distant", "beacon")
    assert json.loads(found.stdout)["results"][0]["url"] == "http://a.test/elsewhere"


def test_indexer_cli_without_a_crawl_says_so(tmp_path: Path) -> None:
    done = _run("indexer", "--data", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.strip() == (f"indexer: {tmp_path} has no crawl and no --redis was given: nothing to index")

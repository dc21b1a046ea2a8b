"""The Redis frontier on a real (embedded) Redis: order, dedup, persistence, data format."""

from __future__ import annotations

import json

import pytest
import redis
from scrapy import Request, Spider

from crawler.frontier import (
    FRONTIER_FORMAT,
    OVER_BUDGET,
    QUEUED,
    SEEN,
    Frontier,
    OtherFrontier,
    decode_request,
    encode_request,
    forget_crawl,
)
from crawler.leases import Leases
from crawler.scheduler import Scheduler
from crawler.seen import BloomSeen
from crawler.sites import site_of
from crawler.urls import fingerprint


class _Spider(Spider):
    name = "web"

    def other(self, response):  # a named callback that must survive the trip
        pass

    def failed(self, failure):
        pass


def _entry(url: str, depth: int) -> tuple[bytes, int, bytes, str]:
    return fingerprint(url), depth, encode_request(Request(url, meta={"depth": depth})), site_of(url)


def _urls(taken: list[tuple[int, bytes]]) -> list[str]:
    return [json.loads(data)["u"] for _, data in taken]


def _leases(frontier: Frontier, node: str = "test", **turns) -> Leases:
    """A node's leases; by default no delay and room for many requests per site."""
    return Leases(
        frontier.client, frontier.name, frontier.queue_key, node=node, **{"delay": 0.0, "per_site": 100, **turns}
    )


def _take(frontier: Frontier, count: int) -> list[tuple[int, bytes]]:
    return _leases(frontier).take(count)


def _scheduler(client: redis.Redis, **kwargs) -> Scheduler:
    scheduler = Scheduler(Frontier(client), **{"per_site": 8, **kwargs})
    scheduler.open(_Spider())
    return scheduler


def test_breadth_first_lowest_depth_first_then_fifo(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    frontier.push([_entry("http://a.test/deep1", 2), _entry("http://b.test/", 0)])
    frontier.push([_entry("http://a.test/mid1", 1), _entry("http://a.test/deep2", 2)])
    frontier.push([_entry("http://c.test/", 0), _entry("http://a.test/mid2", 1)])
    assert len(frontier) == 6
    popped = _take(frontier, 2) + _take(frontier, 3) + _take(frontier, 10)
    assert _urls(popped) == [
        "http://b.test/",
        "http://c.test/",
        "http://a.test/mid1",
        "http://a.test/mid2",
        "http://a.test/deep1",
        "http://a.test/deep2",
    ]
    assert len(frontier) == 0 and _take(frontier, 5) == []


def test_a_url_is_queued_once_even_from_two_nodes(redis_client: redis.Redis) -> None:
    node_a, node_b = Frontier(redis_client), Frontier(redis_client)
    assert node_a.push([_entry("http://a.test/x", 1)]) == [QUEUED]
    assert node_b.push([_entry("http://a.test/x", 3), _entry("http://a.test/y", 1)]) == [SEEN, QUEUED]
    assert node_a.push([_entry("HTTP://A.TEST:80/x#frag", 1)]) == [SEEN]  # an alias of x
    assert _urls(_take(node_b, 10)) == ["http://a.test/x", "http://a.test/y"]
    assert node_a.seen_count() == 2


def test_requests_are_stored_as_json_not_pickle(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    frontier.push([_entry("http://a.test/é?q=1", 0)])
    (data,) = redis_client.lrange("web:requests:{http://a.test:80}:0", 0, -1)
    assert json.loads(data) == {"u": "http://a.test/%C3%A9?q=1", "d": 0}
    assert not data.startswith(b"\x80")  # pickle's opening byte


def test_request_round_trip_keeps_what_the_crawl_needs() -> None:
    spider = _Spider()
    original = Request(
        "http://a.test/x",
        callback=spider.other,
        errback=spider.failed,
        headers={"Referer": "http://a.test/"},
        meta={"depth": 3, "redirect_urls": ["http://a.test/old"], "download_slot": "local"},
        dont_filter=True,
    )
    copy = decode_request(encode_request(original), spider)
    assert copy.url == original.url
    assert copy.callback == spider.other and copy.errback == spider.failed
    assert copy.headers[b"Referer"] == b"http://a.test/"
    assert copy.meta == {"depth": 3, "redirect_urls": ["http://a.test/old"]}
    assert copy.dont_filter


def test_scheduler_filters_repeats_locally_and_across_nodes(redis_client: redis.Redis) -> None:
    node_a, node_b = _scheduler(redis_client), _scheduler(redis_client)
    assert node_a.enqueue_request(Request("http://a.test/1"))
    assert not node_a.enqueue_request(Request("http://a.test/1"))  # no round trip
    node_a.next_request()  # flushes node A's batch to Redis
    assert node_b.enqueue_request(Request("http://a.test/1"))  # B cannot know locally...
    assert node_b.enqueue_request(Request("http://a.test/2"))
    taken = [node_b.next_request(), node_b.next_request(), node_b.next_request()]
    assert [r.url if r else None for r in taken] == ["http://a.test/2", None, None]
    assert node_b.stats is None  # counting is optional outside a crawl


def test_scheduler_state_survives_a_restart(redis_client: redis.Redis) -> None:
    first = _scheduler(redis_client, pop_batch=4)
    for n in range(6):
        first.enqueue_request(Request(f"http://a.test/{n}", meta={"depth": 1}))
    fetched = first.next_request()
    assert fetched.url == "http://a.test/0"
    first.done(fetched)  # its response was processed
    first.close("shutdown")  # three taken but never started go back to the front
    second = _scheduler(redis_client)
    assert second.has_pending_requests()
    urls = []
    while (request := second.next_request()) is not None:
        urls.append(request.url)
    assert urls == [f"http://a.test/{n}" for n in range(1, 6)]
    second.enqueue_request(Request("http://a.test/0"))  # seen in the first run
    assert second.next_request() is None


def test_reset_forgets_only_this_crawl(redis_client: redis.Redis) -> None:
    redis_client.set("other:key", "kept")
    frontier = Frontier(redis_client)
    frontier.push([_entry("http://a.test/", 0)])
    frontier.add_scope(["a.test"])
    assert frontier.reset() >= 3
    assert len(frontier) == 0 and frontier.seen_count() == 0 and frontier.scope() == set()
    assert redis_client.get("other:key") == b"kept"


@pytest.mark.parametrize("digest", [b"\x00" * 16, b"\xff\x01" * 8])
def test_content_seen_names_the_first_url(redis_client: redis.Redis, digest: bytes) -> None:
    frontier = Frontier(redis_client)
    assert frontier.content_seen(digest, "http://a.test/first") is None
    assert frontier.content_seen(digest, "http://a.test/first") is None  # a refetch
    assert frontier.content_seen(digest, "http://a.test/copy") == "http://a.test/first"


def test_exact_seen_set_is_stored_as_packed_integers(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    statuses = frontier.push([_entry(f"http://a.test/{n}", 1) for n in range(2000)])
    assert statuses == [QUEUED] * 2000 and frontier.seen_count() == 2000
    buckets = list(redis_client.scan_iter(match="web:dupefilter:????"))
    assert len(buckets) > 1000  # spread over many small sets...
    assert {redis_client.object("encoding", key) for key in buckets} == {b"intset"}  # ...of integers
    assert frontier.push([_entry(f"http://a.test/{n}", 2) for n in range(2000)]) == [SEEN] * 2000


def test_bloom_seen_set_has_its_false_positive_rate(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client, seen=BloomSeen(capacity=20_000, error_rate=0.01))
    assert redis_client.strlen("web:dupefilter:0") == frontier.seen.shard_bits // 8  # allocated up front
    batch = 2000
    for start in range(0, 20_000, batch):
        entries = [_entry(f"http://a.test/{n}", 1) for n in range(start, start + batch)]
        assert frontier.push(entries).count(SEEN) < 0.03 * batch
    again = frontier.push([_entry(f"http://a.test/{n}", 1) for n in range(0, 20_000, 10)])
    assert again == [SEEN] * 2000  # no false negatives
    fresh = frontier.push([_entry(f"http://b.test/{n}", 1) for n in range(2000)])
    assert fresh.count(SEEN) / 2000 < 0.02  # about the configured 1%, once full


@pytest.mark.parametrize("seen", [None, BloomSeen(capacity=1000)], ids=["exact", "bloom"])
def test_known_says_what_any_node_queued_and_marks_nothing(redis_client: redis.Redis, seen) -> None:
    node_a, node_b = Frontier(redis_client, seen=seen, partitions=4), Frontier(redis_client, seen=seen)
    node_a.push([_entry("http://a.test/x", 1), _entry("http://b.test/y", 1)])
    asked = ["http://a.test/x", "http://b.test/y", "http://a.test/z"]
    assert node_b.known([(fingerprint(url), site_of(url)) for url in asked]) == [True, True, False]
    assert node_b.push([_entry("http://a.test/z", 1)]) == [QUEUED]  # asking did not mark it
    assert node_b.known([]) == []


def test_a_later_node_keeps_the_crawls_seen_set_encoding(redis_client: redis.Redis) -> None:
    Frontier(redis_client).push([_entry("http://a.test/x", 1)])
    later = Frontier(redis_client, seen=BloomSeen(capacity=1000))
    assert later.seen.mode == "exact"
    assert later.push([_entry("http://a.test/x", 1)]) == [SEEN]


def test_a_site_over_its_page_budget_gets_no_more_requests(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client, site_budget=3)
    statuses = frontier.push([_entry(f"http://a.test/{n}", 1) for n in range(5)])
    assert statuses == [QUEUED, QUEUED, QUEUED, OVER_BUDGET, OVER_BUDGET]
    assert frontier.push([_entry("http://b.test/", 1)]) == [QUEUED]  # budgets are per site
    assert len(frontier) == 4


def test_near_duplicate_content_names_the_first_page(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client, near_distance=3)
    one, close, far = 0x0123_4567_89AB_CDEF, 0x0123_4567_89AB_CDEF ^ 0b101, 0xFEDC_BA98_7654_3210
    assert frontier.content_seen(b"a" * 16, "http://a.test/1", near=one) is None
    assert frontier.content_seen(b"b" * 16, "http://a.test/2", near=close) == "http://a.test/1"
    assert frontier.content_seen(b"c" * 16, "http://a.test/3", near=far) is None
    assert frontier.content_seen(b"a" * 16, "http://a.test/4", near=far) == "http://a.test/1"
    assert frontier.content_seen(b"a" * 16, "http://a.test/1", near=one) is None  # a refetch


def test_taken_requests_are_leased_until_done(redis_client: redis.Redis) -> None:
    node = _scheduler(redis_client, pop_batch=2)
    for n in range(3):
        node.enqueue_request(Request(f"http://a.test/{n}"))
    one, _two = node.next_request(), node.next_request()
    assert node.leases.held() == 2 and len(node.frontier) == 1
    node.done(one)
    node.next_request()  # the next round trip releases what is done
    assert node.leases.held() == 2  # "two", and the third just taken
    node.close("shutdown")  # "two" was never finished: back in the queue
    assert node.leases.held() == 0
    assert _urls(_take(node.frontier, 10)) == ["http://a.test/1", "http://a.test/2"]


def test_a_dead_nodes_leases_go_back_to_the_queue(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    frontier.push([_entry(f"http://a.test/{n}", 1) for n in range(3)])
    dead = _leases(frontier, "dead")
    dead.announce({})
    assert len(dead.take(2)) == 2
    alive = _leases(frontier, "alive")
    alive.announce({})
    assert alive.reap() == 0  # "dead" is still announced
    redis_client.delete("web:node:dead")  # what its expiry does after kill -9
    assert alive.reap() == 2
    assert _urls(alive.take(10)) == ["http://a.test/0", "http://a.test/1", "http://a.test/2"]
    assert "dead" not in alive.nodes()


def _as_an_older_version_left_it(client: redis.Redis) -> None:
    """A frontier as this crawler wrote it before frontiers had a format: a
    partition count, the seen set's encoding and counts, a queued request."""
    client.set("web:partitions", 1)
    client.hset("web:dupefilter:encoding", "mode", "exact")
    client.set("web:dupefilter:count", 1)
    client.rpush("web:requests:{http://a.test:80}:0", encode_request(Request("http://a.test/", meta={"depth": 0})))
    client.set("web:requests:count", 1)


def test_a_new_frontier_records_its_format_and_opens_again(redis_client: redis.Redis) -> None:
    Frontier(redis_client).push([_entry("http://a.test/", 0)])
    assert redis_client.get("web:format") == str(FRONTIER_FORMAT).encode()
    assert len(Frontier(redis_client)) == 1


def test_an_older_frontier_is_refused_untouched_and_named_the_reset(redis_client: redis.Redis) -> None:
    _as_an_older_version_left_it(redis_client)
    before = sorted(redis_client.keys("*"))
    with pytest.raises(OtherFrontier) as refused:
        Frontier(redis_client, url="redis://shared.test:6379/0")
    assert str(refused.value) == (
        "the crawl's state in Redis was written by an older version of Lantern (no frontier format "
        f"recorded; this version reads format {FRONTIER_FORMAT}): run `python -m crawler reset --redis "
        "redis://shared.test:6379/0` to forget it and crawl afresh (the index is kept)"
    )
    assert sorted(redis_client.keys("*")) == before  # nothing written
    assert forget_crawl(redis_client) == len(before)
    assert Frontier(redis_client).seen_count() == 0


def test_a_newer_frontier_is_refused(redis_client: redis.Redis) -> None:
    redis_client.set("web:format", FRONTIER_FORMAT + 1)
    with pytest.raises(OtherFrontier, match=rf"newer version .* format {FRONTIER_FORMAT + 1}; .* crawler reset`"):
        Frontier(redis_client)

"""Per-site turns in the frontier, on a real (embedded) Redis: who gets leased, and when.

Turns are decided by the lease scripts in Redis; these tests read them as a
node does (what :meth:`Leases.take` hands out, and when the next turn comes),
never by waiting for a clock.
"""

from __future__ import annotations

import json

import redis
from scrapy import Request, Spider

from crawler.frontier import Frontier, encode_request
from crawler.leases import Leases
from crawler.robots_middleware import SharedRobots
from crawler.sites import site_of
from crawler.urls import fingerprint


class _Spider(Spider):
    name = "web"


def _entry(url: str, depth: int) -> tuple[bytes, int, bytes, str]:
    return fingerprint(url), depth, encode_request(Request(url, meta={"depth": depth})), site_of(url)


def _urls(taken: list[tuple[int, bytes]]) -> list[str]:
    return [json.loads(data)["u"] for _, data in taken]


def _node(frontier: Frontier, name: str = "node", **turns) -> Leases:
    leases = Leases(
        frontier.client,
        frontier.name,
        frontier.queue_key,
        node=name,
        **{"delay": 60.0, "jitter": 0.0, "per_site": 1, **turns},
    )
    leases.announce({})
    return leases


def _finish(leases: Leases, taken: list[tuple[int, bytes]]) -> None:
    pipe = leases.client.pipeline(transaction=False)
    leases.done_command(pipe, [lease for lease, _ in taken])
    pipe.execute()
    leases.forget(lease for lease, _ in taken)


def test_a_big_site_cannot_take_all_the_leases(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    frontier.push([_entry(f"http://big.test/{n}", 1) for n in range(500)])
    frontier.push([_entry(f"http://small{s}.test/{n}", 1) for s in range(5) for n in range(3)])
    node = _node(frontier)
    taken = node.take(8)
    assert sorted(site_of(url) for url in _urls(taken)) == sorted(
        ["http://big.test:80"] + [f"http://small{s}.test:80" for s in range(5)]
    )
    assert node.take(8) == []  # one request a site at a time (CONCURRENT_REQUESTS_PER_DOMAIN=1)
    _finish(node, taken)
    assert node.take(8) == []  # every site has had its turn: none before the next
    assert 59 < node.next_turn <= 60


def test_a_site_is_not_leased_again_before_its_turn(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    frontier.push([_entry(f"http://a.test/{n}", 1) for n in range(3)])
    first, second = _node(frontier, "first", jitter=0.5), _node(frontier, "second", jitter=0.5)
    taken = first.take(8)
    assert _urls(taken) == ["http://a.test/0"]
    _finish(first, taken)  # done at once: the delay still holds, for every node
    assert first.take(8) == [] and second.take(8) == []
    assert 59 < second.next_turn <= 90  # a gap between the delay and 1.5 times it
    assert len(frontier) == 2


def test_a_site_at_its_concurrency_waits_for_a_done_lease(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    frontier.push([_entry(f"http://a.test/{n}", 1) for n in range(4)])
    node = _node(frontier, delay=0.0, per_site=2)
    taken = node.take(8)
    assert _urls(taken) == ["http://a.test/0", "http://a.test/1"]
    assert node.take(8) == []  # two in flight: no third
    _finish(node, taken[:1])
    assert _urls(node.take(8)) == ["http://a.test/2"]


def test_breadth_first_within_a_site_lower_depths_first_across_ready_sites(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    frontier.push([_entry("http://a.test/deep", 3), _entry("http://b.test/mid", 2)])
    frontier.push([_entry("http://a.test/top", 1), _entry("http://c.test/deep", 3), _entry("http://a.test/top2", 1)])
    node = _node(frontier, delay=0.0)
    order = []
    while taken := node.take(1):
        order += _urls(taken)
        _finish(node, taken)
    # At one depth, the site that has waited longest for its turn first.
    assert order == [
        "http://a.test/top",
        "http://a.test/top2",
        "http://b.test/mid",
        "http://c.test/deep",
        "http://a.test/deep",
    ]


def test_a_retry_after_pause_holds_the_site_for_every_node(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    frontier.push([_entry("http://a.test/1", 1), _entry("http://b.test/1", 1)])
    frontier.pause_site("http://a.test:80", 600)
    node = _node(frontier, delay=0.0)
    assert _urls(node.take(8)) == ["http://b.test/1"]
    assert node.take(8) == [] and 599 < node.next_turn <= 600


def test_a_sites_own_delay_spaces_its_turns(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    frontier.push([_entry(f"http://a.test/{n}", 1) for n in range(2)])
    frontier.set_site_delay("http://a.test:80", 300)  # a robots.txt Crawl-delay
    node = _node(frontier, delay=1.0)
    _finish(node, node.take(8))
    assert node.take(8) == [] and 299 < node.next_turn <= 300


def test_a_dead_nodes_leases_go_back_to_the_front_of_their_sites(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    frontier.push([_entry(f"http://a.test/{n}", 1) for n in range(3)] + [_entry("http://b.test/0", 1)])
    dead = _node(frontier, "dead", delay=0.0, per_site=2)
    assert len(dead.take(8)) == 3
    redis_client.delete("web:node:dead")  # what its expiry does after kill -9
    alive = _node(frontier, "alive", delay=0.0, per_site=5)
    assert alive.reap() == 3
    assert sorted(_urls(alive.take(8))) == ["http://a.test/0", "http://a.test/1", "http://a.test/2", "http://b.test/0"]
    assert len(frontier) == 0 and "dead" not in alive.nodes()


def test_requests_leased_to_a_node_that_never_received_them_go_back_when_it_is_idle(
    redis_client: redis.Redis,
) -> None:
    frontier = Frontier(redis_client)
    frontier.push([_entry(f"http://{host}.test/0", 1) for host in "abc"])
    node = _node(frontier, "node", delay=0.0)
    kept = node.take(1)
    # The lease script ran for this node, but its reply never came back (Redis
    # went away mid-reply): in Redis the requests are the node's, the node has none.
    assert len(_node(frontier, "node", delay=0.0).take(8)) == 2
    assert len(frontier) == 0 and node.held() == 3
    assert node.reclaim() == 2  # not the one it holds
    assert sorted(_urls(node.take(8))) == sorted(
        {"http://a.test/0", "http://b.test/0", "http://c.test/0"} - set(_urls(kept))
    )
    assert node.reclaim() == 0


def test_requests_robots_txt_held_back_come_back_to_their_site(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    robots = SharedRobots(frontier)
    robots.put("http://a.test:80", {"outcome": "retry"}, 60)
    assert robots.park("http://a.test:80", Request("http://a.test/x", meta={"depth": 2}))
    robots.put("http://a.test:80", {"outcome": "allow"}, 60)
    assert robots.unpark("http://a.test:80") == 1
    assert len(frontier) == 1 and frontier.drain_inbox() == 1
    assert _urls(_node(frontier, delay=0.0).take(8)) == ["http://a.test/x"]
    assert frontier.sites_waiting() == []

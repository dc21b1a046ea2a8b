"""An indexer's share of the crawl: which partitions it drains, and which directory owns a URL."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from crawler.partitions import Partitions
from crawler.sites import site_of
from indexer.federation import owners
from indexer.queue import ItemQueue, QueueBusy
from indexer.share import OtherShare, Share, owner_of, parse_share, record_share, recorded_share
from indexer.store import PageStore
from tests.items import page


@pytest.mark.parametrize(
    ("text", "count", "partitions"),
    [
        ("0-1", 4, (0, 1)),
        ("2-3", 4, (2, 3)),
        ("0,2", 4, (0, 2)),
        (" 3, 0-1 ", 4, (0, 1, 3)),
        ("1/2", 4, (0, 1)),
        ("2/2", 4, (2, 3)),
        ("2/3", 16, (6, 7, 8, 9, 10)),
        ("3/3", 16, (11, 12, 13, 14, 15)),
        ("1/1", 16, tuple(range(16))),
        ("all", 3, (0, 1, 2)),
        ("0", 1, (0,)),
    ],
)
def test_a_share_names_partitions(text: str, count: int, partitions: tuple[int, ...]) -> None:
    assert parse_share(text, count) == Share(partitions, count)


@pytest.mark.parametrize(
    ("text", "count", "said"),
    [
        ("4", 4, "partitions 0 to 3"),
        ("0-1", 1, "partitions 0 to 0"),
        ("2-1", 4, "expected numbers and ranges"),
        ("x", 4, "expected numbers and ranges"),
        ("-1", 4, "expected numbers and ranges"),
        ("3/2", 4, "expected numbers and ranges"),
        ("0/2", 4, "expected numbers and ranges"),
        ("1/0", 4, "expected numbers and ranges"),
        ("2/4", 2, "names no partition"),
        ("", 4, "expected numbers and ranges"),
    ],
)
def test_a_share_that_names_no_partition_of_the_frontier_is_refused(text: str, count: int, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        parse_share(text, count)


def test_n_indexers_given_each_share_of_n_drain_every_partition_once() -> None:
    for count in (1, 2, 4, 16, 17):
        for shares in range(1, count + 1):
            drained = [p for which in range(1, shares + 1) for p in parse_share(f"{which}/{shares}", count).partitions]
            assert sorted(drained) == list(range(count))


def test_a_url_belongs_to_the_directory_whose_share_holds_its_site() -> None:
    halves = [Share((0, 1), 4), Share((2, 3), 4)]
    for url in ("http://a.test/x", "http://b.test:8080/", "https://c.test/y?z"):
        partition = Partitions(4, tagged=True).of(site_of(url))
        assert owner_of(url, halves) == (0 if partition < 2 else 1)
        assert owner_of(url, [Share((partition,), 4)]) == 0
        assert owner_of(url, [None, Share(tuple(p for p in range(4) if p != partition), 4)]) is None
    # A page is its holder's; a URL known only by links, its site's share's; else the first directory's.
    elsewhere = "http://a.test/x"
    mine = owner_of(elsewhere, halves)
    assert owners([elsewhere], [set(), set()], halves) == [mine]
    assert owners([elsewhere], [set(), {elsewhere}], halves) == [1]
    assert owners([elsewhere], [set(), set()], [None, None]) == [0]


def test_a_directory_keeps_its_share(tmp_path: Path) -> None:
    with PageStore(tmp_path / "pages.sqlite") as store:
        assert record_share(store, None, 4, "A") is None  # no share asked, none held: every partition
        assert record_share(store, Share((0, 1), 4), 4, "A") == Share((0, 1), 4)
        assert recorded_share(store) == Share((0, 1), 4)
        assert record_share(store, None, 4, "A") == Share((0, 1), 4)  # restarted without the option
        with pytest.raises(OtherShare, match="A holds partitions 0-1 of 4, not 2-3 of 4"):
            record_share(store, Share((2, 3), 4), 4, "A")
        with pytest.raises(OtherShare, match="the crawl's frontier has 8 partitions"):
            record_share(store, None, 8, "A")
    with PageStore(tmp_path / "filled.sqlite") as store:
        store.put(page("http://a.test/", "A", "text"), "a.test")
        with pytest.raises(OtherShare, match="already holds pages of every partition"):
            record_share(store, Share((0,), 4), 4, "B")


def _four_partitions(client: redis.Redis) -> None:
    client.set("web:partitions", 4)


def test_disjoint_shares_drain_together_and_overlapping_ones_do_not(redis_client: redis.Redis) -> None:
    _four_partitions(redis_client)
    first, second = ItemQueue(redis_client, partitions=[0, 1]), ItemQueue(redis_client, partitions=[2, 3])
    first.acquire(wait=0)
    second.acquire(wait=0)
    overlapping = ItemQueue(redis_client, partitions=[1, 2])
    with pytest.raises(QueueBusy, match=r"draining web:items \(partition 1 of 4\); only one may run"):
        overlapping.acquire(wait=0)
    with pytest.raises(QueueBusy, match="partition 0 of 4"):
        ItemQueue(redis_client).acquire(wait=0)  # every partition: the first is held
    assert redis_client.get(overlapping.lease_keys[1]) == second.me.encode()  # what it could not hold, let go
    first.release()
    ItemQueue(redis_client, partitions=[0, 1]).acquire(wait=0)


def test_one_partition_keeps_the_claim_of_old(redis_client: redis.Redis) -> None:
    queue = ItemQueue(redis_client)
    queue.acquire(wait=0)
    assert queue.lease_keys == ["web:items:consumer"]
    assert redis_client.get("web:items:consumer") == queue.me.encode()

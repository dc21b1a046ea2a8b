"""Several indexers, one index: disjoint partitions of one crawl drained into
two data directories, finalized together, searched as one index.

A crawl of several literal sites on 127.0.0.1 (links crossing sites, hence
partitions) on Debian's redis-server with four frontier partitions; its item
queue copied whole into a second database, so that one indexer builds the
reference index from exactly the same items while two indexers, each with
two writer processes, drain half the partitions each. No page has five
links: a page's place from a hub that lists it is found
when it is indexed, from the links its directory knows by then, and is not
the one index's when other partitions' pages link to the hub
(docs/several-machines.md, "Several indexers, one index").
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import redis

from crawler.partitions import Partitions
from crawler.sites import site_of
from indexer.builder import IndexBuilder
from indexer.layout import Layout, stored_documents
from indexer.share import Share, recorded_share
from indexer.store import PageStore
from tests.commands import ROOT, run
from tests.items import page
from tests.redis_server import RedisServer
from tests.test_multinode import finish, indexer, node, wait_for
from tests.webserver import Reply, Site, serve_site, text
from tests.webserver import page as html

PARTITIONS = Partitions(4, tagged=True)


def _partition(site: Site) -> int:
    return PARTITIONS.of(site_of(site.url()))


def _sites(stack: ExitStack) -> list[Site]:
    """Sites on free ports until each half of the partitions holds two
    (a site's partition is a hash of its port), their pages written once
    every address is known: each links to the next ones."""
    sites: list[Site] = []
    routes: list[dict[str, Reply]] = []
    while min(sum(1 for site in sites if (_partition(site) < 2) == low) for low in (True, False)) < 2:
        assert len(sites) < 40, "the ports never spread over the partitions"
        routes.append({})
        sites.append(stack.enter_context(serve_site(routes[-1])))
    for number, pages in enumerate(routes):
        pages.update(_pages(number, sites))
    return sites


# Words each page's own text is drawn from: no page a near copy of another.
_WORDS = (
    "amber basalt cedar delta ember fjord granite heron indigo juniper kelp lagoon marble nectar onyx pebble "
    "quartz saffron tundra umber violet willow yarrow zephyr acorn bramble cobalt dune estuary fern glacier "
    "hazel iris jasper kestrel linden meadow nettle orchid plover quince rowan sorrel thistle upland vale "
    "wren alder birch cypress dogwood elm fir gorse hawthorn ivy larch maple oak pine spruce yew"
).split()


def _prose(*seed: object) -> str:
    return " ".join(random.Random(repr(seed)).choices(_WORDS, k=60)) + "."


def _pages(number: int, sites: list[Site]) -> dict[str, Reply]:
    after, later = sites[(number + 1) % len(sites)], sites[(number + 2) % len(sites)]
    pages = {
        "/robots.txt": text("User-agent: *\nDisallow: /private/\n"),
        "/": html(
            f"<html lang='en'><title>Harbour {number} home</title><h1>Harbour {number}</h1>"
            f"<p>The harbour of town {number} keeps its lighthouse lit all night. {_prose(number, 'home')}</p>"
            "<a href='/tides'>Tide tables</a> <a href='/en/guide'>Guide</a> "
            f"<a href='{after.url('/tides')}'>tide tables of harbour {number + 1}</a> "
            f"<a href='{later.url('/')}'>the lighthouse keeper of harbour {number + 2}</a></html>"
        ),
        "/tides": html(
            f"<html lang='en'><title>Tide tables of harbour {number}</title>"
            f"<p>High tide and low tide at harbour {number}: the tide tables for every day of the year. "
            f"{'Spring tides are higher. ' * (number % 3 + 1)}{_prose(number, 'tides')}</p><a href='/'>Home</a> "
            f"<a href='{after.url('/private/report')}'>quasar ledger {number}</a></html>"
        ),
        "/en/guide": html(
            f"<html lang='en'><title>Visitor guide {number}</title><p>Boats, moorings and the lighthouse "
            f"keeper's cottage; ask the harbour master. {_prose(number, 'guide')}</p>"
            "<a href='/fr/guide'>En français</a></html>"
        ),
        "/fr/guide": html(
            f"<html lang='fr'><title>Guide du visiteur {number}</title><p>Les bateaux, les marées et la maison "
            f"du gardien du phare; demandez au capitaine du port. {_prose(number, 'guide', 'fr')}</p></html>"
        ),
    }
    if number == 0:
        pages["/zh"] = html(
            "<html lang='zh'><title>灯塔管理员</title><p>灯塔的光照亮了港口，潮汐表每天更新。</p></html>"
        )
        pages["/"] = html(pages["/"].body.decode().replace("</html>", "<a href='/zh'>中文</a></html>"))
    return pages


def _search(data: list[Path], query: str) -> dict[str, Any]:
    done = run("search", *(f"--data={each}" for each in data), "--json", "--explain", "-n", "30", query)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _same(ours: Any, reference: Any, where: str = "") -> None:
    """Equal, numbers to 1e-9."""
    if isinstance(reference, float):
        assert ours == pytest.approx(reference, rel=1e-9, abs=1e-12), where
    elif isinstance(reference, dict):
        assert sorted(ours) == sorted(reference), where
        for key in reference:
            _same(ours[key], reference[key], f"{where}.{key}")
    elif isinstance(reference, list):
        assert len(ours) == len(reference), (where, ours, reference)
        for number, (mine, theirs) in enumerate(zip(ours, reference, strict=True)):
            _same(mine, theirs, f"{where}[{number}]")
    else:
        assert ours == reference, (where, ours, reference)


@pytest.fixture
def crawled(tmp_path: Path) -> Iterator[tuple[RedisServer, list[Site]]]:
    """A crawl of the sites over four partitions, its items left queued for the indexers."""
    with RedisServer(tmp_path / "redis") as server, ExitStack() as stack:
        sites = _sites(stack)
        seeds = [site.url("/") for site in sites]
        finish(node(server.url, tmp_path / "node", seeds, "FRONTIER_PARTITIONS=4", "DOWNLOAD_DELAY=0"))
        yield server, sites


def test_two_indexers_on_half_the_partitions_each_answer_as_one_index(
    crawled: tuple[RedisServer, list[Site]], tmp_path: Path
) -> None:
    server, sites = crawled
    queue, copy = redis.Redis.from_url(server.url), redis.Redis.from_url(server.url[:-1] + "1")
    for key in queue.scan_iter("web:*"):  # the same items, for the one indexer of the reference
        dumped = queue.dump(key)
        assert isinstance(dumped, bytes)
        copy.restore(key, 0, dumped)
    assert sum(queue.llen(PARTITIONS.key("web:items", p)) for p in PARTITIONS) >= 4 * len(sites)
    one, first, second = tmp_path / "one", tmp_path / "first", tmp_path / "second"
    finish(
        indexer(server.url[:-1] + "1", one, "--processes", "4", "finalize"),
        indexer(server.url, first, "--partitions", "0-1", "--processes", "2", "finalize"),
        indexer(server.url, second, "--partitions", "2/2", "--processes", "2", "finalize"),
    )
    assert len(Layout(first).page_dirs()) + len(Layout(second).page_dirs()) == 4
    for data, share in ((first, Share((0, 1), 4)), (second, Share((2, 3), 4))):
        with PageStore(data / "pages.sqlite", readonly=True) as store:
            assert recorded_share(store) == share
            assert store.urls() and all(share.holds(url) for url in store.urls())
    both = [first, second]
    # Each indexer finalized its own directory: PageRank over its own links.
    before = _search(both, "lighthouse keeper")["results"]
    reference = _search([one], "lighthouse keeper")["results"]
    assert [r["pagerank"] for r in before] != pytest.approx([r["pagerank"] for r in reference], rel=1e-9)
    together = run("indexer", "finalize", "--data", str(first), "--data", str(second))
    assert together.returncode == 0, together.stderr
    assert "Index ready over 2 directories" in together.stderr
    held = [set(stored_documents(data)) for data in both]
    assert not held[0] & held[1], "a URL has documents in both directories"
    assert held[0] | held[1] == set(stored_documents(one))
    queries = [
        "harbour",
        "lighthouse keeper",
        '"tide tables"',
        "quasar ledger",  # words only links to unfetched pages have
        "灯塔",
        f"site:{sites[1].url('/').split('//')[1].rstrip('/')} tide",
        "lang:fr phare",
        "guide",
        "lighthose",  # a respelling, from the words of every directory
    ]
    for query in queries:
        reference = _search([one], query)
        assert reference["total"], query
        _same(_search(both, query), reference, query)
    again = run("indexer", "finalize", "--data", str(first), "--data", str(second))
    assert again.returncode == 0, again.stderr
    _same(_search(both, "lighthouse keeper"), _search([one], "lighthouse keeper"), "after a second finalize")
    stats = run("indexer", "stats", "--json", "--data", str(first), "--data", str(second))
    assert (
        json.loads(stats.stdout)["documents"]
        == json.loads(run("indexer", "stats", "--json", "--data", str(one)).stdout)["documents"]
    )
    shutil.copytree(tmp_path / "node" / "archive", second / "archive")  # the crawl node's, shipped beside
    with PageStore(first / "pages.sqlite", readonly=True) as store:
        first_holds = min(store.urls())
    _serves_as_one(both, one, first_holds)


def _serves_as_one(both: list[Path], one: Path, first_holds: str) -> None:
    """The web API over both directories answers as the one index does; a
    page of the first has its cached copy from the archive beside the second."""
    command = [sys.executable, "-m", "search.web", "--port", "0", "--workers", "1", "--quiet"]
    server = subprocess.Popen(
        [*command, *(f"--data={each}" for each in both)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith("Serving search for"), server.stderr.read() if server.stderr else line
        url = line.rsplit(" at ", 1)[1].strip()
        with urllib.request.urlopen(f"{url}api/search?q=lighthouse+keeper&n=30", timeout=30) as answer:
            served = json.load(answer)
        reference = _search([one], "lighthouse keeper")
        assert [r["url"] for r in served["results"]] == [r["url"] for r in reference["results"]]
        assert [r["score"] for r in served["results"]] == pytest.approx(
            [r["score"] for r in reference["results"]], rel=1e-9
        )
        assert served["total"] == reference["total"]
        with urllib.request.urlopen(f"{url}cached?url={urllib.parse.quote(first_holds)}", timeout=30) as answer:
            assert answer.status == 200 and "This is the copy of" in answer.read().decode()
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=30)


def test_a_directory_without_an_index_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    empty, missing = tmp_path / "empty", tmp_path / "missing"
    empty.mkdir()
    with_index = tmp_path / "indexed"
    with IndexBuilder(with_index) as builder:
        builder.add([page("http://a.test/", "Harbour", "the harbour")])
        builder.commit()
    for other in (empty, missing):
        searched = run("search", "--data", str(with_index), "--data", str(other), "harbour")
        assert searched.returncode == 2
        assert (
            searched.stderr.strip()
            == f"search: no index in {other}: each --data must be a data directory with an index"
        )
        finalized = run("indexer", "finalize", "--data", str(with_index), "--data", str(other))
        assert finalized.returncode == 2
        assert (
            finalized.stderr.strip() == f"indexer: no index in {other}: each --data must be an indexer's data directory"
        )
    assert list(empty.iterdir()) == [] and not missing.exists()


def test_indexers_claiming_the_same_partition_cannot_run_together(redis_url: str, tmp_path: Path) -> None:
    client = redis.Redis.from_url(redis_url)
    client.set("web:partitions", 4)
    for number in range(40):  # pages in every partition
        url = f"http://site{number}.test/"
        client.rpush(
            PARTITIONS.key("web:items", PARTITIONS.of(site_of(url))), json.dumps(page(url, f"Site {number}", "words"))
        )
    first = indexer(redis_url, tmp_path / "first", "--follow", "--partitions", "0-1", "--processes", "1")
    wait_for(lambda: all(client.exists(PARTITIONS.key("web:items", p) + ":consumer") for p in (0, 1)))
    started = time.monotonic()
    refused = run("indexer", "--data", str(tmp_path / "refused"), "--redis", redis_url, "--partitions", "1-2")
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "is draining web:items (partition 1 of 4); only one may run at a time" in lines[0], (
        refused.stderr
    )
    assert time.monotonic() - started < 15  # at once, not after the claim's 15 s
    assert not client.exists(PARTITIONS.key("web:items", 2) + ":consumer")  # what it took, let go
    second = indexer(redis_url, tmp_path / "second", "--follow", "--partitions", "2-3", "--processes", "1")
    wait_for(lambda: all(client.llen(PARTITIONS.key("web:items", p)) == 0 for p in PARTITIONS))
    for running in (first, second):
        running.send_signal(signal.SIGTERM)
    finish(first, second)
    for data, low in ((tmp_path / "first", True), (tmp_path / "second", False)):
        urls = set(stored_documents(data))
        assert urls and all((PARTITIONS.of(site_of(url)) < 2) == low for url in urls)

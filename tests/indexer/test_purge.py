"""``python -m indexer purge`` on a real crawl: pages leave the results and are never fetched again."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import redis

from crawler.datadir import purged_path
from crawler.linkfilter import PURGED, LinkFilter
from crawler.scope import Scope
from crawler.traps import Blacklist, PatternBudget
from crawler.urls import TrapRules
from tests.commands import crawl, run
from tests.webserver import Reply, page, serve_site

FAST = ["DOWNLOAD_DELAY=0", "CONCURRENT_REQUESTS_PER_DOMAIN=4"]
ROBOTS = Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"})


def _search(data: Path, *query: str) -> list[str]:
    done = run("search", "--data", str(data), "--json", *query)
    assert done.returncode == 0, done.stderr
    return [result["url"] for result in json.loads(done.stdout)["results"]]


@pytest.fixture
def two_sites():
    intranet = {
        "/robots.txt": ROBOTS,
        "/": page(
            "<title>Staff portal</title><p>Canteen menus and notices.</p>"
            '<a href="/private/ledger.html">quarterly ledger</a> <a href="/menu.html">menu</a>'
        ),
        "/private/ledger.html": page("<title>Ledger</title><p>Payroll figures for the albatross project.</p>"),
        "/menu.html": page("<title>Menu</title><p>Lentil soup on Thursdays.</p>"),
    }
    blog = {
        "/robots.txt": ROBOTS,
        "/": page('<title>Blog</title><p>Notes on pelican watching.</p><a href="/post.html">post</a>'),
        "/post.html": page("<title>Post</title><p>Pelicans nest on the breakwater.</p>"),
    }
    with serve_site(intranet) as first, serve_site(blog) as second:
        yield first, second


def test_purged_pages_leave_the_results_and_are_not_fetched_again(tmp_path: Path, two_sites) -> None:
    intranet, blog = two_sites
    seeds = [intranet.url("/"), blog.url("/")]
    done = crawl(seeds, tmp_path, *FAST)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _search(tmp_path, "albatross") == [intranet.url("/private/ledger.html")]
    assert _search(tmp_path, "pelicans")

    purged = run("indexer", "purge", "--data", str(tmp_path), intranet.url("/private/ledger.html"), blog.base)
    assert purged.returncode == 0, purged.stderr
    assert f"{intranet.url('/private/ledger.html')}: 1 purged" in purged.stdout
    assert f"{blog.base}: 2 purged" in purged.stdout
    assert _search(tmp_path, "albatross") == []
    # Not even as a page known by the words of its link (the portal's own text keeps them).
    assert _search(tmp_path, "quarterly", "ledger") == [intranet.url("/")]
    assert _search(tmp_path, "pelicans") == []
    assert _search(tmp_path, "lentil") == [intranet.url("/menu.html")]  # the rest stays

    # The same crawl from scratch (the index kept): the purged pages are refused, never fetched.
    assert run("crawler", "--data", str(tmp_path), "reset").returncode == 0
    before = len(intranet.requests), len(blog.requests)
    again = crawl(seeds, tmp_path, *FAST)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "/private/ledger.html" not in [r.path for r in intranet.requests[before[0] :]]
    assert "/menu.html" in [r.path for r in intranet.requests[before[0] :]]
    assert blog.requests[before[1] :] == []
    assert int(re.search(r"'traps/purged': (\d+)", again.stderr).group(1)) == 2  # the link and the seed
    assert _search(tmp_path, "albatross") == [] and _search(tmp_path, "pelicans") == []


def test_purging_what_the_index_does_not_hold_fails_and_blacklists_nothing(tmp_path: Path, two_sites) -> None:
    intranet, _ = two_sites
    assert crawl([intranet.url("/")], tmp_path, *FAST).returncode == 0
    done = run("indexer", "purge", "--data", str(tmp_path), intranet.url("/never-crawled.html"))
    assert done.returncode == 1
    assert "nothing matched" in done.stderr
    assert not purged_path(tmp_path).exists()
    bad = run("indexer", "purge", "--data", str(tmp_path), "ftp://files.example/")
    assert bad.returncode == 2 and "not an http(s) URL" in bad.stderr


def test_a_running_crawl_learns_purges_from_its_redis(tmp_path: Path, two_sites, redis_client: redis.Redis) -> None:
    intranet, _ = two_sites
    assert crawl([intranet.url("/")], tmp_path, *FAST).returncode == 0
    url = redis_client.connection_pool.connection_kwargs["path"]
    done = run("indexer", "purge", "--data", str(tmp_path), "--redis", f"unix://{url}", intranet.base)
    assert done.returncode == 0, done.stderr
    assert "running crawl's Redis" in done.stdout
    lines = [line.decode() for line in redis_client.smembers("web:purged")]
    links = LinkFilter(Scope("host", ["127.0.0.1"]), TrapRules(), Blacklist(), PatternBudget(0))
    assert links.verdict(intranet.url("/menu.html")) is None
    links.add_purged(lines)
    assert links.verdict(intranet.url("/other.html")) == PURGED
    assert not links.indexable(intranet.url("/other.html"))

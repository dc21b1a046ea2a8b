"""Start URLs pushed into Redis as scrapy-redis users push them, and REDIS_PARAMS.

Nodes are `scrapy crawl web` processes on Debian's redis-server; the sites
are literal ones on 127.0.0.1, whose request logs say what was fetched.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from scrapy.settings import Settings

from crawler.connection import client_for
from crawler.frontier import connect
from crawler.start_urls import StartUrls
from tests.commands import crawl
from tests.redis_server import RedisClusterServers, RedisServer
from tests.test_multinode import _pages_site, finish, node, wait_for
from tests.webserver import Site, serve_site, text
from tests.webserver import page as html

_SITE = {
    "/robots.txt": text("User-agent: *\nDisallow: /private\n"),
    "/": html('<title>Pushed</title><a href="/b1">one</a> <a href="/b2">two</a>'),
    "/b1": html("<title>One</title><p>The first page of the pushed site.</p>"),
    "/b2": html("<title>Two</title><p>The second page of the pushed site.</p>"),
    "/find?q=redis": html("<title>Found</title><p>What a search for redis finds.</p>"),
    "/private/x": html("<title>Private</title><p>Not for robots.</p>"),
}


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(tmp_path / "redis") as server:
        yield server


def _waiting(log: Path, process: subprocess.Popen[str]) -> bool:
    """Whether a node started without seeds says it waits for work (or has ended)."""
    return process.poll() is not None or (log.exists() and "waits for the other nodes' work" in log.read_text())


def _pages(site: Site) -> Counter[str]:
    return Counter(path for path in site.paths() if path != "/robots.txt" and not path.startswith("/lantern-probe-"))


@pytest.mark.alone
def test_a_busy_node_fetches_urls_pushed_to_web_start_urls_as_seeds(shared: RedisServer, tmp_path: Path) -> None:
    with serve_site(_pages_site(40)) as busy, serve_site(_SITE) as pushed:
        running = node(shared.url, tmp_path / "a", [busy.url("/")], "DOWNLOAD_DELAY=0.1", "INDEX_WITH_CRAWL=0")
        wait_for(lambda: len(busy.requests) > 5)
        other = f"http://localhost:{pushed.base.rsplit(':', 1)[1]}"  # a host out of the crawl's scope so far
        redis.Redis.from_url(shared.url).lpush(
            "web:start_urls",
            other + "/",
            json.dumps({"url": pushed.url("/private/x"), "meta": {"dont_obey_robotstxt": True}}),
            json.dumps({"url": other + "/find", "q": "redis"}),  # a form field: a GET's query, as in scrapy-redis
            busy.url("/"),  # already crawled
        )
        finish(running)
    pages = _pages(pushed)
    assert pages["/"] == 1 and pages["/b1"] == 1 and pages["/b2"] == 1, pages  # its links: its host joined the scope
    assert pages["/find?q=redis"] == 1
    assert not [path for path in pages if path.startswith("/private")], "robots.txt was not obeyed"
    assert _pages(busy)["/"] == 1, "a URL crawled already was fetched again"
    first_pushed = min(r.time for r in pushed.requests)
    assert first_pushed < max(r.time for r in busy.requests), "read only once the node was out of work"


def test_a_node_without_seeds_reads_a_set_in_the_database_redis_params_names(
    shared: RedisServer, tmp_path: Path
) -> None:
    url = f"redis://127.0.0.1:{shared.port}"  # no database in the URL: REDIS_PARAMS names it
    log = tmp_path / "node.log"
    with serve_site(_SITE) as site:
        waiting = node(
            url,
            tmp_path / "a",
            [],
            "DOWNLOAD_DELAY=0.05",
            "INDEX_WITH_CRAWL=0",
            f"LOG_FILE={log}",
            "FRONTIER_IDLE_GRACE=8",
            'REDIS_PARAMS={"db": 3}',
            "REDIS_START_URLS_AS_SET=True",
            "REDIS_START_URLS_KEY=feed:%(name)s",
        )
        wait_for(lambda: _waiting(log, waiting))
        redis.Redis.from_url(f"{url}/3").sadd("feed:web", site.url("/"))
        finish(waiting)
    assert {"/", "/b1", "/b2"} <= set(_pages(site)), log.read_text()[-3000:]
    assert redis.Redis.from_url(f"{url}/3").llen("web:items") >= 3
    assert redis.Redis.from_url(f"{url}/0").dbsize() == 0


def test_entries_are_read_a_batch_at_a_time_in_scrapy_redis_order(
    shared: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    client = redis.Redis.from_url(shared.url)
    client.lpush("web:start_urls", *(f"http://a.test/{n}" for n in range(5)), "ftp://a.test/", "{broken")
    client.zadd("ranked", {"http://a.test/low": 1, "http://a.test/high": 9})
    reading = StartUrls(client, "web:start_urls", batch=4)
    first, more = reading.read()  # lpush puts the last pushed first, as scrapy-redis reads them
    assert [url for url, _ in first] == ["ftp://a.test/", "http://a.test/4", "http://a.test/3"] and more
    assert [url for url, _ in reading.read()[0]] == ["http://a.test/2", "http://a.test/1", "http://a.test/0"]
    assert reading.read() == ([], False) and "Dropped an entry of web:start_urls" in caplog.text
    assert [url for url, _ in StartUrls(client, "ranked", "zset").read()[0]] == [
        "http://a.test/high",
        "http://a.test/low",
    ]
    client.sadd("web:start_urls", "http://a.test/in-a-set")
    assert reading.read() == ([], False) and reading.read() == ([], False)  # a list was expected: said once
    assert caplog.text.count("Cannot read start URLs from web:start_urls as a list") == 1
    assert StartUrls(client, "web:start_urls", "set").read() == ([("http://a.test/in-a-set", {})], False)


def test_redis_params_reach_the_client(shared: RedisServer) -> None:
    settings = Settings(
        {"REDIS_URL": f"redis://127.0.0.1:{shared.port}", "REDIS_PARAMS": {"socket_timeout": 0.3, "db": 2}}
    )
    client, url, _ = connect(settings)
    assert url == f"redis://127.0.0.1:{shared.port}/2"  # what the indexer beside the crawl is given
    client.set("here", 1)
    assert redis.Redis.from_url(url).get("here") == b"1"
    started = time.monotonic()
    with pytest.raises(redis.TimeoutError):
        client.blpop("nothing", timeout=5)
    assert time.monotonic() - started < 3


@pytest.mark.parametrize(
    "setting, said",
    [
        ("REDIS_HOST=redis-host", "REDIS_HOST is not read"),
        ('REDIS_PARAMS={"decode_responses": true}', "decode_responses cannot be used"),
    ],
)
def test_settings_the_crawl_cannot_honour_are_refused(setting: str, said: str, tmp_path: Path) -> None:
    done = crawl(["http://127.0.0.1:9/"], tmp_path / "data", setting, timeout=60)
    assert done.returncode == 2 and said in done.stderr, done.stderr[-2000:]


def test_a_node_on_a_cluster_reads_start_urls(tmp_path: Path) -> None:
    log = tmp_path / "node.log"
    with RedisClusterServers(tmp_path / "cluster") as cluster, serve_site(_SITE) as site:
        waiting = node(
            cluster.url,
            tmp_path / "a",
            [],
            "DOWNLOAD_DELAY=0.05",
            "INDEX_WITH_CRAWL=0",
            f"LOG_FILE={log}",
            "FRONTIER_IDLE_GRACE=8",
        )
        wait_for(lambda: _waiting(log, waiting))
        client_for(cluster.url).lpush("web:start_urls", site.url("/"))
        finish(waiting)
    assert {"/", "/b1", "/b2"} <= set(_pages(site)), log.read_text()[-3000:]

"""A shared Redis with a password: the password reaches every program of the
crawl that needs it, and no log line, error or command line shows it.

Debian's redis-server with ``requirepass``; crawls are `scrapy crawl`
processes on a literal site on 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from crawler.datadir import claim_format
from crawler.items import encode_item
from crawler.pipelines import IndexerProcess
from indexer.layout import Layout, stored_documents
from tests.commands import crawl, run
from tests.items import page
from tests.redis_server import RedisServer
from tests.webserver import page as html
from tests.webserver import serve_site

SECRET = "S3cret-Pa55word"
_SITE = {
    "/": html('<title>Home</title><a href="/a">the first article</a>'),
    "/a": html("<title>Article</title><p>What the article says.</p>"),
}
_QUICK = ("DOWNLOAD_DELAY=0", "LOG_LEVEL=INFO", "FRONTIER_IDLE_GRACE=0", "INDEX_WITH_CRAWL=1")


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server that asks for :data:`SECRET`."""
    with RedisServer(tmp_path / "redis", "--requirepass", SECRET) as server:
        yield server


@pytest.mark.parametrize("answer", ["none", "refused"])
def test_a_redis_that_is_unreachable_or_refuses_the_password_stops_the_crawl_in_one_line_without_it(
    answer: str, tmp_path: Path
) -> None:
    server = RedisServer(tmp_path / "redis", "--requirepass", "another")
    if answer == "refused":
        server.start()
    try:
        done = crawl(
            ["http://127.0.0.1:9/"],
            tmp_path / "data",
            f"REDIS_URL=redis://:{SECRET}@127.0.0.1:{server.port}/0",
            "LOG_LEVEL=DEBUG",
        )
    finally:
        server.stop()
    said = [line for line in done.stderr.splitlines() if "cannot reach Redis" in line]
    assert done.returncode != 0 and len(said) == 1, done.stderr[-3000:]
    assert SECRET not in done.stderr and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert f"redis://:***@127.0.0.1:{server.port}/0" in said[0]


def test_the_indexer_refused_says_so_in_one_line_without_the_password(guarded: RedisServer, tmp_path: Path) -> None:
    wrong = f"redis://:{SECRET}x@127.0.0.1:{guarded.port}/0"
    done = run("indexer", "--data", str(tmp_path / "data"), "--redis", wrong)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert SECRET not in done.stderr and "cannot reach Redis at redis://:***@" in done.stderr


def test_the_indexer_beside_the_crawl_has_the_password_in_its_environment_not_its_command_line(
    guarded: RedisServer, tmp_path: Path
) -> None:
    url = f"redis://:{SECRET}@127.0.0.1:{guarded.port}/0"
    redis.Redis.from_url(url).rpush("web:items", encode_item(page("http://a.test/", "Queued", "text")))
    indexer = IndexerProcess(str(tmp_path / "data"), url, "web:items")
    indexer.start()
    try:
        assert indexer._process is not None
        command_line = Path(f"/proc/{indexer._process.pid}/cmdline").read_bytes()
        assert b"indexer" in command_line and SECRET.encode() not in command_line
    finally:
        status = indexer.finish()
    assert status == 0 and set(stored_documents(tmp_path / "data")) == {"http://a.test/"}


def test_a_password_in_redis_params_reaches_the_indexer_beside_the_crawl(guarded: RedisServer, tmp_path: Path) -> None:
    data = tmp_path / "data"
    with serve_site(_SITE) as site:
        done = crawl(
            [site.url("/")],
            data,
            f"REDIS_URL=redis://127.0.0.1:{guarded.port}/0",
            f'REDIS_PARAMS={{"password": "{SECRET}"}}',
            *_QUICK,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert {site.url("/"), site.url("/a")} <= set(stored_documents(data)), done.stderr[-3000:]
    assert SECRET not in done.stderr


def test_a_crawl_whose_indexer_failed_exits_non_zero(guarded: RedisServer, tmp_path: Path) -> None:
    data = tmp_path / "data"
    claim_format(data)
    with serve_site(_SITE) as site, Layout(data).lock():  # another writer holds the index
        done = crawl([site.url("/")], data, f"REDIS_URL=redis://:{SECRET}@127.0.0.1:{guarded.port}/0", *_QUICK)
    assert done.returncode == 1, done.stderr[-3000:]
    assert "is being written by another process" in done.stderr, done.stderr[-3000:]
    assert "the index could not be written" in done.stderr

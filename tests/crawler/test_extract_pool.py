"""Extraction in a worker process gives what extraction in the crawl's process gives."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from crawler.extract import extract
from crawler.extract_pool import ExtractPool
from crawler.project import project_settings
from crawler.spiders.web import extract_processes
from crawler.urls import UrlPolicy

_HTML = (
    b"<html><head><title>Tide tables</title><meta name=description content='When the sea turns'></head>"
    b"<body><nav><a href='/'>Home</a></nav><h1>Tide tables</h1><p>High water at <b>6:40</b>."
    b" <a href='/a?utm_source=x&b=2&a=1'>Next</a> <a href='/moon.pdf'>Moon</a></p></body></html>"
)
_HEADERS = {"Content-Type": "text/html; charset=utf-8"}


def test_a_worker_extracts_as_the_crawl_would() -> None:
    policy = UrlPolicy(drop_www=True)
    pool = ExtractPool(1, policy)
    try:
        got = asyncio.run(pool.extract(_HTML, "http://www.a.test/t.html", _HEADERS))
    finally:
        pool.close()
    expected = extract(_HTML, "http://www.a.test/t.html", None, _HEADERS, policy.canonicalize)
    assert got == expected
    # The worker canonicalized the links with the crawl's settings (www dropped, query sorted).
    assert [link.url for link in got.page.links] == [
        "http://a.test/",
        "http://a.test/a?a=1&b=2",
        "http://a.test/moon.pdf",
    ]


@pytest.mark.slow
def test_a_dead_worker_leaves_extraction_to_the_crawl() -> None:
    pool = ExtractPool(1, UrlPolicy())

    async def two_pages() -> tuple[object, object]:
        first = await pool.extract(_HTML, "http://a.test/1", _HEADERS)
        assert pool._pool is not None
        for pid in list(pool._pool._processes):  # the worker dies, as under the OOM killer
            os.kill(pid, signal.SIGKILL)
        second = await pool.extract(_HTML, "http://a.test/2", _HEADERS)
        return first, second

    try:
        first, second = asyncio.run(two_pages())
    finally:
        pool.close()
    assert first.page.title == second.page.title == "Tide tables"
    assert pool._pool is None  # from now on, in the crawl's process


def test_a_worker_by_default_only_where_a_core_is_free() -> None:
    two_cores = (os.cpu_count() or 1) >= 2
    # Alone on the embedded Redis, the crawl runs the indexer, which takes the second core.
    assert extract_processes(project_settings()) == 0
    assert extract_processes(project_settings({"REDIS_URL": "redis://127.0.0.1:6379/0"})) == int(two_cores)
    assert extract_processes(project_settings({"INDEX_WITH_CRAWL": False})) == int(two_cores)
    assert extract_processes(project_settings({"REDIS_URL": "redis://x/0", "INDEX_WITH_CRAWL": True})) == 0
    assert extract_processes(project_settings({"CRAWLER_EXTRACT_PROCESSES": 2})) == 2

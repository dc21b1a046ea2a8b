"""The whole pipeline as a user runs it: `scrapy crawl` of the demo web, then search.

The demo web runs in this process (its request log is the ground truth of
what the crawler fetched); the crawls are real `scrapy crawl` subprocesses
with the embedded Redis and the inline indexer.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from indexer.layout import stored_documents
from tests.demoweb import DemoWeb, serve

ROOT = Path(__file__).parents[1]
# Politeness off: this web is ours and local.
FAST = ["-s", "DOWNLOAD_DELAY=0", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8", "-s", "LOG_LEVEL=INFO"]


def crawl(web: DemoWeb, data: Path, *settings: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "crawl",
            "web",
            "-a",
            f"seeds={web.seeds[0]}",
            "-s",
            f"DATA_DIR={data}",
            *FAST,
            *settings,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def search(data: Path, *query: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "search", "--data", str(data), "--json", *query],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def fetched(web: DemoWeb, since: int = 0) -> Counter[str]:
    """URLs of pages the crawler fetched (robots.txt aside), with counts."""
    return Counter(f"{web.sites[r.site]}{r.path}" for r in web.requests[since:] if r.path != "/robots.txt")


@pytest.fixture(scope="module")
def crawled(demo_crawl: tuple[DemoWeb, Path, str]) -> tuple[DemoWeb, Path, str]:
    return demo_crawl


def test_every_page_is_fetched_once_and_nothing_forbidden(crawled) -> None:
    web, _, log = crawled
    counts = fetched(web)
    assert max(counts.values()) == 1, [url for url, n in counts.items() if n > 1]
    assert len(counts) >= web.page_count
    forbidden = web.facts["disallowed_prefixes"]
    for url in counts:
        site = next(name for name, base in web.sites.items() if url.startswith(base + "/"))
        assert not urlsplit(url).path.startswith(tuple(forbidden.get(site, ()))), url
    assert "Index ready:" in log


def test_the_crawls_own_indexer_finalizes_the_index_when_the_crawl_ends(crawled) -> None:
    _, data, log = crawled
    assert "everything queued is indexed" in log and "Index ready:" in log
    assert "finalizing anyway" not in log and "Finalizing the index failed" not in log
    assert "PageRank over" in log


def test_identifying_headers_are_sent(crawled) -> None:
    web, _, _ = crawled
    request = web.requests[0]
    assert request.headers["User-Agent"].startswith("LanternBot/")
    assert "+http" in request.headers["User-Agent"]
    assert request.headers["From"]


def test_a_page_blocked_by_robots_is_found_by_its_anchor_text(crawled) -> None:
    web, data, _ = crawled
    target = web.facts["anchor_only"]
    results = search(data, target["anchor"])["results"]
    assert results[0]["url"] == target["url"]
    assert results[0]["crawled"] is False
    assert target["url"] not in fetched(web)


def test_a_chinese_page_is_found_by_its_title(crawled) -> None:
    web, data, _ = crawled
    target = web.facts["chinese_title"]
    results = search(data, target["title"])["results"]
    assert results[0]["url"] == target["url"]
    assert target["title"] in results[0]["title"]


def test_json_encoder_finds_the_json_module(crawled) -> None:
    web, data, _ = crawled
    urls = [r["url"] for r in search(data, "json", "encoder")["results"][:3]]
    assert web.facts["json_module"]["url"] in urls


def test_duplicates_are_indexed_once(crawled) -> None:
    web, data, log = crawled
    indexed = {url for url, fields in stored_documents(data).items() if fields.get("crawled")}
    for first, second in web.facts["duplicates"]:
        assert (first in indexed) != (second in indexed), (first, second)
    assert "'dupes/content':" in log


def test_a_stopped_crawl_resumes_without_fetching_a_page_twice(tmp_path: Path) -> None:
    with serve() as web:
        first = crawl(web, tmp_path, "-s", "CLOSESPIDER_PAGECOUNT=40")
        assert first.returncode == 0, first.stderr[-3000:]
        assert "closespider_pagecount" in first.stderr
        after_first = len(web.requests)
        second = crawl(web, tmp_path)
        assert second.returncode == 0, second.stderr[-3000:]
        assert "Resuming the crawl" in second.stderr
        one, two = fetched(web, 0) - fetched(web, after_first), fetched(web, after_first)
        assert len(one) >= 40
        assert not set(one) & set(two), "a page was fetched by both runs"
        assert max((one + two).values()) == 1
        assert len(one + two) >= web.page_count
    results = search(tmp_path, web.facts["chinese_title"]["title"])["results"]
    assert results[0]["url"] == web.facts["chinese_title"]["url"]


def test_ctrl_c_stops_the_crawl_cleanly_and_leaves_it_resumable(tmp_path: Path) -> None:
    with serve() as web:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "scrapy",
                "crawl",
                "web",
                "-a",
                f"seeds={web.seeds[0]}",
                "-s",
                f"DATA_DIR={tmp_path}",
                "-s",
                "DOWNLOAD_DELAY=0.2",
                "-s",
                "LOG_LEVEL=INFO",
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            # Some pages in, on more than one site: the crawl is well under way.
            assert web.wait_for_request(lambda r: r.site == "news" and r.path != "/robots.txt", 60)
            process.send_signal(signal.SIGINT)
            _, log = process.communicate(timeout=120)
        finally:
            process.kill()
        assert process.returncode == 0, log[-3000:]
        assert "Closing spider (shutdown)" in log
        assert "Index ready:" in log
        redis_pid = int(re.search(r"Embedded Redis server started \(pid (\d+)", log).group(1))
        assert not Path(f"/proc/{redis_pid}").exists(), "the embedded Redis outlived the crawl"
        assert search(tmp_path, "Kestrel")["total"] > 0  # what was crawled is searchable
        resumed = crawl(web, tmp_path)
        assert "Resuming the crawl" in resumed.stderr
        assert max(fetched(web).values()) == 1

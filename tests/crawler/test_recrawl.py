"""Revisits against a real crawl: conditional requests, and an index that follows the site.

A small site is crawled, then changed (one page edited, one removed, one
moved, the others left alone) and revisited with ``-a recrawl``; the server's
request log shows what was asked, ``python -m search`` what users now find,
and the page store when each page is due next.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from crawler.datadir import pages_path
from tests.commands import crawl, run
from tests.webserver import Reply, page, serve_site

BOUNDS = [
    "RECRAWL_INTERVAL=1000",
    "RECRAWL_MIN_INTERVAL=100",
    "RECRAWL_MAX_INTERVAL=100000",
    "DOWNLOAD_DELAY=0",
    "CONCURRENT_REQUESTS_PER_DOMAIN=4",
]
MONDAY = "Mon, 02 Mar 2026 10:00:00 GMT"
FRIDAY = "Fri, 06 Mar 2026 16:30:00 GMT"


def _routes() -> dict[str, Reply]:
    return {
        "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
        "/": page(
            "<title>Harbour office</title><p>Notices from the harbour office.</p>"
            '<a href="/stable.html">tides</a> <a href="/changing.html">ferry</a> '
            '<a href="/removed.html">regatta</a> <a href="/old.html">lighthouse</a> '
            '<a href="/chart.zip">tide chart download</a>',
            ETag='"home-1"',
        ),
        "/stable.html": page(
            "<title>Tide tables</title><p>High water at the quay follows the moon; spring tides flood the slipway.</p>",
            ETag='"stable-1"',
        ),
        "/changing.html": page(
            "<title>Ferry timetable</title><p>The winter ferry sails at dawn, "
            "weather permitting; passengers board with a heliotrope ticket.</p>"
            '<a href="/annex.html">old annex</a>',
            **{"Last-Modified": MONDAY},
        ),
        "/annex.html": page("<title>Annex</title><p>Waiting room rules for ferry passengers.</p>"),
        "/removed.html": page(
            "<title>Regatta</title><p>The summer regatta of the yacht club, "
            "with a cormorant trophy.</p>"
            '<a href="/plans.zip">quayside mooring plans</a> <a href="/chart.zip">tide chart</a>',
            ETag='"removed-1"',
        ),
        "/old.html": page(
            "<title>Lighthouse</title><p>The lighthouse keeper's log of foghorn "
            "soundings, kept since the storm of the century.</p>",
            ETag='"old-1"',
        ),
    }


def _change(routes: dict[str, Reply]) -> None:
    """The site a few days later."""
    routes["/changing.html"] = page(
        "<title>Ferry timetable</title><p>The summer ferry sails hourly; passengers buy a "
        'marmalade pass at the kiosk.</p><a href="/fresh.html">new kiosk</a>',
        **{"Last-Modified": FRIDAY},
    )
    routes["/fresh.html"] = page("<title>Kiosk</title><p>The kiosk sells sardine sandwiches.</p>")
    del routes["/removed.html"]  # 404 from now on
    routes["/old.html"] = Reply(b"", 301, {"Location": "/new.html"})
    routes["/new.html"] = _routes()["/old.html"]  # moved, word for word


def _search(data: Path, *query: str) -> list[str]:
    done = run("search", "--data", str(data), "--json", *query)
    assert done.returncode == 0, done.stderr
    return [result["url"] for result in json.loads(done.stdout)["results"]]


def _stat(log: str, name: str) -> int:
    found = re.search(rf"'{re.escape(name)}': (\d+)", log)
    return int(found.group(1)) if found else 0


def _intervals(data: Path) -> dict[str, float]:
    with sqlite3.connect(pages_path(data)) as db:
        return {url.rsplit("/", 1)[-1]: interval for url, interval in db.execute("SELECT url, interval FROM revisits")}


@pytest.fixture(scope="module")
def recrawled(tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("data")
    routes = _routes()
    with serve_site(routes) as site:
        first = crawl([site.url("/")], data, *BOUNDS)
        assert first.returncode == 0, first.stderr[-3000:]
        before = {
            "log": len(site.requests),
            "intervals": _intervals(data),
            "plans": _search(data, "quayside", "mooring"),
        }
        nothing_due = crawl([], data, *BOUNDS, spider_args=("recrawl=1",))
        assert nothing_due.returncode == 0, nothing_due.stderr[-3000:]
        before["idle"] = [r.path for r in site.requests[before["log"] :] if r.path != "/robots.txt"]
        _change(routes)
        mark = len(site.requests)
        again = crawl([], data, *BOUNDS, spider_args=("recrawl=all",))
        assert again.returncode == 0, again.stderr[-3000:]
        yield data, site.requests[mark:], again.stderr, before


def test_nothing_is_fetched_before_it_is_due(recrawled) -> None:
    _, _, _, before = recrawled
    assert before["idle"] == []
    assert before["intervals"]["stable.html"] == 1000  # RECRAWL_INTERVAL


def test_revisits_send_the_validators_of_the_last_fetch(recrawled) -> None:
    _, requests, log, _ = recrawled
    sent = {r.path: r.headers for r in requests}
    assert sent["/stable.html"]["If-None-Match"] == '"stable-1"'
    assert sent["/"]["If-None-Match"] == '"home-1"'
    assert sent["/changing.html"]["If-Modified-Since"] == MONDAY
    assert "If-None-Match" not in sent["/new.html"]  # a redirect's target is fetched whole
    assert _stat(log, "recrawl/unchanged") == 2  # home and tide tables answered 304
    assert _stat(log, "recrawl/due") == 6  # every page fetched before


def test_a_changed_page_is_reindexed_and_its_new_links_followed(recrawled) -> None:
    data, requests, _, _ = recrawled
    changing = "/changing.html"
    assert any(url.endswith(changing) for url in _search(data, "marmalade"))
    assert not any(url.endswith(changing) for url in _search(data, "heliotrope"))
    assert any(url.endswith("/fresh.html") for url in _search(data, "sardine"))
    paths = Counter(r.path for r in requests if r.path != "/robots.txt")
    assert max(paths.values()) == 1, paths  # each known page revisited once, new links fetched once


def test_unchanged_pages_stay_searchable(recrawled) -> None:
    data, _, _, _ = recrawled
    assert any(url.endswith("/stable.html") for url in _search(data, "slipway"))


def test_a_page_that_answers_404_leaves_the_index_with_what_only_it_linked(recrawled) -> None:
    data, _, _, before = recrawled
    assert any(url.endswith("/plans.zip") for url in before["plans"])
    assert _search(data, "cormorant") == []
    assert _search(data, "quayside", "mooring") == []  # known only by the removed page's link
    assert any(url.endswith("/chart.zip") for url in _search(data, "tide", "chart"))  # the home page links it too


def test_a_redirect_moves_the_page(recrawled) -> None:
    data, _, _, _ = recrawled
    urls = _search(data, "foghorn")
    assert len(urls) == 1 and urls[0].endswith("/new.html"), urls


def test_intervals_grow_for_unchanged_pages_and_shrink_for_changed_ones(recrawled) -> None:
    data, _, _, _ = recrawled
    intervals = _intervals(data)
    assert intervals["stable.html"] == 2000
    assert intervals["changing.html"] == 500
    assert intervals["new.html"] == 1000  # new here: the first interval
    assert "old.html" not in intervals and "removed.html" not in intervals


def test_a_stopped_recrawl_resumes_without_revisiting_a_page_twice(tmp_path: Path) -> None:
    # More pages than the crawl has requests in flight (CONCURRENT_REQUESTS): a
    # run stopped after 3 pages cannot have fetched them all, however slow.
    count = 40
    routes = {
        "/robots.txt": _routes()["/robots.txt"],
        "/": page("".join(f'<a href="/p{n}.html">page {n}</a>' for n in range(count)), ETag='"home"'),
    }
    for n in range(count):
        words = " ".join(hashlib.md5(f"{n}-{k}".encode()).hexdigest()[:8] for k in range(30))
        routes[f"/p{n}.html"] = page(f"<title>Page {n}</title><p>{words}</p>", ETag=f'"p{n}"')
    pages = set(routes) - {"/robots.txt"}
    with serve_site(routes) as site:
        assert crawl([site.url("/")], tmp_path, *BOUNDS).returncode == 0
        first_mark = len(site.requests)
        first = crawl([], tmp_path, *BOUNDS, "CLOSESPIDER_PAGECOUNT=3", spider_args=("recrawl=all",))
        assert first.returncode == 0, first.stderr[-3000:]
        second_mark = len(site.requests)
        second = crawl([], tmp_path, *BOUNDS, spider_args=("recrawl=all",))
        assert second.returncode == 0, second.stderr[-3000:]
        by_first = {r.path for r in site.requests[first_mark:second_mark]} & pages
        by_second = Counter(r.path for r in site.requests[second_mark:] if r.path in pages)
    assert 0 < len(by_first) < len(pages)
    # Left queued by the first run: fetched once. Fetched by it: asked again, its fetch being newer.
    assert set(by_second) == pages and max(by_second.values()) == 1
    assert _stat(second.stderr, "frontier/duplicate/shared") == len(pages - by_first)

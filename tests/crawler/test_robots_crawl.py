"""robots.txt outcomes, robots META, X-Robots-Tag and politeness, from the servers' logs.

One literal site per robots.txt outcome, all crawled together by a real
`scrapy crawl`; what each server was asked, and when, is the evidence.
"""

from __future__ import annotations

import gzip
import statistics
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import redis

from crawler.embedded import EmbeddedRedis
from indexer.layout import stored_documents
from tests.commands import ROOT, crawl
from tests.webserver import Reply, Site, page, serve_site, text


def _pages(name: str) -> dict[str, Reply]:
    """A home page linking to an allowed page and a forbidden one.

    Each site's pages say something of their own: identical pages on two
    sites would be duplicates, whose links are not followed.
    """
    links = "".join(f'<a href="{path}">{path}</a> ' for path in ("/a.html", "/secret/x.html"))
    return {
        "/": page(f"<title>Home of {name}</title><p>Welcome to {name}.</p>{links}"),
        "/a.html": page(f"<title>A of {name}</title><p>An allowed page of {name}.</p>"),
        "/secret/x.html": page(f"<title>Secret of {name}</title><p>A forbidden page of {name}.</p>"),
    }


class _Flaky:
    """robots.txt that fails (503, Retry-After: 1) before it answers."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.lock = threading.Lock()

    def __call__(self, path: str) -> Reply:
        with self.lock:
            self.failures -= 1
            failing = self.failures >= 0
        if failing:
            return Reply(b"busy", 503, {"Content-Type": "text/plain", "Retry-After": "1"})
        return text("User-agent: *\nDisallow: /secret/\n")


def _slow_robots(path: str) -> Reply:
    time.sleep(0.7)  # the server is slow; the crawler must wait, not go ahead
    return text("User-agent: *\nDisallow: /secret/\n")


DISALLOW_SECRET = text("User-agent: *\nDisallow: /secret/\n")

SITES = {
    "forbidden": {"/robots.txt": text("no", status=403), **_pages("forbidden")},
    "unauthorized": {"/robots.txt": text("no", status=401), **_pages("unauthorized")},
    "flaky": {"/robots.txt": _Flaky(failures=2), **_pages("flaky")},
    "redirect": {
        "/robots.txt": Reply(b"", 301, {"Location": "/real-robots.txt"}),
        "/real-robots.txt": DISALLOW_SECRET,
        **_pages("redirect"),
    },
    "missing": {**_pages("missing")},  # robots.txt: 404
    "junk": {"/robots.txt": Reply(bytes(range(256)) * 4, 200, {"Content-Type": "text/plain"}), **_pages("junk")},
    "html": {"/robots.txt": page("<html><body><h1>Welcome</h1><p>Disallow: /</p></body></html>"), **_pages("html")},
    "slow": {"/robots.txt": _slow_robots, **_pages("slow")},
    # A site that answers 200 with its HTML "not found" page for everything, /sitemap.xml included.
    "soft404": {
        "/robots.txt": DISALLOW_SECRET,
        "/sitemap.xml": page(
            "<!DOCTYPE html><html><head><title>Page not found</title></head><body><p>Sorry.</p></body></html>"
        ),
        **_pages("soft404"),
    },
    "meta": {
        "/robots.txt": DISALLOW_SECRET,
        "/": page(
            '<title>Home</title><a href="/noindex.html">n</a> <a href="/nofollow.html">f</a> '
            '<a href="/header.html">h</a> <a href="/ours.html">o</a> '
            '<a href="/via-rel.html" rel="nofollow">r</a>'
        ),
        "/noindex.html": page(
            '<meta name="robots" content="NOINDEX"><title>Noindex page</title><a href="/from-noindex.html">next</a>'
        ),
        "/nofollow.html": page(
            '<meta name="robots" content="nofollow"><title>Nofollow page</title><a href="/from-nofollow.html">next</a>'
        ),
        "/header.html": page(
            '<title>Header page</title><a href="/from-header.html">next</a>', **{"X-Robots-Tag": "noindex, nofollow"}
        ),
        "/ours.html": page(
            '<meta name="lanternbot" content="none"><meta name="otherbot" content="all">'
            '<title>Named page</title><a href="/from-ours.html">next</a>'
        ),
        "/from-noindex.html": page("<title>Reached</title>"),
        "/from-nofollow.html": page("<title>Never</title>"),
        "/from-header.html": page("<title>Never</title>"),
        "/from-ours.html": page("<title>Never</title>"),
        "/via-rel.html": page("<title>Never</title>"),
    },
}


class _SitemapSite:
    """robots.txt names a sitemap index; its gzipped sitemap lists an unlinked page."""

    def __init__(self) -> None:
        self.base = ""

    def routes(self) -> dict[str, Reply]:
        index = (
            '<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns='
            '"http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>{base}/sm1.xml.gz</loc>'
            "</sitemap></sitemapindex>"
        )
        urlset = (
            '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns='
            '"http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{base}/orphan.html</loc></url>'
            "<url><loc>http://elsewhere.invalid/x</loc></url></urlset>"
        )
        return {
            "/robots.txt": lambda path: text(f"User-agent: *\nDisallow:\nSitemap: {self.base}/index.xml\n"),
            "/index.xml": lambda path: Reply(
                index.format(base=self.base).encode(), 200, {"Content-Type": "application/xml"}
            ),
            "/sm1.xml.gz": lambda path: Reply(
                gzip.compress(urlset.format(base=self.base).encode()), 200, {"Content-Type": "application/x-gzip"}
            ),
            "/": page("<title>Sitemapped home</title><p>Nothing links to the orphan.</p>"),
            "/orphan.html": page("<title>Orphan</title><p>Only the sitemap knows me.</p>"),
        }


def _crawl(sites: dict[str, Site], data: Path, *settings: str) -> subprocess.CompletedProcess[str]:
    return crawl([site.url("/") for site in sites.values()], data, "ROBOTS_RETRY_DELAY=0.5", *settings)


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, Site], str, Path]]:
    data = tmp_path_factory.mktemp("robots")
    with ExitStack() as stack:
        sites = {name: stack.enter_context(serve_site(routes)) for name, routes in SITES.items()}
        sitemapped = _SitemapSite()
        sites["sitemap"] = stack.enter_context(serve_site(sitemapped.routes()))
        sitemapped.base = sites["sitemap"].base
        done = _crawl(sites, data, "DOWNLOAD_DELAY=0.05")
        assert done.returncode == 0, done.stderr[-3000:]
        yield sites, done.stderr, data


def test_robots_txt_is_the_first_request_on_every_site(crawled) -> None:
    sites, _, _ = crawled
    for name, site in sites.items():
        assert site.paths()[0] == "/robots.txt", (name, site.paths())


def test_nothing_but_robots_txt_from_sites_that_answer_401_or_403(crawled) -> None:
    sites, log, _ = crawled
    assert sites["forbidden"].paths() == ["/robots.txt"]
    assert sites["unauthorized"].paths() == ["/robots.txt"]
    assert "'robots/status/403': 1" in log and "'robots/status/401': 1" in log


def test_no_forbidden_path_is_ever_requested(crawled) -> None:
    sites, log, _ = crawled
    for name in ("flaky", "redirect", "slow", "meta"):
        assert not [p for p in sites[name].paths() if p.startswith("/secret/")], name
    assert "'robots/denied': " in log


def test_a_failing_robots_txt_holds_the_site_until_it_answers(crawled) -> None:
    sites, log, _ = crawled
    requests = sites["flaky"].requests
    paths = [r.path for r in requests]
    assert paths[:3] == ["/robots.txt"] * 3  # two 503s, then the answer
    assert requests[1].time - requests[0].time >= 0.9  # Retry-After: 1 honoured
    assert {"/", "/a.html"} <= set(paths[3:])  # the site was crawled afterwards
    assert "'robots/deferred': " in log


def test_a_slow_robots_txt_is_waited_for(crawled) -> None:
    sites, _, _ = crawled
    requests = sites["slow"].requests
    assert [r.path for r in requests][0] == "/robots.txt"
    assert all(r.time >= requests[0].time + 0.7 for r in requests[1:])


def test_redirects_are_followed_to_the_rules(crawled) -> None:
    sites, _, _ = crawled
    assert sites["redirect"].paths()[:2] == ["/robots.txt", "/real-robots.txt"]
    assert "/a.html" in sites["redirect"].paths()


@pytest.mark.parametrize("name", ["missing", "junk", "html"])
def test_no_usable_robots_txt_blocks_nothing(crawled, name: str) -> None:
    sites, _, _ = crawled
    assert {"/", "/a.html", "/secret/x.html"} <= set(sites[name].paths())


def test_robots_meta_tags_and_headers(crawled) -> None:
    sites, log, data = crawled
    paths = set(sites["meta"].paths())
    assert "/from-noindex.html" in paths  # noindex: links still followed
    for never in ("/from-nofollow.html", "/from-header.html", "/from-ours.html", "/via-rel.html"):
        assert never not in paths, never
    found = _titles(data)
    assert "Nofollow page" in found  # nofollow: still indexed
    assert not {"Noindex page", "Header page", "Named page"} & found


def test_sitemaps_named_by_robots_txt_feed_the_crawl(crawled) -> None:
    sites, log, _ = crawled
    assert {"/index.xml", "/sm1.xml.gz", "/orphan.html"} <= set(sites["sitemap"].paths())
    assert "'sitemap/urls': 2" in log
    assert "'sitemap/missing': " in log  # the other sites have no /sitemap.xml


def test_a_sitemap_that_is_an_html_page_is_counted_and_the_crawl_goes_on(crawled) -> None:
    sites, log, _ = crawled
    assert "/sitemap.xml" in sites["soft404"].paths()
    assert {"/", "/a.html"} <= set(sites["soft404"].paths())
    assert "'sitemaps/not_xml': 1" in log
    assert "StopIteration" not in log and "Spider error" not in log


def _gzipped_sitemap(base: str, paths: list[str], padding: int = 0) -> bytes:
    """A gzipped urlset of ``paths`` with ``padding`` spaces between its first
    entry and the others: a decompression bomb, a few dozen KiB on the wire,
    when the padding runs to megabytes."""
    entries = [f"<url><loc>{base}{path}</loc></url>".encode() for path in paths]
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [packer.compress(b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')]
    parts.append(packer.compress(entries[0]))
    spaces = b" " * (1 << 20)
    for start in range(0, padding, len(spaces)):
        parts.append(packer.compress(spaces[: padding - start]))
    parts += [packer.compress(entry) for entry in entries[1:]]
    parts += [packer.compress(b"</urlset>"), packer.flush()]
    return b"".join(parts)


def test_a_sitemap_over_its_inflated_limit_is_counted_and_skipped(tmp_path: Path) -> None:
    """A gzip bomb (51 MiB of XML from about 50 KiB) is refused whole; a
    gzipped sitemap within the limit beside it still feeds the crawl."""
    base = ""
    routes: dict[str, Reply | Callable[[str], Reply]] = {
        "/robots.txt": lambda path: text(f"User-agent: *\nSitemap: {base}/bomb.xml.gz\nSitemap: {base}/fine.xml.gz\n"),
        "/bomb.xml.gz": lambda path: Reply(
            _gzipped_sitemap(base, ["/before.html", "/after.html"], 51 << 20), 200, {"Content-Type": "application/gzip"}
        ),
        "/fine.xml.gz": lambda path: Reply(
            _gzipped_sitemap(base, ["/listed.html"], 1 << 20), 200, {"Content-Type": "application/gzip"}
        ),
        "/": page("<title>Bombed home</title><p>Nothing links anywhere.</p>"),
    }
    for path in ("/before.html", "/after.html", "/listed.html"):
        routes[path] = page(f"<title>{path}</title><p>Only a sitemap knows {path}.</p>")
    with serve_site(routes) as site:
        base = site.base
        done = _crawl({"bomb": site}, tmp_path, "DOWNLOAD_DELAY=0.05")
    assert done.returncode == 0, done.stderr[-3000:]
    paths = site.paths()
    assert {"/bomb.xml.gz", "/fine.xml.gz", "/listed.html"} <= set(paths)
    assert not {"/before.html", "/after.html"} & set(paths)
    assert next(r.size for r in site.requests if r.path == "/bomb.xml.gz") < 100 * 1024
    assert "'sitemap/invalid': 1" in done.stderr and "'sitemap/urls': 1" in done.stderr
    assert "Spider error" not in done.stderr


def test_identifying_headers_on_every_request_robots_txt_included(crawled) -> None:
    sites, _, _ = crawled
    for site in sites.values():
        for request in site.requests:
            assert request.headers["User-Agent"].startswith("LanternBot/0.1 (+http")
            assert request.headers["From"] == "lanternbot@localhost"
            assert request.headers["Host"].startswith("127.0.0.1:")
    page_requests = [r for r in sites["meta"].requests if r.path == "/noindex.html"]
    assert page_requests[0].headers["Referer"] == sites["meta"].url("/")


def _titles(data: Path) -> set[str]:
    return {fields["title"] for fields in stored_documents(data).values() if "title" in fields}


POLITE = {
    "plain": {
        "/robots.txt": text("User-agent: *\nDisallow:\n"),
        "/": page("".join(f'<a href="/p{n}.html">{n}</a>' for n in range(8))),
        **{f"/p{n}.html": page(f"<title>P{n}</title><p>Page {n}</p>") for n in range(8)},
    },
    "crawl_delay": {
        "/robots.txt": text("User-agent: *\nCrawl-delay: 0.6\n"),
        "/": page("".join(f'<a href="/p{n}.html">{n}</a>' for n in range(4))),
        **{f"/p{n}.html": page(f"<title>Q{n}</title><p>Page {n}</p>") for n in range(4)},
    },
}


class _TooMany:
    """A page that answers 429 with Retry-After once, then the page."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, path: str) -> Reply:
        self.calls += 1
        if self.calls == 1:
            return Reply(b"slow down", 429, {"Content-Type": "text/plain", "Retry-After": "2"})
        return page("<title>Patient</title>")


def _gaps(site: Site) -> list[float]:
    times = [r.time for r in site.requests]
    return [b - a for a, b in zip(times, times[1:], strict=False)]


@pytest.mark.alone
def test_politeness_delays_crawl_delay_and_retry_after(tmp_path: Path) -> None:
    routes = dict(POLITE)
    routes["retry_after"] = {"/robots.txt": text("User-agent: *\nDisallow:\n"), "/": _TooMany()}
    with ExitStack() as stack:
        sites = {name: stack.enter_context(serve_site(r)) for name, r in routes.items()}
        done = _crawl(sites, tmp_path, "DOWNLOAD_DELAY=0.3", "CONCURRENT_REQUESTS_PER_DOMAIN=4")
    assert done.returncode == 0, done.stderr[-3000:]
    # The gaps are read where the requests arrive, so they carry the machine's
    # scheduling noise (tens of ms on a loaded machine): the median shows the
    # floor, the least gap that no request went out early by more than noise.
    plain, slowed = _gaps(sites["plain"]), _gaps(sites["crawl_delay"])[1:]  # after robots.txt: its Crawl-delay
    # (a Crawl-delay is kept exactly, so half its gaps are a hair either side of it)
    assert statistics.median(plain) >= 0.3 - 0.02 and min(plain) >= 0.3 - 0.1  # DOWNLOAD_DELAY: a floor, not a mean
    assert statistics.median(slowed) >= 0.6 - 0.02 and min(slowed) >= 0.6 - 0.1
    home = [r.time for r in sites["retry_after"].requests if r.path == "/"]
    assert len(home) == 2 and home[1] - home[0] >= 2.0 - 0.05  # 429, paused, then the page
    assert "'politeness/retry_after': 1" in done.stderr


def test_one_robots_txt_fetch_per_site_with_two_crawl_processes(tmp_path: Path) -> None:
    with ExitStack() as stack:
        server = stack.enter_context(EmbeddedRedis(tmp_path / "shared"))
        sites = {name: stack.enter_context(serve_site(SITES[name])) for name in ("slow", "redirect", "missing")}
        seeds = ",".join(site.url("/") for site in sites.values())
        command = [
            sys.executable,
            "-m",
            "scrapy",
            "crawl",
            "web",
            "-a",
            f"seeds={seeds}",
            "-s",
            f"REDIS_URL={server.url}",
            "-s",
            "DOWNLOAD_DELAY=0.05",
        ]
        nodes = [
            subprocess.Popen(
                [*command, "-s", f"DATA_DIR={tmp_path / f'node{n}'}"],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for n in range(2)
        ]
        logs = [node.communicate(timeout=300)[1] for node in nodes]
        assert [node.returncode for node in nodes] == [0, 0], logs[0][-2000:] + logs[1][-2000:]
        for name, site in sites.items():
            robots = [p for p in site.paths() if p == "/robots.txt"]
            assert len(robots) == 1, (name, site.paths())
        assert redis.Redis.from_url(server.url).exists("web:robots:" + _site_key(sites["slow"]))


def _site_key(site: Site) -> str:
    return site.base.replace("http://127.0.0.1:", "http://127.0.0.1:")

"""A crawl whose embedded Redis server dies (killed, out of memory) under it.

Real crawls of a local site, whose embedded redis-server the test kills with
SIGKILL, as the out-of-memory killer does: the crawl starts it again from its
append-only file and goes on; if it cannot (its append-only file is damaged),
the crawl stops in one line with a non-zero status; and SIGTERM ends a crawl
whose Redis is gone within DOWNLOAD_TIMEOUT and a few seconds.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

from indexer.layout import stored_documents
from tests.commands import crawling, log_until
from tests.webserver import Site, page, serve_site

PAGES = 120
DOWNLOAD_TIMEOUT = 3
_STARTED = re.compile(r"Embedded Redis server started \(pid (\d+)")


def _site() -> dict:
    routes = {"/": page("".join(f'<a href="/p{n}.html">page {n}</a> ' for n in range(PAGES)))}
    for n in range(PAGES):
        # Letters, not digits: the content fingerprint leaves numbers out.
        words = " ".join(_letters(n * 40 + k) for k in range(40))
        routes[f"/p{n}.html"] = page(f"<title>Page {n}</title><p>Page {n} is about {words}.</p>")
    return routes


def _letters(number: int) -> str:
    """A word of its own for each number, in letters."""
    return "".join("bcdefghijklmnopqrstuvwxyz"[digit] for digit in (number % 25, number // 25 % 25)) + "o" * (
        number // 625
    )


def _crawl(site: Site, data: Path) -> subprocess.Popen[str]:
    return crawling(
        [site.url("/")], data, "DOWNLOAD_DELAY=0.05", f"DOWNLOAD_TIMEOUT={DOWNLOAD_TIMEOUT}", "LOG_LEVEL=INFO"
    )


def _redis_pid(crawl: subprocess.Popen[str], seen: list[str]) -> int:
    """The pid of the crawl's embedded redis-server, once its log says it started it."""
    assert log_until(crawl, seen, _STARTED.search, 120), "".join(seen)[-3000:]
    found = _STARTED.search(seen[-1])
    assert found is not None
    return int(found.group(1))


def _wait_for_request(site: Site, path: str, crawl: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while path not in site.paths():
        assert time.monotonic() < deadline and crawl.poll() is None, f"{path} was never asked for"
        time.sleep(0.05)


def _kill_redis(data: Path, pid: int, damage: bool = False) -> None:
    """SIGKILL the embedded redis-server; with ``damage``, first write bytes
    that are no Redis command into its append-only file (the server writes
    on after them): it refuses to load that file at its next start."""
    if damage:
        with open(data / "redis" / "appendonly.aof", "ab") as aof:
            aof.write(b"this is no redis command\r\n")
    os.kill(pid, signal.SIGKILL)


def _finish(crawl: subprocess.Popen[str], seen: list[str], timeout: float) -> str:
    try:
        _, rest = crawl.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        crawl.kill()
        _, rest = crawl.communicate()
        raise AssertionError(f"the crawl still ran after {timeout} s: {(''.join(seen) + rest)[-3000:]}") from None
    return "".join(seen) + rest


def test_a_crawl_starts_its_killed_redis_again_and_finishes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    seen: list[str] = []
    with serve_site(_site()) as site:
        crawl = _crawl(site, data)
        pid = _redis_pid(crawl, seen)
        _wait_for_request(site, "/p20.html", crawl)  # well under way
        _kill_redis(data, pid)
        log = _finish(crawl, seen, 180)
        fetched = {request.path for request in site.requests}
    assert crawl.returncode == 0, log[-3000:]
    assert "The embedded Redis server is back" in log
    assert {f"/p{n}.html" for n in range(PAGES)} <= fetched
    crawled = {url for url, fields in stored_documents(data).items() if fields.get("crawled")}
    assert {site.url(f"/p{n}.html") for n in range(PAGES)} <= crawled


def test_a_crawl_whose_redis_cannot_start_again_stops_in_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    seen: list[str] = []
    with serve_site(_site()) as site:
        crawl = _crawl(site, data)
        pid = _redis_pid(crawl, seen)
        _wait_for_request(site, "/p20.html", crawl)
        _kill_redis(data, pid, damage=True)
        log = _finish(crawl, seen, 120)
    assert crawl.returncode == 1, log[-3000:]
    stops = [line for line in log.splitlines() if "The crawl stops" in line]
    assert len(stops) == 1 and "embedded Redis server" in stops[0], log[-3000:]
    assert "Traceback" not in log


def test_sigterm_ends_a_crawl_whose_redis_is_gone(tmp_path: Path) -> None:
    data = tmp_path / "data"
    seen: list[str] = []
    routes = _site()
    held = threading.Event()
    answer = routes["/p20.html"]
    routes["/p20.html"] = lambda path: answer if held.wait(30) else None  # answered once Redis is gone
    with serve_site(routes) as site:
        crawl = _crawl(site, data)
        pid = _redis_pid(crawl, seen)
        _wait_for_request(site, "/p20.html", crawl)
        _kill_redis(data, pid, damage=True)  # it stays gone
        assert log_until(crawl, seen, lambda line: "Redis is unreachable" in line, 60), "".join(seen)[-3000:]
        held.set()
        # Its page waits to be handed to the indexer, for ever, unless the crawl stops waiting.
        assert log_until(crawl, seen, lambda line: "items wait for it" in line, 60), "".join(seen)[-3000:]
        crawl.send_signal(signal.SIGTERM)
        asked = time.monotonic()
        log = _finish(crawl, seen, DOWNLOAD_TIMEOUT + 60)
        took = time.monotonic() - asked
    assert took < DOWNLOAD_TIMEOUT + 10, (took, log[-3000:])
    assert crawl.returncode == 1, log[-3000:]
    assert "Traceback" not in log

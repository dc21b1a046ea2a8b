"""A page that stalls: tried twice (not three times), the second time later in the crawl.

A real server on 127.0.0.1 that accepts the request for /stall.html and
never answers it while the crawl runs; every other page answers at once.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from indexer.layout import stored_documents
from tests.commands import ROOT, crawl
from tests.webserver import Reply, page, serve_site

PAGES = [f"/p{n}.html" for n in range(1, 9)]


@pytest.fixture(scope="module")
def stalled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    released = threading.Event()

    def stall(path: str) -> Reply:
        released.wait(60)  # answers only once the crawl is over (or a minute has passed)
        return page("<title>Too late</title>")

    words = "quay ferry chapel lane market museum council tower".split()
    routes = {
        "/": page(
            "<title>Home</title><a href='/stall.html'>slow</a> "
            + " ".join(f"<a href='{path}'>{path}</a>" for path in PAGES)
        ),
        "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
        "/stall.html": stall,
        **{
            path: page(f"<title>Page {n}</title><p>The {words[n - 1]} of page {n}.</p>")
            for n, path in enumerate(PAGES, 1)
        },
    }
    data = tmp_path_factory.mktemp("stall")
    with serve_site(routes) as site:
        try:
            done = crawl([site.url("/")], data, "DOWNLOAD_DELAY=0", "DOWNLOAD_TIMEOUT=2", "MONITOR_INTERVAL=0")
        finally:
            released.set()
        yield site.paths(), done, stored_documents(data), site


def test_a_stalled_page_is_tried_twice_the_second_time_after_the_rest(stalled) -> None:
    paths, done, _, _ = stalled
    assert done.returncode == 0, done.stderr[-3000:]
    tries = [index for index, path in enumerate(paths) if path == "/stall.html"]
    assert len(tries) == 2, paths
    assert tries[1] > max(paths.index(path) for path in PAGES)  # later in the crawl, not at once


def test_the_retry_and_the_giving_up_are_counted_and_logged_once(stalled) -> None:
    _, done, _, _ = stalled
    log = done.stderr
    assert "'retry/timeout/later': 1" in log
    assert "'retry/timeout/given_up': 1" in log
    assert len(re.findall(r"stall\.html timed out .*: it is tried once more", log)) == 1
    assert len(re.findall(r"stall\.html timed out again: given up", log)) == 1
    assert "Traceback" not in log


def test_the_other_pages_are_indexed(stalled) -> None:
    _, _, documents, site = stalled
    indexed = {url for url, fields in documents.items() if fields.get("crawled")}
    assert indexed == {site.url("/"), *(site.url(path) for path in PAGES)}


def test_a_retry_still_held_when_the_crawl_is_stopped_is_tried_by_the_next_run(tmp_path) -> None:
    answering = threading.Event()

    def stall(path: str) -> Reply:
        answering.wait(60)
        return page("<title>Slow but there</title><p>The ferry timetable for the winter.</p>")

    slow = [f"/slow/{n}.html" for n in range(1, 21)]  # 10 s of work at 2 pages a second
    routes = {
        "/": page(
            "<title>Home</title><a href='/stall.html'>slow</a> "
            + " ".join(f"<a href='{path}'>{path}</a>" for path in slow)
        ),
        "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
        "/stall.html": stall,
        **{path: page(f"<title>Slow {path}</title><p>{path} {' '.join(path * 3)}</p>") for path in slow},
    }
    with serve_site(routes) as site:
        command = [
            sys.executable,
            "-m",
            "scrapy",
            "crawl",
            "web",
            "-a",
            f"seeds={site.url('/')}",
            "-s",
            f"DATA_DIR={tmp_path}",
            "-s",
            "DOWNLOAD_DELAY=0.5",
            "-s",
            "DOWNLOAD_TIMEOUT=2",
            "-s",
            "MONITOR_INTERVAL=0",
        ]
        try:
            process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            try:
                lines = []
                for line in process.stderr:  # the crawl's own log, as it comes
                    lines.append(line)
                    if "stall.html timed out" in line:
                        process.send_signal(signal.SIGINT)
                        break
                log = "".join(lines) + process.communicate(timeout=120)[1]
            finally:
                process.kill()
            answering.set()
            assert process.returncode == 0, log[-3000:]
            assert "Queued 1 timed-out requests for the next run" in log
            assert len(site.paths()) < len(slow)  # stopped well before the end
            # The slow pages only kept the first run busy: the next one takes them without a delay.
            resumed = subprocess.run(
                [*command, "-s", "DOWNLOAD_DELAY=0"], cwd=ROOT, capture_output=True, text=True, timeout=300
            )
        finally:
            answering.set()
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert site.paths().count("/stall.html") == 2
    documents = stored_documents(tmp_path)
    assert documents[site.url("/stall.html")]["title"] == "Slow but there"

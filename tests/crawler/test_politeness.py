"""How many requests one site gets at once: its delay, its concurrency."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.commands import crawl
from tests.webserver import Reply, page, serve_site

_PAGES = 16


class _InFlight:
    """Pages the server answers with some slowness of its own, counting how many it works on at once."""

    def __init__(self) -> None:
        self.now = 0
        self.at_arrival: list[int] = []  # pages in the works as each one came in, itself included
        self._lock = threading.Lock()

    def reply(self, path: str) -> Reply | None:
        if not path.startswith("/p"):
            return None
        with self._lock:
            self.now += 1
            self.at_arrival.append(self.now)
        time.sleep(0.3)  # the server's own slowness, not the test's
        with self._lock:
            self.now -= 1
        return page(f"<title>Page {path}</title><p>The page at {path}.</p>")


def test_a_site_that_answers_within_a_second_gets_its_concurrency(tmp_path: Path) -> None:
    # 0.3 s is no slowness to back off from: with no delay asked for, the
    # pages go four at a time. Backing off from it (a delay of 0.3 s, the
    # response time) sent the first four at once, then one every 0.3 s:
    # about one at a time.
    links = "".join(f'<a href="/p{n}.html">{n}</a> ' for n in range(_PAGES))
    pages = _InFlight()
    with serve_site({"/": page(f"<title>Home</title><p>{links}</p>")}, default=pages.reply) as site:
        done = crawl(
            [site.url("/")], tmp_path, "DOWNLOAD_DELAY=0", "CONCURRENT_REQUESTS_PER_DOMAIN=4", "INDEX_WITH_CRAWL=0"
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert sum(path.startswith("/p") for path in site.paths()) == _PAGES
    assert max(pages.at_arrival) == 4
    assert pages.at_arrival.count(4) >= _PAGES // 4 - 1, pages.at_arrival  # four at once, again and again (it was once)
    assert "politeness/slowdown" not in done.stderr

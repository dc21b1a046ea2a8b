"""Local sites to crawl in benchmarks: a directory served over HTTP, or the demo web.

Each records when page requests arrive, so a crawl's rate is measured from
its first to its last page fetch, apart from start-up and shutdown costs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.demoweb import serve as serve_demo_web

PYTHON3_DOC = Path("/usr/share/doc/python3/html")


@dataclass
class Site:
    name: str
    seed: str
    times: Callable[[], list[float]]  # arrival of every page request so far
    deny: str = ""  # a trap the plain CrawlSpider must be kept out of

    def pages_since(self, mark: int) -> tuple[int, float]:
        """Pages fetched since ``mark`` requests, and the seconds from the first to the last."""
        times = self.times()[mark:]
        return len(times), (times[-1] - times[0]) if len(times) > 1 else 0.0


@contextmanager
def serve_directory(name: str, root: Path) -> Iterator[Site]:
    """Serve ``root`` on 127.0.0.1 and a free port, threaded and quiet."""
    arrivals: list[float] = []

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def send_head(self):  # type: ignore[no-untyped-def]
            if not self.path.startswith("/robots.txt"):
                arrivals.append(time.monotonic())
            return super().send_head()

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(root)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(name, f"http://127.0.0.1:{server.server_port}/index.html", lambda: list(arrivals))
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def demo_web() -> Iterator[Site]:
    with serve_demo_web() as web:
        yield Site(
            "demo web",
            web.seeds[0],
            lambda: [r.time for r in web.requests if r.path != "/robots.txt"],
            deny="/calendar/",
        )


def available() -> list[Callable[[], AbstractContextManager[Site]]]:
    """A factory for every benchmark site on this machine."""
    sites: list[Callable[[], AbstractContextManager[Site]]] = [demo_web]
    if (PYTHON3_DOC / "index.html").exists():
        sites.append(partial(serve_directory, "python3-doc", PYTHON3_DOC))
    return sites

"""Serving the demo web: one quiet threaded HTTP server per site on 127.0.0.1.

Ports are bound first (port 0 lets the OS choose), then pages are generated
for the resulting base URLs, then the servers start, because pages link
across sites with absolute URLs. Every request is recorded *before* its
response is written, so once a client has read a response the request log
already holds it: tests can assert on the log without waiting.
"""

from __future__ import annotations

import socketserver
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple
from urllib.parse import quote, unquote

from . import content
from .site import Site, Web

#: How often an idle server checks for shutdown; bounds how long close() takes.
_POLL_SECONDS = 0.05


class Request(NamedTuple):
    """One request as the server saw it; ``path`` is raw, with its query."""

    time: float
    site: str
    method: str
    path: str
    status: int
    headers: dict[str, str]


class _RequestLog:
    """Thread-safe list of requests that a test can also wait on."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._records: list[Request] = []

    def append(self, record: Request) -> None:
        with self._changed:
            self._records.append(record)
            self._changed.notify_all()

    def snapshot(self) -> list[Request]:
        with self._changed:
            return list(self._records)

    def wait_for(self, predicate: Callable[[Request], bool], timeout: float) -> Request | None:
        with self._changed:
            found: list[Request] = []

            def seen() -> bool:
                found[:] = [r for r in self._records if predicate(r)]
                return bool(found)

            self._changed.wait_for(seen, timeout)
            return found[0] if found else None


def respond(site: Site, raw_path: str) -> tuple[int, str, bytes]:
    """Status, content type and body for a request path on ``site``.

    The path is percent-decoded before lookup, so ``/jieri/%E6%98%A5%E8%8A%82.html``
    and a raw UTF-8 ``/jieri/春节.html`` reach the same page. The query string is
    ignored, as many real servers do, so tracking parameters make duplicates.
    """
    path = unquote(raw_path.split("?", 1)[0].split("#", 1)[0])
    if path == "/robots.txt":
        return 200, "text/plain; charset=utf-8", site.robots.encode("utf-8")
    page = site.pages.get(path)
    if page is None and site.dynamic is not None:
        page = site.dynamic(path)
    if page is None:
        return 404, "text/html; charset=utf-8", site.not_found
    return 200, "text/html; charset=utf-8", page


class _Handler(BaseHTTPRequestHandler):
    server: _SiteServer
    server_version = "DemoWeb/1.0"

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def _answer(self, send_body: bool) -> None:
        site = self.server.site
        status, content_type, body = respond(site, self.path)
        self.server.log.append(
            Request(time.monotonic(), site.name, self.command, self.path, status, dict(self.headers))
        )
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: the request log, not stderr, is the record."""


class _SiteServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, log: _RequestLog) -> None:
        self.log = log
        self.site: Site
        super().__init__(("127.0.0.1", port), _Handler)

    def server_bind(self) -> None:
        """Bind without HTTPServer's reverse DNS lookup, which can stall for seconds."""
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


class DemoWeb:
    """The demo sites, listening; build one with :meth:`start` or :func:`serve`."""

    def __init__(self, web: Web, servers: dict[str, _SiteServer], log: _RequestLog) -> None:
        self._web = web
        self._servers = servers
        self._log = log
        self._threads: list[threading.Thread] = []
        self._closed = False

    @classmethod
    def start(cls, ports: Mapping[str, int] | None = None) -> DemoWeb:
        """Bind every site (fixed ``ports`` per site name, else free ones), generate, serve."""
        ports = dict(ports or {})
        unknown = set(ports) - set(content.SITE_NAMES)
        if unknown:
            raise ValueError(f"unknown demo sites: {sorted(unknown)}")
        log = _RequestLog()
        servers: dict[str, _SiteServer] = {}
        try:
            for name in content.SITE_NAMES:
                servers[name] = _SiteServer(ports.get(name, 0), log)
            web = content.build({name: f"http://127.0.0.1:{s.server_port}" for name, s in servers.items()})
        except BaseException:
            for server in servers.values():
                server.server_close()
            raise
        for name, server in servers.items():
            server.site = web.sites[name]
        demo = cls(web, servers, log)
        demo._run()
        return demo

    def _run(self) -> None:
        for name, server in self._servers.items():
            thread = threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": _POLL_SECONDS},
                name=f"demoweb-{name}",
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)

    @property
    def sites(self) -> dict[str, str]:
        """Site name -> base URL, e.g. ``{"docs": "http://127.0.0.1:40123", ...}``."""
        return {name: site.base for name, site in self._web.sites.items()}

    @property
    def seeds(self) -> list[str]:
        """One home page URL per site."""
        return [base + "/" for base in self.sites.values()]

    def url(self, site: str, path: str) -> str:
        """Absolute URL of ``path`` on ``site``; non-ASCII characters are percent-encoded."""
        return self._web.sites[site].base + quote(path, safe="/?&=%#:;@!$'()*+,~")

    @property
    def requests(self) -> list[Request]:
        """A copy of the request log, oldest first."""
        return self._log.snapshot()

    def wait_for_request(self, predicate: Callable[[Request], bool], timeout: float = 5.0) -> Request | None:
        """The first logged request matching ``predicate``, waiting up to ``timeout`` for it."""
        return self._log.wait_for(predicate, timeout)

    @property
    def page_count(self) -> int:
        """Static page URLs a robots-obeying crawler may fetch (no calendar, no 404s)."""
        return sum(self._web.facts["pages_per_site"].values())

    @property
    def facts(self) -> dict[str, Any]:
        """Known items the tests and the demo rely on (see ``content.build``)."""
        return self._web.facts

    def close(self) -> None:
        """Stop every server, close its listening socket and join its thread."""
        if self._closed:
            return
        self._closed = True
        for server, thread in zip(self._servers.values(), self._threads, strict=True):
            server.shutdown()  # returns once serve_forever has
            server.server_close()
            thread.join()

    def __enter__(self) -> DemoWeb:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@contextmanager
def serve(ports: Mapping[str, int] | None = None) -> Iterator[DemoWeb]:
    """Serve the demo web for the duration of a ``with`` block.

    >>> import urllib.request
    >>> with serve() as web:
    ...     urllib.request.urlopen(web.url("zh", "/robots.txt")).status
    200
    """
    web = DemoWeb.start(ports)
    try:
        yield web
    finally:
        web.close()

"""A tiny literal web site per test: routes in, a real HTTP server on 127.0.0.1 out.

    with serve_site({"/": page("<a href='/a'>A</a>"), "/a": page("A")}) as site:
        site.url("/")        # http://127.0.0.1:PORT/
        site.requests        # what the crawler asked for, in order

A route is a :class:`Reply` or a function of the request path (with query)
returning a Reply or None (404); routes may change while the site is served.
A reply with an ``ETag`` or ``Last-Modified`` header is answered ``304 Not
Modified`` to a request whose ``If-None-Match`` or ``If-Modified-Since``
matches it, as HTTP servers do. Every request is logged (with its headers)
when it arrives, and its status and body size once its reply is known,
before the reply is written: once a client has its response, the log holds
the request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import NamedTuple


@dataclass(frozen=True)
class Reply:
    body: bytes = b""
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"})


def page(html: str, status: int = 200, **headers: str) -> Reply:
    """An HTML page (UTF-8)."""
    return Reply(html.encode(), status, {"Content-Type": "text/html; charset=utf-8", **headers})


def text(body: str, status: int = 200, content_type: str = "text/plain; charset=utf-8") -> Reply:
    return Reply(body.encode(), status, {"Content-Type": content_type})


Route = Reply | Callable[[str], Reply | None]


class Logged(NamedTuple):
    time: float
    method: str
    path: str
    headers: dict[str, str]
    status: int | None = None  # None while the reply is being made
    size: int = 0  # bytes of the body sent
    version: str = ""  # of the request line: "HTTP/1.1"


class Site:
    def __init__(self, server: ThreadingHTTPServer, log: list[Logged], lock: threading.Lock) -> None:
        self.base = f"http://127.0.0.1:{server.server_port}"
        self._log = log
        self._lock = lock

    def url(self, path: str = "/") -> str:
        return self.base + path

    @property
    def requests(self) -> list[Logged]:
        with self._lock:
            return list(self._log)

    def paths(self) -> list[str]:
        """Requested paths (with query), in order, robots.txt included."""
        return [request.path for request in self.requests]


def _not_modified(reply: Reply, request: Mapping[str, str]) -> bool:
    """RFC 9110: If-None-Match decides when sent; else If-Modified-Since."""
    etag, modified = reply.headers.get("ETag"), reply.headers.get("Last-Modified")
    if request.get("If-None-Match") is not None:
        return etag is not None and etag in (tag.strip() for tag in request["If-None-Match"].split(","))
    since = request.get("If-Modified-Since")
    if since is None or modified is None:
        return False
    try:
        return parsedate_to_datetime(modified) <= parsedate_to_datetime(since)
    except (TypeError, ValueError):
        return False


@contextmanager
def serve_site(routes: Mapping[str, Route], default: Route | None = None) -> Iterator[Site]:
    """Serve ``routes`` (exact paths; ``default`` for any other) until the block ends."""
    log: list[Logged] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            with lock:
                log.append(
                    Logged(time.monotonic(), self.command, self.path, dict(self.headers), version=self.request_version)
                )
                index = len(log) - 1
            route = routes.get(self.path, routes.get(self.path.split("?", 1)[0], default))
            reply = route(self.path) if callable(route) else route
            if reply is None:
                reply = page("<title>Not found</title><p>Not found</p>", status=404)
            if reply.status == 200 and _not_modified(reply, self.headers):
                reply = Reply(
                    b"",
                    304,
                    {name: value for name, value in reply.headers.items() if name in ("ETag", "Last-Modified")},
                )
            size = 0 if self.command == "HEAD" else len(reply.body)
            with lock:
                log[index] = log[index]._replace(status=reply.status, size=size)
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(reply.body)

        do_HEAD = do_GET

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield Site(server, log, lock)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()

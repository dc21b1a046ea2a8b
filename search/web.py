"""``python -m search.web``: the search page and its JSON API, standard library only.

    python -m search.web --data DIR [--host 127.0.0.1] [--port 8080] [--allowed-host NAME]...
                         [--workers N] [--quiet]

``GET /`` is the page (a form; with ``q``, a page of results), ``GET
/api/search?q=...&n=...&page=...`` answers with exactly the JSON that
``python -m search --json`` prints. Everything shown comes from crawled pages
and is untrusted: :mod:`search.page` escapes every string of the page, and
the page carries one script, its own, which this server's
Content-Security-Policy allows by its hash: no other script can run.

One engine (:class:`~search.live.LiveEngine`, reopened when the index
changes) serves every request of a process; ``--workers`` runs several
processes on one socket (:mod:`search.prefork`), one per core by default,
as a process searches on one core only.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import logging
import re
import socket
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from crawler import settings as defaults
from crawler.datadir import archive_dir
from crawler.version import add_version_option, typed_command
from search.cached import CSP, ArchiveIndex, query_words, read_copy, render_copy
from search.engine import MAX_QUERY_CHARS, DamagedIndex, Results, SearchError
from search.front import Front
from search.live import LiveEngine
from search.options import DEFAULT_N, add_data_option, add_engine_options, data_dirs, engine_options
from search.page import FAVICON, KEYS_SCRIPT, Params, render_opensearch, render_page
from search.translations import accepted_languages
from search.wording import LANGUAGES, interface_language

__all__ = ["BadRequest", "parse_params", "make_server", "listen", "main"]

logger = logging.getLogger(__name__)

# The most results a page may ask for (``n``).
MAX_N = 100
_SCRIPT_HASH = base64.b64encode(hashlib.sha256(KEYS_SCRIPT.encode()).digest()).decode()
_SECURITY_HEADERS = {
    "Content-Security-Policy": (
        f"default-src 'none'; script-src 'sha256-{_SCRIPT_HASH}'; connect-src 'self'; style-src 'unsafe-inline'; "
        "img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

# A Host header this server echoes into its OpenSearch description.
_HOST = re.compile(r"[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?")


class BadRequest(ValueError):
    """A parameter the user can fix; answered with HTTP 400."""


def parse_params(query_string: str) -> Params:
    """``q``, ``n`` (1..100), ``page`` (>= 1), ``as_typed`` (``1``: no
    respelling) and ``hl`` (the page's language) from a query string;
    absent or empty means default.

    >>> parse_params("q=json+csv&page=2&hl=zh")
    Params(q='json csv', n=10, page=2, as_typed=False, hl='zh')
    >>> parse_params("q=x&n=0")
    Traceback (most recent call last):
    ...
    search.web.BadRequest: n must be a whole number from 1 to 100, not '0'
    """
    values = parse_qs(query_string, keep_blank_values=True)
    q = " ".join(values.get("q", [""])[0].split())
    if len(q) > MAX_QUERY_CHARS:
        raise BadRequest(f"the query is too long: at most {MAX_QUERY_CHARS} characters")
    n = _number(values, "n", DEFAULT_N, 1, MAX_N, f"n must be a whole number from 1 to {MAX_N}")
    page = _number(values, "page", 1, 1, None, "page must be a whole number, 1 or more")
    as_typed = _number(values, "as_typed", 0, 0, 1, "as_typed must be 0 or 1") == 1
    hl = values.get("hl", [""])[0].strip().lower()
    if hl and hl not in LANGUAGES:
        raise BadRequest(f"hl must be one of {', '.join(LANGUAGES)}, not {hl[:20]!r}")
    return Params(q, n, page, as_typed, hl)


def _number(values: dict[str, list[str]], name: str, default: int, low: int, high: int | None, message: str) -> int:
    text = values.get(name, [""])[0].strip()
    if not text:
        return default
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise BadRequest(f"{message}, not {text[:20]!r}")
    number = int(text)
    if number < low or (high is not None and number > high):
        raise BadRequest(f"{message}, not {text!r}")
    return number


class SearchHandler(BaseHTTPRequestHandler):
    """GET and HEAD of ``/`` and ``/api/search``; 404 elsewhere, 405 for
    other methods, 421 for a name the server does not answer to.

    Not on a socket: the front (:mod:`search.front`) has read the request's
    head, the handler reads it from memory and writes the whole response
    there, which the front sends.
    """

    server: SearchServer  # type: ignore[assignment]  # the front's server, not a socketserver
    server_version = "search.web"

    def __init__(self, head: bytes, client_address: Any, server: SearchServer) -> None:
        self.rfile = io.BytesIO(head)
        self.wfile = self._response = io.BytesIO()
        self.client_address = client_address
        self.server = server
        self.close_connection = True

    def answer(self) -> bytes:
        """The response to the request read."""
        self.handle_one_request()
        return self._response.getvalue()

    def refuse(self, status: HTTPStatus) -> bytes:
        """The response to a request that could not be read whole (too slow, too large)."""
        self.request_version = "HTTP/1.0"
        self.send_error(status)
        return self._response.getvalue()

    def parse_request(self) -> bool:
        """The request line and headers read, and the name asked for one the
        server answers to: a page of another site, its name pointed at this
        address (DNS rebinding), must not read the index."""
        if not super().parse_request():
            return False
        if not host_allowed(self.headers.get("Host"), self.server.allowed_hosts):
            self.send_error(
                HTTPStatus.MISDIRECTED_REQUEST,
                "this server answers to localhost, its loopback addresses and the names given with "
                "--host or --allowed-host",
            )
            return False
        return True

    def do_GET(self) -> None:
        self._started = time.perf_counter()
        parts = urlsplit(self.path)
        try:
            response = self._route(parts.path, parts.query)
        except DamagedIndex as exc:  # met outside a search (a cached copy)
            response = _sorry(_status_of(exc), f"{exc}.")
        except Exception:
            logger.exception("Error answering %s %s", self.command, _printable(self.path))
            response = _json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": "internal error"})
        self._send(*response)  # status, type, body[, headers]

    def _route(self, path: str, query: str) -> tuple[Any, ...]:
        if path == "/":
            return self._page(query)
        if path in ("/favicon.svg", "/favicon.ico"):
            return HTTPStatus.OK, "image/svg+xml", FAVICON
        if path == "/cached":
            return self._cached(query)
        if path == "/opensearch.xml":
            return HTTPStatus.OK, "application/opensearchdescription+xml; charset=utf-8", self._opensearch()
        if path == "/api/search":
            return self._api(query)
        if path.startswith("/api/"):
            return _json(HTTPStatus.NOT_FOUND, {"error": f"no such API: {path}"})
        return _sorry(HTTPStatus.NOT_FOUND, "there is no such page here. Try a search.")

    def do_HEAD(self) -> None:
        self._head_only = True
        self.do_GET()

    def _refuse_method(self) -> None:
        self._started = time.perf_counter()
        self._send(
            HTTPStatus.METHOD_NOT_ALLOWED,
            "text/plain; charset=utf-8",
            b"Only GET and HEAD are allowed.\n",
            {"Allow": "GET, HEAD"},
        )

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse_method

    def _page(self, query: str) -> tuple[int, str, bytes, dict[str, str]]:
        """The page for ``query``, its own words in the language asked
        for (``hl``) or else the browser's (so its answer varies with
        ``Accept-Language``)."""
        try:
            params = parse_params(query)
        except BadRequest as exc:
            fallback = Params(" ".join(parse_qs(query).get("q", [""])[0].split())[:MAX_QUERY_CHARS])
            page_ = _sorry(HTTPStatus.BAD_REQUEST, f"{exc}.", fallback, self._speaks(fallback))
        else:
            page_ = self._answer(params)
        return (*page_, {"Vary": "Accept-Language"})

    def _answer(self, params: Params) -> tuple[int, str, bytes]:
        language = self._speaks(params)
        if not params.q:
            return _html(HTTPStatus.OK, render_page(params, about=self.server.engine.about(), language=language))
        try:
            results = self._search(params)
        except SearchError as exc:
            return _sorry(_status_of(exc), f"{exc}.", params, language)
        return _html(HTTPStatus.OK, render_page(params, results, language=language))

    def _speaks(self, params: Params) -> str:
        """The language of the page's own words: ``hl``, else the browser's first that the page speaks."""
        return interface_language(params.hl, self._languages())

    def _cached(self, query: str) -> tuple[Any, ...]:
        """A crawled page's archived copy (:mod:`search.cached`), sandboxed."""
        values = parse_qs(query)
        url = values.get("url", [""])[0]
        stored = self.server.engine.stored(url) if url else None
        if stored is None:
            return _sorry(HTTPStatus.NOT_FOUND, "that page is not in the index, so there is no cached copy of it.")
        if stored.get("members_only"):  # ARCHITECTURE.md, item 12: searchers need their own access
            return _sorry(
                HTTPStatus.FORBIDDEN,
                "that page is for members only, so there is no cached copy of it: log in on its site to read it.",
            )
        found = self.server.archive.locate(url)
        copy = read_copy(*found) if found else None
        words = query_words(values.get("q", [""])[0][:MAX_QUERY_CHARS])
        page_ = render_copy(copy, defaults.DOWNLOAD_MAXSIZE, defaults.CRAWLER_PRODUCT, words) if copy else None
        if page_ is None:
            return _sorry(
                HTTPStatus.NOT_FOUND,
                "there is no cached copy of that page (it asked for none, it is not a web page, "
                "or the archive does not hold it).",
            )
        return HTTPStatus.OK, "text/html; charset=utf-8", page_.encode("utf-8"), {"Content-Security-Policy": CSP}

    def _search(self, params: Params) -> Results:
        return self.server.engine.search(
            params.q, n=params.n, page=params.page, languages=self._languages(), respell=not params.as_typed
        )

    def _languages(self) -> tuple[str, ...]:
        """The languages the browser reads, for a page translated into several."""
        return accepted_languages(self.headers.get("Accept-Language", ""))

    def _opensearch(self) -> bytes:
        """The OpenSearch description browsers offer the engine by: this
        server's address as the client reached it (a Host header of another
        shape is not echoed)."""
        host = self.headers.get("Host", "")
        if not _HOST.fullmatch(host):
            host = urlsplit(self.server.url).netloc
        return render_opensearch(f"http://{host}/").encode()

    def _api(self, query: str) -> tuple[int, str, bytes]:
        try:
            params = parse_params(query)
            results = self._search(params)
        except (BadRequest, SearchError) as exc:
            return _json(_status_of(exc), {"error": str(exc)})
        return _json(HTTPStatus.OK, results.to_json())

    def _send(self, status: int, content_type: str, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in {**_SECURITY_HEADERS, **(headers or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        if not getattr(self, "_head_only", False):
            self.wfile.write(body)
        if self.server.log_requests:
            elapsed = (time.perf_counter() - getattr(self, "_started", time.perf_counter())) * 1000
            logger.info("%s %s %d %.0f ms", self.command, _printable(urlsplit(self.path).path), status, elapsed)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Malformed requests (bad request line, header overflow) answered with our headers too."""
        self._started = time.perf_counter()
        self.close_connection = True
        text = f"{code} {HTTPStatus(code).phrase}" + (f": {message}" if message else "") + "\n"
        if getattr(self, "command", None) is None or not hasattr(self, "path"):
            self.command, self.path = "-", "-"
        self._send(code, "text/plain; charset=utf-8", text.encode())

    def version_string(self) -> str:
        return self.server_version

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """Logged once, with the time taken, by :meth:`_send`."""

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("%s %s", self.address_string(), format % args)


def _json(status: int, data: dict[str, Any]) -> tuple[int, str, bytes]:
    """The same bytes ``python -m search --json`` prints."""
    return status, "application/json; charset=utf-8", (json.dumps(data, ensure_ascii=False) + "\n").encode()


def _html(status: int, page: str) -> tuple[int, str, bytes]:
    return status, "text/html; charset=utf-8", page.encode()


def _status_of(error: Exception) -> HTTPStatus:
    """A damaged index is the server's trouble until it is rebuilt (503);
    anything else a search refuses, the query's (400)."""
    return HTTPStatus.SERVICE_UNAVAILABLE if isinstance(error, DamagedIndex) else HTTPStatus.BAD_REQUEST


def _sorry(status: int, message: str, params: Params | None = None, language: str = "") -> tuple[int, str, bytes]:
    """The page saying what went wrong, the form above it (holding ``params``' query)."""
    return _html(status, render_page(params or Params(), error=f"Sorry: {message}", language=language))


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text[:300])


class SearchServer:
    """The search page's server: connections read by a front
    (:mod:`search.front`), each request within ``REQUEST_TIMEOUT``
    seconds, answered by :class:`SearchHandler` on ``WORKERS`` threads (a
    thread is started once, not one a request: starting one was 4% of a
    search server's time). Connections not yet accepted wait in the listen
    queue, 1,024 long as far as the kernel's ``somaxconn`` allows (the
    standard library's 5 overflowed under 200 concurrent requests, and so
    did 128: a connection the full queue drops is tried again by its client
    a second later)."""

    request_queue_size = 1024
    WORKERS = 16
    REQUEST_TIMEOUT = 10.0

    def __init__(
        self,
        address: tuple[str, int],
        engine: LiveEngine,
        log_requests: bool = True,
        listener: socket.socket | None = None,
        allowed_hosts: Iterable[str] = (),
        request_timeout: float | None = None,
    ) -> None:
        """Bound to ``address``, or serving from ``listener``, a socket
        already listening (shared by the processes of ``--workers``);
        answering to the loopback names and ``allowed_hosts``."""
        self.engine = engine
        self.log_requests = log_requests
        self.allowed_hosts = frozenset(_host_name(host) for host in allowed_hosts)
        self.archive = ArchiveIndex(*(archive_dir(data_dir) for data_dir in engine.data_dirs))
        self.socket = listener if listener is not None else listen(*address)
        self.server_address = self.socket.getsockname()
        self.front = Front(
            self.socket,
            lambda head, client: SearchHandler(head, client, self).answer(),
            lambda status, client: SearchHandler(b"", client, self).refuse(status),
            self.WORKERS,
            request_timeout or self.REQUEST_TIMEOUT,
            self.request_queue_size,
        )

    def serve_forever(self) -> None:
        self.front.serve_forever()

    def shutdown(self) -> None:
        """Stop :meth:`serve_forever`, called from another thread."""
        self.front.shutdown()

    def server_close(self) -> None:
        self.front.close()

    @property
    def url(self) -> str:
        return _url(self.server_address)


def host_allowed(host: str | None, allowed: frozenset[str]) -> bool:
    """Whether a request's ``Host`` is a name this server answers to: a
    loopback one (``localhost``, ``127.x.x.x``, ``[::1]``), or one of
    ``allowed``; with or without its port. A request without one (HTTP/1.0)
    comes from no browser's page, and is answered.

    >>> [host_allowed(h, frozenset()) for h in ("localhost:8080", "127.3.0.1", "[::1]:80", "LOCALHOST.")]
    [True, True, True, True]
    >>> [host_allowed(h, frozenset()) for h in ("evil.test", "127.0.0.1.evil.test", "10.0.0.1", "")]
    [False, False, False, False]
    >>> host_allowed("Search.Example:8080", frozenset({"search.example"})), host_allowed(None, frozenset())
    (True, True)
    """
    if host is None:
        return True
    name = _host_name(host)
    return name in allowed or name in ("localhost", "::1") or _LOOPBACK_V4.fullmatch(name) is not None


_LOOPBACK_V4 = re.compile(r"127(\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3}")


def _host_name(host: str) -> str:
    """A host as written in ``Host`` or ``--host``, without its port, the
    brackets of an IPv6 address or a final dot, in lower case.

    >>> _host_name("[::1]:8080"), _host_name("Example.ORG.:80"), _host_name("::1"), _host_name("127.0.0.1")
    ('::1', 'example.org', '::1', '127.0.0.1')
    """
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def _url(address: Any) -> str:
    host, port = address[:2]
    host = f"[{host}]" if ":" in str(host) else host
    return f"http://{host}:{port}/"


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (0: any free port), for one
    :class:`SearchServer` or several processes to share."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=SearchServer.request_queue_size)


def make_server(
    data_dir: str | Path | Sequence[str | Path],
    host: str = "127.0.0.1",
    port: int = 8080,
    log_requests: bool = True,
    anchor_only: str | None = None,
    members_snippet: str | None = None,
    listener: socket.socket | None = None,
    allowed_hosts: Iterable[str] = (),
    request_timeout: float | None = None,
) -> SearchServer:
    """A server bound to ``host:port`` (0: any free port), or serving from
    ``listener``, a socket already listening; not yet serving, its engine
    warmed (:meth:`SearchEngine.warm`), and its archive read for cached
    copies (:meth:`ArchiveIndex.warm`). It answers to the loopback names,
    ``host`` and ``allowed_hosts``."""
    engine = LiveEngine(data_dir, anchor_only=anchor_only, members_snippet=members_snippet)
    try:
        engine.warm()
        server = SearchServer((host, port), engine, log_requests, listener, [host, *allowed_hosts], request_timeout)
    except BaseException:
        engine.close()
        raise
    try:
        server.archive.warm()
    except BaseException:
        server.server_close()
        engine.close()
        raise
    return server


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """The command; ``prog`` is its name as typed (``lantern web``), else the script's or ``python -m search.web``."""
    parser = argparse.ArgumentParser(
        prog=prog or typed_command("search.web"), description="Serve a search page and a JSON API."
    )
    add_version_option(parser)
    add_data_option(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port to listen on; 0 picks a free one (default: 8080)")
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name the server answers to besides localhost, its loopback addresses and --host "
        "(repeatable); requests for other names get 421",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="processes answering searches, each on a core of its own (default: "
        "SEARCH_WEB_WORKERS, else one per core this process may use; 1: one process)",
    )
    parser.add_argument("--quiet", action="store_true", help="no line per request on stderr")
    add_engine_options(parser)
    args = parser.parse_args(argv)
    data = data_dirs(args)
    workers = args.workers if args.workers is not None else _default_workers()
    if workers < 1:
        parser.error(f"--workers must be 1 or more, not {workers}")
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO, format="%(message)s", stream=sys.stderr)
    options: dict[str, Any] = {
        "log_requests": not args.quiet,
        "allowed_hosts": [args.host, *args.allowed_host],
        **engine_options(args),
    }
    if workers > 1:
        return _serve_in_processes(data, args.host, args.port, workers, options)
    try:
        server = make_server(data, args.host, args.port, **options)
    except SearchError as exc:
        print(f"search: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"search: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"Serving search for {', '.join(data)} at {server.url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        server.engine.close()
    return 0


def _default_workers() -> int:
    """SEARCH_WEB_WORKERS, or one process per core this one may use."""
    from crawler.cores import free_cores

    configured = defaults.SEARCH_WEB_WORKERS
    return max(1, int(configured)) if configured is not None else free_cores(busy=0)


def _serve_in_processes(data: list[str], host: str, port: int, workers: int, options: dict[str, Any]) -> int:
    """``workers`` processes (:mod:`search.prefork`), each with its own
    engine, answering from one socket; the parent supervises them."""
    from search.prefork import WorkerFailed, Workers

    try:
        listener = listen(host, port)
    except OSError as exc:
        print(f"search: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2

    def serve(shared: socket.socket, ready: Callable[[], None]) -> int:
        server = make_server(data, listener=shared, **options)
        try:
            ready()
            server.serve_forever()
        finally:
            server.server_close()
            server.engine.close()
        return 0

    def serving() -> None:
        logger.info("%d search processes", workers)
        print(f"Serving search for {', '.join(data)} at {_url(listener.getsockname())}", flush=True)

    try:
        Workers(listener, workers, serve).run(serving)
    except WorkerFailed as exc:
        print(f"search: {exc}", file=sys.stderr)
        return 2
    finally:
        listener.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

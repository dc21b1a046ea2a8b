"""Archive every response as it came off the wire (see :mod:`crawler.archive`).

A downloader middleware placed after Scrapy's redirect (600) and
decompression (590) middlewares on the way in, so before them on the way
out: it sees each response as received, redirects, errors, robots.txt and
compressed bodies included, before anything turns it into something else.
Records are written in the order responses arrived, which is the order the
spider sees pages in (a rebuild replays them in that order), by one thread
beside the event loop: gzip and SHA-1 of a 90 KiB page take about 1.4 ms.

Credentials never reach the archive: ``Authorization``, ``Cookie`` and the
headers of a members-only area's entry are redacted from every request
record, ``Set-Cookie`` from the responses of members-only pages, and the
exchanges of a form login are not archived (:mod:`crawler.auth_middleware`).
"""

from __future__ import annotations

import logging
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.exceptions import NotConfigured

from crawler.archive import REDACTED, ArchiveWriter, Fetch
from crawler.datadir import archive_dir
from crawler.pages import page_settings
from crawler.urls import without_userinfo

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Headers, Response
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)

__all__ = ["ArchiveMiddleware", "fetch_of"]

_CUT_SHORT = ("download_stopped", "partial", "dataloss")
# Headers that carry credentials, whoever set them.
_SECRET_REQUEST_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})
_SECRET_RESPONSE_HEADERS = frozenset({"set-cookie", "set-cookie2"})
# Responses handed to the writing thread and not yet written, at most.
_BACKLOG = 64
# The request line's version: Scrapy's HTTP handler (Twisted's HTTP/1.1
# client) sends no other, whatever version the server answers in.
_SENT_PROTOCOL = "HTTP/1.1"


def _pairs(headers: Headers, secret: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for raw, values in headers.items():
        name = raw.decode("latin-1")
        hidden = name.lower() in secret
        pairs.extend((name, REDACTED if hidden else value.decode("latin-1")) for value in values)
    return pairs


def fetch_of(request: Request, response: Response) -> Fetch:
    """What to archive of one response and the request it answers."""
    meta = request.meta
    if meta.get("robots_txt"):
        role = "robots"
    elif meta.get("sitemap"):
        role = "sitemap"
    elif meta.get("soft404_probe"):
        role = "probe"
    else:
        role = "page"
    members_only = bool(meta.get("members_only"))
    secret = _SECRET_REQUEST_HEADERS | {name.lower() for name in meta.get("auth_headers", ())}
    return Fetch(
        url=without_userinfo(request.url),
        status=response.status,
        headers=_pairs(response.headers, _SECRET_RESPONSE_HEADERS if members_only else frozenset()),
        body=response.body,
        method=request.method,
        request_headers=_pairs(request.headers, secret),
        protocol=response.protocol or "HTTP/1.1",
        request_protocol=_SENT_PROTOCOL,
        role=role,
        depth=int(meta.get("depth", 0)),
        redirects=[without_userinfo(url) for url in meta.get("redirect_urls", ())],
        truncated=any(flag in response.flags for flag in _CUT_SHORT),
        members_only=members_only,
    )


class ArchiveMiddleware:
    """Writes a request, a metadata and a response record for every response.

    The writing (gzip, digests, the file) happens in one thread of its own,
    in the order responses arrived, so the event loop only hands it over;
    at most ``_BACKLOG`` responses wait for it (then the loop waits).
    """

    def __init__(self, writer: ArchiveWriter, stats: StatsCollector) -> None:
        self.writer = writer
        self.stats = stats
        self._failed = False
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="archive")
        self._pending: deque[Future[None]] = deque()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ArchiveMiddleware:
        settings = crawler.settings
        if not settings.getbool("ARCHIVE_ENABLED"):
            raise NotConfigured("ARCHIVE_ENABLED is off")
        directory = archive_dir(settings.get("DATA_DIR"))
        writer = ArchiveWriter(
            directory,
            settings.getint("ARCHIVE_MAX_BYTES"),
            software=settings.get("CRAWLER_PRODUCT"),
            settings=page_settings(settings),
        )
        middleware = cls(writer, crawler.stats)
        crawler.signals.connect(middleware.close, signal=signals.spider_closed)
        return middleware

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        if request.meta.get("auth_login"):
            return response  # a login: no page, and it holds the session
        while self._pending and self._pending[0].done():
            self._pending.popleft()
        if len(self._pending) >= _BACKLOG:
            self._pending.popleft().result()
        self._pending.append(self._thread.submit(self._write, fetch_of(request, response)))
        return response

    def _write(self, fetch: Fetch) -> None:
        try:
            written = self.writer.write(fetch)
        except OSError as exc:
            self.stats.inc_value("archive/errors")
            if not self._failed:
                self._failed = True
                logger.error(
                    "Cannot write the archive in %s (%s): responses go unarchived; "
                    "further failures are counted as archive/errors",
                    self.writer.directory,
                    exc,
                )
            return
        self.stats.inc_value("archive/responses")
        self.stats.inc_value("archive/bytes", written)

    def close(self, spider: Spider | None = None) -> None:
        self._thread.shutdown(wait=True)  # everything received is written
        self.writer.close()
        self.stats.set_value("archive/files", len(self.writer.files))
        if self.writer.files:
            logger.info(
                "Archived %d responses in %d WARC file(s) in %s",
                self.stats.get_value("archive/responses", 0),
                len(self.writer.files),
                self.writer.directory,
            )

"""What is worth downloading: media stopped after the headers, long bodies cut off,
a stalled download tried again once, later.

Two download limits as a Scrapy extension, :class:`DownloadLimits`; a third
as a downloader middleware, :class:`Decompression`, for compressed bodies;
and the time a stalled page may cost, :class:`TimeoutRetry`.  Each says in
its docstring what it stops, and why.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, DownloadTimeoutError, IgnoreRequest, NotConfigured, StopDownload
from scrapy.http import TextResponse
from scrapy.responsetypes import responsetypes
from scrapy.utils.asyncio import call_later

from crawler._async import REDIS_DOWN
from crawler.codings import ACCEPT_ENCODING, decode
from crawler.extractors import extractor_for, media
from crawler.extractors.sniff import media_type_of
from crawler.frontier import Frontier, encode_request
from crawler.sites import site_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

__all__ = ["Decompression", "DownloadLimits", "TimeoutRetry", "is_media"]


def is_media(content_type: str | None) -> bool:
    """Whether only the media extractor reads this type (nothing in the body to index).

    >>> is_media("image/png"), is_media("application/zip"), is_media("text/html"), is_media(None)
    (True, True, False, False)
    """
    media_type = media_type_of(content_type)
    return (
        media_type is not None
        and media_type != "application/octet-stream"
        and (extractor_for(media_type) is media.extract)
    )


class DownloadLimits:
    """Stops a download once the rest of it would add nothing, keeping what
    arrived (Scrapy's signals ``headers_received`` and ``bytes_received``):

    - a response whose type only the media extractor reads (images, audio,
      video, archives, programs) is stopped once its headers are in: it becomes a
      document known by its anchors, and its bytes would add nothing
      (``limits/media_stopped``);
    - a body longer than ``DOWNLOAD_MAXSIZE`` (or a request's ``body_limit``
      meta) is cut off there and the part received is extracted
      (``limits/truncated``), where Scrapy would drop the whole response.
      Scrapy's own limit is turned off per request for this (``download_maxsize``
      0). A robots.txt is cut off after the first 500 KiB its ``body_limit``
      asks for (``robots/truncated``), which RFC 9309 2.5 says to parse, where
      Scrapy's limit would have cancelled it and the site waited for a
      robots.txt it would never get.
    """

    def __init__(self, crawler: Crawler, maxsize: int) -> None:
        self.stats = crawler.stats
        self.maxsize = maxsize
        self._received: dict[int, int] = {}
        self._logged = False
        self._robots_logged: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DownloadLimits:
        extension = cls(crawler, crawler.settings.getint("DOWNLOAD_MAXSIZE"))
        crawler.signals.connect(extension.headers_received, signal=signals.headers_received)
        crawler.signals.connect(extension.bytes_received, signal=signals.bytes_received)
        crawler.signals.connect(extension.request_left, signal=signals.request_left_downloader)
        return extension

    def headers_received(self, headers: Any, body_length: int, request: Request, spider: Any = None) -> None:
        if request.meta.get("robots_txt") or request.meta.get("sitemap"):
            return  # a gzipped sitemap is an archive worth reading
        content_type = headers.get(b"Content-Type")
        if content_type and is_media(content_type.decode("latin-1")):
            self.stats.inc_value("limits/media_stopped")
            raise StopDownload(fail=False)

    def bytes_received(self, data: bytes, request: Request, spider: Any = None) -> None:
        limit = request.meta.get("body_limit", self.maxsize)
        if not limit:
            return
        key = id(request)
        received = self._received.get(key, 0) + len(data)
        self._received[key] = received
        if received > limit:
            self._received.pop(key, None)
            if request.meta.get("robots_txt"):
                self.stats.inc_value("robots/truncated")
                site = site_of(request.url)
                if site not in self._robots_logged:
                    self._robots_logged.add(site)
                    logger.info(
                        "robots.txt of %s is longer than %d bytes: its first part is parsed "
                        "(RFC 9309 2.5), the rest ignored",
                        site,
                        limit,
                    )
                raise StopDownload(fail=False)
            self.stats.inc_value("limits/truncated")
            if not self._logged:
                self._logged = True
                logger.info(
                    "%s is larger than DOWNLOAD_MAXSIZE (%d bytes): kept its first part; "
                    "further cut-offs are counted as limits/truncated",
                    request.url,
                    self.maxsize,
                )
            raise StopDownload(fail=False)

    def request_left(self, request: Request, spider: Any = None) -> None:
        self._received.pop(id(request), None)


# --- Compressed bodies (decoded by crawler/codings.py) ---------------------------


class Decompression:
    """Decodes ``Content-Encoding`` (in place of Scrapy's HttpCompressionMiddleware),
    cutting the decoded body off at ``DOWNLOAD_MAXSIZE``.

    Scrapy's middleware takes a request's ``download_maxsize`` as its
    decompression limit, and the crawl sets that to 0 on every request (so
    that long bodies are cut off, not dropped: :class:`DownloadLimits`),
    which it reads as "no limit": a 2 MB gzip body inflating to 2 GiB grew
    the crawl to 6.5 GiB.  Here a body inflates to ``DOWNLOAD_MAXSIZE`` at
    most (a request's ``body_limit`` meta, if set: robots.txt keeps its
    first 500 KiB), and what is left is dropped: the page is read like a
    plain body cut off there, counted as ``limits/truncated`` (and
    ``limits/truncated/decompressed``), logged once per site.  A body that
    is not in its declared coding is skipped (``limits/undecodable``).
    The archive keeps the body as it came, compressed, and a rebuild
    decodes it the same way, to the same limit.
    """

    def __init__(self, crawler: Crawler, maxsize: int) -> None:
        self.stats = crawler.stats
        self.maxsize = maxsize
        self._logged: set[tuple[str, str]] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Decompression:
        if not crawler.settings.getbool("COMPRESSION_ENABLED"):
            raise NotConfigured("COMPRESSION_ENABLED is off")
        return cls(crawler, crawler.settings.getint("DOWNLOAD_MAXSIZE"))

    def process_request(self, request: Request, spider: Any = None) -> None:
        request.headers.setdefault(b"Accept-Encoding", ACCEPT_ENCODING)

    def process_response(self, request: Request, response: Response, spider: Any = None) -> Response:
        if request.method == "HEAD":
            return response
        codings = [
            coding.strip().lower().decode("latin-1")
            for value in response.headers.getlist(b"Content-Encoding")
            for coding in value.split(b",")
            if coding.strip()
        ]
        if not codings:
            return response
        limit = request.meta.get("body_limit", self.maxsize)
        try:
            body, codings, cut = decode(response.body, codings, limit)
        except ValueError as exc:
            self.stats.inc_value("limits/undecodable")
            self._log_once(response.url, "undecodable", "%s: %s; skipped (limits/undecodable)", exc)
            raise IgnoreRequest(f"{response.url}: {exc}") from None
        if cut and request.meta.get("robots_txt"):
            self.stats.inc_value("robots/truncated")
            self._log_once(
                response.url,
                "truncated",
                "%s inflates past %s bytes: its first part is parsed (RFC 9309 2.5), the rest ignored",
                limit,
            )
        elif cut:
            self.stats.inc_value("limits/truncated")
            self.stats.inc_value("limits/truncated/decompressed")
            self._log_once(
                response.url,
                "truncated",
                "%s inflates past %s bytes: kept its first part; further cut-offs are counted as "
                "limits/truncated/decompressed",
                limit,
            )
        if codings:
            response.headers[b"Content-Encoding"] = ", ".join(codings).encode("latin-1")
        else:
            del response.headers[b"Content-Encoding"]
        kind = responsetypes.from_args(headers=response.headers, url=response.url, body=body)
        changes: dict[str, Any] = {"cls": kind, "body": body}
        if issubclass(kind, TextResponse):
            changes["encoding"] = None  # read the charset again, from the decoded body
        if cut:
            changes["flags"] = [*response.flags, "decompressed_truncated"]
        return response.replace(**changes)

    def _log_once(self, url: str, kind: str, message: str, detail: Any) -> None:
        key = (site_of(url), kind)
        if key not in self._logged:
            self._logged.add(key)
            logger.info(message, url, detail)


# --- Stalled downloads ---------------------------------------------------------------


class TimeoutRetry:
    """A download that timed out is tried once more, later in the crawl.

    Scrapy's RetryMiddleware retries a timeout like any failure,
    ``RETRY_TIMES`` (2) times and at once: a page that stalls cost three
    full ``DOWNLOAD_TIMEOUT`` in a row, while the stall (a busy gateway, a
    site restarting) had no time to pass. Here the first timeout of a
    request holds a copy of it for ``RETRY_TIMEOUT_DELAY`` seconds, or until
    the crawl has nothing else to do, whichever comes first, and then
    queues it (``retry/timeout/later``); a request that already was retried
    (after a timeout or any other failure) and times out is given up
    (``retry/timeout/given_up``). Each is logged once per site. Other failures are
    left to Scrapy's RetryMiddleware, which comes after this one on the way
    back from the network.

    The held copies live in this process: those still held when the crawl
    stops (Ctrl-C) are put in the frontier's queue for the next run; a
    killed crawl forgets them (the page stays a counted error).
    """

    def __init__(self, crawler: Crawler, delay: float) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.delay = delay
        self._held: dict[int, tuple[Request, Any]] = {}
        self._logged: set[tuple[str, str]] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> TimeoutRetry:
        if not crawler.settings.getbool("RETRY_ENABLED"):
            raise NotConfigured("RETRY_ENABLED is off")
        middleware = cls(crawler, crawler.settings.getfloat("RETRY_TIMEOUT_DELAY"))
        crawler.signals.connect(middleware.idle, signal=signals.spider_idle)
        crawler.signals.connect(middleware.close, signal=signals.spider_closed)
        return middleware

    def process_exception(self, request: Request, exception: Exception, spider: Any = None) -> None:
        if not isinstance(exception, DownloadTimeoutError) or request.meta.get("dont_retry"):
            return None
        site = site_of(request.url)
        if request.meta.get("retry_times", 0):
            self.stats.inc_value("retry/timeout/given_up")
            if (site, "given_up") not in self._logged:
                self._logged.add((site, "given_up"))
                logger.warning(
                    "%s timed out again: given up; further ones are counted as retry/timeout/given_up", request.url
                )
            request.meta["dont_retry"] = True  # nor does Scrapy's RetryMiddleware try again
            return None
        retry = request.copy()
        retry.meta["retry_times"] = 1
        retry.meta.pop("lease", None)  # the scheduler releases the original's once it is processed
        retry.dont_filter = True
        self.stats.inc_value("retry/timeout/later")
        if (site, "later") not in self._logged:
            self._logged.add((site, "later"))
            logger.info(
                "%s timed out (%s): it is tried once more in %.0f s or when the crawl has nothing "
                "else to do; further ones are counted as retry/timeout/later",
                request.url,
                exception,
                self.delay,
            )
        key = id(retry)
        self._held[key] = (retry, call_later(self.delay, self._release, key))
        raise IgnoreRequest(f"{request.url} timed out; tried again later")

    def _release(self, key: int) -> None:
        held = self._held.pop(key, None)
        if held is not None:
            self.crawler.engine.crawl(held[0])

    def idle(self, spider: Any = None) -> None:
        """Nothing else to do: the held requests are due now."""
        if not self._held:
            return
        for key, (_, timer) in list(self._held.items()):
            timer.cancel()
            self._release(key)
        raise DontCloseSpider

    def close(self, spider: Any = None) -> None:
        """Requests still held go to the frontier's queue, for the next run."""
        held, self._held = list(self._held.values()), {}
        if not held:
            return
        for _, timer in held:
            timer.cancel()
        try:
            Frontier.for_crawler(self.crawler).push(
                [
                    (b"", request.meta.get("depth", 0), encode_request(request), site_of(request.url))
                    for request, _ in held
                ]
            )
        except REDIS_DOWN as exc:
            logger.warning("Could not queue %d timed-out requests for the next run (%s)", len(held), exc)
            return
        logger.info("Queued %d timed-out requests for the next run", len(held))

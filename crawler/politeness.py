"""How often one site is asked: its delay, shared with the frontier's turns.

The frontier gives each site a turn once per delay, for every node of the
crawl (:mod:`crawler.leases`); :class:`PolitenessMiddleware` keeps each site's
delay, the largest of ``DOWNLOAD_DELAY``, the site's robots.txt
``Crawl-delay`` and a slow site's backoff (:func:`site_delay`), tells the
frontier when it differs from ``DOWNLOAD_DELAY``, and pauses a site for the
``Retry-After`` of a 429 or 503 answer.  Counted: ``politeness/retry_after``,
``politeness/slowdown``, ``politeness/shared_wait_ms``.

With nodes sharing sites, each request also takes its site's turn in Redis
(``Frontier.sending``: at least the delay after the last request any node
sent it), and it takes it as it leaves: in :class:`TurnTakingHandler`, the
download handler, once Scrapy's download slot has let it go, not as it
passes the middlewares, which is earlier by whatever the slot and the event
loop held it for.

Design: ARCHITECTURE.md, "The crawl", Politeness.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import call_later
from scrapy.utils.misc import build_from_crawler, load_object

from crawler._async import REDIS_DOWN, sleep
from crawler.frontier import Frontier
from crawler.middlewares import retry_after_seconds
from crawler.sites import site_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

__all__ = ["PolitenessMiddleware", "TurnTakingHandler", "site_delay"]

_EWMA = 0.3  # weight of the newest response time in the running average
_SLOW = 1.0  # seconds: a slow site's response time (logged, and backed off from)
_SHARE_CHANGE = 0.1  # a site's delay is told to the frontier when it changes by this share
# How late this node's event loop runs what it was asked to run at once (a
# request's connection is opened that way once it may leave): the largest
# lateness seen lately, an older one counting half as much every
# _LAG_HALF_LIFE seconds.
_LAG_HALF_LIFE = 5.0


def site_delay(delay: float, crawl_delay: float, latency: float, slowdown: float, max_delay: float) -> float:
    """The least gap between two requests to a site: ``delay`` (the crawl's
    ``DOWNLOAD_DELAY``), its robots.txt ``crawl_delay``, or the backoff from
    a slow site, ``slowdown`` times its response time ``latency``, whichever
    is longest, and no longer than ``max_delay`` (unless ``delay`` is).

    A site is slow when it takes a second or more to answer. A shorter
    response time says as much about the crawl as about the site: a crawl
    busy parsing pages reads the responses that came in late, and on a fast
    site backing off from that lag left one request in flight where 16 were
    allowed (``DOWNLOAD_DELAY = 0``: the download slot's delay followed the
    lag, 0.01 to 0.3 s, with 12 requests waiting in it). With the default
    delay of a second, the backoff only counted from a second on anyway.

    >>> site_delay(1.0, 0.0, 0.4, 1.0, 60.0), site_delay(1.0, 0.0, 2.5, 1.0, 60.0)
    (1.0, 2.5)
    >>> site_delay(0.0, 0.0, 0.3, 1.0, 60.0), site_delay(0.0, 0.0, 1.5, 2.0, 60.0)
    (0.0, 3.0)
    >>> site_delay(0.0, 5.0, 0.3, 1.0, 60.0), site_delay(1.0, 0.0, 90.0, 1.0, 60.0)
    (5.0, 60.0)
    """
    slow = slowdown * latency if latency >= _SLOW else 0.0
    return min(max(delay, crawl_delay, slow), max(max_delay, delay))


class PolitenessMiddleware:
    def __init__(
        self,
        crawler: Crawler,
        delay: float,
        crawl_delay_max: float,
        retry_after_max: float,
        slowdown: float,
        max_delay: float,
        frontier: Frontier | None = None,
        shared: bool = False,
        turns_at_departure: bool = False,
    ) -> None:
        self.crawler = crawler
        self.frontier = frontier
        self.shared = shared
        self.turns_at_departure = turns_at_departure  # taken by TurnTakingHandler, not here
        self.delay = delay
        self.crawl_delay_max = crawl_delay_max
        self.retry_after_max = retry_after_max
        self.slowdown = slowdown
        self.max_delay = max_delay
        self.stats = crawler.stats
        self._crawl_delay: dict[str, float] = {}
        self._latency: dict[str, float] = {}
        self._shared: dict[str, float] = {}  # site -> the delay the frontier was last told
        self._paused_logged: set[str] = set()
        self._slowed: set[str] = set()
        self.lag = 0.0  # seconds this node's event loop lately took to send a request once it may leave
        self._lag_at = 0.0  # when it was measured

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PolitenessMiddleware:
        settings = crawler.settings
        if settings.getbool("AUTOTHROTTLE_ENABLED"):
            raise NotConfigured("AutoThrottle sets the delays instead")
        return cls(
            crawler,
            settings.getfloat("DOWNLOAD_DELAY"),
            settings.getfloat("ROBOTS_CRAWL_DELAY_MAX"),
            settings.getfloat("POLITENESS_RETRY_AFTER_MAX"),
            settings.getfloat("POLITENESS_SLOWDOWN"),
            settings.getfloat("POLITENESS_MAX_DELAY"),
            Frontier.for_crawler(crawler),
            shared=bool(settings.get("REDIS_URL")),  # other nodes may send to the same sites
            turns_at_departure=settings.getwithbase("DOWNLOAD_HANDLERS").get("http") in (_HANDLER, TurnTakingHandler),
        )

    def set_crawl_delay(self, site: str, seconds: float | None) -> None:
        if seconds:
            self._crawl_delay[site] = min(seconds, self.crawl_delay_max)
            self._share(site)

    def delay_for(self, site: str) -> float:
        """The least gap between two requests to ``site`` now."""
        return site_delay(
            self.delay, self._crawl_delay.get(site, 0.0), self._latency.get(site, 0.0), self.slowdown, self.max_delay
        )

    def _share(self, site: str) -> None:
        """Tell the frontier the site's delay when it moved away from what it
        was last told (by more than a tenth): the turns of every node follow.
        A crawl without ``DOWNLOAD_DELAY`` (a local benchmark) asks for no
        turns, unless robots.txt does: its sites' requests are spaced by each
        node's download slots alone."""
        if not (self.delay or self._crawl_delay.get(site)):
            return
        delay = self.delay_for(site)
        told = self._shared.get(site, self.delay)
        if self.frontier is None or abs(delay - told) <= _SHARE_CHANGE * max(told, 1e-3):
            return
        try:
            self.frontier.set_site_delay(site, delay)
        except REDIS_DOWN:
            return  # told with the next answer
        self._shared[site] = delay

    async def process_request(self, request: Request, spider: Any = None) -> None:
        site = site_of(request.url)
        floor = self.delay_for(site)
        slot = self._slot(request)
        if slot is not None:
            slot.jitter = 0.0
            slot.delay = floor
        if not self.turns_at_departure and self._takes_turns(site, request):
            await self._leave(site, floor)  # another download handler than ours: the next best time
        return None

    async def take_turn(self, request: Request) -> None:
        """As ``request`` leaves (:class:`TurnTakingHandler`): wait for its
        site's turn among every node, and take it. The time kept is when
        it will have left: now, plus what this node's event loop lately took
        to run what it was asked to run at once (its connection is opened
        that way), measured here for the next request."""
        site = site_of(request.url)
        if not self._takes_turns(site, request):
            return
        await self._leave(site, self.delay_for(site))
        asked = time.monotonic()
        call_later(0, self._measure_lag, asked)

    def _measure_lag(self, asked: float) -> None:
        now = time.monotonic()
        faded = self.lag * 0.5 ** ((now - self._lag_at) / _LAG_HALF_LIFE)
        self.lag, self._lag_at = max(now - asked, faded), now

    def _takes_turns(self, site: str, request: Request) -> bool:
        """Whether ``request`` waits for its site's turn among the nodes:
        when other nodes may send to the site, and it has a delay to keep."""
        return bool(
            self.shared
            and self.frontier is not None
            and (self.delay or self._crawl_delay.get(site))
            and not request.meta.get("robots_txt")
        )

    async def _leave(self, site: str, floor: float) -> None:
        """Wait until the site's last request from any node is ``floor`` old."""
        assert self.frontier is not None
        waited = 0.0
        while True:
            try:
                wait = self.frontier.sending(site, floor, min(self.lag, floor / 2))
            except REDIS_DOWN:
                wait = 1.0  # the last request's time is in Redis: wait for it
            if not wait:
                break
            waited += wait
            await sleep(wait)
        if waited:
            self.stats.inc_value("politeness/shared_wait_ms", int(waited * 1000))

    def process_response(self, request: Request, response: Response, spider: Any = None) -> Response:
        site = site_of(request.url)
        latency = request.meta.get("download_latency")
        if latency is not None and response.status < 500:
            previous = self._latency.get(site, latency)
            self._latency[site] = (1 - _EWMA) * previous + _EWMA * latency
            slowed = self._latency[site] >= _SLOW and (
                self.slowdown * self._latency[site] > max(self.delay, self._crawl_delay.get(site, 0.0))
            )
            if slowed and site not in self._slowed:
                self._slowed.add(site)
                self.stats.inc_value("politeness/slowdown")
                logger.info("%s answers slowly (%.1f s): asking it less often", site, self._latency[site])
            elif not slowed:
                self._slowed.discard(site)
            self._share(site)
        if response.status in (429, 503):
            pause = retry_after_seconds(response.headers.get(b"Retry-After"))
            if pause:
                self._pause(request, site, min(pause, self.retry_after_max))
        return response

    def _pause(self, request: Request, site: str, seconds: float) -> None:
        """No request to ``site`` before ``seconds`` from now (its queue waits)."""
        self.stats.inc_value("politeness/retry_after")
        if self.frontier is not None:
            try:
                self.frontier.pause_site(site, seconds)
            except REDIS_DOWN:
                pass  # this node's own pause (below) still holds
        if site not in self._paused_logged:
            self._paused_logged.add(site)
            logger.info("%s asked for a pause of %.0f s (Retry-After); pausing it", site, seconds)
        slot = self._slot(request)
        downloader = self.crawler.engine.downloader if self.crawler.engine else None
        if slot is None or downloader is None:
            return
        # The downloader processes a slot's queue only once its pending call
        # has run (Scrapy 2.19's Downloader._latercall): replace that call
        # with one at the end of the pause.
        if slot.latercall is not None:
            slot.latercall.cancel()
        slot.latercall = call_later(seconds, downloader._latercall, slot)

    def _slot(self, request: Request) -> Any:
        engine = self.crawler.engine
        if engine is None:
            return None
        key = request.meta.get("download_slot") or site_of(request.url)
        return engine.downloader.slots.get(key)


_HANDLER = f"{__name__}.TurnTakingHandler"


class TurnTakingHandler:
    """The download handler of ``http`` and ``https``: the one Scrapy would
    use (``DOWNLOAD_HANDLERS_BASE``: HTTP/1.1 over Twisted, or aiohttp
    without a reactor), after the request has taken its site's turn among
    the nodes of the crawl (:meth:`PolitenessMiddleware.take_turn`).

    Here the request has left Scrapy's download slot and is connected at
    once: the time kept in Redis is when it left. Taken at the middlewares,
    it was earlier by whatever the slot (the site's concurrency, its local
    delay) and a busy event loop held the request for, and another node,
    going by it, sent the site a request 0.19 s after it with a delay of
    0.5 s (``bench.broad``, two nodes).
    """

    lazy = False

    def __init__(self, crawler: Crawler, inner: Any) -> None:
        self.crawler = crawler
        self.inner = inner
        self._politeness: PolitenessMiddleware | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> TurnTakingHandler:
        base = crawler.settings.getdict("DOWNLOAD_HANDLERS_BASE")["http"]
        return cls(crawler, build_from_crawler(load_object(base), crawler))

    async def download_request(self, request: Request) -> Response:
        if self._politeness is None:
            self._politeness = self.crawler.get_downloader_middleware(PolitenessMiddleware)
        if self._politeness is not None:
            await self._politeness.take_turn(request)
        response: Response = await self.inner.download_request(request)
        return response

    async def close(self) -> None:
        await self.inner.close()

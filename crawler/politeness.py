"""How often one site is asked: the delay of its download slot, kept here.

Each site (scheme, host, port) has its own Scrapy download slot
(:class:`~crawler.middlewares.SiteSlotMiddleware`); this middleware sets that
slot's delay before every request to the largest of:

- ``DOWNLOAD_DELAY``, as a floor: each gap is drawn between it and 1.5 times
  it (Scrapy's own randomization, plus or minus half, lets a gap shrink to
  half the delay, too close for a polite floor);
- the site's robots.txt ``Crawl-delay``, capped by ``ROBOTS_CRAWL_DELAY_MAX``;
- ``POLITENESS_SLOWDOWN`` times the site's recent response time: a site that
  slows down is asked less often (backoff), and more often again as it
  recovers;

and pauses the site for the ``Retry-After`` of a 429 or 503 answer (capped by
``POLITENESS_RETRY_AFTER_MAX``). Concurrency per site is Scrapy's
``CONCURRENT_REQUESTS_PER_DOMAIN``, applied to these slots. Counted:
``politeness/retry_after``, ``politeness/slowdown``.
"""

from __future__ import annotations

import logging
import random
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import call_later

from crawler.middlewares import retry_after_seconds, site_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

__all__ = ["PolitenessMiddleware"]

_EWMA = 0.3  # weight of the newest response time in the running average
_JITTER = 0.5
_SLOW = 1.0  # seconds: a response time worth a line in the log


class PolitenessMiddleware:
    def __init__(
        self,
        crawler: Crawler,
        delay: float,
        crawl_delay_max: float = 30.0,
        retry_after_max: float = 3600.0,
        slowdown: float = 1.0,
        max_delay: float = 60.0,
    ) -> None:
        self.crawler = crawler
        self.delay = delay
        self.crawl_delay_max = crawl_delay_max
        self.retry_after_max = retry_after_max
        self.slowdown = slowdown
        self.max_delay = max_delay
        self.stats = crawler.stats
        self._crawl_delay: dict[str, float] = {}
        self._latency: dict[str, float] = {}
        self._paused_logged: set[str] = set()
        self._slowed: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PolitenessMiddleware:
        settings = crawler.settings
        if settings.getbool("AUTOTHROTTLE_ENABLED"):
            raise NotConfigured("AutoThrottle sets the delays instead")
        middleware = cls(
            crawler,
            settings.getfloat("DOWNLOAD_DELAY"),
            settings.getfloat("ROBOTS_CRAWL_DELAY_MAX", 30.0),
            settings.getfloat("POLITENESS_RETRY_AFTER_MAX", 3600.0),
            settings.getfloat("POLITENESS_SLOWDOWN", 1.0),
            settings.getfloat("POLITENESS_MAX_DELAY", 60.0),
        )
        crawler._lantern_politeness = middleware  # type: ignore[attr-defined]
        return middleware

    @classmethod
    def for_crawler(cls, crawler: Crawler) -> PolitenessMiddleware | None:
        """The crawl's instance, for the robots.txt middleware to report delays to."""
        return getattr(crawler, "_lantern_politeness", None)

    def set_crawl_delay(self, site: str, seconds: float | None) -> None:
        if seconds:
            self._crawl_delay[site] = min(seconds, self.crawl_delay_max)

    def delay_for(self, site: str) -> float:
        """The least gap between two requests to ``site`` now."""
        slow = self.slowdown * self._latency.get(site, 0.0)
        return min(max(self.delay, self._crawl_delay.get(site, 0.0), slow), max(self.max_delay, self.delay))

    def process_request(self, request: Request, spider: Any = None) -> None:
        slot = self._slot(request)
        if slot is not None:
            floor = self.delay_for(site_of(request.url))
            slot.jitter = 0.0
            slot.delay = floor * (1 + random.uniform(0, _JITTER)) if floor else 0.0  # noqa: S311
        return None

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
        if response.status in (429, 503):
            pause = retry_after_seconds(response.headers.get(b"Retry-After"))
            if pause:
                self._pause(request, site, min(pause, self.retry_after_max))
        return response

    def _pause(self, request: Request, site: str, seconds: float) -> None:
        """No request to ``site`` before ``seconds`` from now (its queue waits)."""
        self.stats.inc_value("politeness/retry_after")
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

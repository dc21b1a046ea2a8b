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

from crawler._async import REDIS_DOWN, sleep
from crawler.middlewares import retry_after_seconds, site_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

__all__ = ["PolitenessMiddleware", "SharedSlots"]

# KEYS: the site's next free time (ms), its requests in flight (zset by
# expiry); ARGV: delay ms, concurrency cap, this request's token, how long a
# token may stay in flight (ms). Returns 0 (go) or how many ms to wait.
_CLAIM = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
if free > now then return free - now end
local cap = tonumber(ARGV[2])
if cap > 0 and redis.call('ZCARD', KEYS[2]) >= cap then return 50 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
local delay = tonumber(ARGV[1])
if delay > 0 then redis.call('SET', KEYS[1], now + delay, 'PX', delay + 60000) end
return 0
"""

# KEYS: the site's next free time; ARGV: pause ms. Never shortens a pause.
_PAUSE = """
local t = redis.call('TIME')
local until_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
if until_ms > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], until_ms, 'PX', tonumber(ARGV[1]) + 60000)
end
return 1
"""


class SharedSlots:
    """Per-site turns in Redis, so that a site's request rate and concurrency
    do not grow with the number of crawl nodes: each request claims the site's
    next free moment (one claim per delay, whoever asks) and a place among its
    ``CONCURRENT_REQUESTS_PER_DOMAIN`` in flight, atomically."""

    def __init__(self, client: Any, name: str = "web", timeout: float = 180.0) -> None:
        self.client = client
        self.prefix = f"{name}:polite"
        self.timeout_ms = int(timeout * 1000)
        self._claim = client.register_script(_CLAIM)
        self._pause = client.register_script(_PAUSE)

    def claim(self, site: str, delay: float, cap: int, token: str) -> float:
        """0 when the request may go now, else the seconds to wait before asking again."""
        wait = self._claim(
            keys=[f"{self.prefix}:next:{site}", f"{self.prefix}:flight:{site}"],
            args=[int(delay * 1000), cap, token, self.timeout_ms],
        )
        return int(wait) / 1000.0

    def release(self, site: str, token: str) -> None:
        self.client.zrem(f"{self.prefix}:flight:{site}", token)

    def pause(self, site: str, seconds: float) -> None:
        self._pause(keys=[f"{self.prefix}:next:{site}"], args=[int(seconds * 1000)])

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
        shared: SharedSlots | None = None,
        concurrency: int = 2,
    ) -> None:
        self.crawler = crawler
        self.shared = shared
        self.concurrency = concurrency
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
        self._redis_logged = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PolitenessMiddleware:
        settings = crawler.settings
        if settings.getbool("AUTOTHROTTLE_ENABLED"):
            raise NotConfigured("AutoThrottle sets the delays instead")
        shared = None
        if settings.get("REDIS_URL"):  # other nodes may share the sites: take turns
            from crawler.frontier import Frontier

            shared = SharedSlots(Frontier.for_crawler(crawler).client,
                                 timeout=3 * settings.getfloat("DOWNLOAD_TIMEOUT", 60.0))
        middleware = cls(
            crawler,
            settings.getfloat("DOWNLOAD_DELAY"),
            settings.getfloat("ROBOTS_CRAWL_DELAY_MAX", 30.0),
            settings.getfloat("POLITENESS_RETRY_AFTER_MAX", 3600.0),
            settings.getfloat("POLITENESS_SLOWDOWN", 1.0),
            settings.getfloat("POLITENESS_MAX_DELAY", 60.0),
            shared,
            settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN", 2),
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

    async def process_request(self, request: Request, spider: Any = None) -> None:
        site = site_of(request.url)
        floor = self.delay_for(site)
        gap = floor * (1 + random.uniform(0, _JITTER)) if floor else 0.0  # noqa: S311
        # Without DOWNLOAD_DELAY or a Crawl-delay no turns are taken: a delay
        # of 0 asks for no politeness (a local benchmark); each node then
        # keeps only its own concurrency cap and slowdown backoff.
        polite = bool(self.delay or self._crawl_delay.get(site))
        slot = self._slot(request)
        if slot is not None:
            slot.jitter = 0.0
            # With shared turns, the turns space the requests (this node's
            # among the others'); a local delay on top would add to them.
            slot.delay = 0.0 if self.shared is not None and polite else gap
        if self.shared is not None and polite and not request.meta.get("robots_txt"):
            await self._take_turn(request, site, gap)
        return None

    async def _take_turn(self, request: Request, site: str, gap: float) -> None:
        """Wait for the site's turn among all nodes of the crawl."""
        assert self.shared is not None
        token = f"{id(self)}:{id(request)}"
        waited = 0.0
        while True:
            try:
                wait = self.shared.claim(site, gap, self.concurrency, token)
            except REDIS_DOWN as exc:
                if not self._redis_logged:
                    self._redis_logged = True
                    logger.warning("Redis is unreachable (%s): requests wait for their turn", exc)
                wait = 1.0  # the turns are in Redis: wait for it
            if not wait:
                break
            # Capped by the others' requests in flight: ask again after about a gap.
            wait = max(wait, gap / 2)
            waited += wait
            await sleep(wait)
        request.meta["polite_token"] = token
        if waited:
            self.stats.inc_value("politeness/shared_wait_ms", int(waited * 1000))

    def _release(self, request: Request) -> None:
        token = request.meta.pop("polite_token", None)
        if token is not None and self.shared is not None:
            try:
                self.shared.release(site_of(request.url), token)
            except REDIS_DOWN:
                pass  # the token expires by itself

    def process_exception(self, request: Request, exception: Exception, spider: Any = None) -> None:
        self._release(request)
        return None

    def process_response(self, request: Request, response: Response, spider: Any = None) -> Response:
        self._release(request)
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
        if self.shared is not None:
            try:
                self.shared.pause(site, seconds)
            except REDIS_DOWN:
                pass
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

"""robots.txt before anything else on a site, for every node of a crawl.

:class:`RobotsMiddleware` keeps the rules per site (scheme, host and port) and
follows :mod:`crawler.robots` for what each answer means: a request for a site
whose rules are unknown waits for them, one fetch per site serves every node
(:class:`SharedRobots`: the outcome, a fetch lock and the requests parked
while robots.txt cannot be fetched, in Redis), and a site's sitemaps are
queued when its robots.txt is first read.

Counted: ``robots/denied``, ``robots/status/<code>``, ``robots/outcome/<x>``,
``robots/deferred``, ``robots/wait``, ``robots/truncated`` (a robots.txt longer
than 500 KiB, whose first 500 KiB are parsed), ``robots/undecodable`` (one that
cannot be read in the encoding it names: the site is off limits); the first
refusal on each site is logged.  Design: ARCHITECTURE.md, "robots.txt".
"""

from __future__ import annotations

import json
import logging
import socket
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from scrapy import Request, signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest, NotConfigured
from scrapy.utils.asyncio import call_later
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet import defer

from crawler._async import REDIS_DOWN, sleep
from crawler.frontier import Frontier, encode_request
from crawler.middlewares import retry_after_seconds
from crawler.politeness import PolitenessMiddleware
from crawler.robots import (
    MAX_ROBOTS_BYTES,
    Outcome,
    RobotsRules,
    decode_robots,
    expiry_seconds,
    looks_like_robots,
    outcome,
    robots_agent,
)
from crawler.sites import site_of

if TYPE_CHECKING:
    import redis
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

__all__ = ["RobotsMiddleware", "SharedRobots", "ForbiddenByRobots"]

_REDIRECTS = 5  # RFC 9309: at least five consecutive redirects are followed
_LOCK_SECONDS = 120.0  # a fetch holder that dies frees the site after this
_WAIT_STEP = 0.25
# Seconds a retry is announced after it is planned: time enough for a crawl
# with nothing else to find it ends (crawler/halt.py), so that its last
# line is why, not a retry that never comes.
_NOTICE_GRACE = 2.0
# Flags of a response whose body stops before its end.
_CUT_OFF = ("download_stopped", "decompressed_truncated")

# KEYS: the site's state, its waiting list. Park only while robots.txt is
# still unavailable; 0 means the state changed meanwhile (read it again).
_PARK = """
local state = redis.call('GET', KEYS[1])
if state and cjson.decode(state)['outcome'] ~= 'retry' then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[1])
return 1
"""

# KEYS: the site's waiting list; ARGV: queue key prefix, depth index key.
_UNPARK = """
local n = 0
while true do
  local data = redis.call('LPOP', KEYS[1])
  if not data then break end
  local depth = cjson.decode(data)['d'] or 0
  redis.call('RPUSH', ARGV[1] .. depth, data)
  redis.call('ZADD', ARGV[2], depth, depth)
  n = n + 1
end
return n
"""


class ForbiddenByRobots(IgnoreRequest):
    """robots.txt forbids the request's URL (it is never sent)."""


class SharedRobots:
    """Each site's robots.txt outcome in Redis, a fetch lock, and parked requests."""

    def __init__(self, frontier: Frontier) -> None:
        self.frontier = frontier
        self.client: redis.Redis = frontier.client
        self.prefix = f"{frontier.name}:robots"
        self._park = self.client.register_script(_PARK)
        self._unpark = self.client.register_script(_UNPARK)

    def _key(self, site: str, kind: str = "") -> str:
        """A site's key of ``kind`` (its state: ''), in its frontier partition's
        slot on a cluster (parking and unparking touch its inbox)."""
        frontier = self.frontier
        prefix = self.prefix
        if frontier.partitions.tagged:
            prefix = frontier.partitions.key(prefix, frontier.partitions.of(site))
        return f"{prefix}:{kind}:{site}" if kind else f"{prefix}:{site}"

    def get(self, site: str) -> dict[str, Any] | None:
        data = self.client.get(self._key(site))
        return json.loads(data) if data else None

    def put(self, site: str, state: dict[str, Any], seconds: float) -> None:
        self.client.set(self._key(site), json.dumps(state), ex=max(1, int(seconds)))

    def lock(self, site: str, owner: str) -> bool:
        return bool(self.client.set(self._key(site, "lock"), owner, nx=True, ex=int(_LOCK_SECONDS)))

    def unlock(self, site: str, owner: str) -> None:
        key = self._key(site, "lock")
        if self.client.get(key) == owner.encode():
            self.client.delete(key)

    def park(self, site: str, request: Request) -> bool:
        keys = [self._key(site), self._key(site, "waiting")]
        return bool(self._park(keys=keys, args=[encode_request(request)]))

    def unpark(self, site: str) -> int:
        queue = self.frontier.part(site).queue
        return int(self._unpark(keys=[self._key(site, "waiting")], args=[queue + ":", queue]))

    def parked(self, site: str) -> int:
        return int(self.client.llen(self._key(site, "waiting")))


@dataclass
class _Known:
    rules: RobotsRules | None  # None: robots.txt unavailable for now
    until: float  # wall clock; after it, ask again
    retry_at: float = 0.0


class RobotsMiddleware:
    """Downloader middleware: no request leaves before its site's rules are known."""

    def __init__(
        self,
        crawler: Crawler,
        shared: SharedRobots,
        agent: str,
        policy_4xx: str,
        max_age: float,
        retry_delay: float,
        retry_times: int,
    ) -> None:
        self.crawler = crawler
        self.shared = shared
        self.agent = agent
        self.policy_4xx = policy_4xx
        self.max_age = max_age
        self.retry_delay = retry_delay
        self.retry_times = retry_times
        self.stats = crawler.stats
        self.node = f"{socket.gethostname()}:{uuid.uuid4().hex[:8]}"
        self._known: dict[str, _Known] = {}
        self._loading: dict[str, list[defer.Deferred[None]]] = {}
        self._retries: dict[str, Any] = {}  # site -> scheduled call
        self._notices: dict[str, Any] = {}  # site -> its retry's announcement, scheduled
        self._denied_logged: set[str] = set()
        self._closing = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RobotsMiddleware:
        settings = crawler.settings
        if not settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured("ROBOTSTXT_OBEY is off")
        policy = settings.get("ROBOTS_4XX_POLICY")
        if policy not in ("disallow", "allow"):
            raise NotConfigured(f"ROBOTS_4XX_POLICY must be 'disallow' or 'allow', not {policy!r}")
        middleware = cls(
            crawler,
            SharedRobots(Frontier.for_crawler(crawler)),
            robots_agent(settings),
            policy,
            min(settings.getfloat("ROBOTS_CACHE_SECONDS"), 86400.0),
            settings.getfloat("ROBOTS_RETRY_DELAY"),
            settings.getint("ROBOTS_RETRY_TIMES"),
        )
        crawler.signals.connect(middleware._idle, signal=signals.spider_idle)
        crawler.signals.connect(middleware._closed, signal=signals.spider_closed)
        return middleware

    async def process_request(self, request: Request, spider: Any = None) -> None:
        if request.meta.get("robots_txt") or request.meta.get("dont_obey_robotstxt"):
            return None
        delay = 0.5
        while True:
            try:
                return await self._check(request)
            except REDIS_DOWN as exc:
                # The shared rules are out of reach: the request waits, it is not dropped.
                if delay == 0.5:
                    logger.warning("Redis is unreachable (%s): requests wait for their robots.txt", exc)
                await sleep(delay)
                delay = min(delay * 2, 30.0)

    async def _check(self, request: Request) -> None:
        site = site_of(request.url)
        for _ in range(3):
            rules = await self._rules(site)
            if rules is not None:
                break
            if self.shared.park(site, request):
                self.stats.inc_value("robots/deferred")
                raise IgnoreRequest(f"robots.txt of {site} is unavailable: request parked")
            self._known.pop(site, None)  # another node got an answer meanwhile
        else:
            raise IgnoreRequest(f"robots.txt of {site} keeps changing")
        if not rules.allowed(request.url):
            self.stats.inc_value("robots/denied")
            if site not in self._denied_logged:
                self._denied_logged.add(site)
                rule = rules.decisive_rule(request.url)
                logger.info(
                    "robots.txt of %s forbids %s (%s); further refusals are counted as robots/denied",
                    site,
                    request.url,
                    f"Disallow: {rule.pattern}" if rule else "the whole site is off limits",
                )
            raise ForbiddenByRobots(f"Forbidden by robots.txt: {request.url}")
        return None

    # --- knowing a site's rules ---------------------------------------------------

    async def _rules(self, site: str) -> RobotsRules | None:
        while site in self._loading:  # another request of this site is finding out
            waiter: defer.Deferred[None] = defer.Deferred()
            self._loading[site].append(waiter)
            await maybe_deferred_to_future(waiter)
        known = self._known.get(site)
        if known is not None and known.until > time.time():
            return known.rules
        self._loading[site] = []
        try:
            self._known[site] = await self._load(site)
        except REDIS_DOWN:
            raise
        except Exception:  # a bug here must not drop requests silently
            logger.exception("Could not settle robots.txt of %s; its requests wait", site)
            retry_at = time.time() + self.retry_delay
            self._known[site] = _Known(None, retry_at, retry_at)
            self._schedule_retry(site, retry_at)
        finally:
            for waiter in self._loading.pop(site):
                waiter.callback(None)
        return self._known[site].rules

    async def _load(self, site: str) -> _Known:
        """From Redis if another node (or an earlier run) knows; else fetch it."""
        deadline = time.monotonic() + _LOCK_SECONDS + 30
        while True:
            state = self.shared.get(site)
            due = (
                state is not None
                and state.get("outcome") == "retry"
                and (float(state.get("retry_at", 0)) <= time.time())
            )
            if state is not None and not due:
                self.stats.inc_value("robots/cache/shared")
                return self._from_state(site, state)
            if self.shared.lock(site, self.node):
                try:
                    return await self._fetch(site)
                finally:
                    self.shared.unlock(site, self.node)
            if time.monotonic() > deadline:
                return self._from_state(site, {"outcome": "retry", "retry_at": time.time() + self.retry_delay})
            self.stats.inc_value("robots/wait")
            await sleep(_WAIT_STEP)

    def _from_state(self, site: str, state: dict[str, Any]) -> _Known:
        now = time.time()
        kind = state.get("outcome")
        if kind == "retry":
            retry_at = float(state.get("retry_at", now + self.retry_delay))
            if int(state.get("attempts", 1)) <= self.retry_times:
                self._schedule_retry(site, retry_at)
            return _Known(None, retry_at, retry_at)
        until = float(state.get("expires", now + self.max_age))
        if kind == "parse":
            rules = RobotsRules.parse(state.get("body", ""), self.agent)
        elif kind == "disallow":
            rules = RobotsRules.disallow_all()
        else:
            rules = RobotsRules.allow_all()
        politeness = self.crawler.get_downloader_middleware(PolitenessMiddleware)
        if politeness is not None:
            politeness.set_crawl_delay(site, rules.crawl_delay)
        return _Known(rules, until)

    async def _fetch(self, site: str) -> _Known:
        """Fetch ``site``'s robots.txt (following up to five redirects) and share the outcome."""
        status, response = await self._download(site)
        self.stats.inc_value(f"robots/status/{status if status is not None else 'error'}")
        result, body = outcome(status, self.policy_4xx), ""
        closed = result is Outcome.DISALLOW_ALL  # by 401 or 403 (an unreadable body warns apart)
        if result is Outcome.PARSE and response is not None:
            result, body = self._read_body(site, response)
        self.stats.inc_value(f"robots/outcome/{result.name.lower()}")
        if result is Outcome.RETRY:
            return self._share_retry(site, status, response)
        state, ttl = self._usable_state(result, status, response, body)
        self.shared.put(site, state, ttl)
        if closed:
            logger.info("robots.txt of %s answered %s: the site is off limits", site, status)
        known = self._from_state(site, state)
        self._on_usable(site, known.rules)
        return known

    async def _download(self, site: str) -> tuple[int | None, Response | None]:
        """The status and response that end ``site``'s robots.txt fetch, after
        up to five redirects; (None, None) for a network error (a host name
        that does not resolve too: a resolver that fails for a moment must
        not open the site to everything, and the crawl ends at once when no
        seed's host resolves, crawler/halt.py)."""
        url = f"{site}/robots.txt"
        status: int | None = None
        response: Response | None = None
        for _ in range(_REDIRECTS + 1):
            request = Request(
                url,
                priority=1000,
                dont_filter=True,
                meta={
                    "robots_txt": True,
                    "dont_redirect": True,
                    "dont_retry": True,
                    # Cut off after MAX_ROBOTS_BYTES and that part parsed (RFC 9309
                    # 2.5; crawler/limits.py): Scrapy's own limit cancels a longer
                    # download (it reads Content-Length first), and the site then
                    # waited for a robots.txt it would never get.
                    "handle_httpstatus_all": True,
                    "download_maxsize": 0,
                    "body_limit": MAX_ROBOTS_BYTES,
                    "download_slot": site,
                },
            )
            try:
                response = await self.crawler.engine.download_async(request)
            except Exception as exc:  # network errors (no such host too), timeouts, too large
                logger.info("robots.txt of %s could not be fetched: %s", site, exc)
                return None, None
            status = response.status
            location = response.headers.get(b"Location")
            if not (300 <= status < 400 and location):
                break
            url = urljoin(url, location.decode("latin-1"))
        return status, response

    def _read_body(self, site: str, response: Response) -> tuple[Outcome, str]:
        """What a 2xx answer holds: (PARSE, its text); (DISALLOW_ALL, "") when
        it cannot be read in the encoding it names; (ALLOW_ALL, "") when it
        is no robots.txt (an HTML page, binary junk)."""
        content_type = (response.headers.get(b"Content-Type") or b"").decode("latin-1") or None
        cut = any(flag in response.flags for flag in _CUT_OFF)
        text = decode_robots(response.body, content_type, cut)
        if text is None:
            # A UTF-16 file that is not UTF-16: its rules cannot be read,
            # and reading none would allow everything it forbids.
            self.stats.inc_value("robots/undecodable")
            logger.warning(
                "robots.txt of %s cannot be read in the encoding it names (%s): the site is off "
                "limits until robots.txt is fetched again (robots/undecodable)",
                site,
                content_type or "its byte order mark",
            )
            return Outcome.DISALLOW_ALL, ""
        if not looks_like_robots(text.encode("utf-8", "surrogatepass"), content_type):
            self.stats.inc_value("robots/not_robots_txt")
            return Outcome.ALLOW_ALL, ""
        return Outcome.PARSE, text

    def _share_retry(self, site: str, status: int | None, response: Response | None) -> _Known:
        """robots.txt is unavailable: the site waits, and it is fetched again with backoff."""
        previous = self.shared.get(site) or {}
        attempts = int(previous.get("attempts", 0)) + 1
        delay = self._backoff(attempts, response)
        state = {"outcome": "retry", "attempts": attempts, "retry_at": time.time() + delay, "status": status}
        self.shared.put(site, state, delay + 3600)
        self._announce(
            site,
            min(_NOTICE_GRACE, delay / 2),
            "robots.txt of %s unavailable (%s): its requests wait; attempt %d of %d, next in %.0f s",
            site,
            status or "network error",
            attempts,
            self.retry_times,
            delay,
        )
        return self._from_state(site, state)

    def _announce(self, site: str, grace: float, message: str, *args: Any) -> None:
        """Log a site's planned retry ``grace`` seconds later, unless the crawl ends first."""
        earlier = self._notices.pop(site, None)
        if earlier is not None:
            earlier.cancel()

        def say() -> None:
            self._notices.pop(site, None)
            logger.warning(message, *args)

        self._notices[site] = call_later(grace, say)

    def withdraw_notices(self) -> None:
        """The crawl ends: the retries not yet announced will not come."""
        for call in self._notices.values():
            call.cancel()
        self._notices.clear()

    def _usable_state(
        self, result: Outcome, status: int | None, response: Response | None, body: str
    ) -> tuple[dict[str, Any], float]:
        """The state shared for a usable answer, and for how many seconds it may be used."""
        now = time.time()
        headers = (
            {}
            if response is None
            else {
                key.decode("latin-1"): b", ".join(values).decode("latin-1") for key, values in response.headers.items()
            }
        )
        ttl = expiry_seconds(headers, now, default=self.max_age, maximum=self.max_age)
        kind = {Outcome.PARSE: "parse", Outcome.DISALLOW_ALL: "disallow"}.get(result, "allow")
        return {"outcome": kind, "expires": now + ttl, "status": status, "body": body if kind == "parse" else ""}, ttl

    def _backoff(self, attempts: int, response: Response | None) -> float:
        delay = self.retry_delay * 2 ** (attempts - 1)
        if response is not None:
            retry_after = retry_after_seconds(response.headers.get(b"Retry-After"))
            if retry_after is not None:
                delay = max(delay, retry_after)
        return min(delay, 6 * 3600.0)

    def _on_usable(self, site: str, rules: RobotsRules | None) -> None:
        """A usable answer: parked requests back in the queue; sitemaps queued."""
        moved = self.shared.unpark(site)
        if moved:
            logger.info("robots.txt of %s is available: %d waiting requests queued again", site, moved)
        spider = self.crawler.spider
        if rules is None or spider is None or not hasattr(spider, "sitemap_requests"):
            return
        for request in spider.sitemap_requests(site, rules.sitemaps):
            self.crawler.engine.crawl(request)

    # --- retries while robots.txt is unavailable --------------------------------------

    def _schedule_retry(self, site: str, when: float) -> None:
        if site in self._retries:
            return
        delay = max(0.0, when - time.time())
        self._retries[site] = call_later(delay, self._retry, site)

    def _retry(self, site: str) -> None:
        self._retries.pop(site, None)
        self._known.pop(site, None)
        if not self._closing:
            deferred_from_coro(self._retry_load(site))

    async def _retry_load(self, site: str) -> None:
        rules = await self._rules(site)
        if rules is not None:
            self._on_usable(site, rules)
            return
        state = self.shared.get(site) or {}
        if int(state.get("attempts", 0)) > self.retry_times:
            logger.error(
                "robots.txt of %s still unavailable after %d attempts: giving up for this run; "
                "its %d waiting requests stay queued for a later one",
                site,
                self.retry_times,
                self.shared.parked(site),
            )

    def _idle(self, spider: Any = None) -> None:
        if self._retries:
            raise DontCloseSpider  # some sites wait for their robots.txt

    def _closed(self, spider: Any = None, reason: str = "") -> None:
        self._closing = True
        for call in self._retries.values():
            call.cancel()
        self._retries.clear()
        self.withdraw_notices()

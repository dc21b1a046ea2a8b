"""Scrapy's scheduler over the Redis frontier, for one node of a crawl.

The engine hands :class:`Scheduler` the requests a page led to and asks it
for the next request to fetch.  It pushes links to the frontier
(:mod:`crawler.frontier`) in batches, takes requests under leases
(:mod:`crawler.leases`) as the downloader has room for them, releases each
once its response is processed, and keeps the node in the crawl: its
heartbeat, its end once the whole crawl is quiet, a pause while Redis is
unreachable.  Design: ARCHITECTURE.md, "The frontier"; what it keeps of
scrapy-redis: docs/several-machines.md, "Coming from scrapy-redis".
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.core.scheduler import BaseScheduler
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.asyncio import call_later

from crawler import settings as defaults
from crawler._async import REDIS_DOWN
from crawler.frontier import OVER_BUDGET, QUEUED, SEEN, Frontier, decode_request, encode_request
from crawler.sites import site_of
from crawler.urls import UrlPolicy

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

__all__ = ["Scheduler"]

_MAX_BACKOFF = 30.0


def _dedup_key(policy: UrlPolicy, request: Request) -> bytes:
    """The key a request is queued once by: its URL's fingerprint, or for a
    revisit (a URL seen before, fetched again) that of the URL and of the
    fetch it follows, so a revisit is queued once however often it is asked
    for, and the next one (after the next fetch) is new again."""
    fp = policy.fingerprint(request.url)
    revisit = request.meta.get("revisit")
    if revisit is not None:
        fp = hashlib.md5(fp + f" revisit after {revisit['after']!r}".encode()).digest()
    return fp


class _RedisBackoff:
    """When a node that lost Redis tries again: after 0.5 s, then twice as
    long each time, up to :data:`_MAX_BACKOFF`; said once when Redis goes
    away and once when it is back."""

    def __init__(self) -> None:
        self.until = 0.0  # monotonic time before which the node does not try
        self._wait = 0.5

    def waiting(self) -> bool:
        return time.monotonic() < self.until

    def down(self, exc: Exception) -> None:
        if self.until == 0.0:
            logger.warning("Redis is unreachable (%s): this node pauses and keeps retrying", exc)
        self.until = time.monotonic() + self._wait
        self._wait = min(self._wait * 2, _MAX_BACKOFF)

    def back(self) -> None:
        if self.until:
            logger.warning("Redis is reachable again: this node resumes")
            self.until = 0.0
            self._wait = 0.5


class _IndexerGate:
    """Whether the item queue is about to pass ``items_max`` pages waiting
    for the indexer: then the node takes no new requests until it has
    drained half of them, so the item queue (and Redis memory) stays
    bounded when the indexer is slower than the crawl, or not running yet.
    Read at most twice a second (a round trip before each batch was one of
    the five a page cost on a fast site). What the node has in hand when it
    closes (``in_flight``: downloads, a taken batch) and the pages of the
    half second until the next reading still come: the gate closes that
    far below the bound (at most three quarters of the way), so the queue
    does not pass it."""

    def __init__(self, items_max: int, in_flight: int = 0) -> None:
        self.items_max = items_max
        self.in_flight = in_flight
        self._checked = 0.0
        self._behind = False
        self._last = 0

    def closed(self, waiting: Callable[[], int], inc: Callable[[str], None]) -> bool:
        """Whether the node waits for the indexer; ``waiting`` reads how many pages wait."""
        if not self.items_max:
            return False
        now = time.monotonic()
        if now - self._checked < 0.5:
            return self._behind
        self._checked = now
        count = waiting()
        coming = min(self.in_flight + max(0, count - self._last), self.items_max * 3 // 4)
        self._last = count
        if not self._behind and count + coming > self.items_max:
            self._behind = True
            inc("scheduler/paused_for_indexer")
            logger.warning(
                "%d pages wait for the indexer (INDEX_QUEUE_MAX = %d): fetching paused until "
                "it catches up (is `python -m indexer --follow` running?)",
                count,
                self.items_max,
            )
        elif self._behind and count <= (self.items_max - coming) // 2:
            self._behind = False
            logger.info("The indexer caught up (%d pages wait): fetching resumes", count)
        return self._behind


class Scheduler(BaseScheduler):
    """A Redis twin of Scrapy's scheduler, of Scrapy's interface: why not a
    subclass of scrapy-redis' ``Scheduler``, ARCHITECTURE.md, "The frontier"."""

    def __init__(
        self,
        frontier: Frontier,
        persist: bool = defaults.SCHEDULER_PERSIST,
        flush_on_start: bool = defaults.SCHEDULER_FLUSH_ON_START,
        pop_batch: int = defaults.FRONTIER_POP_BATCH,
        local_seen_max: int = defaults.FRONTIER_LOCAL_SEEN_MAX,
        stats: Any = None,
        policy: UrlPolicy | None = None,
        lease_seconds: float = defaults.FRONTIER_LEASE_SECONDS,
        heartbeat: float = defaults.FRONTIER_HEARTBEAT,
        idle_grace: float = 0.0,
        items_max: int = 0,
        in_flight: int = 0,
        delay: float = 0.0,
        jitter: float = 0.0,
        per_site: int = 1,
    ) -> None:
        self.frontier = frontier
        self.crawler: Any = None  # set by from_crawler; None outside a crawl
        self.persist = persist
        self.flush_on_start = flush_on_start
        self.stats = stats
        self.policy = policy or UrlPolicy()
        self.pop_batch = max(1, pop_batch)
        self.local_seen_max = local_seen_max
        self.leases = frontier.leases(lease_seconds=lease_seconds, delay=delay, jitter=jitter, per_site=per_site)
        self.heartbeat = heartbeat
        self.idle_grace = idle_grace
        self._local_seen: set[bytes] = set()
        self._pending: list[tuple[bytes, int, bytes, str]] = []
        self._done: list[int] = []
        self._taken: deque[tuple[int, bytes]] = deque()
        self._over_budget_logged: set[str] = set()
        self._beat: Any = None
        self._idle_since: float | None = None
        self._redis = _RedisBackoff()
        self._started = time.time()
        self._fetched = 0
        self._announced = (self._started, 0)  # when this node last announced itself, and its count then
        self._by_site: Counter[str] = Counter()
        self._indexer = _IndexerGate(items_max, in_flight)
        self._wake: Any = None
        self._wake_at = 0.0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Scheduler:
        settings = crawler.settings
        frontier = Frontier.for_crawler(crawler)
        grace = settings.get("FRONTIER_IDLE_GRACE")
        scheduler = cls(
            frontier,
            persist=settings.getbool("SCHEDULER_PERSIST"),
            flush_on_start=settings.getbool("SCHEDULER_FLUSH_ON_START"),
            pop_batch=settings.getint("FRONTIER_POP_BATCH"),
            local_seen_max=settings.getint("FRONTIER_LOCAL_SEEN_MAX"),
            stats=crawler.stats,
            policy=UrlPolicy.from_settings(settings),
            lease_seconds=settings.getfloat("FRONTIER_LEASE_SECONDS"),
            heartbeat=settings.getfloat("FRONTIER_HEARTBEAT"),
            # Alone on its private Redis, a node has nobody to wait for.
            idle_grace=float(grace) if grace is not None else (0.0 if frontier.embedded else 10.0),
            items_max=settings.getint("INDEX_QUEUE_MAX"),
            # What a node still fetches and pushes once it takes no more.
            in_flight=settings.getint("CONCURRENT_REQUESTS") + settings.getint("FRONTIER_POP_BATCH"),
            delay=settings.getfloat("DOWNLOAD_DELAY"),
            jitter=settings.getfloat("POLITENESS_JITTER"),
            per_site=settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN"),
        )
        scheduler.crawler = crawler
        crawler.signals.connect(scheduler._spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(scheduler._spider_idle, signal=signals.spider_idle)
        return scheduler

    def __len__(self) -> int:
        return len(self.frontier) + len(self._pending) + len(self._taken)

    # --- opening and closing ------------------------------------------------------

    def open(self, spider: Spider) -> None:
        self.spider = spider
        if self.flush_on_start:
            self.flush()
        self._announce()
        reaped = self.leases.reap()
        if reaped:
            logger.info("Gave back %d requests held by crawl nodes that stopped", reaped)
        moved = self.frontier.drain_inbox()
        if moved:
            logger.info("Moved %d requests held back by robots.txt to their sites' queues", moved)
        queued = len(self.frontier)
        if queued:
            logger.info(
                "Resuming the crawl: %d requests queued, %d URLs seen; this node is %s",
                queued,
                self.frontier.seen_count(),
                self.leases.node,
            )

    def close(self, reason: str) -> None:
        """This node stops (the crawl is over, Ctrl-C): what it has taken and
        not finished goes back at once, not when its leases expire."""
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None
        if self._wake is not None:
            self._wake.cancel()
            self._wake = None
        try:
            self._flush()
            given = self.leases.give_back(lease for lease, _ in self._taken)
            self._taken.clear()
            given += self.leases.leave()  # what is still leased was never finished
            if given:
                logger.info("Gave back %d requests this node had taken but not finished", given)
        except REDIS_DOWN as exc:
            logger.error(
                "Redis is unreachable while this node stops (%s): its %d taken requests go back "
                "to the queue when another node (or the next run) finds its lease expired",
                exc,
                len(self._taken) + len(self._done),
            )
        if not self.persist:
            self.flush()

    def flush(self) -> None:
        """``SCHEDULER_FLUSH_ON_START``: forget the queue and the seen URLs."""
        self._local_seen.clear()
        client = self.frontier.client
        for prefix in (self.frontier.seen_key, self.frontier.queue_key):
            for key in client.scan_iter(match=prefix + "*", count=1000):
                client.unlink(key)

    # --- the engine's interface ------------------------------------------------------

    def enqueue_request(self, request: Request) -> bool:
        """Buffer a link for the frontier, unless this process has queued it
        already: a process-local set of fingerprints answers without a round
        trip, and the dedup against every node happens in Redis when the
        buffer is pushed, a batch at a time (:meth:`_flush`)."""
        lease = request.meta.get("lease")
        if lease is not None:
            # A redirect or retry of a leased request: the original is done
            # once this one is queued (both travel in the next flush).
            self._done.append(lease)
        fp = b""
        if not request.dont_filter:
            fp = _dedup_key(self.policy, request)
            if fp in self._local_seen:
                self._inc("frontier/duplicate/local")
                return False
            if len(self._local_seen) >= self.local_seen_max:
                self._local_seen.clear()
            self._local_seen.add(fp)
        self._pending.append((fp, request.meta.get("depth", 0), encode_request(request), site_of(request.url)))
        if len(self._pending) >= 256:
            self._flush()
        return True

    def next_request(self) -> Request | None:
        """A request taken under a lease, a few at a time (:meth:`_room`), or
        None.  When no site's turn has come, the engine is asked to come back
        when the next one does (:meth:`_wake_in`): Scrapy itself would ask
        only every 5 seconds, or when a response arrives."""
        if self._redis.waiting():
            return None
        next_turn = None
        try:
            self._flush()
            if not self._taken and not self._indexer_behind():
                room = self._room()
                if room:
                    self._taken.extend(self.leases.take(min(self.pop_batch, room)))
                    next_turn = self.leases.next_turn
        except REDIS_DOWN as exc:
            self._redis_down(exc)
            return None
        if not self._taken:
            if next_turn is not None:
                self._wake_in(next_turn)
            return None
        lease, data = self._taken.popleft()
        request = decode_request(data, self.spider)
        request.meta["lease"] = lease
        self._inc("scheduler/dequeued/redis")
        self._fetched += 1
        self._by_site[site_of(request.url)] += 1
        return request

    def _room(self) -> int:
        """Requests the downloader can start now (``pop_batch`` outside a crawl):
        what is taken goes out at once, within its site's turn."""
        engine = getattr(getattr(self, "crawler", None), "engine", None)
        if engine is None:
            return self.pop_batch
        downloader = engine.downloader
        if not downloader.total_concurrency:
            return self.pop_batch
        return max(0, downloader.total_concurrency - len(downloader.active))

    def _wake_in(self, seconds: float) -> None:
        """Have the engine ask for requests again in ``seconds`` (when the next
        site's turn comes), unless it is to ask sooner."""
        when = time.monotonic() + seconds
        if self._wake is not None:
            if self._wake_at <= when:
                return
            self._wake.cancel()
        self._wake_at = when
        self._wake = call_later(seconds + 0.001, self._woken)

    def _woken(self) -> None:
        self._wake = None
        # Scrapy 2.19 has no public call for "ask the scheduler again"; its
        # engine's slot keeps the call it makes after each download.
        slot = getattr(getattr(getattr(self, "crawler", None), "engine", None), "_slot", None)
        if slot is not None:
            slot.nextcall.schedule()

    def _indexer_behind(self) -> bool:
        return self._indexer.closed(self.frontier.items_waiting, self._inc)

    def has_pending_requests(self) -> bool:
        if self._pending or self._taken or self._redis.waiting():
            return True
        try:
            return len(self.frontier) > 0
        except REDIS_DOWN as exc:
            self._redis_down(exc)
            return True

    def done(self, request: Request) -> None:
        """The response (or error) of ``request`` is processed: release its lease."""
        lease = request.meta.get("lease")
        if lease is not None:
            self._done.append(lease)

    # --- Redis round trips ---------------------------------------------------------------

    def _flush(self) -> None:
        """Queue the links found, then release the leases they came from: one
        round trip on one server; on a cluster, a script call per partition,
        every queueing before any release.  So nothing taken is ever lost,
        and nothing is released before its children are safe."""
        if not self._pending and not self._done:
            return
        pending, done = self._pending, self._done
        groups = self.frontier.grouped(pending)
        if self.frontier.cluster:
            statuses = self._push_by_partition()
            self.leases.done(done)
        else:
            pipe = self.frontier.client.pipeline(transaction=False)
            self.frontier.push(pending, pipe=pipe)
            self.leases.done_command(pipe, done)
            results = pipe.execute()  # Redis down: both buffers are kept for the next attempt
            statuses = self.frontier.statuses(pending, results[: len(groups)])
            self.leases.forget(done)
        self._pending, self._done = [], []
        self.leases.wake(groups)
        self._redis.back()
        self._count(pending, statuses)

    def _push_by_partition(self) -> list[int]:
        """Queue the pending links one partition at a time, each off the
        buffer once its partition has them (Redis down midway: the rest stay)."""
        pending = self._pending
        statuses = [SEEN] * len(pending)
        left = set(range(len(pending)))
        try:
            for places in self.frontier.grouped(pending).values():
                for place, status in zip(places, self.frontier.push([pending[n] for n in places]), strict=False):
                    statuses[place] = status
                left.difference_update(places)
        except REDIS_DOWN:
            self._pending = [pending[n] for n in sorted(left)]
            raise
        return statuses

    def _count(self, pending: list[tuple[bytes, int, bytes, str]], statuses: list[int]) -> None:
        self._inc("scheduler/enqueued/redis", statuses.count(QUEUED))
        self._inc("frontier/duplicate/shared", statuses.count(SEEN))
        for (_, _, data, site), status in zip(pending, statuses, strict=False):
            if status == OVER_BUDGET:
                self._inc("traps/site_budget")
                if site not in self._over_budget_logged:
                    self._over_budget_logged.add(site)
                    logger.warning(
                        "%s has used its budget of %d pages (TRAPS_MAX_PAGES_PER_SITE); "
                        "its further URLs are counted and dropped, first one: %s",
                        site,
                        self.frontier.site_budget,
                        json.loads(data)["u"],
                    )

    def _redis_down(self, exc: Exception) -> None:
        """Redis is unreachable (restarting, a network cut): the node pauses.
        The links it found stay in its buffer, it takes nothing, says so
        once, and tries again with backoff; nothing is dropped."""
        self._inc("frontier/redis_errors")
        self._redis.down(exc)

    # --- liveness, idleness ---------------------------------------------------------------

    def _announce(self) -> None:
        # The rate since the last announcement, not since the start: an idle node shows 0/s.
        now, (then, taken) = time.time(), self._announced
        self._announced = (now, self._fetched)
        self.leases.announce(
            {
                "started": self._started,
                "taken": self._fetched,
                "rate_seconds": round(now - then, 1),
                "rate": round((self._fetched - taken) / max(now - then, 1e-9), 2),
            }
        )

    def _schedule_beat(self) -> None:
        self._beat = call_later(self.heartbeat, self._beat_once)

    def _beat_once(self) -> None:
        """Every ``FRONTIER_HEARTBEAT`` seconds: announce this node, count what
        it took per site, give back the requests of nodes that stopped
        announcing themselves, move the requests robots.txt held back to
        their sites' queues, and push what is buffered."""
        try:
            self._announce()
            if self._by_site:
                by_site, self._by_site = self._by_site, Counter()
                self.frontier.count_sites(by_site)
            reaped = self.leases.reap()
            if reaped:
                self._inc("frontier/reaped", reaped)
                logger.warning("Gave back %d requests of a crawl node that stopped answering", reaped)
            moved = self.frontier.drain_inbox()
            if moved:
                self._inc("frontier/inbox_moved", moved)
            self._flush()
        except REDIS_DOWN as exc:
            self._redis_down(exc)
        self._schedule_beat()

    def _spider_opened(self, spider: Any = None) -> None:
        """Start the heartbeat; release each request's lease when the scraper
        is done with its response.

        Scrapy has no signal for "a response and everything it produced have
        been handled"; its scraper slot's ``finish_response`` is that moment
        (Scrapy 2.19), so it is wrapped here.
        """
        self._schedule_beat()
        slot = self.crawler.engine.scraper.slot
        finish = slot.finish_response

        def finish_response(result: Any, request: Request) -> None:
            finish(result, request)
            self.done(request)

        slot.finish_response = finish_response

    def _spider_idle(self, spider: Any = None) -> None:
        """Stay while other nodes may still find work; close once all is quiet:
        out of work, the node waits while the queue has requests or any node
        holds a lease (others may yet find links), and closes once both have
        been empty for ``FRONTIER_IDLE_GRACE`` seconds."""
        try:
            self._flush()  # release this node's own finished leases first
            lost = self.leases.reclaim()
            busy = len(self.frontier) > 0 or self.leases.held() > 0
        except REDIS_DOWN as exc:
            self._redis_down(exc)
            raise DontCloseSpider from None
        if lost:
            self._inc("frontier/leases_reclaimed", lost)
            logger.warning(
                "%d requests leased to this node never reached it (a reply lost when Redis "
                "went away): back in their sites' queues",
                lost,
            )
        now = time.monotonic()
        if busy:
            self._idle_since = None
            raise DontCloseSpider
        if self._idle_since is None:
            self._idle_since = now
        if now - self._idle_since < self.idle_grace:
            raise DontCloseSpider

    def _inc(self, key: str, count: int = 1) -> None:
        if self.stats is not None and count:
            self.stats.inc_value(key, count)

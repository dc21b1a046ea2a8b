"""The crawl frontier in Redis: queue, URL dedup, content dedup, scope.

Every key starts with the spider name (``web:``), as in scrapy-redis:

==========================  ==================================================
``web:requests``            sorted set of the depths that have queued requests
``web:requests:<depth>``    FIFO list of the requests at that depth (JSON)
``web:dupefilter``          set of 16-byte URL fingerprints ever queued
``web:content``             hash: MD5 of a page's text -> first URL with it
``web:scope``               set of host names in scope (the seeds' hosts)
``web:items``               list of extracted pages for the indexer (JSON)
==========================  ==================================================

Breadth first: a pop takes from the lowest depth that has requests, first in
first out within a depth, so one deep site or trap cannot starve the others.
Dedup and push are one Lua script per batch, so two nodes that find the same
link at once queue it once (``SADD`` says who was first). Requests are stored
as JSON data, never pickle: whoever can write the queue must not be able to
run code on every node.

From scrapy-redis this module keeps the key scheme, the settings
(``SCHEDULER_PERSIST``, ``SCHEDULER_QUEUE_KEY``, ``SCHEDULER_DUPEFILTER_KEY``)
and the scheduler's shape; it replaces the parts measured unsound (DESIGN.md):
per-link round trips (a process-local seen-set answers repeated links, and
pushes are batched), pickle, a SHA1 fingerprint of its own, the priority
queue's lexicographic order within a priority, and deletion of the shared
queue by the first node that stops.
"""

from __future__ import annotations

import atexit
import json
import logging
from collections import deque
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import redis
from scrapy import Request, signals
from scrapy_redis.scheduler import Scheduler as _RedisScheduler

from crawler.embedded import EmbeddedRedis
from crawler.urls import UrlPolicy

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)

__all__ = ["Frontier", "Scheduler", "encode_request", "decode_request", "connect"]

_PUSH = """
local added = 0
for i = 2, #ARGV, 3 do
  local fp = ARGV[i]
  if fp == '' or redis.call('SADD', KEYS[1], fp) == 1 then
    local depth = ARGV[i + 1]
    redis.call('RPUSH', ARGV[1] .. depth, ARGV[i + 2])
    redis.call('ZADD', KEYS[2], depth, depth)
    added = added + 1
  end
end
return added
"""

_POP = """
local out = {}
local want = tonumber(ARGV[2])
while #out < want do
  local depth = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if not depth then break end
  local key = ARGV[1] .. depth
  local got = redis.call('LPOP', key, want - #out)
  if got then
    for _, data in ipairs(got) do out[#out + 1] = data end
  end
  if redis.call('LLEN', key) == 0 then redis.call('ZREM', KEYS[1], depth) end
end
return out
"""

_COUNT = """
local total = 0
for _, depth in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  total = total + redis.call('LLEN', ARGV[1] .. depth)
end
return total
"""

# Request.meta entries that survive the trip through Redis; the rest is
# per-process state (download slots, latencies) rebuilt on the other side.
_KEPT_META = (
    "redirect_urls",
    "redirect_times",
    "redirect_ttl",
    "redirect_reasons",
    "retry_times",
    "seed",
)


def connect(settings: BaseSettings) -> tuple[redis.Redis, str, EmbeddedRedis | None]:
    """A client for ``REDIS_URL``, or for a freshly started embedded server.

    Also returns the URL, and the embedded server the caller now owns (and
    must stop), or None for a shared server.
    """
    url = settings.get("REDIS_URL")
    server = None
    if not url:
        server = EmbeddedRedis(settings.get("DATA_DIR") or "data")
        url = server.start()
    client = redis.Redis.from_url(url, socket_timeout=30, socket_connect_timeout=10)
    try:
        client.ping()
    except redis.ConnectionError as exc:
        if server is not None:
            server.stop()
        raise RuntimeError(f"cannot reach Redis at {url}: {exc}") from exc
    return client, url, server


def encode_request(request: Request) -> bytes:
    """A request as compact JSON: url, depth, referer, redirect/retry state.

    Callbacks travel as spider method names.

    >>> encode_request(Request("http://a.test/x", meta={"depth": 2}))
    b'{"u":"http://a.test/x","d":2}'
    """
    data: dict[str, Any] = {"u": request.url, "d": request.meta.get("depth", 0)}
    referer = request.headers.get(b"Referer")
    if referer:
        data["r"] = referer.decode("latin-1")
    kept = {key: request.meta[key] for key in _KEPT_META if key in request.meta}
    if kept:
        data["m"] = kept
    if request.dont_filter:
        data["f"] = 1
    if request.priority:
        data["p"] = request.priority
    if request.callback is not None and getattr(request.callback, "__name__", "parse") != "parse":
        data["c"] = request.callback.__name__
    if request.errback is not None:
        data["e"] = request.errback.__name__
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def decode_request(data: bytes, spider: Spider | None = None) -> Request:
    """The inverse of :func:`encode_request`; callbacks are spider method names.

    >>> r = decode_request(b'{"u":"http://a.test/x","d":2,"r":"http://a.test/"}')
    >>> r.url, r.meta["depth"], r.headers[b"Referer"]
    ('http://a.test/x', 2, b'http://a.test/')
    """
    obj = json.loads(data)
    meta = {"depth": obj.get("d", 0), **obj.get("m", {})}
    headers = {"Referer": obj["r"]} if "r" in obj else None
    callback = getattr(spider, obj["c"]) if spider is not None and "c" in obj else None
    errback = getattr(spider, obj["e"]) if spider is not None and "e" in obj else None
    return Request(
        obj["u"],
        callback=callback,
        errback=errback,
        headers=headers,
        meta=meta,
        priority=obj.get("p", 0),
        dont_filter=bool(obj.get("f")),
    )


class Frontier:
    """One crawl's shared state in Redis, and the atomic operations on it.

    Plain values in, plain values out: the Scrapy glue (the scheduler below,
    the spider, the pipeline) shares one instance per crawler through
    :meth:`for_crawler`.
    """

    def __init__(
        self,
        client: redis.Redis,
        name: str = "web",
        queue_key: str = "%(spider)s:requests",
        seen_key: str = "%(spider)s:dupefilter",
        items_key: str = "%(spider)s:items",
        embedded: EmbeddedRedis | None = None,
        url: str = "",
    ) -> None:
        self.client = client
        self.embedded = embedded
        self.url = url  # how other processes (the indexer) reach this Redis
        self.name = name
        self.queue_key = queue_key % {"spider": name}
        self.seen_key = seen_key % {"spider": name}
        self.items_key = items_key % {"spider": name}
        self.content_key = f"{name}:content"
        self.scope_key = f"{name}:scope"
        self._push = client.register_script(_PUSH)
        self._pop = client.register_script(_POP)
        self._count = client.register_script(_COUNT)

    @classmethod
    def for_crawler(cls, crawler: Crawler, name: str = "web") -> Frontier:
        """The crawler's frontier, connecting (or starting Redis) on first use."""
        frontier = getattr(crawler, "_lantern_frontier", None)
        if frontier is None:
            settings = crawler.settings
            client, url, server = connect(settings)
            frontier = cls(
                client,
                name=name,
                queue_key=settings.get("SCHEDULER_QUEUE_KEY", "%(spider)s:requests"),
                seen_key=settings.get("SCHEDULER_DUPEFILTER_KEY", "%(spider)s:dupefilter"),
                items_key=settings.get("REDIS_ITEMS_KEY", "%(spider)s:items"),
                embedded=server,
                url=url,
            )
            if server is not None:
                # After every component has closed (pipelines still write
                # items while the spider closes), not before; and at exit
                # should the engine never stop cleanly.
                crawler.signals.connect(server.stop, signal=signals.engine_stopped)
                atexit.register(server.stop)
            crawler._lantern_frontier = frontier  # type: ignore[attr-defined]
        return frontier

    def push(self, entries: Sequence[tuple[bytes, int, bytes]]) -> int:
        """Queue ``(fingerprint, depth, data)`` entries whose fingerprint is new.

        An empty fingerprint queues unconditionally (``dont_filter``). Returns
        how many were queued.
        """
        if not entries:
            return 0
        args: list[bytes | int | str] = [self.queue_key + ":"]
        for fp, depth, data in entries:
            args.extend((fp, depth, data))
        return int(self._push(keys=[self.seen_key, self.queue_key], args=args))

    def pop(self, count: int) -> list[bytes]:
        """Take up to ``count`` requests, lowest depth first."""
        return list(self._pop(keys=[self.queue_key], args=[self.queue_key + ":", count]))

    def unpop(self, datas: Iterable[bytes]) -> None:
        """Put taken but unused requests back at the front of their depth."""
        pipe = self.client.pipeline(transaction=True)
        for data in reversed(list(datas)):
            depth = json.loads(data).get("d", 0)
            pipe.lpush(f"{self.queue_key}:{depth}", data)
            pipe.zadd(self.queue_key, {str(depth): depth})
        pipe.execute()

    def __len__(self) -> int:
        return int(self._count(keys=[self.queue_key], args=[self.queue_key + ":"]))

    def seen_count(self) -> int:
        return int(self.client.scard(self.seen_key))

    def content_seen(self, digest: bytes, url: str) -> str | None:
        """Record that ``url`` has this content; return the first URL that had it."""
        pipe = self.client.pipeline(transaction=True)
        pipe.hsetnx(self.content_key, digest, url)
        pipe.hget(self.content_key, digest)
        created, first = pipe.execute()
        if created or first is None:
            return None
        first_url = first.decode()
        return None if first_url == url else first_url

    def add_scope(self, hosts: Iterable[str]) -> None:
        hosts = list(hosts)
        if hosts:
            self.client.sadd(self.scope_key, *hosts)

    def scope(self) -> set[str]:
        return {host.decode() for host in self.client.smembers(self.scope_key)}

    def keys(self) -> list[bytes]:
        return list(self.client.scan_iter(match=f"{self.name}:*", count=1000))

    def reset(self) -> int:
        """Delete every key of this crawl; returns how many were deleted."""
        keys = self.keys()
        for start in range(0, len(keys), 1000):
            self.client.delete(*keys[start : start + 1000])
        return len(keys)


class Scheduler(_RedisScheduler):
    """Scrapy's scheduler interface over a :class:`Frontier`.

    Links the engine hands over are checked against a process-local set of
    fingerprints (no round trip for a link this process already queued),
    then pushed in batches whose dedup against every node happens in Redis.
    Requests are taken a few at a time.
    """

    def __init__(
        self,
        frontier: Frontier,
        persist: bool = True,
        flush_on_start: bool = False,
        pop_batch: int = 8,
        local_seen_max: int = 2_000_000,
        stats: Any = None,
        policy: UrlPolicy | None = None,
    ) -> None:
        super().__init__(
            server=frontier.client,
            persist=persist,
            flush_on_start=flush_on_start,
            queue_key=frontier.queue_key,
            dupefilter_key=frontier.seen_key,
        )
        self.frontier = frontier
        self.stats = stats
        self.policy = policy or UrlPolicy()
        self.pop_batch = max(1, pop_batch)
        self.local_seen_max = local_seen_max
        self._local_seen: set[bytes] = set()
        self._pending: list[tuple[bytes, int, bytes]] = []
        self._taken: deque[bytes] = deque()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Scheduler:
        settings = crawler.settings
        return cls(
            Frontier.for_crawler(crawler),
            persist=settings.getbool("SCHEDULER_PERSIST", True),
            flush_on_start=settings.getbool("SCHEDULER_FLUSH_ON_START"),
            pop_batch=settings.getint("FRONTIER_POP_BATCH", 8),
            local_seen_max=settings.getint("FRONTIER_LOCAL_SEEN_MAX", 2_000_000),
            stats=crawler.stats,
            policy=UrlPolicy.from_settings(settings),
        )

    def __len__(self) -> int:
        return len(self.frontier) + len(self._pending) + len(self._taken)

    def open(self, spider: Spider) -> None:
        self.spider = spider
        if self.flush_on_start:
            self.flush()
        queued = len(self.frontier)
        if queued:
            logger.info(
                "Resuming the crawl: %d requests queued, %d URLs seen",
                queued,
                self.frontier.seen_count(),
            )

    def close(self, reason: str) -> None:
        self._flush_pending()
        if self._taken:
            # Taken from Redis but never started: back to the front.
            self.frontier.unpop(self._taken)
            self._taken.clear()
        if not self.persist:
            self.flush()

    def flush(self) -> None:
        self._local_seen.clear()
        self.frontier.client.delete(self.frontier.seen_key)
        for key in self.frontier.client.scan_iter(match=self.frontier.queue_key + "*"):
            self.frontier.client.delete(key)

    def enqueue_request(self, request: Request) -> bool:
        fp = b""
        if not request.dont_filter:
            fp = self.policy.fingerprint(request.url)
            if fp in self._local_seen:
                self._inc("frontier/duplicate/local")
                return False
            if len(self._local_seen) >= self.local_seen_max:
                self._local_seen.clear()
            self._local_seen.add(fp)
        self._pending.append((fp, request.meta.get("depth", 0), encode_request(request)))
        if len(self._pending) >= 256:
            self._flush_pending()
        return True

    def next_request(self) -> Request | None:
        self._flush_pending()
        if not self._taken:
            self._taken.extend(self.frontier.pop(self.pop_batch))
        if not self._taken:
            return None
        data = self._taken.popleft()
        self._inc("scheduler/dequeued/redis")
        return decode_request(data, self.spider)

    def has_pending_requests(self) -> bool:
        return bool(self._pending or self._taken) or len(self.frontier) > 0

    def _flush_pending(self) -> None:
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        added = self.frontier.push(pending)
        self._inc("scheduler/enqueued/redis", added)
        if len(pending) > added:
            self._inc("frontier/duplicate/shared", len(pending) - added)

    def _inc(self, key: str, count: int = 1) -> None:
        if self.stats is not None and count:
            self.stats.inc_value(key, count)

"""The crawl frontier in Redis: queue, URL dedup, content dedup, scope.

:class:`Frontier` is one crawl's shared state in Redis and the atomic
operations on it, one per crawler (:meth:`~Frontier.for_crawler`):
:meth:`~Frontier.push` queues, in their sites' queues, the links whose URL
is new to the whole crawl; :meth:`~Frontier.leases` gives a node what it
takes from them (:mod:`crawler.leases`); :meth:`~Frontier.content_seen`
finds a page's content under another URL, and
:meth:`~Frontier.take_over_content` gives it to a better one; the scope,
the purged URLs, each site's pauses and delay (:mod:`crawler.politeness`)
and the counts the monitor and ``python -m crawler status`` read are kept
there too.
Requests travel as JSON (:func:`encode_request`, :func:`decode_request`).
A frontier records its format (:data:`FRONTIER_FORMAT`): one of another
format is refused (:class:`OtherFrontier`) with the command that empties
it.  Design: ARCHITECTURE.md, "The frontier"; every key: "Redis keys";
the format: "The data directory's format".
"""

from __future__ import annotations

import atexit
import json
import logging
import time
import weakref
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import redis
from scrapy import Request, signals

from crawler import settings as defaults
from crawler.connection import (
    RedisUnreachable,
    client_for,
    cluster_url,
    is_cluster,
    piped,
    redis_params,
    with_credentials,
    with_db,
)
from crawler.datadir import claim_format
from crawler.embedded import EmbeddedRedis
from crawler.fingerprints import simhash_blocks
from crawler.leases import Leases
from crawler.partitions import CLUSTER_PARTITIONS, Partitions
from crawler.seen import BloomSeen, ExactSeen, SeenSet, seen_set
from crawler.sites import site_of
from crawler.turns import LUA, ScriptKeys, site_key

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)

__all__ = [
    "FRONTIER_FORMAT",
    "Frontier",
    "OtherFrontier",
    "PartKeys",
    "encode_request",
    "decode_request",
    "connect",
    "forget_crawl",
    "QUEUED",
    "SEEN",
    "OVER_BUDGET",
]

#: The format of a crawl's state in Redis: its keys and what they hold
#: (ARCHITECTURE.md, "Redis keys"). A change that this version's nodes
#: cannot work with in an older frontier, or an older version's nodes in
#: this one, takes the next number.
FRONTIER_FORMAT = 1

# KEYS: requests count, waiting, ready, heads, budget hash, seen counter,
# then the keys of the batch's sites (their lists, depth sets and states);
# ARGV: seen-set key prefix, per-site budget (0: none); then per request:
# seen-set arguments a and b (a == '': do not filter), depth, data, site,
# the index in KEYS of its list and of its site's depth set (its state next).
# Returns a status per request: 1 queued, 0 seen before, 2 over its site's budget.
# The queued requests go in with one RPUSH per site and depth (in their
# order): a few commands per batch and site, not per request.
_PUSH = (
    LUA
    + """
local g = {waiting = KEYS[2], ready = KEYS[3], heads = KEYS[4]}
local budgets, counter = KEYS[5], KEYS[6]
local prefix, budget = ARGV[1], tonumber(ARGV[2])
local out, lists, order, fresh, queued = {}, {}, {}, 0, 0
for i = 3, #ARGV, 7 do
  local a, b, site = ARGV[i], ARGV[i + 1], ARGV[i + 4]
  local status = 1
  if a ~= '' then
    if TEST_AND_SET then fresh = fresh + 1 else status = 0 end
  end
  if status == 1 and budget > 0 and redis.call('HINCRBY', budgets, site, 1) > budget then
    status = 2
  end
  if status == 1 then
    local kl = tonumber(ARGV[i + 5])
    local list = lists[kl]
    if not list then
      list = {}
      lists[kl] = list
      order[#order + 1] = {kl, tonumber(ARGV[i + 6]), ARGV[i + 2], site}
    end
    list[#list + 1] = ARGV[i + 3]
    queued = queued + 1
  end
  out[#out + 1] = status
end
if fresh > 0 then redis.call('INCRBY', counter, fresh) end
for _, o in ipairs(order) do
  local list = lists[o[1]]
  for j = 1, #list, 1000 do
    redis.call('RPUSH', KEYS[o[1]], unpack(list, j, math.min(j + 999, #list)))
  end
  queued_in(g, o[4], o[3], KEYS[o[2]], KEYS[o[2] + 1])
end
if queued > 0 then redis.call('INCRBY', KEYS[1], queued) end
return out
"""
)

# KEYS: the inbox's depth set and its list at ARGV[1], requests count,
# waiting, ready, heads, then the sites' keys as for _PUSH; ARGV: depth, how
# many, then per request: data, site, list index, depth set index. Moves the
# first requests of the inbox list to their sites, if they are still those
# given (another node may have moved them): returns how many, or -1.
_MOVE = (
    LUA
    + """
local g = {waiting = KEYS[4], ready = KEYS[5], heads = KEYS[6]}
local depth, n = ARGV[1], tonumber(ARGV[2])
local head = redis.call('LRANGE', KEYS[2], 0, n - 1)
if #head < n then return -1 end
for j = 1, n do
  if head[j] ~= ARGV[3 + (j - 1) * 4] then return -1 end
end
redis.call('LTRIM', KEYS[2], n, -1)
if redis.call('LLEN', KEYS[2]) == 0 then redis.call('ZREM', KEYS[1], depth) end
for i = 3, #ARGV, 4 do
  local ks = tonumber(ARGV[i + 3])
  redis.call('RPUSH', KEYS[tonumber(ARGV[i + 2])], ARGV[i])
  queued_in(g, ARGV[i + 1], depth, KEYS[ks], KEYS[ks + 1])
end
if n > 0 then redis.call('INCRBY', KEYS[3], n) end
return n
"""
)

# KEYS: the site's state, waiting, ready; ARGV: site, pause ms. No turn
# before then (a 429 or 503 Retry-After); never shortens a pause.
_PAUSE = (
    LUA
    + """
local until_ms = now_ms() + tonumber(ARGV[2])
if until_ms <= tonumber(redis.call('HGET', KEYS[1], 'next') or '0') then return 0 end
redis.call('HSET', KEYS[1], 'next', until_ms)
if redis.call('ZREM', KEYS[3], ARGV[1]) == 1 or redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], until_ms, ARGV[1])
end
return 1
"""
)

# KEYS: the site's state, waiting; ARGV: site, delay ms, lag ms. A request of
# the site is about to leave a node: returns 0 when the last one (from any
# node) left at least the delay ago, and records it as leaving lag ms from
# now (what the node's event loop takes to send it); else the ms to wait. A
# request that left later than its turn (held by a busy node) moves the
# site's next turn later, so that the next request keeps the gap.
_SEND = (
    LUA
    + """
local now = now_ms()
local floor = tonumber(ARGV[2])
local last = tonumber(redis.call('HGET', KEYS[1], 'sent') or '0')
if last + floor > now then return last + floor - now end
local leaves = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'sent', leaves)
if tonumber(redis.call('HGET', KEYS[1], 'next') or '0') < leaves + floor then
  redis.call('HSET', KEYS[1], 'next', leaves + floor)
  if redis.call('ZSCORE', KEYS[2], ARGV[1]) then redis.call('ZADD', KEYS[2], leaves + floor, ARGV[1]) end
end
return 0
"""
)

# KEYS: served, heads; ARGV: seconds. The sites leased from in the last
# seconds, the sites with queued requests, and the two together.
_SERVED = (
    LUA
    + """
local served = redis.call('ZRANGEBYSCORE', KEYS[1], now_ms() - 1000 * tonumber(ARGV[1]), '+inf')
local waiting = redis.call('HLEN', KEYS[2])
local done = 0
for _, site in ipairs(served) do
  if redis.call('HEXISTS', KEYS[2], site) == 0 then done = done + 1 end
end
return {#served, waiting, waiting + done}
"""
)

# KEYS: content hash (fingerprint -> first URL), simhash hash (simhash ->
# URL), simhash blocks hash (block -> the simhashes having it, 16 hex digits
# each, concatenated); ARGV: fingerprint, URL, simhash (16 hex digits, or
# ''), largest distance, then the simhash's blocks. Returns the first URL
# with the same or nearly the same content, or false. Four commands for a
# new page: one to record its fingerprint, one to read its blocks' SimHashes,
# one to add its own to them, one to remember its URL.
_CONTENT = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  local first = redis.call('HGET', KEYS[1], ARGV[1])
  if first == ARGV[2] then return false end
  return first
end
local h = ARGV[3]
if h == '' then return false end
local limit = tonumber(ARGV[4])
local hi, lo = tonumber(string.sub(h, 1, 8), 16), tonumber(string.sub(h, 9, 16), 16)
local function ones(x)
  local n = 0
  while x ~= 0 do x = bit.band(x, x - 1); n = n + 1 end
  return n
end
local blocks = {}
for i = 5, #ARGV do blocks[#blocks + 1] = ARGV[i] end
local known = redis.call('HMGET', KEYS[3], unpack(blocks))
for n = 1, #blocks do
  local others = known[n]
  if others then
    for at = 1, #others, 16 do
      local ohi = tonumber(string.sub(others, at, at + 7), 16)
      local olo = tonumber(string.sub(others, at + 8, at + 15), 16)
      if ones(bit.bxor(hi, ohi)) + ones(bit.bxor(lo, olo)) <= limit then
        local url = redis.call('HGET', KEYS[2], string.sub(others, at, at + 15))
        if url and url ~= ARGV[2] then return url end
      end
    end
  end
end
local updates = {}
for n = 1, #blocks do
  updates[#updates + 1] = blocks[n]
  updates[#updates + 1] = (known[n] or '') .. h
end
redis.call('HSET', KEYS[3], unpack(updates))
redis.call('HSET', KEYS[2], h, ARGV[2])
return false
"""

# KEYS: content hash, simhash hash (as _CONTENT's); ARGV: fingerprint, the
# URL that owns it, the URL taking it over, its simhash (16 hex digits, or
# ''). The content (and its simhash) changes owner only if the first URL
# still owns it: whatever another node did meanwhile is not overwritten.
# Returns the owner found.
_TAKE_OVER = """
local found = redis.call('HGET', KEYS[1], ARGV[1])
if found ~= ARGV[2] then return found end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
if ARGV[4] ~= '' and redis.call('HGET', KEYS[2], ARGV[4]) == ARGV[2] then
  redis.call('HSET', KEYS[2], ARGV[4], ARGV[3])
end
return found
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
    "sitemap",
    "handle_httpstatus_list",
    "handle_httpstatus_all",
    "soft404_probe",
    "revisit",
    "chain",  # how many pages of one URL pattern led here, one after another (crawler.traps.Chains)
)
# Request headers that survive it: a revisit's validators (crawler/revisit.py).
_KEPT_HEADERS = ("If-None-Match", "If-Modified-Since")


def connect(settings: BaseSettings) -> tuple[Any, str, EmbeddedRedis | None]:
    """A client for ``REDIS_URL`` (or the cluster of ``REDIS_CLUSTER_NODES``)
    with ``REDIS_PARAMS``, or for a freshly started embedded server.

    Also returns the URL other programs reach the same data with, and the
    embedded server the caller now owns (and must stop), or None for a
    shared server.
    """
    url = settings.get("REDIS_URL")
    if not url and settings.get("REDIS_CLUSTER_NODES"):
        url = cluster_url(settings.get("REDIS_CLUSTER_NODES"))
    server = None
    params: dict[str, Any] = {}
    if url:
        params = redis_params(settings)
        url = with_credentials(with_db(url, params), params)
    else:
        server = EmbeddedRedis(settings.get("DATA_DIR"))
        url = server.start()
    try:
        client = client_for(url, **params)
        client.ping()
    except (redis.RedisError, redis.exceptions.RedisClusterException, OSError, TypeError, ValueError) as exc:
        if server is not None:
            server.stop()
        raise RedisUnreachable(url, exc) from None
    return client, url, server


class PartKeys:
    """The keys of one partition of the frontier (all of them, untagged, on
    one server with one partition: the names of old).

    >>> keys = PartKeys(Partitions(4, True), 2, "web", "web:requests", "web:dupefilter", "web:items")
    >>> keys.queue, keys.seen_prefix, keys.items
    ('web:requests:{p2.1}', 'web:dupefilter:{p2.1}:', 'web:items:{p2.1}')
    """

    def __init__(
        self, partitions: Partitions, partition: int, name: str, queue_key: str, seen_key: str, items_key: str
    ) -> None:
        self.partition = partition
        self.queue = partitions.key(queue_key, partition)
        self.seen_prefix = partitions.key(seen_key, partition) + ":"
        self.seen_count = self.seen_prefix + "count"
        self.items = partitions.key(items_key, partition)
        self.budget = partitions.key(f"{name}:budget:sites", partition)
        self.count = f"{self.queue}:count"
        self.waiting = f"{self.queue}:waiting"
        self.ready = f"{self.queue}:ready"
        self.heads = f"{self.queue}:heads"
        self.served = f"{self.queue}:served"


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
    if "redirect_urls" not in request.meta:
        # Validators belong to the URL they were given for: a redirect's
        # target is fetched whole.
        conditional = {
            name: value.decode("latin-1") for name in _KEPT_HEADERS if (value := request.headers.get(name)) is not None
        }
        if conditional:
            data["h"] = conditional
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
    headers = dict(obj.get("h", {}))
    if "r" in obj:
        headers["Referer"] = obj["r"]
    callback = getattr(spider, obj["c"]) if spider is not None and "c" in obj else None
    errback = getattr(spider, obj["e"]) if spider is not None and "e" in obj else None
    return Request(
        obj["u"],
        callback=callback,
        errback=errback,
        headers=headers or None,
        meta=meta,
        priority=obj.get("p", 0),
        dont_filter=bool(obj.get("f")),
    )


class OtherFrontier(RuntimeError):
    """The crawl's state in Redis is of another format than this version's."""


def _agree_on_format(client: Any, name: str, older_keys: Sequence[str], reset: str) -> None:
    """Record :data:`FRONTIER_FORMAT` in the new frontier of the crawl ``name``;
    refuse one of another format, or one older than formats (any of
    ``older_keys``, which every earlier version wrote when it opened a
    frontier, and no format), naming ``reset``, the command that empties it."""
    # The older keys are looked for before the format: a program that opens
    # a new frontier records the format before it writes them.
    older = any(client.exists(key) for key in older_keys)
    key = f"{name}:format"
    if not older:
        client.set(key, FRONTIER_FORMAT, nx=True)
    recorded = client.get(key)
    found = recorded.decode() if isinstance(recorded, bytes) else recorded
    if found == str(FRONTIER_FORMAT):
        return
    if found is None:
        said = "an older version of Lantern (no frontier format recorded"
    elif found.isdigit() and int(found) < FRONTIER_FORMAT:
        said = f"an older version of Lantern (frontier format {found}"
    else:
        said = f"a newer version of Lantern (frontier format {found}"
    raise OtherFrontier(
        f"the crawl's state in Redis was written by {said}; this version reads format {FRONTIER_FORMAT}): "
        f"run `{reset}` to forget it and crawl afresh (the index is kept)"
    )


def _reset_command(embedded: EmbeddedRedis | None, url: str) -> str:
    """The command that empties the frontier of ``embedded``, or at ``url``.

    >>> _reset_command(None, "redis://shared.test:6379/0")
    'python -m crawler reset --redis redis://shared.test:6379/0'
    """
    if embedded is not None:
        return f"python -m crawler reset --data {embedded.directory.parent}"
    if url:
        return f"python -m crawler reset --redis {url}"
    return "python -m crawler reset"


#: Each crawler's frontier (:meth:`Frontier.for_crawler`), for as long as the crawler lives.
_FRONTIERS: weakref.WeakKeyDictionary[Crawler, Frontier] = weakref.WeakKeyDictionary()


class Frontier:
    """One crawl's shared state in Redis, and the atomic operations on it.

    Plain values in, plain values out: the Scrapy glue (the scheduler below,
    the spider, the pipeline) shares one instance per crawler through
    :meth:`for_crawler`.
    """

    def __init__(
        self,
        client: Any,
        name: str = "web",
        queue_key: str = defaults.SCHEDULER_QUEUE_KEY,
        seen_key: str = defaults.SCHEDULER_DUPEFILTER_KEY,
        items_key: str = defaults.REDIS_ITEMS_KEY,
        embedded: EmbeddedRedis | None = None,
        url: str = "",
        seen: SeenSet | None = None,
        site_budget: int = defaults.TRAPS_MAX_PAGES_PER_SITE,
        near_distance: int = defaults.TRAPS_NEAR_DUPLICATE_BITS,
        partitions: int | None = None,
    ) -> None:
        self.client = client
        self.embedded = embedded
        self.url = url  # how other processes (the indexer) reach this Redis
        self.name = name
        self.cluster = is_cluster(client)
        self.queue_key = queue_key % {"spider": name}
        self.seen_key = seen_key % {"spider": name}
        self.items_key = items_key % {"spider": name}
        _agree_on_format(  # before anything is written
            client,
            name,
            older_keys=(
                f"{name}:partitions",
                f"{self.seen_key}:encoding",
                f"{self.seen_key}:count",
                f"{self.queue_key}:count",
                self.queue_key,
            ),
            reset=_reset_command(embedded, url),
        )
        self.partitions = self._agree_on_partitions(partitions)
        self.parts = [
            PartKeys(self.partitions, n, name, self.queue_key, self.seen_key, self.items_key) for n in self.partitions
        ]
        # The content fingerprints: one slot (in the first partition's), since
        # a page's copy may be on any site.
        self.content_key = self.partitions.key(f"{name}:content", 0)
        self.simhash_urls_key = self.partitions.key(f"{name}:simhash:urls", 0)
        self.simhash_blocks_key = self.partitions.key(f"{name}:simhash:blocks", 0)
        self.scope_key = f"{name}:scope"
        self.answered_key = f"{name}:scope:answered"
        self.site_budget = site_budget
        self.near_distance = near_distance
        self.seen = self._agree_on(seen or ExactSeen())
        self._part_seen = self.seen
        if isinstance(self.seen, BloomSeen) and self.partitions.count > 1:
            # Each partition's filter holds its share of the capacity.
            self._part_seen = BloomSeen(-(-self.seen.capacity // self.partitions.count), self.seen.error_rate)
        self._allocate_bloom()
        self._push = client.register_script(_PUSH.replace("TEST_AND_SET", self.seen.lua_test_and_set))
        self._move = client.register_script(_MOVE)
        self._pause = client.register_script(_PAUSE)
        self._send = client.register_script(_SEND)
        self._served = client.register_script(_SERVED)
        self._content = client.register_script(_CONTENT)
        self._take_over = client.register_script(_TAKE_OVER)

    def _agree_on_partitions(self, wanted: int | None) -> Partitions:
        """Every node of a crawl must split the frontier alike: the first
        records the count (``FRONTIER_PARTITIONS``); later ones use the
        recorded count, and say so when theirs differs."""
        key = f"{self.name}:partitions"
        count = wanted or (CLUSTER_PARTITIONS if self.cluster else 1)
        self.client.set(key, count, nx=True)
        recorded = int(self.client.get(key))
        if wanted and recorded != wanted:
            logger.warning(
                "This crawl's frontier was created with %d partitions; keeping them (FRONTIER_PARTITIONS says %d)",
                recorded,
                wanted,
            )
        return Partitions(recorded, tagged=recorded > 1 or self.cluster)

    def part(self, site: str) -> PartKeys:
        """The keys of the partition that holds ``site``."""
        return self.parts[self.partitions.of(site)]

    def _agree_on(self, seen: SeenSet) -> SeenSet:
        """Every node of a crawl must encode the seen set the same way.

        The first node records its encoding in Redis; later nodes (and later
        runs) use the recorded one, and say so when their settings differ.
        """
        key = f"{self.seen_key}:encoding"
        self.client.hsetnx(key, "mode", seen.mode)
        for field, value in seen.describe().items():
            self.client.hsetnx(key, field, value)
        recorded = {k.decode(): v.decode() for k, v in self.client.hgetall(key).items()}
        if recorded != seen.describe():
            logger.warning(
                "This crawl's seen-URL set was created as %s; keeping it (settings say %s)",
                recorded,
                seen.describe(),
            )
            seen = seen_set(
                recorded["mode"],
                int(recorded.get("capacity", 0) or 1),
                float(recorded.get("error_rate", defaults.FRONTIER_BLOOM_ERROR_RATE)),
            )
        return seen

    def _allocate_bloom(self) -> None:
        """Allocate each bitmap in full once: growing one by SETBIT costs more."""
        seen = self._part_seen
        if isinstance(seen, BloomSeen):
            for part in self.parts:
                for shard in range(seen.shards):
                    shard_key = f"{part.seen_prefix}{shard}"
                    if not self.client.exists(shard_key):
                        self.client.setbit(shard_key, seen.shard_bits - 1, 0)

    @classmethod
    def for_crawler(cls, crawler: Crawler, name: str = "web") -> Frontier:
        """The crawler's frontier, connecting (or starting Redis) on first use.

        One per crawler, kept in :data:`_FRONTIERS`: it is no Scrapy
        component that ``crawler.get_extension()`` and its kin could find
        (the spider, the scheduler, downloader middlewares and the pipeline
        share it), and the first to ask is a middleware built with the
        engine, before the scheduler exists. A data directory of another
        format (:class:`crawler.datadir.OtherFormat`) or a frontier of
        another format (:class:`OtherFrontier`) stops the crawl there.
        """
        frontier = _FRONTIERS.get(crawler)
        if frontier is None:
            settings = crawler.settings
            # The crawl opens its data directory here, before anything is
            # written in it (the embedded Redis, the archive, the reports).
            claim_format(settings.get("DATA_DIR"))
            client, url, server = connect(settings)
            try:
                frontier = cls(
                    client,
                    name=name,
                    queue_key=settings.get("SCHEDULER_QUEUE_KEY"),
                    seen_key=settings.get("SCHEDULER_DUPEFILTER_KEY"),
                    items_key=settings.get("REDIS_ITEMS_KEY"),
                    embedded=server,
                    url=url,
                    seen=seen_set(
                        settings.get("FRONTIER_DEDUP"),
                        settings.getint("FRONTIER_BLOOM_CAPACITY"),
                        settings.getfloat("FRONTIER_BLOOM_ERROR_RATE"),
                    ),
                    site_budget=settings.getint("TRAPS_MAX_PAGES_PER_SITE"),
                    near_distance=settings.getint("TRAPS_NEAR_DUPLICATE_BITS"),
                    partitions=settings.getint("FRONTIER_PARTITIONS") or None,
                )
            except BaseException:
                if server is not None:
                    server.stop()
                raise
            if server is not None:
                # After every component has closed (pipelines still write
                # items while the spider closes), not before; and at exit
                # should the engine never stop cleanly.
                crawler.signals.connect(server.stop, signal=signals.engine_stopped)
                atexit.register(server.stop)
            _FRONTIERS[crawler] = frontier
        return frontier

    def push(self, entries: Sequence[tuple[bytes, int, bytes, str]], pipe: Any = None) -> list[int]:
        """Queue ``(fingerprint, depth, data, site)`` entries whose fingerprint is new.

        An empty fingerprint queues unconditionally (``dont_filter``). Returns
        a status per entry: :data:`QUEUED`, :data:`SEEN` or :data:`OVER_BUDGET`
        (with ``pipe``, a pipeline of one server, one script call per
        partition is added to it and :meth:`statuses` reads its results).
        """
        groups = self.grouped(entries)
        if pipe is not None:
            for partition, places in groups.items():
                self._push_call(self.parts[partition], [entries[n] for n in places], pipe)
            return []
        results = [
            self._push_call(self.parts[partition], [entries[n] for n in places]) for partition, places in groups.items()
        ]
        return self.statuses(entries, results)

    def grouped(self, entries: Sequence[tuple[bytes, int, bytes, str]]) -> dict[int, list[int]]:
        """The places of the entries in each partition (a script call each)."""
        groups: dict[int, list[int]] = {}
        for n, entry in enumerate(entries):
            groups.setdefault(self.partitions.of(entry[3]), []).append(n)
        return groups

    def statuses(self, entries: Sequence[tuple[bytes, int, bytes, str]], results: Sequence[Any]) -> list[int]:
        """The entries' statuses in their order, from the results of their
        partitions' script calls (in :meth:`grouped`'s order)."""
        statuses = [SEEN] * len(entries)
        for places, result in zip(self.grouped(entries).values(), results, strict=False):
            for n, status in zip(places, result, strict=False):
                statuses[n] = int(status)
        return statuses

    def _push_call(self, part: PartKeys, entries: Sequence[tuple[bytes, int, bytes, str]], pipe: Any = None) -> Any:
        if not entries:
            return []
        keys = ScriptKeys(part.queue, [part.count, part.waiting, part.ready, part.heads, part.budget, part.seen_count])
        args: list[bytes | int | str] = [part.seen_prefix, self.site_budget]
        for fp, depth, data, site in entries:
            a, b = self._part_seen.args(fp) if fp else ("", "")
            args.extend((a, b, depth, data, site, *keys.site(site, depth)))
        if pipe is not None:
            piped(pipe, self._push, keys.keys, args)
            return None
        return self._push(keys=keys.keys, args=args)

    def __len__(self) -> int:
        """Requests queued, in the sites' queues and the inboxes."""
        pipe = self.client.pipeline(transaction=False)
        for part in self.parts:
            pipe.get(part.count)
            pipe.zrange(part.queue, 0, -1)
        found = pipe.execute()
        inboxes = [
            f"{part.queue}:{depth.decode()}"
            for part, depths in zip(self.parts, found[1::2], strict=False)
            for depth in depths
        ]
        inbox = 0
        if inboxes:
            pipe = self.client.pipeline(transaction=False)
            for key in inboxes:
                pipe.llen(key)
            inbox = sum(pipe.execute())
        return sum(int(count or 0) for count in found[::2]) + inbox

    def drain_inbox(self, batch: int = 500) -> int:
        """Move the requests queued by depth alone (those robots.txt held
        back) to their sites' queues, lowest depth first. Atomic per batch: another node moving
        them at the same time, or this one dying, loses and doubles nothing.
        (A partition's inbox holds only its own sites' requests.)"""
        pipe = self.client.pipeline(transaction=False)
        for part in self.parts:
            pipe.exists(part.queue)
        return sum(self._drain(part, batch) for part, found in zip(self.parts, pipe.execute(), strict=False) if found)

    def _drain(self, part: PartKeys, batch: int) -> int:
        moved = 0
        while True:
            depths = self.client.zrange(part.queue, 0, 0)
            if not depths:
                return moved
            depth = depths[0].decode()
            inbox = f"{part.queue}:{depth}"
            head = self.client.lrange(inbox, 0, batch - 1)
            keys = ScriptKeys(part.queue, [part.queue, inbox, part.count, part.waiting, part.ready, part.heads])
            args: list[bytes | int | str] = [depth, len(head)]
            for data in head:
                site = site_of(json.loads(data)["u"])
                args.extend((data, site, *keys.site(site, depth)))
            done = int(self._move(keys=keys.keys, args=args))
            moved += max(done, 0)

    def pause_site(self, site: str, seconds: float) -> None:
        """No turn for ``site`` before ``seconds`` from now (a Retry-After)."""
        part = self.part(site)
        self._pause(keys=[site_key(part.queue, site), part.waiting, part.ready], args=[site, int(seconds * 1000)])

    def sending(self, site: str, delay: float, lag: float = 0.0) -> float:
        """A request of ``site`` is about to leave: 0 when it may (it is
        recorded as leaving ``lag`` seconds from now, when this node's busy
        event loop will have sent it), else the seconds until the site's
        last request, from any node, is ``delay`` old."""
        part = self.part(site)
        wait = self._send(
            keys=[site_key(part.queue, site), part.waiting], args=[site, int(delay * 1000), int(lag * 1000)]
        )
        return int(wait) / 1000

    def set_site_delay(self, site: str, seconds: float) -> None:
        """The least gap between two turns of ``site`` (a robots.txt
        Crawl-delay, a slow site's backoff), for every node."""
        self.client.hset(site_key(self.part(site).queue, site), "delay", int(seconds * 1000))

    def served(self, seconds: float) -> tuple[int, int, int]:
        """Sites leased from in the last ``seconds``, sites with queued
        requests now, and the sites of both (those that had work then)."""
        counts = [self._served(keys=[part.served, part.heads], args=[seconds]) for part in self.parts]
        served, waiting, either = (sum(int(count[n]) for count in counts) for n in range(3))
        return served, waiting, either

    def _sum(self, command: str, keys: Iterable[str]) -> int:
        """A count summed over the partitions: ``command`` (get, llen, hlen) of each key."""
        pipe = self.client.pipeline(transaction=False)
        for key in keys:
            getattr(pipe, command)(key)
        return sum(int(value or 0) for value in pipe.execute())

    def seen_count(self) -> int:
        """URLs ever queued (exactly so in exact mode; in bloom mode, less false positives)."""
        return self._sum("get", (part.seen_count for part in self.parts))

    def items_waiting(self) -> int:
        """Pages queued for the indexer."""
        return self._sum("llen", (part.items for part in self.parts))

    def items_key_for(self, url: str) -> str:
        """The item list of a page: its site's partition's."""
        return self.part(site_of(url)).items

    def leases(self, **options: Any) -> Leases:
        """The crawl's leases seen by a node (``node=`` a name for a look from outside)."""
        return Leases(self.client, self.name, self.queue_key, partitions=self.partitions, **options)

    def known(self, entries: Sequence[tuple[bytes, str]]) -> list[bool]:
        """Whether each ``(fingerprint, site)`` was queued before by any node
        of the crawl: read only, one round trip."""
        pipe = self.client.pipeline(transaction=False)
        counts = []
        for fp, site in entries:
            lookups = self._part_seen.lookups(self.part(site).seen_prefix, fp)
            for command in lookups:
                pipe.execute_command(*command)
            counts.append(len(lookups))
        answers = iter(pipe.execute() if entries else ())
        return [all([int(next(answers)) for _ in range(count)]) for count in counts]

    def content_seen(self, digest: bytes, url: str, near: int | None = None) -> str | None:
        """Record ``url``'s content; return the first other URL with the same,
        or (given its SimHash ``near``) nearly the same content."""
        args: list[bytes | str | int] = [digest, url]
        if near is not None and self.near_distance > 0:
            args += [f"{near:016x}", self.near_distance, *simhash_blocks(near, self.near_distance)]
        else:
            args += ["", 0]
        first = self._content(keys=[self.content_key, self.simhash_urls_key, self.simhash_blocks_key], args=args)
        return first.decode() if first else None

    def take_over_content(self, digest: bytes, first: str, url: str, near: int | None = None) -> str | None:
        """Give ``url`` the content (``digest``, SimHash ``near``) that
        ``first`` owns, if it still does: later copies are compared with
        ``url``. The owner found: ``first`` when it changed hands, else the
        URL another node gave it to (or ``url``, only a near copy)."""
        simhash = f"{near:016x}" if near is not None and self.near_distance > 0 else ""
        found = self._take_over(keys=[self.content_key, self.simhash_urls_key], args=[digest, first, url, simhash])
        return found.decode() if found else None

    def purged(self) -> list[str]:
        """Blacklist lines of the URLs ``python -m indexer purge`` removed while this crawl ran."""
        return [line.decode() for line in self.client.smembers(f"{self.name}:purged")]

    def set_soft404(self, site: str, signature: dict[str, Any]) -> None:
        """What ``site`` answers for a missing page ({} when it answers 404 properly)."""
        self.client.hset(f"{self.name}:soft404", site, json.dumps(signature))

    def soft404(self, site: str) -> dict[str, Any] | None:
        """The site's missing-page signature; None while nobody has probed it yet."""
        data = self.client.hget(f"{self.name}:soft404", site)
        return None if data is None else json.loads(data)

    def count_sites(self, taken: Mapping[str, int]) -> None:
        """Requests taken per site, for ``python -m crawler status`` (the sites
        with requests queued are the frontier's own: :meth:`sites_waiting`)."""
        now = time.time()
        pipe = self.client.pipeline(transaction=False)
        for site, count in taken.items():
            pipe.hincrby(f"{self.name}:stats:sites", site, count)
            pipe.hsetnx(f"{self.name}:stats:since", site, now)
        pipe.execute()

    def sites_with_work(self) -> int:
        """How many sites have requests queued."""
        return self._sum("hlen", (part.heads for part in self.parts))

    def sites_waiting(self) -> list[str]:
        """Sites with requests queued now (their turn come or to come)."""
        return [site.decode() for part in self.parts for site in self.client.hkeys(part.heads)]

    def site_counts(self) -> list[tuple[str, int, float]]:
        """``(site, requests taken, since when)``, busiest first."""
        counts = self.client.hgetall(f"{self.name}:stats:sites")
        since = self.client.hgetall(f"{self.name}:stats:since")
        rows = [(site.decode(), int(n), float(since.get(site, time.time()))) for site, n in counts.items()]
        return sorted(rows, key=lambda row: -row[1])

    def add_scope(self, hosts: Iterable[str]) -> None:
        hosts = list(hosts)
        if hosts:
            self.client.sadd(self.scope_key, *hosts)

    def scope(self) -> set[str]:
        return {host.decode() for host in self.client.smembers(self.scope_key)}

    def reset(self) -> int:
        """Delete every key of this crawl; returns how many were deleted."""
        return forget_crawl(self.client, self.name)


def contacted(frontier: Frontier, host: str, answered: bool) -> None:
    """Keep whether ``host`` ever answered (an answer is never unsaid)."""
    if answered:
        frontier.client.hset(frontier.answered_key, host, 1)
    else:
        frontier.client.hsetnx(frontier.answered_key, host, 0)


def drop_silent_hosts(frontier: Frontier, seeds: Sequence[str]) -> list[str]:
    """A crawl starting with ``seeds`` (host names; none: nothing changes)
    takes out of the scope the hosts that were tried and never answered,
    but its seeds' own: a mistyped seed host must not stay in scope once
    the seeds are corrected. (Not atomic: a host answering for the first
    time meanwhile, on another node, is dropped all the same; a seed of
    it brings it back.)"""
    if not seeds:
        return []
    answers = frontier.client.hgetall(frontier.answered_key)
    silent = {host.decode() for host, answered in answers.items() if answered == b"0"}
    dropped = sorted((silent & frontier.scope()) - set(seeds))
    if dropped:
        frontier.client.srem(frontier.scope_key, *dropped)
        logger.info("Out of the scope, as they never answered: %s", ", ".join(dropped))
    return dropped


def forget_crawl(client: Any, name: str = "web") -> int:
    """Delete every key of the crawl ``name`` (its frontier of any format);
    returns how many were deleted."""
    keys = list(client.scan_iter(match=f"{name}:*", count=1000))
    for start in range(0, len(keys), 1000):
        client.unlink(*keys[start : start + 1000])
    return len(keys)


QUEUED, SEEN, OVER_BUDGET = 1, 0, 2

"""Per-site queues and their turns: the key layout, the lease format, the shared Lua (pure).

The frontier keeps one queue per site (scheme, host and port), as Mercator's
back queues and Heritrix's per-host queues do, so that a node takes requests
only from sites whose turn has come, and one big or slow site can never fill
the crawl's request slots.  Under ``Q``, the queue key of one partition
(:mod:`crawler.partitions`), a site has a list per depth (:func:`list_key`),
the set of its depths (:func:`depths_key`) and its turn state
(:func:`site_key`); :class:`ScriptKeys` gives a script every key it touches,
:data:`LUA` holds the functions every frontier script starts with, and
:func:`parse_lease` reads a lease.  Each key: ARCHITECTURE.md, "Redis keys";
the turns and the leases: "The frontier".
"""

from __future__ import annotations

__all__ = ["site_key", "depths_key", "list_key", "parse_lease", "ScriptKeys", "LUA", "MAX_DEPTH_ORDER"]

# Ready scores are depth * 2^42 + the ms the site's turn came: lower depths
# first, then the longest waiting. Deeper than this counts as this deep, so
# the score stays an exact integer in a double until the year 2109.
MAX_DEPTH_ORDER = 2000


def site_key(queue_key: str, site: str) -> str:
    """The hash of a site's turn state.

    >>> site_key("web:requests", "http://a.test:80")
    'web:requests:{http://a.test:80}'
    """
    return f"{queue_key}:{{{site}}}"


def depths_key(queue_key: str, site: str) -> str:
    """The sorted set of the depths a site has requests queued at.

    >>> depths_key("web:requests", "http://a.test:80")
    'web:requests:{http://a.test:80}:depths'
    """
    return f"{site_key(queue_key, site)}:depths"


def list_key(queue_key: str, site: str, depth: int | str) -> str:
    """The list of a site's requests at one depth.

    >>> list_key("web:requests", "http://a.test:80", 2)
    'web:requests:{http://a.test:80}:2'
    """
    return f"{site_key(queue_key, site)}:{depth}"


def parse_lease(value: bytes) -> tuple[int, str, bytes]:
    """A leased request as the lease script holds it: its depth, its site and
    its JSON, apart.

    >>> parse_lease(b'2 http://a.test:80 {"u":"http://a.test/"}')
    (2, 'http://a.test:80', b'{"u":"http://a.test/"}')
    """
    depth, site, data = value.split(b" ", 2)
    return int(depth), site.decode(), data


class ScriptKeys:
    """The KEYS of a script call: crawl-wide keys first, then each site's keys
    once, with the 1-based places the script finds them at.

    A script is given every key it touches (the seen set's buckets aside,
    named by :mod:`crawler.seen`, in the same slot), which is why a lease is
    taken in two steps: which sites are ready, then the lease of those
    sites' requests, which checks again that each turn is still there.

    >>> keys = ScriptKeys("Q", ["Q:count"])
    >>> keys.site("s1", 0), keys.site("s1", 1), keys.site("s1", 0)
    ((2, 3), (5, 3), (2, 3))
    >>> keys.keys
    ['Q:count', 'Q:{s1}:0', 'Q:{s1}:depths', 'Q:{s1}', 'Q:{s1}:1']
    """

    def __init__(self, queue_key: str, keys: list[str]) -> None:
        self.queue_key = queue_key
        self.keys = list(keys)
        self._places: dict[str, int] = {}

    def place(self, key: str) -> int:
        if key not in self._places:
            self.keys.append(key)
            self._places[key] = len(self.keys)
        return self._places[key]

    def site(self, site: str, depth: int | str) -> tuple[int, int]:
        """The places of the site's list at ``depth`` and of its depth set
        (its state hash follows the depth set)."""
        listed = self.place(list_key(self.queue_key, site, depth))
        depths = depths_key(self.queue_key, site)
        if depths not in self._places:
            self.place(depths)
            self.place(site_key(self.queue_key, site))
        return listed, self._places[depths]


# Functions every script of the frontier starts with. ``g`` holds the
# crawl-wide keys the script was given: waiting, ready, heads. A site's state
# moves between ``waiting`` (queued work, turn to come), ``ready`` (turn come)
# and neither (no work, or as many requests in flight as
# CONCURRENT_REQUESTS_PER_DOMAIN: ``blocked`` until one is done).
LUA = """
local DEPTH_WEIGHT = 4398046511104
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function ready_score(depth, since)
  return math.min(tonumber(depth), MAX_DEPTH_ORDER) * DEPTH_WEIGHT + since
end
-- A site with work and room gets a turn (at its next time), unless it has one.
local function schedule(g, site, state)
  if redis.call('ZSCORE', g.ready, site) or redis.call('ZSCORE', g.waiting, site) then return end
  if redis.call('HEXISTS', state, 'blocked') == 1 then return end
  redis.call('ZADD', g.waiting, tonumber(redis.call('HGET', state, 'next') or '0'), site)
end
-- A request of ``depth`` joined the site's queue (its list already holds it).
local function queued_in(g, site, depth, depths, state)
  redis.call('ZADD', depths, depth, depth)
  local head = redis.call('HGET', g.heads, site)
  if not head or tonumber(depth) < tonumber(head) then
    redis.call('HSET', g.heads, site, depth)
    local score = redis.call('ZSCORE', g.ready, site)
    if score then
      redis.call('ZADD', g.ready, ready_score(depth, tonumber(score) % DEPTH_WEIGHT), site)
    end
  end
  schedule(g, site, state)
end
-- A leased request of the site is done (or given back): room for another.
local function released(g, site, state)
  if redis.call('HINCRBY', state, 'flight', -1) < 0 then redis.call('HSET', state, 'flight', 0) end
  redis.call('HDEL', state, 'blocked')
  if redis.call('HEXISTS', g.heads, site) == 1 then schedule(g, site, state) end
end
""".replace("MAX_DEPTH_ORDER", str(MAX_DEPTH_ORDER))

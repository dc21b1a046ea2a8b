"""Acknowledged requests and turns: what each crawl node takes, when, until it is done with it.

:class:`Leases` is one node's view of them.  :meth:`~Leases.take` leases
the node requests of the sites whose turn has come (:mod:`crawler.turns`)
and gives each site its next turn; :meth:`~Leases.done` releases what the
node has processed, :meth:`~Leases.give_back` returns what it will not;
:meth:`~Leases.announce` keeps its leases its own while it lives, and
:meth:`~Leases.reap` returns those of nodes that stopped announcing
themselves.  Each change is one Lua script.  :func:`node_name` names a
node.  Design: ARCHITECTURE.md, "The frontier"; every key: "Redis keys".
"""

from __future__ import annotations

import json
import os
import random
import socket
import time
import uuid
from collections.abc import Iterable
from typing import Any

from crawler import settings as defaults
from crawler.connection import piped
from crawler.partitions import Partitions
from crawler.turns import LUA, depths_key, list_key, parse_lease, site_key

__all__ = ["Leases", "node_name"]

# KEYS: waiting, ready, heads; ARGV: how many sites. Sites whose turn has
# come move from waiting to ready; returns the ms until the next turn to
# come (-1: none), then up to that many ready sites and their lowest depths.
_DUE = (
    LUA
    + """
local g = {waiting = KEYS[1], ready = KEYS[2], heads = KEYS[3]}
local now = now_ms()
local due = redis.call('ZRANGEBYSCORE', g.waiting, '-inf', now, 'WITHSCORES', 'LIMIT', 0, 500)
if #due > 0 then
  local gone, adds = {}, {}
  for i = 1, #due, 2 do
    gone[#gone + 1] = due[i]
    local depth = redis.call('HGET', g.heads, due[i])
    if depth then
      adds[#adds + 1] = ready_score(depth, tonumber(due[i + 1]))
      adds[#adds + 1] = due[i]
    end
  end
  redis.call('ZREM', g.waiting, unpack(gone))
  if #adds > 0 then redis.call('ZADD', g.ready, unpack(adds)) end
end
local out = {-1}
local next_turn = redis.call('ZRANGE', g.waiting, 0, 0, 'WITHSCORES')
if next_turn[2] then out[1] = math.max(0, tonumber(next_turn[2]) - now) end
for _, site in ipairs(redis.call('ZRANGE', g.ready, 0, tonumber(ARGV[1]) - 1)) do
  local depth = redis.call('HGET', g.heads, site)
  if depth then
    out[#out + 1] = site
    out[#out + 1] = depth
  else
    redis.call('ZREM', g.ready, site)
  end
end
return out
"""
)

# KEYS: ready, waiting, heads, requests count, served, the node's lease
# hash, the lease id counter, then per site: its state, depth set, and list
# at the depth given; ARGV: default delay ms, jitter, places per site, how
# many requests, then per site: site, depth, a random number in [0, 1).
# Takes from each site still ready, gives it its next turn, and returns
# id, site, data, id, site, data...
_TAKE = (
    LUA
    + """
local g = {ready = KEYS[1], waiting = KEYS[2], heads = KEYS[3]}
local now = now_ms()
local default, jitter = tonumber(ARGV[1]), tonumber(ARGV[2])
local cap, want = math.max(1, tonumber(ARGV[3])), tonumber(ARGV[4])
local taken, k = {}, 8
for i = 5, #ARGV, 3 do
  local site, depth, r = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  local state, depths, list = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  k = k + 3
  if #taken < want and redis.call('ZREM', g.ready, site) == 1 then
    local flight = tonumber(redis.call('HGET', state, 'flight') or '0')
    if flight < cap then
      local delay = math.max(default, tonumber(redis.call('HGET', state, 'delay') or '0'))
      local room = 1
      if delay <= 0 then room = math.min(cap - flight, want - #taken) end
      local got = redis.call('LPOP', list, room)
      if got then
        for _, data in ipairs(got) do taken[#taken + 1] = {site, depth, data} end
        flight = flight + #got
        redis.call('HSET', state, 'flight', flight, 'next', now + math.floor(delay * (1 + jitter * r)))
        redis.call('INCRBY', KEYS[4], -#got)
        redis.call('ZADD', KEYS[5], now, site)
      end
      if redis.call('LLEN', list) == 0 then redis.call('ZREM', depths, depth) end
      local head = redis.call('ZRANGE', depths, 0, 0)[1]
      if head then
        redis.call('HSET', g.heads, site, head)
      else
        redis.call('HDEL', g.heads, site)
      end
    end
    if flight >= cap then
      redis.call('HSET', state, 'blocked', 1)
    elseif redis.call('HEXISTS', g.heads, site) == 1 then
      redis.call('ZADD', g.waiting, tonumber(redis.call('HGET', state, 'next') or '0'), site)
    end
  end
end
local out = {}
if #taken > 0 then
  local first = redis.call('INCRBY', KEYS[7], #taken) - #taken
  local leases = {}
  for n, t in ipairs(taken) do
    out[#out + 1] = first + n
    out[#out + 1] = t[1]
    out[#out + 1] = t[3]
    leases[#leases + 1] = first + n
    leases[#leases + 1] = t[2] .. ' ' .. t[1] .. ' ' .. t[3]
  end
  redis.call('HSET', KEYS[6], unpack(leases))
end
return out
"""
)

# KEYS: the node's lease hash, waiting, ready, heads, then each lease's site
# state; ARGV: lease id and site, for each. Finished leases: their sites
# have room for another request.
_DONE = (
    LUA
    + """
local g = {waiting = KEYS[2], ready = KEYS[3], heads = KEYS[4]}
local n = 0
for i = 1, #ARGV, 2 do
  if redis.call('HDEL', KEYS[1], ARGV[i]) == 1 then
    released(g, ARGV[i + 1], KEYS[4 + (i + 1) / 2])
    n = n + 1
  end
end
return n
"""
)

# KEYS: a node's lease hash, its announcement, the node set, waiting,
# ready, heads, requests count, then per lease: its list, its depth set
# and its site's state; ARGV: 1 to reap (only if the node's announcement
# expired; then the node is forgotten), the node, then per lease, oldest
# first: id, site, depth. Requests go back to the front of their queues in
# the order they were taken; returns how many.
_RETURN = (
    LUA
    + """
local g = {waiting = KEYS[4], ready = KEYS[5], heads = KEYS[6]}
local reap = ARGV[1] == '1'
if reap and redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local n = 0
for e = (#ARGV - 2) / 3, 1, -1 do
  local i, k = 3 + (e - 1) * 3, 8 + (e - 1) * 3
  local id, site, depth = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local value = redis.call('HGET', KEYS[1], id)
  if value then
    redis.call('HDEL', KEYS[1], id)
    redis.call('LPUSH', KEYS[k], string.sub(value, #depth + #site + 3))
    redis.call('INCR', KEYS[7])
    released(g, site, KEYS[k + 2])
    queued_in(g, site, depth, KEYS[k + 1], KEYS[k + 2])
    n = n + 1
  end
end
if reap then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[3], ARGV[2])
end
return n
"""
)


def node_name() -> str:
    """A name for this crawl process, unique among the crawl's nodes.

    >>> len(node_name().split(":"))
    3
    """
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class _Keys:
    """One partition's keys of the leases and turns (:mod:`crawler.partitions`):
    untagged, on one server with one partition, the names of old.

    >>> keys = _Keys(Partitions(), 0, "web", "web:requests")
    >>> keys.nodes, keys.node_prefix, keys.lease_prefix, keys.counter, keys.ready
    ('web:nodes', 'web:node:', 'web:leases:', 'web:lease:seq', 'web:requests:ready')
    """

    def __init__(self, partitions: Partitions, partition: int, name: str, queue_key: str) -> None:
        self.partition = partition
        self.queue = partitions.key(queue_key, partition)
        self.nodes = partitions.key(f"{name}:nodes", partition)
        self.node_prefix = partitions.key(f"{name}:node", partition) + ":"
        self.lease_prefix = partitions.key(f"{name}:leases", partition) + ":"
        self.counter = partitions.key(f"{name}:lease:seq", partition)
        self.waiting = f"{self.queue}:waiting"
        self.ready = f"{self.queue}:ready"
        self.heads = f"{self.queue}:heads"


class Leases:
    """One node's view of the crawl's leases, turns and nodes.

    ``delay`` (seconds), ``jitter`` and ``per_site`` are the crawl's
    ``DOWNLOAD_DELAY``, ``POLITENESS_JITTER`` and
    ``CONCURRENT_REQUESTS_PER_DOMAIN``: every node of a crawl should use the
    same. After :meth:`take`, :attr:`next_turn` is the seconds until the
    next site's turn comes (None when no site waits for one).

    With several partitions (a Redis Cluster) each has its own leases, turns
    and node announcements, so that every script touches one slot; a node
    announces itself in each, and also crawl-wide (``web:nodes``,
    ``web:node:<node>``: what ``python -m crawler status`` and the indexer
    read). A lease id tells its partition: ``id % partitions``. A node asks
    each partition for its ready sites in turn, and a partition that had
    none is asked again after the next turn it named, or after ``quiet``
    seconds, unless this node queued or finished requests there meanwhile
    (work that other nodes queue there waits that long at most).
    """

    def __init__(
        self,
        client: Any,
        name: str,
        queue_key: str,
        node: str | None = None,
        lease_seconds: float = defaults.FRONTIER_LEASE_SECONDS,
        delay: float = 0.0,
        jitter: float = 0.0,
        per_site: int = 1,
        partitions: Partitions | None = None,
        quiet: float = 1.0,
    ) -> None:
        self.client = client
        self.node = node or node_name()
        self.lease_seconds = lease_seconds
        self.delay = delay
        self.jitter = jitter
        self.per_site = per_site
        self.queue_key = queue_key
        self.partitions = partitions or Partitions()
        self.parts = [_Keys(self.partitions, n, name, queue_key) for n in self.partitions]
        self.nodes_key = f"{name}:nodes"
        self.node_prefix = f"{name}:node:"
        self.quiet = quiet
        self.next_turn: float | None = None
        self._held: dict[int, tuple[str, int]] = {}  # lease -> site, depth
        self._asleep_until = [0.0] * self.partitions.count  # monotonic time a quiet partition is asked again
        self._first = 0  # the partition asked first in the next take
        self._due = client.register_script(_DUE)
        self._take = client.register_script(_TAKE)
        self._done = client.register_script(_DONE)
        self._return = client.register_script(_RETURN)

    def announce(self, info: dict[str, Any]) -> None:
        """This node is alive (its leases stay its own) for ``lease_seconds`` more."""
        value = json.dumps({**info, "seen": time.time()})
        pipe = self.client.pipeline(transaction=not self.partitions.tagged)
        pipe.sadd(self.nodes_key, self.node)
        pipe.set(self.node_prefix + self.node, value, px=int(self.lease_seconds * 1000))
        if self.partitions.tagged:
            for part in self.parts:
                pipe.sadd(part.nodes, self.node)
                pipe.set(part.node_prefix + self.node, value, px=int(self.lease_seconds * 1000))
        pipe.execute()

    def wake(self, partitions: Iterable[int]) -> None:
        """Ask these partitions at the next take (this node changed them)."""
        for partition in partitions:
            self._asleep_until[partition] = 0.0

    def take(self, count: int) -> list[tuple[int, bytes]]:
        """Up to ``count`` requests of sites whose turn has come, leased to this node."""
        ready: list[tuple[int, int, _Keys, str, str]] = []  # depth, order asked, partition, site, depth
        turns = []
        now = time.monotonic()
        total = self.partitions.count
        for order in range(total):
            part = self.parts[(self._first + order) % total]
            if total > 1 and self._asleep_until[part.partition] > now:
                turns.append(self._asleep_until[part.partition] - now)
                continue
            due = self._due(keys=[part.waiting, part.ready, part.heads], args=[count])
            wait = int(due[0]) / 1000
            if wait >= 0:
                turns.append(wait)
            if len(due) == 1:
                self._asleep_until[part.partition] = now + min(wait if wait >= 0 else self.quiet, self.quiet)
            for i in range(1, len(due), 2):
                ready.append((int(due[i + 1]), order, part, due[i].decode(), due[i + 1].decode()))
        self._first = (self._first + 1) % total
        self.next_turn = min(turns) if turns else None
        ready.sort(key=lambda entry: entry[:2])  # lower depths first, over every partition
        by_part: dict[int, list[tuple[str, str]]] = {}
        for _, _, part, site, depth in ready[:count]:
            by_part.setdefault(part.partition, []).append((site, depth))
        taken: list[tuple[int, bytes]] = []
        for partition, sites in by_part.items():
            if len(taken) < count:
                taken += self._take_from(self.parts[partition], sites, count - len(taken))
        if taken:
            self.next_turn = 0.0
        return taken

    def _take_from(self, part: _Keys, sites: list[tuple[str, str]], count: int) -> list[tuple[int, bytes]]:
        keys = [
            part.ready,
            part.waiting,
            part.heads,
            f"{part.queue}:count",
            f"{part.queue}:served",
            part.lease_prefix + self.node,
            part.counter,
        ]
        args: list[Any] = [int(self.delay * 1000), self.jitter, self.per_site, count]
        for site, depth in sites:
            keys += [site_key(part.queue, site), depths_key(part.queue, site), list_key(part.queue, site, depth)]
            args += [site, depth, random.random()]
        flat = self._take(keys=keys, args=args)
        taken = []
        for i in range(0, len(flat), 3):
            lease = int(flat[i]) * self.partitions.count + part.partition
            data = flat[i + 2]
            self._held[lease] = (flat[i + 1].decode(), int(json.loads(data).get("d", 0)))
            taken.append((lease, data))
        return taken

    def _by_part(self, ids: Iterable[int]) -> dict[int, list[tuple[int, str, int]]]:
        """This node's held leases among ``ids`` by partition: (id in the
        partition, site, depth), oldest first."""
        found: dict[int, list[tuple[int, str, int]]] = {}
        for lease in sorted(set(ids)):
            if lease in self._held:
                partition = lease % self.partitions.count
                found.setdefault(partition, []).append((lease // self.partitions.count, *self._held[lease]))
        return found

    def give_back(self, ids: Iterable[int]) -> int:
        """Leased requests this node will not process: back to the front of their sites' queues."""
        ids = list(ids)
        given = sum(
            self._give(self.parts[partition], self.node, leases, reap=False)
            for partition, leases in self._by_part(ids).items()
        )
        self.forget(ids)
        return given

    def _give(self, part: _Keys, node: str, leases: list[tuple[int, str, int]], reap: bool) -> int:
        """Run the give-back script for ``(lease, site, depth)`` entries, oldest first."""
        if not leases and not reap:
            return 0
        keys = [
            f"{part.lease_prefix}{node}",
            part.node_prefix + node,
            part.nodes,
            part.waiting,
            part.ready,
            part.heads,
            f"{part.queue}:count",
        ]
        args: list[Any] = [1 if reap else 0, node]
        for lease, site, depth in leases:
            keys += [list_key(part.queue, site, depth), depths_key(part.queue, site), site_key(part.queue, site)]
            args += [lease, site, depth]
        return int(self._return(keys=keys, args=args))

    def reclaim(self) -> int:
        """Requests leased to this node that it never received: back to the
        front of their sites' queues.

        A lease script's reply can be lost after Redis ran it (Redis stopped
        or the connection cut mid-reply; a client retrying the call leases a
        second batch). The node then holds leases it knows nothing of, and,
        being alive, nobody reaps them: the crawl would wait for them for
        ever. Called when the node is idle (nothing taken, nothing in flight).
        """
        count = self.partitions.count
        given = 0
        for part in self.parts:
            orphans = [
                entry
                for entry in self._leases_of(part, self.node)
                if entry[0] * count + part.partition not in self._held
            ]
            given += self._give(part, self.node, orphans, reap=False)
        return given

    def done_command(self, pipe: Any, ids: Iterable[int]) -> None:
        """Add the release of finished leases to ``pipe`` (after what they
        produced; a pipeline of one server); :meth:`forget` them once it has run."""
        for partition, leases in self._by_part(ids).items():
            self._done_call(self.parts[partition], leases, pipe)

    def done(self, ids: Iterable[int]) -> None:
        """Release finished leases now (a script call per partition), then forget them."""
        ids = list(ids)
        for partition, leases in self._by_part(ids).items():
            self._done_call(self.parts[partition], leases)
        self.forget(ids)

    def _done_call(self, part: _Keys, leases: list[tuple[int, str, int]], pipe: Any = None) -> None:
        self._asleep_until[part.partition] = 0.0  # a site may have room again
        keys = [part.lease_prefix + self.node, part.waiting, part.ready, part.heads]
        keys += [site_key(part.queue, site) for _, site, _ in leases]
        args = [value for lease, site, _ in leases for value in (lease, site)]
        if pipe is not None:
            piped(pipe, self._done, keys, args)
        else:
            self._done(keys=keys, args=args)

    def forget(self, ids: Iterable[int]) -> None:
        for lease in ids:
            self._held.pop(lease, None)

    def reap(self) -> int:
        """Give back the requests of nodes that stopped announcing themselves."""
        moved = 0
        for part, node in self._silent([(part.nodes, part.node_prefix, part) for part in self.parts]):
            moved += self._give(part, node, self._leases_of(part, node), reap=True)
        if self.partitions.tagged:
            for _, node in self._silent([(self.nodes_key, self.node_prefix, None)]):
                self.client.srem(self.nodes_key, node)
        return moved

    def _silent(self, sets: list[tuple[str, str, Any]]) -> list[tuple[Any, str]]:
        """``(what, node)`` for each node of each ``(node set, announcement
        prefix, what)`` whose announcement has expired: two round trips."""
        pipe = self.client.pipeline(transaction=False)
        for nodes, _, _ in sets:
            pipe.smembers(nodes)
        members = [
            (what, prefix, raw.decode())
            for (_, prefix, what), found in zip(sets, pipe.execute(), strict=False)
            for raw in sorted(found)
        ]
        if not members:
            return []
        pipe = self.client.pipeline(transaction=False)
        for _, prefix, node in members:
            pipe.exists(prefix + node)
        return [(what, node) for (what, _, node), alive in zip(members, pipe.execute(), strict=False) if not alive]

    def _leases_of(self, part: _Keys, node: str) -> list[tuple[int, str, int]]:
        leases = []
        for lease, value in self.client.hgetall(f"{part.lease_prefix}{node}").items():
            depth, site, _ = parse_lease(value)
            leases.append((int(lease), site, depth))
        return sorted(leases)

    def _leased(self, nodes: Iterable[str]) -> list[int]:
        """Leases held by each node, over every partition."""
        nodes = list(nodes)
        if not nodes:
            return []
        pipe = self.client.pipeline(transaction=False)
        for node in nodes:
            for part in self.parts:
                pipe.hlen(part.lease_prefix + node)
        counts = pipe.execute()
        width = len(self.parts)
        return [sum(counts[n * width : (n + 1) * width]) for n in range(len(nodes))]

    def held(self) -> int:
        """Requests leased by any node now."""
        nodes = {raw.decode() for part in self.parts for raw in self.client.smembers(part.nodes)}
        return sum(self._leased(sorted(nodes)))

    def leave(self) -> int:
        """This node stops: anything it still holds goes back, and it is forgotten."""
        given = sum(self._give(part, self.node, self._leases_of(part, self.node), reap=False) for part in self.parts)
        self._held.clear()
        pipe = self.client.pipeline(transaction=not self.partitions.tagged)
        pipe.delete(self.node_prefix + self.node)
        pipe.srem(self.nodes_key, self.node)
        if self.partitions.tagged:
            for part in self.parts:
                pipe.delete(part.node_prefix + self.node)
                pipe.srem(part.nodes, self.node)
        pipe.execute()
        return given

    def nodes(self) -> dict[str, dict[str, Any]]:
        """Every known node: its announcement (None if expired) and leases held."""
        names = sorted(raw.decode() for raw in self.client.smembers(self.nodes_key))
        found: dict[str, dict[str, Any]] = {}
        for node, leases in zip(names, self._leased(names), strict=False):
            info = self.client.get(self.node_prefix + node)
            found[node] = {**(json.loads(info) if info else {"expired": True}), "leases": leases}
        return found

"""Acknowledged requests: what each crawl node has taken, until it is done with it.

A node that takes requests from the queue holds them under a lease in Redis
(``web:leases:<node>``, request data by lease id) until it has processed
their responses: the links they led to are queued and their items pushed.
Each node announces itself every few seconds (``web:node:<node>``, a key that
expires after ``FRONTIER_LEASE_SECONDS``); the requests of a node whose key
has expired (it was killed, or lost its network) are put back in the queue by
whichever node notices first. So after ``kill -9`` of any node, at any
moment, every URL is still fetched; only the killed node's requests in
flight are fetched twice.

All changes are single Lua scripts: taking a batch and leasing it, giving
requests back, and reaping a dead node's leases are atomic, whatever the
other nodes do meanwhile.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from collections.abc import Iterable
from typing import Any

import redis

__all__ = ["Leases", "node_name"]

# KEYS: depth index, the node's lease hash, the lease id counter;
# ARGV: queue key prefix, how many. Returns id, data, id, data...
# The batch is leased with one id increment and one HSET.
_TAKE = """
local taken = {}
local want = tonumber(ARGV[2])
while #taken < want do
  local depth = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if not depth then break end
  local key = ARGV[1] .. depth
  local asked = want - #taken
  local got = redis.call('LPOP', key, asked)
  if got then
    for _, data in ipairs(got) do taken[#taken + 1] = data end
  end
  if not got or #got < asked or redis.call('LLEN', key) == 0 then
    redis.call('ZREM', KEYS[1], depth)
  end
end
local out = {}
if #taken > 0 then
  local first = redis.call('INCRBY', KEYS[3], #taken) - #taken
  local leases = {}
  for n, data in ipairs(taken) do
    out[#out + 1] = first + n
    out[#out + 1] = data
    leases[#leases + 1] = first + n
    leases[#leases + 1] = data
  end
  redis.call('HSET', KEYS[2], unpack(leases))
end
return out
"""

# KEYS: the node's lease hash, depth index; ARGV: queue key prefix, lease ids.
# Requests given back go to the front of their depth, in their order.
_GIVE_BACK = """
local n = 0
for i = #ARGV, 2, -1 do
  local data = redis.call('HGET', KEYS[1], ARGV[i])
  if data then
    local depth = cjson.decode(data)['d'] or 0
    redis.call('LPUSH', ARGV[1] .. depth, data)
    redis.call('ZADD', KEYS[2], depth, depth)
    redis.call('HDEL', KEYS[1], ARGV[i])
    n = n + 1
  end
end
return n
"""

# KEYS: the node set, depth index; ARGV: node key prefix, lease key prefix,
# queue key prefix. Every node whose key expired: its leases back in the queue.
_REAP = """
local moved = 0
for _, node in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', ARGV[1] .. node) == 0 then
    local leases = ARGV[2] .. node
    local all = redis.call('HGETALL', leases)
    local ids = {}
    for i = 1, #all, 2 do ids[#ids + 1] = {tonumber(all[i]), all[i + 1]} end
    -- Newest first to the front: the oldest ends up first, as it was taken.
    table.sort(ids, function(x, y) return x[1] > y[1] end)
    for _, lease in ipairs(ids) do
      local depth = cjson.decode(lease[2])['d'] or 0
      redis.call('LPUSH', ARGV[3] .. depth, lease[2])
      redis.call('ZADD', KEYS[2], depth, depth)
      moved = moved + 1
    end
    redis.call('DEL', leases)
    redis.call('SREM', KEYS[1], node)
  end
end
return moved
"""

# KEYS: the node set; ARGV: lease key prefix. Leases held by all nodes.
_HELD = """
local n = 0
for _, node in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  n = n + redis.call('HLEN', ARGV[1] .. node)
end
return n
"""


def node_name() -> str:
    """A name for this crawl process, unique among the crawl's nodes.

    >>> len(node_name().split(":"))
    3
    """
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class Leases:
    """One node's view of the crawl's leases and nodes."""

    def __init__(
        self,
        client: redis.Redis,
        name: str,
        queue_key: str,
        node: str | None = None,
        lease_seconds: float = 30.0,
    ) -> None:
        self.client = client
        self.node = node or node_name()
        self.lease_seconds = lease_seconds
        self.queue_key = queue_key
        self.nodes_key = f"{name}:nodes"
        self.node_prefix = f"{name}:node:"
        self.lease_prefix = f"{name}:leases:"
        self.mine = f"{self.lease_prefix}{self.node}"
        self.counter = f"{name}:lease:seq"
        self._take = client.register_script(_TAKE)
        self._give_back = client.register_script(_GIVE_BACK)
        self._reap = client.register_script(_REAP)
        self._held = client.register_script(_HELD)

    def announce(self, info: dict[str, Any]) -> None:
        """This node is alive (its leases stay its own) for ``lease_seconds`` more."""
        pipe = self.client.pipeline(transaction=True)
        pipe.sadd(self.nodes_key, self.node)
        pipe.set(self.node_prefix + self.node, json.dumps({**info, "seen": time.time()}),
                 px=int(self.lease_seconds * 1000))
        pipe.execute()

    def take(self, count: int) -> list[tuple[int, bytes]]:
        """Up to ``count`` requests, lowest depth first, leased to this node."""
        flat = self._take(keys=[self.queue_key, self.mine, self.counter],
                          args=[self.queue_key + ":", count])
        return [(int(flat[i]), flat[i + 1]) for i in range(0, len(flat), 2)]

    def give_back(self, ids: Iterable[int]) -> int:
        """Leased requests this node will not process: back to the front of the queue."""
        ids = list(ids)
        if not ids:
            return 0
        return int(self._give_back(keys=[self.mine, self.queue_key], args=[self.queue_key + ":", *ids]))

    def done_command(self, pipe: Any, ids: Iterable[int]) -> None:
        """Add the release of finished leases to ``pipe`` (after what they produced)."""
        ids = list(ids)
        if ids:
            pipe.hdel(self.mine, *ids)

    def reap(self) -> int:
        """Give back the requests of nodes that stopped announcing themselves."""
        return int(self._reap(keys=[self.nodes_key, self.queue_key],
                              args=[self.node_prefix, self.lease_prefix, self.queue_key + ":"]))

    def held(self) -> int:
        """Requests leased by any node now."""
        return int(self._held(keys=[self.nodes_key], args=[self.lease_prefix]))

    def leave(self) -> int:
        """This node stops: anything it still holds goes back, and it is forgotten."""
        remaining = [int(lease) for lease in self.client.hkeys(self.mine)]
        given = self.give_back(remaining)
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(self.node_prefix + self.node)
        pipe.srem(self.nodes_key, self.node)
        pipe.execute()
        return given

    def nodes(self) -> dict[str, dict[str, Any]]:
        """Every known node: its announcement (None if expired) and leases held."""
        found: dict[str, dict[str, Any]] = {}
        for raw in sorted(self.client.smembers(self.nodes_key)):
            node = raw.decode()
            info = self.client.get(self.node_prefix + node)
            found[node] = {
                **(json.loads(info) if info else {"expired": True}),
                "leases": int(self.client.hlen(self.lease_prefix + node)),
            }
        return found

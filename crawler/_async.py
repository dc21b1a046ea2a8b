"""Small helpers for code running in the crawl's event loop."""

from __future__ import annotations

import redis
from scrapy.utils.asyncio import call_later
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import defer

__all__ = ["sleep", "REDIS_DOWN"]

# What a Redis client raises while the server restarts or the network is cut
# (on a cluster also: a master is down, its slots are moving, no node
# answers): a reason to wait and retry, never to drop work.
REDIS_DOWN = (
    redis.ConnectionError,
    redis.TimeoutError,
    redis.BusyLoadingError,
    OSError,
    redis.exceptions.ClusterError,
    redis.exceptions.TryAgainError,
    redis.exceptions.RedisClusterException,
)


async def sleep(seconds: float) -> None:
    """Wait without blocking the event loop (asyncio or plain Twisted reactor)."""
    done: defer.Deferred[None] = defer.Deferred()
    call_later(seconds, done.callback, None)
    await maybe_deferred_to_future(done)

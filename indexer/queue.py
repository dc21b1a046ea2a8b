"""The Redis item queue, read by one indexer with acknowledgement.

On a Redis Cluster the queue is one list per frontier partition
(``web:items:{p3}``, a page in its site's: :mod:`crawler.partitions`), so
no shard holds every page; the indexer reads them in turn.

Items are read without being removed (``LRANGE`` from an offset) and removed
only after the index has committed them (``LTRIM``): an indexer killed at any
moment loses nothing and, restarted, indexes at most one batch again, which
is harmless because documents are keyed by URL. One consumer at a time is
enforced with a lease key, so a second indexer fails fast with a clear error
instead of indexing the same items twice.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid

import redis

from crawler.connection import partitions_of
from crawler.items import Item, NotAnItem, decode_item

logger = logging.getLogger(__name__)

__all__ = ["ItemQueue", "QueueBusy"]

_LEASE_SECONDS = 15


class QueueBusy(RuntimeError):
    """Another indexer is draining this queue."""


class ItemQueue:
    def __init__(self, client: redis.Redis, key: str = "web:items") -> None:
        self.client = client
        self.key = key
        partitions = partitions_of(client, key.rsplit(":", 1)[0])
        self.keys = [partitions.key(key, partition) for partition in partitions]
        self.lease_key = f"{key}:consumer"
        self.me = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._taken = dict.fromkeys(self.keys, 0)
        self._next = 0  # the list read first by the next take

    def acquire(self, wait: float = _LEASE_SECONDS + 5) -> None:
        """Become the queue's only consumer, or raise QueueBusy.

        An indexer that was killed leaves its claim behind for up to
        ``_LEASE_SECONDS``: wait that long for it to lapse before giving up.
        """
        deadline = time.monotonic() + wait
        announced = False
        while not self.client.set(self.lease_key, self.me, nx=True, ex=_LEASE_SECONDS):
            reply = self.client.get(self.lease_key)
            owner = reply.decode() if isinstance(reply, bytes) else reply
            if owner is None or owner == self.me:
                continue
            if time.monotonic() >= deadline:
                raise QueueBusy(f"another indexer ({owner}) is draining {self.key}; only one may run at a time")
            if not announced:
                logger.info(
                    "Another indexer (%s) holds %s; waiting up to %.0f s for its claim to lapse", owner, self.key, wait
                )
                announced = True
            time.sleep(0.5)
        self.renew()

    def renew(self) -> None:
        self.client.set(self.lease_key, self.me, ex=_LEASE_SECONDS)

    def release(self) -> None:
        if self.client.get(self.lease_key) == self.me.encode():
            self.client.delete(self.lease_key)

    def take(self, count: int) -> list[Item]:
        """The next ``count`` items after those taken but not yet acknowledged."""
        raw: list[bytes | str] = []
        taken: dict[str, int] = {}
        turn = self._next
        for _ in self.keys:
            key = self.keys[turn]
            turn = (turn + 1) % len(self.keys)
            got = self.client.lrange(key, self._taken[key], self._taken[key] + count - len(raw) - 1)
            taken[key] = len(got)
            raw += got
            if len(raw) >= count:
                break
        # Counted only once every list has answered: a read that fails half
        # way (Redis went away) takes nothing, rather than items never indexed.
        self._next = turn
        for key, got_here in taken.items():
            self._taken[key] += got_here
        items = []
        for data in raw:
            try:
                items.append(decode_item(data))
            except NotAnItem as exc:
                logger.error("Skipping %s: %r", exc, data[:200])
        return items

    def ack(self) -> None:
        """Everything taken so far is committed: remove it from the queue."""
        for key, taken in self._taken.items():
            if taken:
                self.client.ltrim(key, taken, -1)
                self._taken[key] = 0
        self.renew()

    @property
    def pending(self) -> int:
        """Items taken but not acknowledged."""
        return sum(self._taken.values())

    def __len__(self) -> int:
        """Items in Redis not yet taken by this consumer."""
        return max(0, sum(int(self.client.llen(key)) for key in self.keys) - self.pending)

"""The Redis item queue, read by one indexer with acknowledgement.

On a Redis Cluster the queue is one list per frontier partition
(``web:items:{p3}``, a page in its site's: :mod:`crawler.partitions`), so
no shard holds every page; the indexer reads them in turn. An indexer
may drain only some of them (``partitions``: its share,
:mod:`indexer.share`), so several indexers drain one crawl at once.

Items are read without being removed (``LRANGE`` from an offset) and removed
only after the index has committed them (``LTRIM``): an indexer killed at any
moment loses nothing and, restarted, indexes at most one batch again, which
is harmless because documents are keyed by URL. One consumer of each list
at a time is enforced with a lease key per partition
(``web:items[:{t}]:consumer``), claimed in ascending order (two indexers
wanting the same partitions never hold half each), so a second indexer
fails with a clear error instead of indexing the same items twice.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Collection

import redis

from crawler.connection import partitions_of
from crawler.items import Item, NotAnItem, decode_item

logger = logging.getLogger(__name__)

__all__ = ["ItemQueue", "QueueBusy"]

_LEASE_SECONDS = 15


class QueueBusy(RuntimeError):
    """Another indexer is draining this queue."""


class ItemQueue:
    def __init__(self, client: redis.Redis, key: str = "web:items", partitions: Collection[int] | None = None) -> None:
        """The item lists of ``partitions`` (None: every partition the crawl's frontier has)."""
        self.client = client
        self.key = key
        frontier = partitions_of(client, key.rsplit(":", 1)[0])
        self.partitions = sorted(frontier if partitions is None else partitions)
        self.keys = [frontier.key(key, partition) for partition in self.partitions]
        self.lease_keys = [f"{list_key}:consumer" for list_key in self.keys]
        self._of = f"{key} (partition {{}} of {frontier.count})" if frontier.count > 1 else key
        self.me = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._taken = dict.fromkeys(self.keys, 0)
        self._next = 0  # the list read first by the next take

    def acquire(self, wait: float = _LEASE_SECONDS + 5) -> None:
        """Become the only consumer of this queue's lists, or raise QueueBusy.

        An indexer that was killed leaves its claim behind for up to
        ``_LEASE_SECONDS``: wait that long for it to lapse before giving up,
        unless the claim's indexer runs on this machine (then it is alive,
        and this one gives up at once). What was claimed is let go on failure.
        """
        deadline = time.monotonic() + wait
        try:
            for partition, lease_key in zip(self.partitions, self.lease_keys, strict=True):
                self._claim(lease_key, self._of.format(partition), deadline, wait)
        except BaseException:
            self.release()
            raise
        self.renew()

    def _claim(self, lease_key: str, what: str, deadline: float, wait: float) -> None:
        announced = False
        while not self.client.set(lease_key, self.me, nx=True, ex=_LEASE_SECONDS):
            reply = self.client.get(lease_key)
            owner = reply.decode() if isinstance(reply, bytes) else reply
            if owner is None or owner == self.me:
                continue
            if time.monotonic() >= deadline or _alive_here(owner):
                raise QueueBusy(f"another indexer ({owner}) is draining {what}; only one may run at a time")
            if not announced:
                logger.info(
                    "Another indexer (%s) holds %s; waiting up to %.0f s for its claim to lapse", owner, what, wait
                )
                announced = True
            time.sleep(0.5)

    def renew(self) -> None:
        for lease_key in self.lease_keys:
            self.client.set(lease_key, self.me, ex=_LEASE_SECONDS)

    def release(self) -> None:
        for lease_key in self.lease_keys:
            if self.client.get(lease_key) == self.me.encode():
                self.client.delete(lease_key)

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


def _alive_here(owner: str) -> bool:
    """Whether a claim's owner (``host:pid:nonce``) is a running process of this machine.

    >>> _alive_here(f"{socket.gethostname()}:{os.getpid()}:x"), _alive_here("elsewhere.test:1:x")
    (True, False)
    """
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: running
        return True
    return True

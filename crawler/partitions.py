"""The frontier's partitions: which part of Redis holds a site (pure).

On one Redis server the frontier is one partition, its keys named as they
always were; on a Redis Cluster it is ``FRONTIER_PARTITIONS`` partitions,
each a complete frontier whose keys share one hash tag
(``web:requests:{p3}:...``), so that every script touches one slot.
:class:`Partitions` says which partition holds a site (a stable hash of its
name) and names its keys; :func:`slot` and :func:`key_slot` are Redis
Cluster's hash slots.  Design: ARCHITECTURE.md, "The crawl", On a Redis
Cluster.

>>> parts = Partitions(4, tagged=True)
>>> parts.key("web:requests", parts.of("http://a.test:80"))
'web:requests:{p1.3}'
>>> [slot(parts.tag(p)) * 4 // SLOTS for p in range(4)]
[0, 1, 2, 3]
>>> Partitions().key("web:requests", 0)  # one server: the names of old
'web:requests'
"""

from __future__ import annotations

import binascii
import functools
import hashlib
import itertools
from dataclasses import dataclass

__all__ = ["Partitions", "SLOTS", "CLUSTER_PARTITIONS", "slot", "key_slot"]

SLOTS = 16384  # a Redis Cluster's hash slots
# Partitions on a cluster when FRONTIER_PARTITIONS is not set: enough to
# spread the crawl over a dozen or so masters, few enough that a node asks
# each for its ready sites without noticeable cost.
CLUSTER_PARTITIONS = 16


def slot(tag: str | bytes) -> int:
    """The hash slot of a hash tag's content (Redis Cluster's CRC16, the XMODEM one).

    >>> slot("p0")
    15882
    """
    return binascii.crc_hqx(tag.encode() if isinstance(tag, str) else tag, 0) % SLOTS


def key_slot(key: str | bytes) -> int:
    """The hash slot of a key: of its first non-empty ``{...}``, else of all of it.

    >>> key_slot("web:requests:{p0}:count") == slot("p0")
    True
    >>> key_slot("web:{}x") == slot("web:{}x")
    True
    """
    data = key.encode() if isinstance(key, str) else key
    start = data.find(b"{")
    if start >= 0:
        end = data.find(b"}", start + 1)
        if end > start + 1:
            return slot(data[start + 1 : end])
    return slot(data)


@functools.cache
def _tag(partition: int, count: int) -> str:
    """The first of ``p<n>``, ``p<n>.1``, ``p<n>.2``... whose slot lies in the
    partition's share of the slots (about ``count`` tries)."""
    for attempt in itertools.count():
        tag = f"p{partition}" if attempt == 0 else f"p{partition}.{attempt}"
        if slot(tag) * count // SLOTS == partition:
            return tag
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class Partitions:
    """``count`` partitions; ``tagged``: their keys carry a hash tag (always
    on a cluster; on one server only when there is more than one)."""

    count: int = 1
    tagged: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.count <= SLOTS:
            raise ValueError(f"FRONTIER_PARTITIONS must be between 1 and {SLOTS}, not {self.count}")

    def of(self, site: str) -> int:
        """The partition of a site (scheme, host and port), the same on every node.

        >>> Partitions(16, True).of("http://a.test:80"), Partitions().of("http://a.test:80")
        (1, 0)
        """
        if self.count == 1:
            return 0
        return int.from_bytes(hashlib.md5(site.encode()).digest()[:4], "big") % self.count

    def tag(self, partition: int) -> str:
        return _tag(partition, self.count)

    def key(self, base: str, partition: int) -> str:
        """``base`` in a partition: itself untagged, else with the partition's hash tag."""
        return f"{base}:{{{self.tag(partition)}}}" if self.tagged else base

    def __iter__(self):
        return iter(range(self.count))

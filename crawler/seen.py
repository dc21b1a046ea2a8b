"""The visited-URL set, in two encodings with their memory bounds (pure).

A crawl must remember every URL it has queued (ARCHITECTURE.md, items 3-4).
Both encodings, :class:`ExactSeen` and :class:`BloomSeen`, turn a URL
fingerprint (16-byte MD5) into a key suffix and an argument for a Lua
test-and-set that the frontier runs in Redis, so that deciding "new" is one
atomic step shared by all nodes; each says what it costs.  :func:`seen_set`
gives the one ``FRONTIER_DEDUP`` names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from crawler import settings as defaults

__all__ = ["ExactSeen", "BloomSeen", "SeenSet", "seen_set"]

_EXACT_BUCKET_BITS = 16
# Bitmaps of just under 64 KiB: with Redis' string header they fill one
# allocator size class exactly, where one large bitmap would be rounded up by
# as much as a quarter (and Redis strings stop at 512 MiB anyway). All k bits
# of a URL fall in one shard (a "blocked" Bloom filter; at half a million
# bits a block, its error rate is that of a plain one).
_BLOOM_SHARD_BITS = 8 * (65536 - 64)


@dataclass(frozen=True)
class ExactSeen:
    """Exact membership: 64-bit fingerprints in 65,536 small integer sets
    (``FRONTIER_DEDUP = "exact"``, the default).

    80 bits of the fingerprint, the first 16 choosing one of 65,536 small
    Redis sets and the next 64 the member, a 64-bit integer. Small sets of
    integers are stored by Redis as packed arrays ("intsets", 8 bytes a
    member), so the cost is about 9 bytes a URL at 10 million URLs instead
    of the 72-93 of a set of digests. A set grows past Redis'
    ``set-max-intset-entries`` (the embedded server is configured for 4,096)
    only beyond 65,536 x that many URLs. Two URLs are confused with
    probability about n^2 / 2^80: never, in practice.

    >>> ExactSeen().args(bytes(range(16)))
    ('0001', '144964032628459529')
    """

    mode = "exact"
    # Lua: is (a, b) new? Marks it seen. ``prefix`` is the key prefix.
    lua_test_and_set = "redis.call('SADD', prefix .. a, b) == 1"

    def args(self, fp: bytes) -> tuple[str, str]:
        """Key suffix (the bucket, 4 hex digits) and member (a signed 64-bit integer)."""
        bucket = fp[: _EXACT_BUCKET_BITS // 8].hex()
        member = int.from_bytes(fp[2:10], "big", signed=True)
        return bucket, str(member)

    def lookups(self, prefix: str, fp: bytes) -> list[tuple[str, ...]]:
        """Read-only Redis commands that all answer 1 when ``fp`` was seen.

        >>> ExactSeen().lookups("web:dupefilter:", bytes(range(16)))
        [('SISMEMBER', 'web:dupefilter:0001', '144964032628459529')]
        """
        bucket, member = self.args(fp)
        return [("SISMEMBER", prefix + bucket, member)]

    def describe(self) -> dict[str, str]:
        return {"mode": self.mode}


@dataclass(frozen=True)
class BloomSeen:
    """A Bloom filter of ``capacity`` URLs at ``error_rate``, sharded in bitmaps
    (``FRONTIER_DEDUP = "bloom"``).

    Sized up front for ``capacity`` URLs at ``error_rate`` false positives (a
    new URL taken for seen, so never crawled): about 1.8 bytes a URL at 0.1%,
    whatever the crawl's size up to the capacity, for crawls of hundreds of
    millions of URLs. Bits are set by ``SETBIT`` on bitmaps allocated in full
    at first use, since growing one bit by bit costs more.

    >>> bloom = BloomSeen(capacity=1_000_000, error_rate=0.001)
    >>> bloom.hashes, bloom.shards, round(bloom.bits / 8 / 1_000_000, 2)  # k, bytes per URL
    (10, 28, 1.83)
    """

    capacity: int = defaults.FRONTIER_BLOOM_CAPACITY
    error_rate: float = defaults.FRONTIER_BLOOM_ERROR_RATE

    mode = "bloom"
    lua_test_and_set = """(function()
      local key, fresh = prefix .. a, false
      for p in string.gmatch(b, '%d+') do
        if redis.call('GETBIT', key, p) == 0 then fresh = true end
      end
      if fresh then
        for p in string.gmatch(b, '%d+') do redis.call('SETBIT', key, p, 1) end
      end
      return fresh
    end)()"""

    def __post_init__(self) -> None:
        if self.capacity < 1 or not 0 < self.error_rate < 1:
            raise ValueError("Bloom filter needs capacity >= 1 and 0 < error_rate < 1")

    @property
    def shards(self) -> int:
        """Enough shards for m = -n ln p / (ln 2)^2 bits."""
        needed = -self.capacity * math.log(self.error_rate) / math.log(2) ** 2
        return max(1, math.ceil(needed / _BLOOM_SHARD_BITS))

    @property
    def shard_bits(self) -> int:
        return _BLOOM_SHARD_BITS

    @property
    def bits(self) -> int:
        """m: every bit of every shard (the last shard's spare bits lower the error)."""
        return self.shards * _BLOOM_SHARD_BITS

    @property
    def hashes(self) -> int:
        """k = (m / n) ln 2."""
        return max(1, round(self.bits / self.capacity * math.log(2)))

    def args(self, fp: bytes) -> tuple[str, str]:
        """Shard (key suffix) and the k bit positions in it, by double hashing.

        The shard and the two hashes come from separate bits of the MD5: a
        shard taken from the same bits as the positions would leave some
        positions unused whenever the shard count divides the shard size.
        """
        shard = int.from_bytes(fp[0:4], "big") % self.shards
        h1 = int.from_bytes(fp[4:10], "big")
        h2 = int.from_bytes(fp[10:16], "big") | 1
        size = self.shard_bits
        positions = ",".join(str((h1 + i * h2) % size) for i in range(self.hashes))
        return str(shard), positions

    def lookups(self, prefix: str, fp: bytes) -> list[tuple[str, ...]]:
        """Read-only Redis commands that all answer 1 when ``fp`` was seen (or
        is a false positive): one ``GETBIT`` a hash.

        >>> len(BloomSeen(capacity=1_000_000).lookups("web:dupefilter:", bytes(16)))
        10
        """
        shard, positions = self.args(fp)
        return [("GETBIT", prefix + shard, position) for position in positions.split(",")]

    def describe(self) -> dict[str, str]:
        return {"mode": self.mode, "capacity": str(self.capacity), "error_rate": str(self.error_rate)}


SeenSet = ExactSeen | BloomSeen


def seen_set(
    mode: str, capacity: int = defaults.FRONTIER_BLOOM_CAPACITY, error_rate: float = defaults.FRONTIER_BLOOM_ERROR_RATE
) -> SeenSet:
    """The encoding for ``FRONTIER_DEDUP``.

    >>> seen_set("exact").mode, seen_set("bloom", 1000).mode
    ('exact', 'bloom')
    """
    if mode == "exact":
        return ExactSeen()
    if mode == "bloom":
        return BloomSeen(capacity, error_rate)
    raise ValueError(f"FRONTIER_DEDUP must be 'exact' or 'bloom', not {mode!r}")

"""Memory of the visited-URL set in Redis, bytes per URL, and the Bloom filter's error.

Each encoding gets a fresh redis-server (the one the embedded frontier runs,
without persistence) and N distinct URL fingerprints, inserted through the
same Lua test-and-set the frontier uses. Bytes per URL two ways: the growth
of Redis' ``used_memory`` (which also counts a few hundred KB of Lua scratch
memory from running the script, whatever N), and the memory of the seen-set
keys themselves (``MEMORY USAGE``). Baselines in the same run: scrapy-redis'
set of 40-character hex fingerprints, and a set of raw 16-byte digests.

    python -m bench.dedup_memory [N ...]      (default: 1000000 10000000)
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from crawler.embedded import redis_server_binary
from crawler.seen import BloomSeen, ExactSeen

_BATCH = 2000


@contextmanager
def bare_redis() -> Iterator[redis.Redis]:
    """A throwaway redis-server: unix socket, no persistence, the embedded config."""
    with tempfile.TemporaryDirectory(prefix="bench-redis-") as directory:
        socket = Path(directory) / "redis.sock"
        server = subprocess.Popen(
            [
                redis_server_binary(),
                "--port",
                "0",
                "--unixsocket",
                str(socket),
                "--save",
                "",
                "--appendonly",
                "no",
                "--set-max-intset-entries",
                "4096",
                "--logfile",
                "",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            for line in server.stdout:
                if "ready to accept connections" in line:
                    break
            client = redis.Redis(unix_socket_path=str(socket))
            yield client
            client.close()
        finally:
            server.terminate()
            server.wait()


def fingerprints(start: int, count: int) -> Iterator[bytes]:
    for n in range(start, start + count):
        yield hashlib.md5(f"http://site{n % 997}.example/page/{n}".encode()).digest()


def _used(client: redis.Redis) -> int:
    """Redis' used memory, without this client's input buffer (large EVAL
    arguments leave one behind, which is not the data's)."""
    client.connection_pool.disconnect()
    return int(client.info("memory")["used_memory"])


def _insert_encoded(client: redis.Redis, seen: ExactSeen | BloomSeen, n: int, start: int = 0) -> int:
    """Insert ``n`` fingerprints; returns how many were taken for seen already."""
    script = client.register_script(
        "local prefix, taken = ARGV[1], 0\n"
        "for i = 2, #ARGV, 2 do local a, b = ARGV[i], ARGV[i + 1]\n"
        f"  if not ({seen.lua_test_and_set}) then taken = taken + 1 end end\n"
        "return taken"
    )
    taken = 0
    batch: list[str] = ["seen:"]
    for fp in fingerprints(start, n):
        batch.extend(seen.args(fp))
        if len(batch) > 2 * _BATCH:
            taken += int(script(args=batch))
            batch = ["seen:"]
    if len(batch) > 1:
        taken += int(script(args=batch))
    return taken


def _keys_memory(client: redis.Redis) -> int:
    pipe = client.pipeline(transaction=False)
    for key in client.scan_iter(match="seen*", count=10_000):
        pipe.memory_usage(key, samples=0)
    return sum(size or 0 for size in pipe.execute())


def _count_present(client: redis.Redis, bloom: BloomSeen, n: int, start: int) -> int:
    """How many of ``n`` fingerprints never inserted the filter claims to hold."""
    script = client.register_script(
        "local present = 0\n"
        "for i = 1, #ARGV, 2 do local all = true\n"
        "  for p in string.gmatch(ARGV[i + 1], '%d+') do\n"
        "    if redis.call('GETBIT', 'seen:' .. ARGV[i], p) == 0 then all = false; break end end\n"
        "  if all then present = present + 1 end end\n"
        "return present"
    )
    present, batch = 0, []
    for fp in fingerprints(start, n):
        batch.extend(bloom.args(fp))
        if len(batch) >= 2 * _BATCH:
            present += int(script(args=batch))
            batch = []
    if batch:
        present += int(script(args=batch))
    return present


def _insert_set(client: redis.Redis, n: int, encode) -> None:  # type: ignore[no-untyped-def]
    pipe = client.pipeline(transaction=False)
    for count, fp in enumerate(fingerprints(0, n), 1):
        pipe.sadd("seen", encode(fp))
        if count % _BATCH == 0:
            pipe.execute()
    pipe.execute()


def measure(n: int) -> list[str]:
    rows = []
    results: dict[str, tuple[float, float]] = {}
    for label, insert in (
        ("hex set (scrapy-redis)", lambda c: _insert_set(c, n, lambda fp: fp.hex() + fp[:4].hex())),
        ("16-byte digest set", lambda c: _insert_set(c, n, lambda fp: fp)),
        ("exact (this crawler)", lambda c: _insert_encoded(c, ExactSeen(), n)),
    ):
        with bare_redis() as client:
            before = _used(client)
            insert(client)
            results[label] = ((_used(client) - before) / n, _keys_memory(client) / n)
    bloom = BloomSeen(capacity=n, error_rate=0.001)
    with bare_redis() as client:
        before = _used(client)
        for shard in range(bloom.shards):
            client.setbit(f"seen:{shard}", bloom.shard_bits - 1, 0)
        taken = _insert_encoded(client, bloom, n)
        results["bloom 0.1% (this crawler)"] = ((_used(client) - before) / n, _keys_memory(client) / n)
        probes = min(n, 1_000_000)
        false_positives = _count_present(client, bloom, probes, start=n)
    baseline = results["hex set (scrapy-redis)"][0]
    rows.append(f"dedup memory at {n:,} URLs, bytes per URL")
    rows.append(f"  {'':30s} {'used_memory':>11s} {'keys':>8s} {'ratio':>8s}")
    for label, (used, keys) in results.items():
        rows.append(f"  {label:30s} {used:11.2f} {keys:8.2f} {used / baseline:7.3f}x")
    rows.append(
        f"  bloom false positives: {taken / n:.4%} of URLs while filling, "
        f"{false_positives / probes:.4%} of {probes:,} other URLs once full (target 0.1%)"
    )
    return rows


def main(sizes: list[int]) -> None:
    for n in sizes:
        print("\n".join(measure(n)), flush=True)
        print()


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [1_000_000, 10_000_000])

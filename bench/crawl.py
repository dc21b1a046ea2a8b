"""Crawl speed: our `scrapy crawl web` against a plain Scrapy CrawlSpider.

Both crawl the same local site with the same concurrency (16 requests, no
delay, robots.txt obeyed), in alternating runs. Ours runs with every feature
on: robots.txt, canonicalization, the Redis frontier (a redis-server of
the benchmark's own, so that its commands can be counted), URL and content
dedup, extraction, the item queue and the indexer beside the crawl. Figures:

- pages/s between the first and the last page request the server saw;
- pages/s over the whole command (start-up, indexing and shutdown included);
- CPU milliseconds per page of the command and its children (the indexer's
  included);
- Redis commands per page: executed by the server (those our Lua scripts
  run included), and sent by the crawl (one more run, watched by MONITOR);
- the item queue's greatest length, sampled every 0.1 s (the indexer keeps
  up when it stays small);
- the fetch-only limit: a minimal asyncio client (:mod:`bench.fetch`)
  fetching the crawled URLs with the same concurrency;
- then :mod:`bench.index` on the crawled pages.

    BENCH_RUNS=3 python -m bench.crawl
"""

from __future__ import annotations

import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import redis

from bench import index
from bench.dedup_memory import bare_redis
from bench.fetch import fetch_rate
from bench.sites import Site
from crawler.datadir import pages_path
from indexer.store import PageStore

ROOT = Path(__file__).resolve().parents[1]
SCRAPY = [sys.executable, "-m", "scrapy"]
SAME = [
    "-s",
    "DOWNLOAD_DELAY=0",
    "-s",
    "CONCURRENT_REQUESTS=16",
    "-s",
    "CONCURRENT_REQUESTS_PER_DOMAIN=16",
    "-s",
    "LOG_LEVEL=WARNING",
]


@dataclass
class Run:
    pages: int
    crawl_rate: float
    command_rate: float
    cpu_ms_per_page: float
    redis_per_page: float = float("nan")
    redis_sent_per_page: float = float("nan")
    queue_max: int = 0
    fetch_seconds: float = 0.0
    finalize_seconds: float = float("nan")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(site: Site, command: list[str], cwd: Path) -> Run:
    mark = len(site.times())
    cpu = _children_cpu()
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900)
    wall = time.monotonic() - started
    if done.returncode:
        raise RuntimeError(f"{command[:4]} failed:\n{done.stderr[-2000:]}")
    pages, span = site.pages_since(mark)
    cpu = _children_cpu() - cpu
    finalized = re.search(r"finalized in ([0-9.]+) s", done.stderr)
    return Run(
        pages,
        pages / span if span else 0.0,
        pages / wall,
        1000 * cpu / max(pages, 1),
        fetch_seconds=span,
        finalize_seconds=float(finalized.group(1)) if finalized else float("nan"),
    )


def ours(site: Site, keep: Path | None = None, monitor: bool = False) -> Run:
    """Our crawl with every feature on, against a Redis of the benchmark's own
    (the embedded server's binary) so that its commands can be counted: all
    that Redis executed (commands inside our Lua scripts included) and, with
    ``monitor``, those the crawl sent (each script call one), at some cost
    in speed. The item queue's length is sampled during the crawl: the
    indexer keeps up when it stays bounded. ``keep``: leave the data there."""
    data = keep or Path(tempfile.mkdtemp(prefix="bench-crawl-"))
    try:
        with bare_redis() as client:
            url = "unix://{}?db=0".format(client.connection_pool.connection_kwargs["path"])
            before = int(client.info("stats")["total_commands_processed"])
            with _sampling(client, monitor) as sample:
                run = _run(
                    site,
                    [
                        *SCRAPY,
                        "crawl",
                        "web",
                        "-a",
                        f"seeds={site.seed}",
                        "-s",
                        f"DATA_DIR={data}",
                        "-s",
                        f"REDIS_URL={url}",
                        "-s",
                        "INDEX_WITH_CRAWL=1",
                        "-s",
                        "FRONTIER_IDLE_GRACE=0",
                        *SAME,
                    ],
                    ROOT,
                )
            executed = int(client.info("stats")["total_commands_processed"]) - before - sample.own
        pages = max(run.pages, 1)
        run.redis_per_page = executed / pages
        run.redis_sent_per_page = sample.sent / pages if monitor else float("nan")
        run.queue_max = sample.queue_max
        return run
    finally:
        if keep is None:
            shutil.rmtree(data, ignore_errors=True)


@dataclass
class _Sample:
    queue_max: int = 0
    fetch_seconds: float = 0.0
    finalize_seconds: float = float("nan")
    sent: int = 0
    own: int = 0  # the sampler's own commands


@contextmanager
def _sampling(client: redis.Redis, monitor: bool) -> Iterator[_Sample]:
    sample = _Sample()
    stop = threading.Event()
    path = client.connection_pool.connection_kwargs["path"]

    def queue() -> None:
        own = redis.Redis(unix_socket_path=path)
        while not stop.wait(0.1):
            sample.queue_max = max(sample.queue_max, int(own.llen("web:items")))
            sample.own += 1

    def count() -> None:
        with redis.Redis(unix_socket_path=path).monitor() as commands:
            for command in commands.listen():
                if stop.is_set():
                    break
                if command.get("client_type") != "lua" and "llen" not in command["command"][:5].lower():
                    sample.sent += 1

    threads = [threading.Thread(target=queue, daemon=True)]
    if monitor:
        threads.append(threading.Thread(target=count, daemon=True))
    for thread in threads:
        thread.start()
    try:
        yield sample
    finally:
        stop.set()
        client.ping()  # wakes the monitor
        for thread in threads:
            thread.join(timeout=5)


def plain(site: Site) -> Run:
    # Outside the project directory: its scrapy.cfg would bring our settings.
    with tempfile.TemporaryDirectory(prefix="bench-plain-") as cwd:
        env_command = [
            *SCRAPY,
            "runspider",
            str(ROOT / "bench" / "plain_spider.py"),
            "-a",
            f"start={site.seed}",
            "-a",
            f"deny={site.deny}",
            *SAME,
        ]
        return _run(site, env_command, Path(cwd))


def compare(site: Site, runs: int = 3) -> list[str]:
    """Alternate the two crawlers ``runs`` times; a table of medians and the
    ratio. Then one more run of ours counting the Redis commands it sends,
    whose pages serve the fetch-only limit and the indexing benchmark."""
    results: dict[str, list[Run]] = {"ours": [], "plain": []}
    for _ in range(runs):
        results["plain"].append(plain(site))
        results["ours"].append(ours(site))
    rows = [
        f"crawl: {site.name} ({runs} alternating runs each, medians)",
        f"  {'figure':32s} {'ours':>10s} {'plain':>10s} {'ratio':>8s}",
    ]

    def row(label: str, a: float, b: float = float("nan"), digits: int = 1) -> None:
        if math.isnan(b):
            rows.append(f"  {label:32s} {a:10.{digits}f} {'-':>10s} {'-':>8s}")
        else:
            rows.append(f"  {label:32s} {a:10.{digits}f} {b:10.{digits}f} {a / b if b else math.nan:7.2f}x")

    def median(who: str, attribute: str) -> float:
        return statistics.median(getattr(run, attribute) for run in results[who])

    for label, attribute in (
        ("pages fetched", "pages"),
        ("pages/s, first to last fetch", "crawl_rate"),
        ("pages/s, whole command", "command_rate"),
        ("CPU ms per page", "cpu_ms_per_page"),
    ):
        row(label, median("ours", attribute), median("plain", attribute))
    row("finalize, s", median("ours", "finalize_seconds"), digits=2)
    rows.append(
        f"  {'finalize / fetch window':32s} {median('ours', 'finalize_seconds') / median('ours', 'fetch_seconds'):9.0%}"
    )
    row("Redis commands/page, executed", median("ours", "redis_per_page"))
    row("item queue, longest", median("ours", "queue_max"), digits=0)
    data = Path(tempfile.mkdtemp(prefix="bench-crawl-"))
    try:
        counted = ours(site, keep=data, monitor=True)
        row("Redis commands/page, sent", counted.redis_sent_per_page)
        with PageStore(pages_path(data), readonly=True) as store:
            urls = sorted(store.urls())
        limit = statistics.median(fetch_rate(urls) for _ in range(runs))
        rows.append(
            f"  {'fetch-only limit, pages/s':32s} {median('ours', 'crawl_rate'):10.1f} "
            f"{limit:10.1f} {median('ours', 'crawl_rate') / limit:8.1%}  (ours / limit)"
        )
        rows.append("")
        rows.extend(index.compare(data, f"{site.name}, "))
    finally:
        shutil.rmtree(data, ignore_errors=True)
    return rows


def main() -> None:
    from bench.sites import available

    factories, missing = available()
    for line in missing:
        print(line, flush=True)
    for factory in factories:
        with factory() as site:
            print("\n".join(compare(site, int(os.environ.get("BENCH_RUNS", "3")))), flush=True)
            print()


if __name__ == "__main__":
    main()

"""Crawl speed: our `scrapy crawl web` against a plain Scrapy CrawlSpider.

Both crawl the same local site with the same concurrency (16 requests, no
delay, robots.txt obeyed), in alternating runs. Ours runs with every feature
on: canonicalization, the Redis frontier (embedded), content dedup,
extraction, the item queue and the inline indexer. Figures per run:

- pages/s between the first and the last page request the server saw;
- pages/s over the whole command (start-up, indexing and shutdown included);
- CPU seconds per page of the command and its children.
"""

from __future__ import annotations

import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.dedup_memory import bare_redis
from bench.sites import Site

ROOT = Path(__file__).resolve().parents[1]
SCRAPY = [sys.executable, "-m", "scrapy"]
SAME = ["-s", "DOWNLOAD_DELAY=0", "-s", "CONCURRENT_REQUESTS=16",
        "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=16", "-s", "LOG_LEVEL=WARNING"]


@dataclass
class Run:
    pages: int
    crawl_rate: float
    command_rate: float
    cpu_ms_per_page: float
    redis_per_page: float = float("nan")


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
    return Run(pages, pages / span if span else 0.0, pages / wall, 1000 * cpu / max(pages, 1))


def ours(site: Site) -> Run:
    """Our crawl with every feature on, against a Redis of the benchmark's own
    (the embedded server's binary) so its commands can be counted."""
    data = Path(tempfile.mkdtemp(prefix="bench-crawl-"))
    try:
        with bare_redis() as client:
            url = "unix://{}?db=0".format(client.connection_pool.connection_kwargs["path"])
            before = int(client.info("stats")["total_commands_processed"])
            run = _run(site, [*SCRAPY, "crawl", "web", "-a", f"seeds={site.seed}", "-s", f"DATA_DIR={data}",
                              "-s", f"REDIS_URL={url}", "-s", "INDEX_WITH_CRAWL=1", *SAME], ROOT)
            commands = int(client.info("stats")["total_commands_processed"]) - before
        run.redis_per_page = commands / max(run.pages, 1)
        return run
    finally:
        shutil.rmtree(data, ignore_errors=True)


def plain(site: Site) -> Run:
    # Outside the project directory: its scrapy.cfg would bring our settings.
    with tempfile.TemporaryDirectory(prefix="bench-plain-") as cwd:
        env_command = [*SCRAPY, "runspider", str(ROOT / "bench" / "plain_spider.py"),
                       "-a", f"start={site.seed}", "-a", f"deny={site.deny}", *SAME]
        return _run(site, env_command, Path(cwd))


def compare(site: Site, runs: int = 3) -> list[str]:
    """Alternate the two crawlers ``runs`` times; a table of medians and the ratio."""
    results: dict[str, list[Run]] = {"ours": [], "plain": []}
    for _ in range(runs):
        results["plain"].append(plain(site))
        results["ours"].append(ours(site))
    rows = [f"crawl: {site.name} ({runs} alternating runs each, medians)",
            f"  {'figure':32s} {'ours':>10s} {'plain':>10s} {'ratio':>8s}"]
    for label, attribute, better_high in (
        ("pages fetched", "pages", True),
        ("pages/s, first to last fetch", "crawl_rate", True),
        ("pages/s, whole command", "command_rate", True),
        ("CPU ms per page", "cpu_ms_per_page", False),
        ("Redis commands per page", "redis_per_page", False),
    ):
        a = statistics.median(getattr(run, attribute) for run in results["ours"])
        b = statistics.median(getattr(run, attribute) for run in results["plain"])
        if math.isnan(b):
            rows.append(f"  {label:32s} {a:10.1f} {'-':>10s} {'-':>8s}")
        else:
            rows.append(f"  {label:32s} {a:10.1f} {b:10.1f} {a / b if b else float('nan'):7.2f}x")
    return rows


def main() -> None:
    from bench.sites import available

    for factory in available():
        with factory() as site:
            print("\n".join(compare(site, int(os.environ.get("BENCH_RUNS", "3")))), flush=True)
            print()


if __name__ == "__main__":
    main()

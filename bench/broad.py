"""A broad crawl: many polite sites of unequal size, every one kept busy?

A generated web of 30 sites on 127.0.0.1 (one of 3,000 pages, three of
300, 26 of 30; distinct text on every page, a few links between sites),
each on its own port, served by threads of this process. Every crawler
starts from the 30 home pages with ``DOWNLOAD_DELAY=0.5`` and one request
at a time per site (``CONCURRENT_REQUESTS_PER_DOMAIN=1``), 32 in all, and
is stopped after ``BENCH_BROAD_SECONDS`` (70); the figures are read from the
sites' own request logs over the first 60 seconds from the first request:

- page requests (robots.txt apart) in that window, and the same as a share
  of the politeness limit while sites have work: each site could have had a
  page every 0.5 s from the first request of the run until its last page
  (or the window's end, for a site not finished);
- sites served in each 5-second window, as a share of the sites with work
  then (median and worst window);
- when the 26 small sites were finished (the last of them, and the median);
- the shortest gap between two requests to one site, and the share of gaps
  under 90% of the delay, as the sites saw them (a request is stamped when
  its connection is accepted: tens of milliseconds later than it was sent
  when this process or the crawler is short of CPU).

Crawlers, in alternating runs: ours (one node, the embedded Redis and the
indexer beside it, gaps of 1x-1.1x the delay: ``POLITENESS_JITTER=0.1``);
ours as two nodes sharing one redis-server (no indexer: the item queue is
left to fill, ``INDEX_QUEUE_MAX=0``); a plain Scrapy CrawlSpider
(:mod:`bench.plain_spider`) with ``scrapy.pqueues.DownloaderAwarePriorityQueue``
and a download slot per site (host and port), which does not read
robots.txt (Scrapy would fetch every site's through one slot per host name,
0.5 s apart) and draws its gaps between 0.5x and 1.5x the delay, as Scrapy
does. Ratios are ours over the plain spider, in the same run.

    BENCH_RUNS=3 python -m bench.broad
"""

from __future__ import annotations

import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.dedup_memory import bare_redis

ROOT = Path(__file__).resolve().parents[1]
SCRAPY = [sys.executable, "-m", "scrapy"]
SIZES = [3000] + [300] * 3 + [30] * 26
DELAY = 0.5
WINDOW = 60.0  # seconds of each run that are measured, from its first request
SLICE = 5.0  # seconds: the windows in which sites served are counted
SAME = [
    "-s",
    f"DOWNLOAD_DELAY={DELAY}",
    "-s",
    "CONCURRENT_REQUESTS_PER_DOMAIN=1",
    "-s",
    "CONCURRENT_REQUESTS=32",
    "-s",
    "LOG_LEVEL=INFO",
]


@dataclass
class Run:
    pages: int
    limit_share: float
    served_median: float
    served_worst: float
    small_last: float  # seconds from the first request to the last small site's last page
    small_median: float
    small_done: int  # small sites finished within the window
    min_gap: float
    short_gaps: float  # share of the gaps between two requests to a site under 90% of the delay


class _Server(ThreadingHTTPServer):
    """Stamps each connection when it is accepted, before a thread of its own
    reads it: the arrival a site's log would show, apart from how soon this
    busy process gets to the request."""

    daemon_threads = True

    def process_request(self, request: Any, client_address: Any) -> None:
        self.accepted[request] = time.monotonic()
        super().process_request(request, client_address)

    def __init__(self, *args: Any) -> None:
        self.accepted: dict[Any, float] = {}
        super().__init__(*args)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def __init__(self, web: BroadWeb, site: int, *args: Any) -> None:
        self.web, self.site = web, site
        super().__init__(*args)

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.web.arrived(
            self.server.accepted.pop(self.request, time.monotonic()),  # type: ignore[attr-defined]
            self.site,
            self.path,
        )
        body = self.web.page(self.site, self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")


class BroadWeb:
    """The 30 sites, listening on 127.0.0.1; their request logs."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes
        self.log: list[tuple[float, int, str]] = []  # (monotonic time, site, path)
        self._lock = threading.Lock()
        self._servers: list[ThreadingHTTPServer] = []
        self._threads: list[threading.Thread] = []
        self.ports: list[int] = []
        rng = random.Random(7)
        syllables = [a + b for a in "bcdfghklmnprstvz" for b in "aeiou"]
        self._words = sorted({"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(4000)})

    def start(self) -> BroadWeb:
        for site in range(len(self.sizes)):
            server = _Server(("127.0.0.1", 0), partial(_Handler, self, site))
            thread = threading.Thread(target=server.serve_forever, daemon=True)
            thread.start()
            self._servers.append(server)
            self._threads.append(thread)
            self.ports.append(server.server_port)
        return self

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join()

    @property
    def seeds(self) -> list[str]:
        return [f"http://127.0.0.1:{port}/" for port in self.ports]

    def arrived(self, when: float, site: int, path: str) -> None:
        with self._lock:
            self.log.append((when, site, path))

    def page(self, site: int, path: str) -> bytes | None:
        """Page n links to pages 8n+1..8n+8 of its site (a tree, breadth first
        in 4 levels for 3,000 pages), to the home page, and every fifth page
        to another site's home page."""
        if path == "/":
            n = 0
        elif path.startswith("/p") and path.endswith(".html") and path[2:-5].isdigit():
            n = int(path[2:-5])
        else:
            return None
        size = self.sizes[site]
        if n >= size:
            return None
        rng = random.Random(site * 100_003 + n)
        text = " ".join(rng.choice(self._words) for _ in range(120))
        links = [f'<a href="/p{c}.html">page {c}</a>' for c in range(8 * n + 1, min(8 * n + 9, size))]
        links.append('<a href="/">home</a>')
        if n % 5 == 0:
            other = self.ports[(site + 1 + n) % len(self.ports)]
            links.append(f'<a href="http://127.0.0.1:{other}/">a neighbour</a>')
        html = (
            f"<html><head><title>Site {site} page {n}</title></head><body><h1>Site {site}, page {n}</h1>"
            f"<p>{text}</p><p>{' '.join(links)}</p></body></html>"
        )
        return html.encode()

    def measure(self) -> Run:
        with self._lock:
            log = list(self.log)
        pages = [(t, site, path) for t, site, path in log if path != "/robots.txt"]
        start = min(t for t, _, _ in log)
        end = start + WINDOW
        inside = [(t, site, path) for t, site, path in pages if t <= end]
        last: dict[int, float] = {}
        fetched: dict[int, set[str]] = {}
        for t, site, path in inside:
            last[site] = max(last.get(site, t), t)
            fetched.setdefault(site, set()).add(path)
        finished = {site: last[site] for site in last if len(fetched[site]) >= self.sizes[site]}
        allowed = sum(1 + ((finished.get(site, end) - start) / DELAY) for site in range(len(self.sizes)))
        shares = []
        for at in range(int(WINDOW // SLICE)):
            low, high = start + at * SLICE, start + (at + 1) * SLICE
            busy = {site for site in range(len(self.sizes)) if finished.get(site, end) > low}
            if busy:
                served = {site for t, site, _ in inside if low <= t < high}
                shares.append(len(served & busy) / len(busy))
        gaps = []
        by_site: dict[int, list[float]] = {}
        for t, site, _ in log:
            if t <= end:
                by_site.setdefault(site, []).append(t)
        for stamps in by_site.values():
            gaps += [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
        small = [finished[site] - start for site, size in enumerate(self.sizes) if size == 30 and site in finished]
        return Run(
            pages=len(inside),
            limit_share=len(inside) / allowed,
            served_median=statistics.median(shares),
            served_worst=min(shares),
            small_last=max(small) if len(small) == self.sizes.count(30) else float("inf"),
            small_median=statistics.median(small) if small else float("inf"),
            small_done=len(small),
            min_gap=min(gaps) if gaps else float("nan"),
            short_gaps=sum(gap < 0.9 * DELAY for gap in gaps) / max(len(gaps), 1),
        )


@contextmanager
def broad_web() -> Iterator[BroadWeb]:
    web = BroadWeb(SIZES).start()
    try:
        yield web
    finally:
        web.stop()


def _seconds() -> float:
    return float(os.environ.get("BENCH_BROAD_SECONDS", "70"))


def _crawl(command: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _finish(process: subprocess.Popen[str]) -> None:
    try:
        _, log = process.communicate(timeout=_seconds() + 240)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGINT)
        _, log = process.communicate(timeout=120)
    if process.returncode:
        last = [line for line in log.splitlines() if line.strip()][-1:] or ["no output"]
        raise RuntimeError(f"a crawl failed (status {process.returncode}): {last[0]}\n{log[-2000:]}")


def ours(web: BroadWeb, nodes: int = 1) -> Run:
    """One node on the embedded Redis with the indexer beside it, or
    ``nodes`` nodes sharing a redis-server of the benchmark's own."""
    stop = ["-s", f"CLOSESPIDER_TIMEOUT={_seconds()}", "-s", "POLITENESS_JITTER=0.1", *SAME]
    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-broad-")))
        seeds = work / "seeds.txt"
        seeds.write_text("\n".join(web.seeds) + "\n")
        if nodes == 1:
            processes = [
                _crawl(
                    [*SCRAPY, "crawl", "web", "-a", f"seeds_file={seeds}", "-s", f"DATA_DIR={work / 'data'}", *stop],
                    ROOT,
                )
            ]
        else:
            client = stack.enter_context(bare_redis())
            url = "unix://{}?db=0".format(client.connection_pool.connection_kwargs["path"])
            processes = [
                _crawl(
                    [
                        *SCRAPY,
                        "crawl",
                        "web",
                        *(["-a", f"seeds_file={seeds}"] if n == 0 else []),
                        "-s",
                        f"DATA_DIR={work / f'node{n}'}",
                        "-s",
                        f"REDIS_URL={url}",
                        "-s",
                        "INDEX_QUEUE_MAX=0",
                        "-s",
                        "FRONTIER_IDLE_GRACE=5",
                        *stop,
                    ],
                    ROOT,
                )
                for n in range(nodes)
            ]
        for process in processes:
            _finish(process)
    return web.measure()


def plain(web: BroadWeb) -> Run:
    # Outside the project directory: its scrapy.cfg would bring our settings.
    with tempfile.TemporaryDirectory(prefix="bench-plain-") as cwd:
        _finish(
            _crawl(
                [
                    *SCRAPY,
                    "runspider",
                    str(ROOT / "bench" / "plain_spider.py"),
                    "-a",
                    f"start={','.join(web.seeds)}",
                    "-a",
                    "slot=port",
                    *SAME,
                    "-s",
                    "SCHEDULER_PRIORITY_QUEUE=scrapy.pqueues.DownloaderAwarePriorityQueue",
                    "-s",
                    "ROBOTSTXT_OBEY=False",
                    "-s",
                    f"CLOSESPIDER_TIMEOUT={_seconds()}",
                ],
                Path(cwd),
            )
        )
    return web.measure()


CRAWLERS = {"ours": ours, "ours, 2 nodes": partial(ours, nodes=2), "plain": plain}


def compare(runs: int = 3) -> list[str]:
    results: dict[str, list[Run]] = {name: [] for name in CRAWLERS}
    for _ in range(runs):
        for name, crawler in CRAWLERS.items():
            with broad_web() as web:
                results[name].append(crawler(web))
    limit = sum(1 + WINDOW / DELAY for _ in SIZES)
    rows = [
        f"broad crawl: {len(SIZES)} sites (1 x 3,000 pages, 3 x 300, 26 x 30), DOWNLOAD_DELAY={DELAY}, "
        f"1 request a site at a time; first {WINDOW:.0f} s of each run ({runs} alternating runs, medians)",
        f"  politeness limit: a page every {DELAY} s from each site with work "
        f"(at most {limit:,.0f} pages in {WINDOW:.0f} s if no site finished)",
        f"  {'figure':40s} {'ours':>9s} {'2 nodes':>9s} {'plain':>9s} {'ours/plain':>10s} {'2 nodes/plain':>13s}",
    ]

    def median(name: str, attribute: str) -> float:
        return statistics.median(getattr(run, attribute) for run in results[name])

    for label, attribute, form in (
        ("page requests", "pages", "{:9.0f}"),
        ("share of the politeness limit", "limit_share", "{:9.0%}"),
        ("sites served / sites with work, 5 s", "served_median", "{:9.0%}"),
        ("  the worst 5 s", "served_worst", "{:9.0%}"),
        ("small sites finished (of 26)", "small_done", "{:9.0f}"),
        ("s to finish the small sites, median", "small_median", "{:9.1f}"),
        ("s to finish the small sites, last", "small_last", "{:9.1f}"),
        ("shortest gap between requests to a site, s", "min_gap", "{:9.2f}"),
        ("gaps under 90% of the delay", "short_gaps", "{:9.1%}"),
    ):
        values = [median(name, attribute) for name in CRAWLERS]
        cells = [form.format(value) for value in values]
        plain_value = values[2]
        ratios = [
            f"{value / plain_value:.2f}x" if plain_value and plain_value != float("inf") else "-"
            for value in values[:2]
        ]
        rows.append(f"  {label:40s} {cells[0]:>9s} {cells[1]:>9s} {cells[2]:>9s} {ratios[0]:>10s} {ratios[1]:>13s}")
    return rows


def main(argv: list[str] | None = None) -> None:
    runs = int(os.environ.get("BENCH_RUNS", "3"))
    try:
        rows = compare(runs)
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        rows = ["broad crawl: could not run", f"  {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"]
    print("\n".join(rows), flush=True)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])

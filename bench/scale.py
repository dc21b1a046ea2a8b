"""The whole pipeline at scale: crawl, item queue, indexer, finalize and search on a web of N pages.

    python -m bench.scale [N ...] [--profile] [--json FILE] [--keep DIR]        (default: 10000)
    python -m bench.scale N --nodes 2 [--indexers 2]      the several-machines recipe, on one machine

Each size is a web of N pages over N / 100 sites on loopback
(:mod:`bench.scaleweb`: 20-100 KB of HTML and 20-150 links a page, written
once and served by one nginx process). It is crawled by ``scrapy crawl
web`` with every feature on (robots.txt, the Redis frontier, dedup,
extraction, the archive, the item queue, the indexer beside the crawl,
finalize), politeness overridden for loopback sites as the other crawl
benchmarks do (no delay, 32 requests at once, 4 a site), on a redis-server
of the benchmark's own (so that its memory can be read); then 200 queries
drawn as :mod:`bench.query` draws them go to ``python -m search.web`` on
the result. Printed for each size, and how each figure grows with N from
one size to the next (the exponent ``e`` of ``N^e``):

- pages/s over the whole command and over the fetch window (first to last
  page request nginx saw), and the longest pause between two fetches;
- the item queue's longest length (sampled every 0.25 s);
- peak RSS of the crawl process, the indexer, its writer and merge
  processes (a role's processes resident together, not each one's peak
  added up), Redis (the process, and ``INFO memory``'s peak), and of all
  of them at once;
- bytes per page in Redis at the end and on disk (archive, page store,
  index, link graph), and the index, page store and link graph over the
  pages' text (title and body, UTF-8);
- finalize's seconds and its share of the whole command;
- the web API's p50 and p95 (one client, one connection);
- CPU ms per page by process (exact for the whole tree; the crawl process
  fetches, parses, extracts and queues, the indexer analyses and writes,
  so only a profile tells the stages apart), and with ``--profile`` by
  stage: each process's measured CPU shared out as py-spy's samples of it
  are, by the innermost frame of a known module (:data:`_STAGE_OF_FRAME`):
  fetch, parse (lxml's C parser, under the extractor's call), extract,
  queue (Redis, the frontier, the item queue), analyse, write (the
  archive's, the page store's, the index's and its segment merges),
  finalize, and the rest (the reactor, Scrapy's engine, start-up). The
  profiled run is slower by py-spy's share of the CPU.

Then the goals for 100,000 and 1,000,000 pages beside the figures measured.

``--nodes K`` runs docs/several-machines.md's recipe instead, every part a
process of its own on this machine: K crawl nodes (``INDEX_WITH_CRAWL=0``,
each with a data directory of its own for its archive) and the indexer
(``python -m indexer --follow``) beside them; with ``--indexers M`` above 1,
M indexers each drain their share of the frontier's partitions
(``--partitions i/M``, the frontier made with 2 x M partitions) into a data
directory of their own, ``python -m indexer finalize --data ...`` makes them
one index, and the queries go to ``python -m search.web`` given every
directory. The whole command then runs from the first node's start to the
end of that finalize.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]
import redis

from bench import query, scaleweb
from bench.dedup_memory import bare_redis
from crawler.connection import partitions_of
from crawler.datadir import archive_dir, graph_dir, index_dir, pages_files, pages_path
from indexer.store import PageStore
from search.eval import percentile

ROOT = Path(__file__).resolve().parents[1]
SIZES = (10_000,)
BENCH_SIZES = (10_000, 30_000)  # make bench's; 100,000 on demand (about half an hour)
SAMPLE_SECONDS = 0.25
QUEUE_MAX = 2000  # INDEX_QUEUE_MAX's default, which the crawl runs with
SERVER_START_TIMEOUT = 900.0  # seconds search.web may take to say it serves
SETTINGS = {
    "DOWNLOAD_DELAY": "0",
    "CONCURRENT_REQUESTS": "32",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "4",
    "INDEX_WITH_CRAWL": "1",
    "FRONTIER_IDLE_GRACE": "0",
    "LOG_LEVEL": "INFO",
}
ROLES = ("crawl", "extract", "indexer", "writers", "redis")
STAGES = ("fetch", "parse", "extract", "queue", "analyse", "write", "finalize", "other")
# A part of a py-spy frame ("function (path/to/file.py:line)") and the stage it
# is counted in; a sample goes to the stage of its innermost frame that
# matches. lxml parses in C, under the extractor's function that calls it.
_STAGE_OF_FRAME = (
    ("_parse (crawler/extractors/html.py", "parse"),
    ("indexer/linkmatrix", "finalize"),
    ("indexer/graph", "write"),
    ("indexer/analysis", "analyse"),
    ("whoosh/analysis", "analyse"),
    ("jieba/", "analyse"),
    ("whoosh/", "write"),
    ("indexer/codec", "write"),
    ("indexer/shards", "write"),
    ("indexer/store", "write"),
    ("crawler/archive", "write"),
    ("warcio/", "write"),
    ("gzip", "write"),
    ("zlib", "write"),
    ("crawler/extractors", "extract"),
    ("crawler/extract", "extract"),
    ("crawler/boilerplate", "extract"),
    ("crawler/fingerprints", "extract"),
    ("crawler/urls", "extract"),
    ("crawler/linkfilter", "extract"),
    ("crawler/traps", "extract"),
    ("crawler/charset", "parse"),
    ("parsel/", "parse"),
    ("lxml/", "parse"),
    ("html5", "parse"),
    ("w3lib/encoding", "parse"),
    ("crawler/pipelines", "queue"),
    ("crawler/scheduler", "queue"),
    ("crawler/frontier", "queue"),
    ("crawler/seen", "queue"),
    ("crawler/leases", "queue"),
    ("crawler/partitions", "queue"),
    ("indexer/queue", "queue"),
    ("indexer/drain", "queue"),
    ("redis/", "queue"),
    ("msgpack", "queue"),
    ("json/", "queue"),
    ("twisted/", "fetch"),
    ("scrapy/core/downloader", "fetch"),
    ("scrapy/core/http", "fetch"),
    ("crawler/politeness", "fetch"),
    ("crawler/robots", "fetch"),
    ("crawler/turns", "fetch"),
    ("scrapy/downloadermiddlewares", "fetch"),
    ("crawler/limits", "fetch"),
    ("crawler/middlewares", "fetch"),
)
_FINALIZE = "finalize (indexer/builder.py"
GOALS = (
    # figure, goal at 100,000 pages, at 1,000,000, and how a run's figure is judged
    ("pages/s, whole command", "≥ 60", "≥ 50"),
    ("item queue, longest / longest pause", f"≤ {QUEUE_MAX:,} / < 60 s", "same"),
    ("finalize / crawl time", "≤ 3%", "≤ 3%"),
    ("peak RSS, all processes together", "≤ 2 GiB", "≤ 6 GiB"),
    ("index + page store + link graph / text", "≤ 2x", "≤ 2x"),
    ("web API query p95", "≤ 100 ms", "≤ 250 ms"),
    ("indexing docs/s, 2 writers / plain Whoosh", "≥ 1.7x", "≥ 1.7x"),
)


@dataclass
class Figures:
    pages: int  # of the web
    indexed: int = 0  # pages in the page store
    fetched: int = 0  # requests nginx answered, robots.txt apart (sitemaps and soft-404 probes in)
    seconds: float = 0.0  # the whole command
    fetch_seconds: float = 0.0
    longest_pause: float = 0.0
    queue_max: int = 0
    finalize_seconds: float = float("nan")
    peak_rss: dict[str, int] = field(default_factory=dict)  # bytes, by role, and "together"
    redis_peak: int = 0  # INFO memory used_memory_peak
    redis_bytes: int = 0  # used_memory at the end
    disk: dict[str, int] = field(default_factory=dict)
    text_bytes: int = 0
    cpu: dict[str, float] = field(default_factory=dict)  # seconds, by role, and "total"
    stages: dict[str, float] = field(default_factory=dict)  # CPU seconds by stage (profiled)
    top: list[tuple[str, float]] = field(default_factory=list)  # the profile's busiest frames
    server_start: float = float("nan")  # seconds from search.web's start to its serving line
    p50: float = float("nan")
    p95: float = float("nan")
    setup: str = ""  # "" (one crawl, its indexer beside it) or the recipe's: "2 nodes, 2 indexers"
    finished: str = ""  # local time the run ended
    load: list[float] = field(default_factory=list)  # the load average then: 1, 5 and 15 minutes

    @property
    def per_page(self) -> int:
        return max(self.indexed, 1)

    def rate(self) -> float:
        return self.indexed / self.seconds if self.seconds else 0.0

    def fetch_rate(self) -> float:
        return self.indexed / self.fetch_seconds if self.fetch_seconds else 0.0

    def stored_over_text(self) -> float:
        stored = self.disk.get("index", 0) + self.disk.get("page store", 0) + self.disk.get("link graph", 0)
        return stored / self.text_bytes if self.text_bytes else float("nan")


# --- watching the processes ------------------------------------------------------------------


def role_of(command: list[str], parent_role: str | None) -> str | None:
    """What a process of the crawl's tree does, from its command line and its parent's role.

    >>> role_of(["python", "-m", "scrapy", "crawl", "web"], None)
    'crawl'
    >>> role_of(["python", "-m", "indexer", "--data", "d"], "crawl"), role_of(["python", "-m", "indexer"], "indexer")
    ('indexer', 'writers')
    >>> role_of(["python", "-c", "from multiprocessing..."], "crawl"), role_of(["py-spy", "record", "--"], None)
    ('extract', None)
    >>> role_of(["python", "-m", "indexer", "--follow"], None)  # a process of its own (--nodes)
    'indexer'
    """
    if parent_role == "indexer":
        return "writers"  # forked: the indexer's command line
    module = command[1:3]
    if module == ["-m", "indexer"]:
        return "indexer"
    if parent_role == "crawl":
        return "extract"
    return "crawl" if module == ["-m", "scrapy"] else None


def role_peaks(roles: dict[int, str], own: dict[int, int], together: dict[str, int]) -> dict[str, int]:
    """Each role's peak resident memory: its processes' resident together
    at one sample (``together``), or one process's own peak (``own``, by
    pid: VmHWM, which sees between samples) where that is higher. Not the
    sum of each process's own peak: the merge processes an indexer starts
    one after another are never resident together (at 10,000 pages, that
    sum of a crawl's indexer's children was 417 MiB).

    >>> role_peaks({1: "writers", 2: "writers", 3: "indexer"}, {1: 300, 2: 280, 3: 500},
    ...            {"writers": 310, "indexer": 450})
    {'writers': 310, 'indexer': 500}
    """
    peaks = dict(together)
    for pid, peak in own.items():
        role = roles[pid]
        peaks[role] = max(peaks.get(role, 0), peak)
    return peaks


def _peak_of(pid: int) -> int:
    """A process's peak resident memory (VmHWM), in bytes; 0 once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


class Watch:
    """Samples the crawl's process tree, Redis and the item queue every SAMPLE_SECONDS."""

    def __init__(self, roots: list[int], client: redis.Redis, items_key: str = "web:items") -> None:
        self.roots, self.client, self.items_key = roots, client, items_key
        self.redis_pid = int(client.info("server")["process_id"])
        self.roles: dict[int, str] = {}
        self.cpu: dict[int, float] = {}
        self.peak: dict[int, int] = {}  # each process's own (VmHWM)
        self.role_peak: dict[str, int] = {}  # each role's processes resident together, at a sample
        self.together = 0
        self.queue_max = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Watch:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            self.sample()

    def _tree(self) -> Iterator[tuple[psutil.Process, str]]:
        found = []
        for pid in list(self.roots):
            try:
                root = psutil.Process(pid)
                found += [root, *root.children(recursive=True)]
            except psutil.Error:
                continue
        for process in found:
            try:
                parent = process.ppid()
                role = self.roles.get(process.pid) or role_of(process.cmdline(), self.roles.get(parent))
            except psutil.Error:
                continue
            if role is not None:
                self.roles[process.pid] = role
                yield process, role

    def _redis(self) -> list[tuple[psutil.Process, str]]:
        try:
            return [(psutil.Process(self.redis_pid), "redis")]
        except psutil.Error:
            return []

    def sample(self) -> None:
        resident = 0
        by_role: Counter[str] = Counter()
        for process, role in [*self._tree(), *self._redis()]:
            try:
                times = process.cpu_times()
                rss = process.memory_info().rss
            except psutil.Error:
                continue
            resident += rss
            by_role[role] += rss
            self.roles.setdefault(process.pid, "redis")
            self.cpu[process.pid] = times.user + times.system
            self.peak[process.pid] = max(self.peak.get(process.pid, 0), _peak_of(process.pid))
        self.together = max(self.together, resident)
        for role, rss in by_role.items():
            self.role_peak[role] = max(self.role_peak.get(role, 0), rss)
        try:
            partitions = partitions_of(self.client)
            queued = sum(int(self.client.llen(partitions.key(self.items_key, n))) for n in partitions)
            self.queue_max = max(self.queue_max, queued)
        except redis.RedisError:
            pass

    def peak_by_role(self) -> dict[str, int]:
        """Each role's peak resident memory (:func:`role_peaks`)."""
        return role_peaks(self.roles, self.peak, self.role_peak)

    def by_role(self, values: dict[int, Any]) -> dict[str, Any]:
        totals: dict[str, Any] = {}
        for pid, value in values.items():
            role = self.roles[pid]
            totals[role] = totals.get(role, 0) + value
        return totals


# --- the run ---------------------------------------------------------------------------------


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def crawl_command(seeds: Path, data: Path, redis_url: str) -> list[str]:
    settings = {**SETTINGS, "DATA_DIR": str(data), "REDIS_URL": redis_url}
    command = [sys.executable, "-m", "scrapy", "crawl", "web", "-a", f"seeds_file={seeds}"]
    for name, value in settings.items():
        command += ["-s", f"{name}={value}"]
    return command


def _profiled(command: list[str], output: Path) -> list[str]:
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        raise RuntimeError("--profile needs py-spy: pip install py-spy")
    return [
        spy,
        "record",
        "--subprocesses",
        "--nonblocking",
        "--rate",
        "50",
        "--format",
        "raw",
        "-o",
        str(output),
        "--",
        *command,
    ]


def _crawl(web: scaleweb.ScaleWeb, served: scaleweb.Served, work: Path, profile: bool) -> Figures:
    figures = Figures(web.pages)
    seeds = work / "seeds.txt"
    seeds.write_text("\n".join(web.seeds(served.port)) + "\n")
    with bare_redis() as client:
        url = "unix://{}?db=0".format(client.connection_pool.connection_kwargs["path"])
        command = crawl_command(seeds, work / "data", url)
        if profile:
            command = _profiled(command, work / "profile.txt")
        cpu = _children_cpu()
        started = time.monotonic()
        with (work / "crawl.log").open("w") as log:
            process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
            with Watch([process.pid], client) as watch:
                status = process.wait(timeout=max(1800, web.pages))
                watch.sample()
        figures.seconds = time.monotonic() - started
        figures.cpu = {"total": _children_cpu() - cpu, **watch.by_role(watch.cpu)}
        memory = client.info("memory")
        figures.redis_peak, figures.redis_bytes = int(memory["used_memory_peak"]), int(memory["used_memory"])
    if status:
        raise RuntimeError(f"the crawl failed (status {status}); its log: {work / 'crawl.log'}")
    figures.peak_rss = {**watch.peak_by_role(), "together": watch.together}
    figures.queue_max = watch.queue_max
    _read_log(figures, (work / "crawl.log").read_text())
    _read_arrivals(figures, served.arrivals())
    if profile:
        lines = (work / "profile.txt").read_text().splitlines()
        figures.stages = stages(lines, watch.cpu)
        figures.top = top_frames(lines)
    return figures


def _recipe_command(kind: str, number: int, work: Path, url: str, seeds: Path, indexers: int) -> list[str]:
    """A crawl node's or an indexer's command line in the several-machines recipe."""
    if kind == "node":
        settings = {"INDEX_WITH_CRAWL": "0", "FRONTIER_PARTITIONS": str(2 * indexers) if indexers > 1 else "1"}
        command = crawl_command(seeds, work / f"node-{number}", url)
        for name, value in settings.items():
            command += ["-s", f"{name}={value}"]
        return command
    command = [sys.executable, "-m", "indexer", "--data", str(work / f"index-{number}"), "--redis", url, "--follow"]
    return command + (["--partitions", f"{number}/{indexers}"] if indexers > 1 else [])


def _recipe(
    web: scaleweb.ScaleWeb, served: scaleweb.Served, work: Path, nodes: int, indexers: int
) -> tuple[Figures, list[Path]]:
    """The several-machines recipe on this machine: ``nodes`` crawl nodes and
    ``indexers`` indexers, each a process of its own, then (several indexers)
    their directories finalized as one index; the figures and those directories."""
    figures = Figures(web.pages, setup=f"{nodes} nodes, {indexers} indexer{'s' if indexers > 1 else ''}")
    seeds = work / "seeds.txt"
    seeds.write_text("\n".join(web.seeds(served.port)) + "\n")
    directories = [work / f"index-{number}" for number in range(1, indexers + 1)]
    with bare_redis() as client, ExitStack() as stack:
        url = "unix://{}?db=0".format(client.connection_pool.connection_kwargs["path"])
        cpu = _children_cpu()
        started = time.monotonic()
        processes: list[tuple[str, subprocess.Popen[bytes]]] = []

        def start(kind: str, number: int) -> None:
            log = stack.enter_context((work / f"{kind}-{number}.log").open("w"))
            command = _recipe_command(kind, number, work, url, seeds, indexers)
            processes.append((f"{kind}-{number}", subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=log)))

        start("node", 1)
        # An indexer of a share waits for the frontier to record its partitions.
        deadline = time.monotonic() + 120
        while indexers > 1 and not client.exists("web:partitions"):
            if time.monotonic() > deadline or processes[0][1].poll() is not None:
                raise RuntimeError(f"the first node recorded no partitions; its log: {work / 'node-1.log'}")
            time.sleep(0.1)
        for number in range(2, nodes + 1):
            start("node", number)
        for number in range(1, indexers + 1):
            start("indexer", number)
        with Watch([process.pid for _, process in processes], client) as watch:
            failed = [(name, process.wait(timeout=max(1800, web.pages))) for name, process in processes]
            watch.sample()
        finalize_seconds = max(
            finalize_seconds_of((work / f"indexer-{n}.log").read_text()) or 0.0 for n in range(1, indexers + 1)
        )
        if not any(status for _, status in failed) and indexers > 1:
            together = [sys.executable, "-m", "indexer", "finalize"]
            for directory in directories:
                together += ["--data", str(directory)]
            begun = time.monotonic()
            with (work / "finalize.log").open("w") as log:
                failed.append(("finalize", subprocess.run(together, cwd=ROOT, stdout=log, stderr=log).returncode))
            finalize_seconds += time.monotonic() - begun
        figures.seconds = time.monotonic() - started
        figures.cpu = {"total": _children_cpu() - cpu, **watch.by_role(watch.cpu)}
        memory = client.info("memory")
        figures.redis_peak, figures.redis_bytes = int(memory["used_memory_peak"]), int(memory["used_memory"])
    for name, status in failed:
        if status:
            raise RuntimeError(f"{name} failed (status {status}); its log: {work / name}.log")
    figures.finalize_seconds = finalize_seconds
    figures.peak_rss = {**watch.peak_by_role(), "together": watch.together}
    figures.queue_max = watch.queue_max
    _read_arrivals(figures, served.arrivals())
    return figures, directories


def finalize_seconds_of(log: str) -> float | None:
    """The seconds an indexer's log says its (last) finalize took (None: none)."""
    import re

    finalized = re.findall(r"finalized in ([0-9.]+) s", log)
    return float(finalized[-1]) if finalized else None


def _read_log(figures: Figures, log: str) -> None:
    seconds = finalize_seconds_of(log)
    if seconds is not None:
        figures.finalize_seconds = seconds


def _read_arrivals(figures: Figures, times: list[float]) -> None:
    times.sort()
    figures.fetched = len(times)
    if len(times) > 1:
        figures.fetch_seconds = times[-1] - times[0]
        figures.longest_pause = max(b - a for a, b in zip(times, times[1:], strict=False))


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


def _read_data(figures: Figures, directories: list[Path], archives: list[Path]) -> None:
    """Disk per part, pages and their text, over every directory (the
    archives: those of the directories the crawl wrote)."""
    figures.disk = {
        "archive": sum(_size(archive_dir(data)) for data in archives),
        "page store": sum(_size(path) for data in directories for path in pages_files(data)),
        "index": sum(_size(index_dir(data)) for data in directories),
        "link graph": sum(_size(graph_dir(data)) for data in directories),
    }
    for data in directories:
        with PageStore(pages_path(data), readonly=True) as store:
            for page in store.pages():
                figures.indexed += 1
                text = len((page.get("title") or "").encode()) + len((page.get("text") or "").encode())
                figures.text_bytes += text


def _query(figures: Figures, data: list[Path]) -> None:
    queries = query.synthetic_queries(figures.pages)
    english = next(q for q in queries if len(q.split()) == 2 and '"' not in q)
    chinese = next(q for q in queries if not q.isascii())
    startup: list[float] = []
    index = query.Index("scale", data[0], queries, english, chinese, more=data[1:])
    times = query.ours_web_api(index, timeout=SERVER_START_TIMEOUT, startup=startup)
    figures.server_start = startup[0]
    figures.p50, figures.p95 = percentile(times, 50), percentile(times, 95)


def measure(
    n: int, profile: bool = False, log: Any = print, keep: Path | None = None, nodes: int = 0, indexers: int = 1
) -> Figures:
    """Crawl, index and query a web of ``n`` pages; with ``keep``, its data directory is moved there
    (with ``nodes``, the several-machines recipe: its indexers' directories).

    A kept data directory lets the index, page store and link graph be
    measured again (``python -m indexer rebuild --data DIR --force``)
    without crawling the web again.
    """
    web = scaleweb.ScaleWeb(n)
    root = scaleweb.written(n, log)
    # Kept when the run fails, for its log; the data of a run that worked is removed.
    work = Path(tempfile.mkdtemp(prefix="bench-scale-", dir=scaleweb.CACHE))
    with scaleweb.serve(web, root) as served:
        if nodes:
            log(f"Crawling {n:,} pages over {web.sites:,} sites ({nodes} crawl nodes, {indexers} indexer(s))...")
            figures, directories = _recipe(web, served, work, nodes, indexers)
            archives = [work / f"node-{number}" for number in range(1, nodes + 1)]
        else:
            log(f"Crawling {n:,} pages over {web.sites:,} sites (scrapy crawl web, the indexer beside it)...")
            figures = _crawl(web, served, work, profile)
            directories = archives = [work / "data"]
    _read_data(figures, directories, archives)
    log(f"  crawled and indexed in {figures.seconds:.0f} s; querying through the web API...")
    try:
        _query(figures, directories)
    except (RuntimeError, OSError, http.client.HTTPException) as exc:  # the crawl's figures are kept
        log(f"  the queries could not run: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
    figures.finished, figures.load = time.strftime("%Y-%m-%d %H:%M"), [round(x, 2) for x in os.getloadavg()]
    if keep is not None:
        keep.parent.mkdir(parents=True, exist_ok=True)
        if len(directories) == 1:
            shutil.move(directories[0], keep)
        else:
            keep.mkdir()
            for directory in directories:
                shutil.move(directory, keep / directory.name)
        log(f"  its data directory is kept in {keep}")
    if not os.environ.get("BENCH_SCALE_KEEP"):
        shutil.rmtree(work, ignore_errors=True)
    return figures


# --- the profile -----------------------------------------------------------------------------


def _frames(line: str) -> tuple[int | None, list[str], int]:
    """A raw py-spy line's process id, its Python frames (outermost first), and its samples.

    With ``--subprocesses`` a stack starts with a frame for each process
    from py-spy's child down to the one sampled: the last is its own.

    >>> _frames('process 7:"scrapy crawl";process 9:"python -m indexer";main (indexer/__main__.py:1) 4')
    (9, ['main (indexer/__main__.py:1)'], 4)
    """
    stack, _, count = line.rpartition(" ")
    if not stack or not count.isdigit():
        return None, [], 0
    frames = stack.split(";")
    processes = [frame[len("process ") :].partition(":")[0] for frame in frames if frame.startswith("process ")]
    pid = int(processes[-1]) if processes and processes[-1].isdigit() else None
    return pid, [frame for frame in frames if not frame.startswith("process ")], int(count)


def stage_of(stack: Iterable[str]) -> str:
    """The stage a profiled stack is counted in: its innermost frame's that says.

    >>> stage_of(["<module> (scrapy/cmdline.py:1)", "add (/x/indexer/analysis.py:9)", "f (/x/whoosh/fields.py:3)"])
    'write'
    >>> stage_of(["run (/x/twisted/internet/base.py:1)", "parse (/x/crawler/extract.py:5)"])
    'extract'
    >>> stage_of(["read (crawler/extractors/html.py:275)", "_parse (crawler/extractors/html.py:210)"])
    'parse'
    >>> stage_of(["IndexBuilder.finalize (indexer/builder.py:500)", "f (/x/whoosh/writing.py:3)"])
    'finalize'
    >>> stage_of(["<module> (<string>:1)"])
    'other'
    """
    frames = list(stack)
    if any(_FINALIZE in frame for frame in frames):
        return "finalize"  # whatever it calls: it runs once, not per page
    for frame in reversed(frames):
        for part, stage in _STAGE_OF_FRAME:
            if part in frame:
                return stage
    return "other"


def stages(lines: Iterable[str], cpu: dict[int, float]) -> dict[str, float]:
    """CPU seconds by stage: each process's measured CPU (``cpu``, by pid)
    shared out as py-spy's samples of it are.

    A sample is taken of every thread that is not asleep, so threads ready to
    run but waiting for a core count too: on a busy machine the samples
    overstate CPU time, and only their shares within a process are read.
    """
    samples: dict[int, Counter[str]] = {}
    for line in lines:
        pid, frames, count = _frames(line)
        if pid in cpu and frames:
            samples.setdefault(pid, Counter())[stage_of(frames)] += count
    seconds: dict[str, float] = {}
    for pid, counts in samples.items():
        total = sum(counts.values())
        for stage, count in counts.items():
            seconds[stage] = seconds.get(stage, 0.0) + cpu[pid] * count / total
    return seconds


def top_frames(lines: Iterable[str], n: int = 12) -> list[tuple[str, float]]:
    """The innermost frames that took the most samples, and their share."""
    samples: Counter[str] = Counter()
    for line in lines:
        _, frames, count = _frames(line)
        if frames:
            samples[frames[-1]] += count
    total = sum(samples.values()) or 1
    return [(frame, count / total) for frame, count in samples.most_common(n)]


# --- the table -------------------------------------------------------------------------------


def growth(a: float, b: float, n_a: int, n_b: int) -> str:
    """The exponent e of N^e that takes figure ``a`` at ``n_a`` pages to ``b`` at ``n_b``.

    >>> growth(10.0, 40.0, 1000, 2000), growth(5.0, 5.0, 10, 100), growth(0.0, 1.0, 10, 100)
    ('2.00', '0.00', '-')
    """
    if a <= 0 or b <= 0 or n_a == n_b or math.isnan(a) or math.isnan(b):
        return "-"
    return f"{math.log(b / a) / math.log(n_b / n_a):.2f}"


def _mib(value: float) -> float:
    return value / 2**20


def rows_of(figures: Figures) -> list[tuple[str, float, str]]:
    """(label, value, format) for each printed figure."""
    pages = figures.per_page
    rows = [
        ("pages indexed", figures.indexed, "{:,.0f}"),
        ("pages/s, whole command", figures.rate(), "{:.1f}"),
        ("pages/s, fetch window", figures.fetch_rate(), "{:.1f}"),
        ("whole command, s", figures.seconds, "{:.0f}"),
        ("longest pause between fetches, s", figures.longest_pause, "{:.1f}"),
        ("item queue, longest", figures.queue_max, "{:,.0f}"),
    ]
    for role in ROLES:
        if role in figures.peak_rss:
            rows.append((f"peak RSS, {role}, MiB", _mib(figures.peak_rss[role]), "{:,.0f}"))
    rows += [
        ("peak RSS, all at once, MiB", _mib(figures.peak_rss.get("together", 0)), "{:,.0f}"),
        ("Redis used_memory_peak, MiB", _mib(figures.redis_peak), "{:,.1f}"),
        ("Redis bytes per page, at the end", figures.redis_bytes / pages, "{:,.0f}"),
    ]
    rows += [(f"disk bytes per page, {part}", size / pages, "{:,.0f}") for part, size in figures.disk.items()]
    rows += [
        ("text bytes per page", figures.text_bytes / pages, "{:,.0f}"),
        ("index + page store + graph / text", figures.stored_over_text(), "{:.2f}"),
        ("finalize, s", figures.finalize_seconds, "{:.1f}"),
        ("finalize / whole command", figures.finalize_seconds / figures.seconds * 100, "{:.1f}%"),
        ("search.web start-up, s", figures.server_start, "{:.1f}"),
        ("web API p50, ms", figures.p50, "{:.1f}"),
        ("web API p95, ms", figures.p95, "{:.1f}"),
        ("CPU ms/page, every process", 1000 * figures.cpu.get("total", 0) / pages, "{:.1f}"),
    ]
    rows += [
        (f"CPU ms/page, {role}", 1000 * figures.cpu[role] / pages, "{:.1f}") for role in ROLES if role in figures.cpu
    ]
    rows += [
        (f"CPU ms/page, {stage} (py-spy)", 1000 * figures.stages[stage] / pages, "{:.1f}")
        for stage in STAGES
        if stage in figures.stages
    ]
    return rows


def table(results: list[Figures]) -> list[str]:
    sizes = [f.pages for f in results]
    header = f"  {'figure':40s}" + "".join(f"{n:>12,}" for n in sizes)
    header += "".join(f"{f'e {a // 1000}k-{b // 1000}k':>12s}" for a, b in zip(sizes, sizes[1:], strict=False))
    lines = [header]
    columns = [rows_of(f) for f in results]
    for index, (label, _, form) in enumerate(columns[0]):
        values = [
            column[index][1] if index < len(column) and column[index][0] == label else float("nan")
            for column in columns
        ]
        cells = "".join(f"{form.format(v) if not math.isnan(v) else '-':>12s}" for v in values)
        exponents = "".join(
            f"{growth(a, b, n_a, n_b):>12s}"
            for a, b, n_a, n_b in zip(values, values[1:], sizes, sizes[1:], strict=False)
        )
        lines.append(f"  {label:40s}{cells}{exponents}")
    return lines


def _judged(text: str, met: bool) -> str:
    return f"{text} ({'met' if met else 'MISSED'})"


def verdicts(figures: Figures) -> list[str]:
    """Each goal's figure measured at this size (GOALS' order), and whether it meets the goal for 100,000 pages."""
    together = figures.peak_rss.get("together", 0)
    share = figures.finalize_seconds / figures.seconds if figures.seconds else float("nan")
    stall = f"{figures.queue_max:,} / {figures.longest_pause:.1f} s"
    return [
        _judged(f"{figures.rate():.1f}", figures.rate() >= 60),
        _judged(stall, figures.queue_max <= QUEUE_MAX and figures.longest_pause < 60),
        _judged(f"{share:.1%}", share <= 0.03),
        _judged(f"{together / 2**30:.2f} GiB", together <= 2 * 2**30),
        _judged(f"{figures.stored_over_text():.2f}x", figures.stored_over_text() <= 2),
        _judged(f"{figures.p95:.0f} ms", figures.p95 <= 100),
        "not measured: bench.index",
    ]


def goals_table(results: list[Figures]) -> list[str]:
    lines = [
        "  goals (2 cores, everything on one machine) beside the figures measured; "
        "met or MISSED against the goal at 100,000",
        f"  {'figure':42s} {'at 100,000':>16s} {'at 1,000,000':>16s}"
        + "".join(f"  {f'measured at {f.pages:,}':>28s}" for f in results),
    ]
    measured = [verdicts(f) for f in results]
    for index, (label, at_100k, at_1m) in enumerate(GOALS):
        cells = "".join(f"  {column[index]:>28s}" for column in measured)
        lines.append(f"  {label:42s} {at_100k:>16s} {at_1m:>16s}{cells}")
    return lines


def report(results: list[Figures], profile: bool) -> list[str]:
    lines = [
        "scale: scrapy crawl web on generated webs of N pages over N/100 loopback sites (nginx), every feature "
        f"on, the indexer beside the crawl (or the several-machines recipe named beside a size), finalize, "
        f"200 web API queries; {os.cpu_count()} CPUs"
        + (" (profiled with py-spy: slower by its share)" if profile else ""),
        *(
            f"  {f.pages:,} pages{f' ({f.setup})' if f.setup else ''}: ended {f.finished or '?'}, load average then "
            + (" / ".join(f"{x:.2f}" for x in f.load) or "?")
            for f in results
        ),
        *table(results),
        "",
        *goals_table(results),
    ]
    for f in results:
        if f.top:
            lines.append(f"  py-spy's busiest frames at {f.pages:,} pages (own samples, every process but Redis):")
            lines += [f"    {share:6.1%}  {frame}" for frame, share in f.top]
    if not any(f.stages for f in results):
        lines.append(
            "  CPU by stage needs --profile: the crawl process fetches, parses, extracts and queues in one "
            "process, and one writer analyses and writes in the indexer's"
        )
    return lines


def saved(paths: list[Path]) -> list[Figures]:
    """The figures of runs saved with ``--json``, by size."""
    try:
        runs = [Figures(**run) for path in paths for run in json.loads(path.read_text())]
    except (OSError, ValueError, TypeError) as exc:
        raise SystemExit(f"python -m bench.scale: cannot read the saved runs: {exc}") from None
    return sorted(runs, key=lambda run: run.pages)


def _size_argument(text: str) -> int:
    try:
        size = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of pages: {text!r}") from None
    if size < 100:
        raise argparse.ArgumentTypeError(f"must be 100 or more (one site of 100 pages), not {size}")
    return size


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=_size_argument, metavar="N", help="pages in each web (default: 10000)")
    parser.add_argument("--profile", action="store_true", help="sample every process with py-spy: CPU by stage")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep each run's data directory as DIR/N (N its pages), to measure it again without crawling",
    )
    parser.add_argument(
        "--from-json",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="print the table of runs saved with --json (of other days, or other machines) instead of running",
    )
    parser.add_argument(
        "--nodes",
        type=int,
        default=0,
        metavar="K",
        help="the several-machines recipe: K crawl nodes and the indexer, each a process of its own",
    )
    parser.add_argument(
        "--indexers",
        type=int,
        default=1,
        metavar="M",
        help="with --nodes: M indexers, each its share of the partitions, finalized together",
    )
    args = parser.parse_args(argv)
    if args.nodes < 0 or args.indexers < 1 or (args.indexers > 1 and not args.nodes) or (args.nodes and args.profile):
        parser.error("--nodes takes 1 or more; --indexers 1 or more, above 1 only with --nodes; not with --profile")
    if args.keep is not None:
        taken = [args.keep / str(n) for n in args.sizes or SIZES if (args.keep / str(n)).exists()]
        if taken:
            parser.error(f"--keep: {taken[0]} exists already; remove it or keep the data elsewhere")
    if args.from_json:
        print("\n".join(report(saved(args.from_json), args.profile)), flush=True)
        return
    results = []
    try:
        for n in sorted(args.sizes or SIZES):
            kept = args.keep / str(n) if args.keep else None
            results.append(measure(n, args.profile, keep=kept, nodes=args.nodes, indexers=args.indexers))
    except (RuntimeError, OSError, subprocess.SubprocessError, http.client.HTTPException) as exc:
        print(f"scale: could not run: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", flush=True)
        if not results:
            raise SystemExit(1) from None
    if args.json:
        args.json.write_text(json.dumps([f.__dict__ for f in results], indent=1) + "\n")
    print("\n".join(report(results, args.profile)), flush=True)
    print()


if __name__ == "__main__":
    main()

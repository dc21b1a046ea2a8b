"""Query latency: our search (in-process, web API, CLI) against a plain Whoosh query.

    python -m bench.query [--sizes 10000 100000] [--no-demo]

Indexes: the demo web (``data/demo`` when it is there and answers a query,
else a fresh crawl into a temporary directory; the table says which) with
the saved demo query sets (``tests/search/queries``) as its queries, and the
synthetic indexes of :mod:`bench.synthetic` (built on first use, then cached)
with a generated mix: 1-3 word queries drawn by frequency from the words of
random pages, quoted two-word phrases from them, and Chinese words.

Figures, each query run once after one English and one Chinese warm-up
query (the first Chinese query loads jieba's dictionary, about half a
second, once per process):

- in-process: ``SearchEngine.search(q, n=10)`` (parse over every field,
  re-rank by PageRank, snippets from the page store);
- web API: ``GET /api/search?q=...&n=10`` against ``python -m search.web
  --port 0 --quiet`` started as a subprocess on the index, timed by the client
  (``http.client``, one connection reused when the server allows it);
- 200 at once: 200 searches sent together, each on a connection of its
  own, to the same server (distinct queries, three runs, the median run's
  figures; then one query 200 times); each one's time from its request to
  its answer, and how many failed;
- CLI: the wall time of ``python -m search --data DIR QUERY``, start-up
  included, for an English and a Chinese query: the median of 5 runs,
  alternating with the baseline's, the project's modules byte-compiled
  first as an installed package's are.

Baseline, on the same index in the same run: plain Whoosh,
``searcher.search(QueryParser("body", schema).parse(q), limit=10)`` with one
searcher kept open and the URLs of the hits read; for the CLI row, a
``python -c`` doing just that. The ratio is ours / baseline (lower is better).
Targets (issue): web API p95 under 50 ms at 10,000 documents and under 150 ms
at 100,000; the CLI's median under 250 ms including start-up (the English
query; the Chinese one also loads jieba's dictionary, printed beside it);
200 distinct searches at once on up to 10,000 documents: p95 under 1 s, none
failed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import selectors
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from bench import synthetic
from search.eval import percentile

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"
QUERY_SETS = ROOT / "tests" / "search" / "queries"
TARGETS_MS = {10_000: 50.0, 100_000: 150.0}
CLI_TARGET_S = 0.25  # p50, start-up included (issue: search quality, latency)
CLIENTS = 200  # searches sent at once to the web server
CROWD_RUNS = 3  # runs of the distinct searches sent at once: the median run's figures
CROWD_TARGET_MS = 1000.0  # their p95, on an index of up to 10,000 documents, none failing
CLI_RUNS = 5
_SERVING = re.compile(r"Serving search for .* at (http://\S+?)/?$")
_PLAIN_CLI = """
import sys, glob
from whoosh import index
from whoosh.qparser import QueryParser
from whoosh.reading import MultiReader
from whoosh.searching import Searcher
shards = [index.open_dir(path) for path in sorted(glob.glob(sys.argv[1] + "/index/pages-*"))]
opened = shards[0].searcher() if len(shards) == 1 else Searcher(MultiReader([ix.reader() for ix in shards]))
with opened as searcher:
    for hit in searcher.search(QueryParser("body", shards[0].schema).parse(sys.argv[2]), limit=10):
        print(hit["url"])
"""


@dataclass
class Index:
    name: str
    data: Path
    queries: list[str]
    english: str  # the CLI's queries
    chinese: str
    about: str = ""
    more: list[Path] = field(default_factory=list)  # other data directories read as one index with ``data``


# --- the indexes and their queries ---------------------------------------------------


def _saved_queries() -> list[str]:
    queries = []
    for path in sorted(QUERY_SETS.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                queries.append(json.loads(line)["query"])
    return queries


def _answers(data: Path) -> bool:
    from search.engine import SearchEngine

    try:
        with SearchEngine(data) as engine:
            return engine.search("json encoder").total > 0
    except Exception:  # SearchError, or an index written by older analysis code
        return False


@contextmanager
def demo_index() -> Iterator[Index]:
    queries = _saved_queries()
    if DEMO.is_dir() and _answers(DEMO):
        yield Index("demo web", DEMO, queries, "json encoder", "西湖龙井茶", f"{DEMO.relative_to(ROOT)} reused")
        return
    from tests.demoweb import serve

    data = Path(tempfile.mkdtemp(prefix="bench-query-demo-"))
    try:
        with serve() as web:
            started = time.monotonic()
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "scrapy",
                    "crawl",
                    "web",
                    "-a",
                    f"seeds={web.seeds[0]}",
                    "-s",
                    f"DATA_DIR={data}",
                    "-s",
                    "DOWNLOAD_DELAY=0",
                    "-s",
                    "CONCURRENT_REQUESTS_PER_DOMAIN=8",
                    "-s",
                    "LOG_LEVEL=WARNING",
                ],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=600,
            )
            if done.returncode:
                raise SystemExit(f"crawling the demo web failed:\n{done.stderr[-2000:]}")
        why = "data/demo absent" if not DEMO.is_dir() else "data/demo unusable with this code"
        yield Index(
            "demo web",
            data,
            queries,
            "json encoder",
            "西湖龙井茶",
            f"crawled into a temp dir in {time.monotonic() - started:.0f} s ({why})",
        )
    finally:
        shutil.rmtree(data, ignore_errors=True)


def synthetic_queries(pages: int, count: int = 200, seed: str = "queries") -> list[str]:
    """A fixed mix: 70% 1-3 words, 15% quoted phrases, 15% Chinese words.

    Words are drawn from the text of random pages, so by their frequency in
    the collection; the 60 most common words (mostly stop words) are left out,
    as people rarely search for them alone.
    """
    rng = random.Random(f"{synthetic.SEED}-{seed}-{pages}")
    common = set(synthetic.english().words[:60])
    queries: list[str] = []
    while len(queries) < count:
        kind = len(queries) % 20
        item = synthetic.page(rng.randrange(pages))
        if kind >= 17:  # Chinese: 3 in 20
            words = synthetic.chinese().draw(rng, rng.choice((1, 1, 2)))
            queries.append(" ".join(words))
            continue
        if item["lang"] != "en":
            continue
        tokens = [w.strip(".").lower() for w in item["text"].split() if w.isascii()]
        if kind >= 14:  # phrases: 3 in 20
            start = rng.randrange(len(tokens) - 1)
            pair = tokens[start : start + 2]
            if not set(pair) & common and len(pair) == 2:
                queries.append('"' + " ".join(pair) + '"')
            continue
        words = [w for w in tokens if w and w not in common]
        queries.append(" ".join(rng.sample(words, rng.choice((1, 2, 2, 3)))))
    return queries


def synthetic_index(pages: int) -> Index:
    info = synthetic.build(pages)
    queries = synthetic_queries(pages)
    english = next(q for q in queries if len(q.split()) == 2 and '"' not in q)
    chinese = next(q for q in queries if not q.isascii())
    built = f"built in {info['seconds']:,.0f} s, {info['docs_per_second']:.0f} docs/s, on {info['built']}"
    return Index(f"synthetic {pages:,} pages", synthetic.index_dir(pages), queries, english, chinese, built)


# --- timing ------------------------------------------------------------------------------


def _timed(run: Callable[[str], object], queries: Sequence[str], warmup: Sequence[str]) -> list[float]:
    for query in warmup:
        run(query)
    times = []
    for query in queries:
        started = time.perf_counter()
        run(query)
        times.append((time.perf_counter() - started) * 1000)
    return times


def _warmup(index: Index) -> list[str]:
    return [index.english, index.chinese]


def ours_in_process(index: Index) -> list[float]:
    from search.engine import SearchEngine

    with SearchEngine(index.data) as engine:
        return _timed(lambda q: engine.search(q, n=10), index.queries, _warmup(index))


def plain_in_process(index: Index) -> list[float]:
    """Plain Whoosh on the body field of the page shards (one reader over them all)."""
    from whoosh.qparser import QueryParser
    from whoosh.reading import MultiReader
    from whoosh.searching import Searcher

    from indexer.layout import Layout

    shards, anchors = Layout(index.data).open()
    parser = QueryParser("body", shards[0].schema)
    try:
        # One shard: its own searcher (Whoosh's top-N skipping needs a leaf matcher).
        opened = shards[0].searcher() if len(shards) == 1 else Searcher(MultiReader([ix.reader() for ix in shards]))
        with opened as searcher:

            def run(query: str) -> list[str]:
                return [hit["url"] for hit in searcher.search(parser.parse(query), limit=10)]

            return _timed(run, index.queries, _warmup(index))
    finally:
        for ix in [*shards, *anchors]:
            ix.close()


def ours_web_api(index: Index, timeout: float = 60.0, startup: list[float] | None = None) -> list[float]:
    """Each query's milliseconds through the web API, one at a time; the
    server's seconds from its start to its first line are appended to ``startup``."""
    more = [option for data in index.more for option in ("--data", str(data))]
    started = time.monotonic()
    with _web_server(index.data, *more, timeout=timeout) as base:
        if startup is not None:
            startup.append(time.monotonic() - started)
        parts = urlsplit(base)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)

        def run(query: str) -> None:
            connection.request("GET", "/api/search?" + urlencode({"q": query, "n": 10}))
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                raise RuntimeError(f"{query!r}: HTTP {response.status}: {body[:200]!r}")

        try:
            return _timed(run, index.queries, _warmup(index))
        finally:
            connection.close()


def ours_web_concurrent(index: Index, clients: int = CLIENTS, same: bool = False) -> tuple[list[float], int]:
    """``clients`` searches sent at once, each on a connection of its own
    (distinct queries, or one query ``same``): each one's seconds, and how
    many failed (refused, reset, timed out or not HTTP 200)."""
    with _web_server(index.data) as base:
        parts = urlsplit(base)
        queries = [index.queries[0] if same else index.queries[k % len(index.queries)] for k in range(clients)]
        start = threading.Barrier(clients)

        def run(query: str) -> float | None:
            connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
            try:
                start.wait()
                started = time.perf_counter()
                connection.request("GET", "/api/search?" + urlencode({"q": query, "n": 10}))
                response = connection.getresponse()
                response.read()
                return time.perf_counter() - started if response.status == 200 else None
            except OSError:
                return None
            finally:
                connection.close()

        with ThreadPoolExecutor(clients) as pool:
            answers = list(pool.map(run, queries))
    return [a * 1000 for a in answers if a is not None], sum(1 for a in answers if a is None)


def _kill_group(process: subprocess.Popen[str]) -> None:
    """Kill a server and the worker processes it started (its session)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@contextmanager
def _web_server(data: Path, *options: str, timeout: float = 60.0) -> Iterator[str]:
    """``python -m search.web`` on a free port (and ``options``); its base URL once it says it serves."""
    process = subprocess.Popen(
        [sys.executable, "-m", "search.web", "--data", str(data), "--port", "0", "--quiet", *options],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its worker processes too are stopped with it
    )
    try:
        assert process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            ready = selector.select(timeout)
        line = process.stdout.readline() if ready else ""
        match = _SERVING.search(line.strip())
        if not match:
            _kill_group(process)
            _, err = process.communicate(timeout=10)
            said = repr(line.strip()) if ready else f"nothing in {timeout:.0f} s"
            raise RuntimeError(f"search.web did not start ({said}):\n{err[-2000:]}")
        yield match.group(1)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                _kill_group(process)
                process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _walls(commands: list[list[str]], runs: int = CLI_RUNS) -> list[float]:
    """Median wall seconds of each command, the commands run in turn ``runs`` times."""
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for command, spent in zip(commands, times, strict=False):
            started = time.perf_counter()
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
            spent.append(time.perf_counter() - started)
            if done.returncode:
                raise RuntimeError(f"{command[:4]} failed:\n{done.stderr[-2000:]}")
    return [statistics.median(spent) for spent in times]


def _compiled() -> None:
    """The project's modules byte-compiled, as an installed package's are
    (without it every run compiles them again when the environment sets
    ``PYTHONDONTWRITEBYTECODE``; the baseline's Whoosh comes compiled by pip)."""
    import compileall

    for package in ("crawler", "indexer", "search"):
        compileall.compile_dir(ROOT / package, quiet=2)


def cli(index: Index, query: str) -> tuple[float, float]:
    """Wall seconds of our CLI and of the plain one, median of alternating runs."""
    _compiled()
    ours = [sys.executable, "-m", "search", "--data", str(index.data), query]
    plain = [sys.executable, "-c", _PLAIN_CLI, str(index.data), query]
    a, b = _walls([ours, plain])
    return a, b


# --- the table ---------------------------------------------------------------------------


def _count(index: Index) -> int:
    """Documents: URLs, crawled or known by their anchors."""
    from indexer.layout import stored_documents

    return len(stored_documents(index.data))


def compare(index: Index, documents: int | None = None) -> list[str]:
    documents = documents or _count(index)
    ours = ours_in_process(index)
    plain = plain_in_process(index)
    web = ours_web_api(index)
    runs = sorted((ours_web_concurrent(index) for _ in range(CROWD_RUNS)), key=lambda run: percentile(run[0], 95))
    crowd = {"distinct": runs[len(runs) // 2], "one": ours_web_concurrent(index, same=True)}
    failures = sum(failed for _, failed in runs)
    walls = {"English": cli(index, index.english), "Chinese": cli(index, index.chinese)}
    rows = [
        f"query latency: {index.name}, {documents:,} documents ({index.about}); "
        f"{len(index.queries)} queries, each once after 2 warm-up queries",
        f"  {'figure':40s} {'ours':>10s} {'plain':>10s} {'ratio':>8s}",
    ]

    def row(label: str, a: float, b: float) -> None:
        rows.append(f"  {label:40s} {a:10.1f} {b:10.1f} {a / b if b else float('nan'):7.2f}x")

    for p in (50, 95):
        row(f"in-process p{p}, ms", percentile(ours, p), percentile(plain, p))
    for p in (50, 95):
        row(f"web API p{p}, ms (plain: in-process)", percentile(web, p), percentile(plain, p))
    for kind, (times, failed) in crowd.items():
        label = f"distinct queries (median of {CROWD_RUNS} runs)" if kind == "distinct" else "one query"
        rows.append(
            f"  {f'{CLIENTS} at once, {label}: p50 / p95, ms':40s} "
            f"{percentile(times, 50):5.0f} / {percentile(times, 95):.0f}  failed: {failed}"
        )
    for language, (a, b) in walls.items():
        row(f"CLI wall, {language} query, ms (median of {CLI_RUNS})", a * 1000, b * 1000)
    web_p95 = percentile(web, 95)
    target = TARGETS_MS.get(documents) or next(
        (ms for size, ms in sorted(TARGETS_MS.items()) if documents <= size), None
    )
    verdicts = []
    if target is not None:
        verdicts.append(
            f"web API p95 {web_p95:.1f} ms vs < {target:.0f} ms: " + ("met" if web_p95 < target else "MISSED")
        )
    if documents <= 10_000:
        crowd_p95 = percentile(crowd["distinct"][0], 95)
        verdicts.append(
            f"{CLIENTS} distinct searches at once p95 {crowd_p95:.0f} ms vs < {CROWD_TARGET_MS:.0f} ms, "
            f"{failures} failed in {CROWD_RUNS} runs: "
            + ("met" if crowd_p95 < CROWD_TARGET_MS and not failures else "MISSED")
        )
    english = walls["English"][0]
    verdicts.append(
        f"CLI English p50 {english * 1000:.0f} ms vs < {CLI_TARGET_S * 1000:.0f} ms: "
        + ("met" if english < CLI_TARGET_S else "MISSED")
    )
    rows.append("  targets: " + "; ".join(verdicts))
    rows.append(f"  CLI queries: {index.english!r}, {index.chinese!r}")
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.query", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="*",
        default=list(synthetic.SIZES),
        help="synthetic index sizes (default: 10000 100000)",
    )
    parser.add_argument("--no-demo", action="store_true", help="skip the demo web index")
    args = parser.parse_args(argv)
    if not args.no_demo:
        with demo_index() as index:
            print("\n".join(compare(index)), flush=True)
            print()
    for pages in args.sizes:
        index = synthetic_index(pages)
        print("\n".join(compare(index, pages)), flush=True)
        print()


if __name__ == "__main__":
    main()

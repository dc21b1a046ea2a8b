"""Indexing speed, size and memory: our indexer against a plain Whoosh writer.

    python -m bench.index DATA_DIR [RUNS]

Both index the pages of a finished crawl (``DATA_DIR/pages.sqlite``) into a
fresh directory, each run in a process of its own (its peak memory its
own), alternating. Ours is the crawl's own path: ``IndexBuilder.add`` in
batches of 500 with a commit each (as ``python -m indexer`` does), every
field and the anchor text, then ``finalize`` (anchor documents, PageRank);
with one writer process, then with two page shards written by two
processes (when two cores are free). The baseline is what a Whoosh user
would write: the default schema analyzer on URL, title and body, one
writer process, committed as ours is, after each batch of 500 pages
(one commit for all of them would spare it what ours pays for being
searchable as it goes: a segment a batch, a writer opened again).
Figures: documents per second (medians), finalize's seconds, the size
of the index directory over the size of the raw text (title and body,
UTF-8), the peak resident memory.
"""

from __future__ import annotations

import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from crawler.cores import cores
from crawler.datadir import graph_dir, index_dir, pages_path
from indexer.builder import IndexBuilder
from indexer.graph import LinkGraph
from indexer.store import PageStore

ROOT = Path(__file__).resolve().parents[1]
_BATCH = 500


def stored_items(data_dir: Path) -> list[dict[str, Any]]:
    """The crawled pages of ``data_dir`` as the crawl's items again: each
    from the page store, with its links from the link graph (their one home)."""
    links: defaultdict[str, list[tuple[str, str]]] = defaultdict(list)
    graph = LinkGraph(graph_dir(data_dir), readonly=True)
    try:
        for source, target, text in graph.links():
            links[source].append((target, text))
    finally:
        graph.close()
    with PageStore(pages_path(data_dir), readonly=True) as store:
        return [{"type": "page", **page, "links": links.get(page["url"], [])} for page in store.pages()]


def _size(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


def _batches(items: list[dict[str, Any]], size: int = _BATCH) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _peak_mib() -> float:
    """This process's peak resident memory and its children's (the writer processes)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return (own + children) / 1024


def ours(items: list[dict[str, Any]], target: Path, processes: int = 1, batch_size: int = _BATCH) -> dict[str, float]:
    started = time.perf_counter()
    with IndexBuilder(target, processes=processes) as builder:
        for batch in _batches(items, batch_size):
            builder.add(batch)
            builder.commit()
        finalize = builder.finalize().seconds
    return {"seconds": time.perf_counter() - started, "finalize": finalize}


def plain(items: list[dict[str, Any]], target: Path, batch_size: int = _BATCH) -> dict[str, float]:
    from whoosh import fields, index

    schema = fields.Schema(url=fields.ID(stored=True, unique=True), title=fields.TEXT(stored=True), body=fields.TEXT)
    target.mkdir(parents=True)
    started = time.perf_counter()
    ix = index.create_in(str(target), schema)
    for batch in _batches(items, batch_size):
        writer = ix.writer()
        for item in batch:
            writer.add_document(url=item["url"], title=item.get("title") or "", body=item.get("text") or "")
        writer.commit()
    return {"seconds": time.perf_counter() - started, "finalize": 0.0}


def _one(who: str, data_dir: Path, target: Path) -> dict[str, float]:
    """One run in this process (``python -m bench.index --one WHO DATA TARGET``)."""
    items = stored_items(data_dir)
    found = plain(items, target) if who == "plain" else ours(items, target, int(who.removeprefix("ours")))
    written = index_dir(target) if who != "plain" else target
    return {**found, "documents": len(items), "bytes": _size(written), "peak_mib": _peak_mib()}


def _run(who: str, data_dir: Path, work: Path) -> dict[str, float]:
    target = work / f"{who}-{time.monotonic_ns()}"
    done = subprocess.run(
        [sys.executable, "-m", "bench.index", "--one", who, str(data_dir), str(target)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    shutil.rmtree(target, ignore_errors=True)
    if done.returncode:
        raise RuntimeError(f"bench.index {who} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(data_dir: Path, name: str = "", runs: int = 3) -> list[str]:
    items = stored_items(data_dir)
    raw = sum(len((item.get("title") or "").encode()) + len((item.get("text") or "").encode()) for item in items)
    who = ["plain", "ours1"] + (["ours2"] if cores() >= 2 else [])
    results: dict[str, list[dict[str, float]]] = {name_: [] for name_ in who}
    work = Path(tempfile.mkdtemp(prefix="bench-index-"))
    try:
        for _ in range(runs):
            for name_ in who:
                results[name_].append(_run(name_, data_dir, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def median(name_: str, key: str) -> float:
        return statistics.median(run[key] for run in results[name_])

    n = len(items)
    rate = {name_: n / median(name_, "seconds") for name_ in who}
    size = {name_: median(name_, "bytes") / raw for name_ in who}
    rows = [
        f"index: {name}{n:,} crawled pages, {raw / 1e6:.1f} MB of text ({runs} alternating runs, medians)",
        f"  {'figure':36s} {'ours':>10s} {'plain':>10s} {'ratio':>8s}",
        f"  {'documents/s, 1 process':36s} {rate['ours1']:10.1f} {rate['plain']:10.1f} "
        f"{rate['ours1'] / rate['plain']:7.2f}x",
    ]
    if "ours2" in rate:
        rows.append(
            f"  {'documents/s, 2 processes (2 shards)':36s} {rate['ours2']:10.1f} {rate['plain']:10.1f} "
            f"{rate['ours2'] / rate['plain']:7.2f}x"
        )
    else:
        rows.append(f"  {'documents/s, 2 processes':36s} {'cannot run: one core':>30s}")
    rows += [
        f"  {'finalize, s (1 process)':36s} {median('ours1', 'finalize'):10.2f} {'-':>10s} {'-':>8s}",
        f"  {'index size / text size':36s} {size['ours1']:10.2f} {size['plain']:10.2f} "
        f"{size['ours1'] / size['plain']:7.2f}x",
        f"  {'peak memory, MiB (1 process)':36s} {median('ours1', 'peak_mib'):10.0f} "
        f"{median('plain', 'peak_mib'):10.0f} {median('ours1', 'peak_mib') / median('plain', 'peak_mib'):7.2f}x",
    ]
    if "ours2" in rate:
        rows.append(
            f"  {'peak memory, MiB (2 processes, all)':36s} {median('ours2', 'peak_mib'):10.0f} {'-':>10s} {'-':>8s}"
        )
    return rows


if __name__ == "__main__":
    if sys.argv[1] == "--one":
        print(json.dumps(_one(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))))
    else:
        print("\n".join(compare(Path(sys.argv[1]), runs=int(sys.argv[2]) if len(sys.argv) > 2 else 3)))

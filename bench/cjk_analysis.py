"""Chinese analysis, measured: character bigrams, jieba words, or both.

The demo web's pages (crawled by ``make demo`` into ``data/demo``) are indexed
three times from the page store, once per ``cjk`` mode of the analyzer, and
each index answers the Chinese and English query sets of
``tests/search/queries``: MRR@10 and Success@1 per mode, index size, and the
time of a Chinese query from a fresh process (what a CLI user waits), so the
choice in ``indexer/analysis.py`` rests on figures.

    python -m bench.cjk_analysis [--data data/demo]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.index import stored_items
from crawler.datadir import graph_dir, index_dir, pages_path
from indexer.analysis import CJK_MODES
from indexer.builder import IndexBuilder

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ROOT / "tests" / "search" / "queries"
SITES = {
    name: f"http://127.0.0.1:{port}" for name, port in (("docs", 8301), ("news", 8302), ("zh", 8303), ("wiki", 8304))
}


def build(source: Path, target: Path, mode: str) -> float:
    started = time.monotonic()
    items = stored_items(source)
    with IndexBuilder(target, cjk=mode) as builder:
        for start in range(0, len(items), 500):
            builder.add(items[start : start + 500])
        builder.finalize()
    return time.monotonic() - started


def evaluate(data: Path, queries: Path) -> dict:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "search.eval",
            "--data",
            str(data),
            str(queries),
            "--sites",
            json.dumps(SITES),
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def cli_seconds(data: Path, query: str) -> float:
    times = []
    for _ in range(5):
        started = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "search", "--data", str(data), query], cwd=ROOT, capture_output=True, check=True
        )
        times.append(time.monotonic() - started)
    return statistics.median(times)


def size(path: Path) -> int:
    return sum(f.stat().st_size for f in index_dir(path).iterdir())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="data/demo", help="a crawl of the demo web (make demo)")
    source = Path(parser.parse_args().data)
    if not pages_path(source).exists():
        raise SystemExit(f"no crawl in {source}: run `make demo` first")
    print(f"Chinese analysis on {source}: MRR@10 / Success@1 per query set, index size, CLI time")
    print(
        f"  {'mode':8s} {'zh MRR':>8s} {'zh S@1':>7s} {'en MRR':>8s} {'index MB':>9s} {'CLI zh s':>9s} {'build s':>8s}"
    )
    with tempfile.TemporaryDirectory(prefix="bench-cjk-") as scratch:
        for mode in CJK_MODES:
            target = Path(scratch) / mode
            shutil.copytree(graph_dir(source), graph_dir(target))
            seconds = build(source, target, mode)
            zh = evaluate(target, QUERIES / "demo_zh.jsonl")
            en = evaluate(target, QUERIES / "demo_en.jsonl")
            print(
                f"  {mode:8s} {zh['mrr@10']:8.3f} {zh['success@1']:7.3f} {en['mrr@10']:8.3f} "
                f"{size(target) / 1e6:9.2f} {cli_seconds(target, '西湖龙井茶'):9.2f} {seconds:8.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()

"""Indexing speed and size: our indexer against a plain Whoosh writer.

    python -m bench.index DATA_DIR

Both index the pages of a finished crawl (``DATA_DIR/pages.sqlite``) into a
fresh directory. Ours is the crawl's own path: ``IndexBuilder.add`` in
batches of 500 with a commit each (as ``python -m indexer`` does), then
``finalize`` (anchors merged, PageRank computed, index optimized). The
baseline is what a Whoosh user would write: the default schema analyzer on
URL, title and body, one writer, one commit. Figures: documents per second,
and the size of the index directory over the size of the raw text (title
and body, UTF-8).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from indexer.builder import IndexBuilder
from indexer.store import PageStore

_BATCH = 500


def _items(data_dir: Path) -> list[dict[str, Any]]:
    with PageStore(data_dir / "pages.sqlite", readonly=True) as store:
        return [{"type": "page", **page} for page in store.pages()]


def _size(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


def _batches(items: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(items), _BATCH):
        yield items[start : start + _BATCH]


def ours(items: list[dict[str, Any]], target: Path) -> float:
    started = time.perf_counter()
    with IndexBuilder(target) as builder:
        for batch in _batches(items):
            builder.add(batch)
            builder.commit()
        builder.finalize()
    return time.perf_counter() - started


def plain(items: list[dict[str, Any]], target: Path) -> float:
    from whoosh import fields, index

    schema = fields.Schema(url=fields.ID(stored=True, unique=True), title=fields.TEXT(stored=True),
                           body=fields.TEXT)
    target.mkdir(parents=True)
    started = time.perf_counter()
    ix = index.create_in(str(target), schema)
    writer = ix.writer()
    for item in items:
        writer.add_document(url=item["url"], title=item.get("title") or "", body=item.get("text") or "")
    writer.commit()
    return time.perf_counter() - started


def compare(data_dir: Path, name: str = "") -> list[str]:
    items = _items(data_dir)
    raw = sum(len((item.get("title") or "").encode()) + len((item.get("text") or "").encode()) for item in items)
    work = Path(tempfile.mkdtemp(prefix="bench-index-"))
    try:
        ours_seconds = ours(items, work / "ours")
        plain_seconds = plain(items, work / "plain")
        ours_size = _size(work / "ours" / "index")
        plain_size = _size(work / "plain")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    n = len(items)
    a, b = n / ours_seconds, n / plain_seconds
    return [
        f"index: {name}{n:,} crawled pages, {raw / 1e6:.1f} MB of text",
        f"  {'figure':32s} {'ours':>10s} {'plain':>10s} {'ratio':>8s}",
        f"  {'documents/s':32s} {a:10.1f} {b:10.1f} {a / b:7.2f}x",
        f"  {'index size / text size':32s} {ours_size / raw:10.2f} {plain_size / raw:10.2f} "
        f"{ours_size / plain_size:7.2f}x",
    ]


if __name__ == "__main__":
    print("\n".join(compare(Path(sys.argv[1]))))

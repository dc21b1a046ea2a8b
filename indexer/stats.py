"""What a data directory's index holds: ``python -m indexer stats --data DIR [--json]``.

Read-only and cheap (counts the index keeps, a few grouped SQL queries), so
that the search page's home shows the same numbers.
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from whoosh.reading import TermNotFound

from crawler.datadir import graph_dir, pages_path
from indexer import schema as fields
from indexer.graph import LINKS_FILE, LinkGraph
from indexer.layout import Layout
from indexer.store import PageStore

__all__ = ["IndexStats", "collect", "render"]

TOP_RANKED = 10


@dataclass
class IndexStats:
    documents: int  # URLs: pages crawled and pages known only by links to them
    crawled: int
    anchor_only: int
    sites: list[dict[str, Any]] = field(default_factory=list)  # host, pages, last_fetch (ISO 8601)
    languages: list[dict[str, Any]] = field(default_factory=list)  # lang, pages
    bytes_on_disk: int = 0
    segments: int = 0
    last_commit: str = ""  # ISO 8601, UTC
    top_pagerank: list[dict[str, Any]] = field(default_factory=list)  # url, pagerank

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def collect(data_dir: str | Path | Sequence[str | Path]) -> IndexStats:
    """The numbers of ``data_dir``'s index (:class:`indexer.layout.IndexMissing`
    if there is none), or of several directories' read as one index (each
    URL in one of them: :mod:`indexer.federation`)."""
    if not isinstance(data_dir, (str, Path)):
        return _together([collect(each) for each in data_dir])
    data_dir = Path(data_dir)
    layout = Layout(data_dir)
    crawled, anchor_only, segments = _documents(layout)
    stats = IndexStats(documents=crawled + anchor_only, crawled=crawled, anchor_only=anchor_only, segments=segments)
    stats.bytes_on_disk, stats.last_commit = _files(layout.root)
    if pages_path(data_dir).exists():
        with PageStore(pages_path(data_dir), readonly=True) as store:
            stats.sites = [
                {"host": host, "pages": count, "last_fetch": _iso(last)} for host, count, last in store.sites()
            ]
            stats.languages = [{"lang": lang or "unknown", "pages": count} for lang, count in store.languages()]
    if (graph_dir(data_dir) / LINKS_FILE).exists():
        stats.top_pagerank = _top_ranked(graph_dir(data_dir))
    return stats


def _together(parts: list[IndexStats]) -> IndexStats:
    """Several directories' numbers as one index's: counts summed, sites and
    languages merged, the best ranked of all."""
    sites: dict[str, dict[str, Any]] = {}
    languages: Counter[str] = Counter()
    for part in parts:
        for site in part.sites:
            merged = sites.setdefault(site["host"], {"host": site["host"], "pages": 0, "last_fetch": ""})
            merged["pages"] += site["pages"]
            merged["last_fetch"] = max(merged["last_fetch"], site["last_fetch"])
        languages.update({language["lang"]: language["pages"] for language in part.languages})
    crawled = sum(part.crawled for part in parts)
    anchor_only = sum(part.anchor_only for part in parts)
    return IndexStats(
        documents=crawled + anchor_only,
        crawled=crawled,
        anchor_only=anchor_only,
        sites=sorted(sites.values(), key=lambda site: (-site["pages"], site["host"])),
        languages=[
            {"lang": lang, "pages": pages} for lang, pages in sorted(languages.items(), key=lambda x: (-x[1], x[0]))
        ],
        bytes_on_disk=sum(part.bytes_on_disk for part in parts),
        segments=sum(part.segments for part in parts),
        last_commit=max(part.last_commit for part in parts),
        top_pagerank=sorted(
            (top for part in parts for top in part.top_pagerank), key=lambda top: (-top["pagerank"], top["url"])
        )[:TOP_RANKED],
    )


def _documents(layout: Layout) -> tuple[int, int, int]:
    """How many crawled pages, pages known only by links to them, and
    segments with documents the index has."""
    pages, anchors = layout.open()
    parts = [*pages, *anchors]
    crawled = anchor_only = segments = 0
    for index in parts:
        with index.reader() as reader:
            leaves = [reader] if reader.is_atomic() else [leaf for leaf, _ in reader.leaf_readers()]
            segments += sum(1 for leaf in leaves if leaf.doc_count_all())
            if index in pages:
                crawled += reader.doc_count()
            else:
                anchor_only += _stubs(reader)
    for index in parts:
        index.close()
    return crawled, anchor_only, segments


def _files(root: Path) -> tuple[int, str]:
    """The bytes of the index's files, and when it was last committed (ISO 8601, "" if never)."""
    files = [path for path in root.rglob("*") if path.is_file()]
    tocs = [path.stat().st_mtime for path in files if path.suffix == ".toc"]
    return sum(path.stat().st_size for path in files), _iso(max(tocs)) if tocs else ""


def _top_ranked(directory: Path) -> list[dict[str, Any]]:
    """The best ranked URLs by PageRank, best first (of the link graph in ``directory``)."""
    graph = LinkGraph(directory, readonly=True)
    try:
        return [{"url": url, "pagerank": score} for url, score in graph.highest_ranked(TOP_RANKED)]
    finally:
        graph.close()


def _stubs(reader: Any) -> int:
    """Anchor documents of pages never crawled (live ones)."""
    field_ = reader.schema[fields.CRAWLED]
    try:
        return sum(1 for _ in reader.postings(fields.CRAWLED, field_.to_bytes(False)).all_ids())
    except TermNotFound:
        return 0


def _iso(epoch: float) -> str:
    if not epoch:
        return ""
    return datetime.datetime.fromtimestamp(epoch, datetime.UTC).isoformat(timespec="seconds")


def render(stats: IndexStats, data_dir: str | Path) -> str:
    """The numbers as a person reads them in a terminal."""
    lines = [
        f"Index of {data_dir}: {stats.documents:,} documents "
        f"({stats.crawled:,} crawled pages, {stats.anchor_only:,} known only by links to them)",
        f"  on disk: {stats.bytes_on_disk / 2**20:,.1f} MiB in {stats.segments} segments; "
        f"last commit {stats.last_commit or 'never'}",
        f"  sites ({len(stats.sites)}):",
        *(
            f"    {site['host']:40s} {site['pages']:>8,} pages, last fetched {site['last_fetch'] or '-'}"
            for site in stats.sites
        ),
        "  languages: " + (", ".join(f"{lang['lang']} {lang['pages']:,}" for lang in stats.languages) or "-"),
        f"  highest PageRank ({len(stats.top_pagerank)}):",
        *(f"    {top['pagerank']:.5f}  {top['url']}" for top in stats.top_pagerank),
    ]
    return "\n".join(lines)

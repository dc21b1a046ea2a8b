"""Rebuild the index, the link graph and PageRank from the crawl's archive.

    python -m indexer rebuild --data DIR [--force]

Reads every WARC file in ``DIR/archive`` (written by the crawl, see
:mod:`crawler.archive`) in the order the crawl wrote them, makes each
response's items again with the crawl's own page logic
(:func:`crawler.pages.replay`: same canonical URLs, redirects, duplicates,
soft 404s, robots META, boilerplate), and feeds them through the same
:class:`IndexBuilder` path as the crawl's indexer. No network, no Redis.

The new index is built beside the old one (``DIR/.rebuild``: :mod:`crawler.datadir`) and replaces
it only when complete: a failed or interrupted rebuild leaves the old index
as it was, and so does one that would hold fewer pages than the old one
(:class:`FewerPages`: a damaged archive should not cost the pages its
index still has) unless it is forced. The old one may be of any format (a data directory of another
version's format is what a rebuild is for); the new one is of this
version's, and the directory says so once it is in place.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from crawler.archive import ArchiveReader, Damage
from crawler.cores import free_cores
from crawler.datadir import (
    INDEXER_PARTS,
    archive_dir,
    index_dir,
    pages_path,
    rebuild_dir,
    rebuild_old_dir,
    stamp_format,
)
from crawler.items import Item
from crawler.pages import LocalPageMemory, PageLogic, recorded_page_settings, replay
from indexer.builder import FinalizeReport, IndexBuilder
from indexer.layout import IndexBusy, Layout
from indexer.progress import Progress
from indexer.store import PageStore

logger = logging.getLogger("indexer")

__all__ = ["FewerPages", "NothingToRebuild", "RebuildReport", "rebuild", "skipped_damage"]

_BATCH = 500
_REPORT_SECONDS = 5.0


class NothingToRebuild(RuntimeError):
    """The data directory has no archive to rebuild from."""


def skipped_damage(damaged: list[Damage]) -> str:
    """What a rebuild says of the damage it skipped (each stretch was named as it was met)."""
    total = sum(damage.end - damage.start for damage in damaged)
    stretches = "1 damaged stretch" if len(damaged) == 1 else f"{len(damaged)} damaged stretches"
    return f"{stretches} of the archive ({total:,} bytes) skipped, each named above"


class FewerPages(RuntimeError):
    """The rebuilt index would hold fewer pages than the one it replaces: the old one is kept."""

    def __init__(self, data_dir: Path, new: int, old: int, damaged: list[Damage]) -> None:
        where = f"; {skipped_damage(damaged)}" if damaged else ""
        super().__init__(
            f"the rebuilt index would hold {new:,} pages, the one in {data_dir} holds {old:,}{where}: "
            f"the old index is kept; to replace it anyway: python -m indexer rebuild --data {data_dir} --force"
        )


@dataclass
class RebuildReport:
    records: int
    fetches: int
    skipped: int
    damaged: list[Damage]
    files: int
    items: Counter[str]
    final: FinalizeReport
    seconds: float


def _timestamp(date: str) -> float | None:
    try:
        return datetime.fromisoformat(date.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def rebuild(  # noqa: PLR0915 (a rebuild's stages, in order)
    data_dir: str | Path,
    progress: Callable[[str], None] | None = None,
    shards: int | None = None,
    processes: int | None = None,
    force: bool = False,
) -> RebuildReport:
    """Rebuild ``data_dir``'s index, graph and page store from ``data_dir/archive``,
    in ``shards`` page shards (default: as many as the index has), written by
    ``processes`` processes (default: one per shard, as far as cores allow;
    this process reads the archive). :class:`FewerPages` if the new index
    would hold fewer pages than the old one, unless ``force``."""
    data_dir = Path(data_dir)
    if shards is None:
        shards = max(1, len(Layout(data_dir).page_dirs()))
    if processes is None:
        processes = min(shards, free_cores(busy=1))
    say = progress or logger.info
    reader = ArchiveReader(archive_dir(data_dir))
    if not reader.writers():
        raise NothingToRebuild(f"{archive_dir(data_dir)} holds no WARC files: nothing to rebuild from")
    work = rebuild_dir(data_dir)
    shutil.rmtree(work, ignore_errors=True)
    started = time.monotonic()
    logics: dict[str, PageLogic] = {}
    memory: LocalPageMemory | None = None
    items: Counter[str] = Counter()
    fetches = 0
    bar = Progress(max(1, reader.total_bytes() // 1024), "kB of archive", label="Rebuilding", logger=logger)
    try:
        with IndexBuilder(work, shards=shards, processes=processes) as builder:
            batch: list[Item] = []
            last_report = started
            for writer, fetch in reader:
                bar.advance(reader.bytes_read // 1024 - bar.done)
                fetches += 1
                logic = logics.get(writer)
                if logic is None:
                    # Each crawl process learnt boilerplate on its own; the
                    # content seen and the sites' soft 404s were shared.
                    settings = recorded_page_settings(reader.settings.get(writer) or {})
                    if memory is None:
                        memory = LocalPageMemory(int(settings["TRAPS_NEAR_DUPLICATE_BITS"]))
                    logic = logics[writer] = PageLogic.from_settings(settings, memory)
                for item in replay(logic, fetch):
                    if item["type"] == "page":
                        item["fetched"] = _timestamp(fetch.date)
                    items[item["type"]] += 1
                    batch.append(item)
                if len(batch) >= _BATCH:
                    builder.add(batch)
                    builder.commit()
                    batch = []
                now = time.monotonic()
                if progress is not None and now - last_report >= _REPORT_SECONDS:
                    last_report = now
                    say(
                        f"Rebuilding: {reader.records} records read, {fetches} responses, "
                        f"{items['page']} pages ({fetches / (now - started):.0f} responses/s)"
                    )
            builder.add(batch)
            builder.commit()
            bar.advance(bar.total - bar.done)
            bar.close()
            say(
                f"Read {reader.records} records in {reader.files} files: {fetches} responses, "
                f"{items['page']} pages, {items['duplicate']} duplicates, {items['gone']} gone; "
                f"{reader.skipped} skipped; merging anchors and computing PageRank..."
            )
            final = builder.finalize()
        if not force:
            _refuse_fewer_pages(data_dir, work, reader.damaged)
        _swap(data_dir, work)
        stamp_format(data_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return RebuildReport(
        reader.records, fetches, reader.skipped, reader.damaged, reader.files, items, final, time.monotonic() - started
    )


def _refuse_fewer_pages(data_dir: Path, work: Path, damaged: list[Damage]) -> None:
    """:class:`FewerPages` if the index built in ``work`` holds fewer pages than ``data_dir``'s."""
    old, new = _pages_in(data_dir), _pages_in(work) or 0
    if old is not None and new < old:
        raise FewerPages(data_dir, new, old, damaged)


def _pages_in(data_dir: Path) -> int | None:
    """How many pages the page store of ``data_dir`` holds; None if it has
    none that can be read (no index yet, or one too damaged to count)."""
    if not pages_path(data_dir).exists():
        return None
    try:
        with PageStore(pages_path(data_dir), readonly=True) as store:
            return len(store)
    except sqlite3.Error:
        return None


def _swap(data_dir: Path, work: Path) -> None:
    """Put the rebuilt parts in place of the old ones, under the old index's lock."""
    root = index_dir(data_dir)
    lock = None
    if root.is_dir():
        try:
            lock = Layout(data_dir).lock()
        except IndexBusy:
            raise IndexBusy(
                f"{root} is being written by another process (a crawl or an indexer): stop it, then rebuild"
            ) from None
    old = rebuild_old_dir(data_dir, os.getpid())
    moved: list[Path] = []
    try:
        old.mkdir()
        for part in INDEXER_PARTS:
            for path in data_dir.glob(part + "*"):  # pages.sqlite-wal, -shm with it
                path.rename(old / path.name)
                moved.append(path)
        for part in INDEXER_PARTS:
            for path in work.glob(part + "*"):
                path.rename(data_dir / path.name)
    except BaseException:
        for path in moved:  # the old parts back, as they were
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
            (old / path.name).rename(path)
        raise
    finally:
        if lock is not None:
            lock.close()
    shutil.rmtree(old, ignore_errors=True)

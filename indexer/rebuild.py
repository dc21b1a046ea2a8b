"""Rebuild the index, the link graph and PageRank from the crawl's archive.

    python -m indexer rebuild --data DIR

Reads every WARC file in ``DIR/archive`` (written by the crawl, see
:mod:`crawler.archive`) in the order the crawl wrote them, makes each
response's items again with the crawl's own page logic
(:func:`crawler.pages.replay`: same canonical URLs, redirects, duplicates,
soft 404s, robots META, boilerplate), and feeds them through the same
:class:`IndexBuilder` path as the crawl's indexer. No network, no Redis.

The new index is built beside the old one (``DIR/.rebuild``: :mod:`crawler.datadir`) and replaces
it only when complete: a failed or interrupted rebuild leaves the old index
as it was. The old one may be of any format (a data directory of another
version's format is what a rebuild is for); the new one is of this
version's, and the directory says so once it is in place.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from crawler.archive import ArchiveReader
from crawler.cores import free_cores
from crawler.datadir import INDEXER_PARTS, archive_dir, index_dir, rebuild_dir, rebuild_old_dir, stamp_format
from crawler.items import Item
from crawler.pages import LocalPageMemory, PageLogic, recorded_page_settings, replay
from indexer.builder import FinalizeReport, IndexBuilder
from indexer.layout import IndexBusy, Layout
from indexer.progress import Progress

logger = logging.getLogger("indexer")

__all__ = ["NothingToRebuild", "RebuildReport", "rebuild"]

_BATCH = 500
_REPORT_SECONDS = 5.0


class NothingToRebuild(RuntimeError):
    """The data directory has no archive to rebuild from."""


@dataclass
class RebuildReport:
    records: int
    fetches: int
    skipped: int
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
) -> RebuildReport:
    """Rebuild ``data_dir``'s index, graph and page store from ``data_dir/archive``,
    in ``shards`` page shards (default: as many as the index has), written by
    ``processes`` processes (default: one per shard, as far as cores allow;
    this process reads the archive)."""
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
        _swap(data_dir, work)
        stamp_format(data_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return RebuildReport(
        reader.records, fetches, reader.skipped, reader.files, items, final, time.monotonic() - started
    )


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

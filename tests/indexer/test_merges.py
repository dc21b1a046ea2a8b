"""Segment merges: a commit merges nothing in its own time, merges run beside the writer, tiered by size."""

from __future__ import annotations

import logging
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from whoosh import index
from whoosh.qparser import QueryParser

from crawler.datadir import index_dir
from indexer.builder import IndexBuilder
from indexer.codec import Codec, Writer
from indexer.layout import shard_of
from indexer.merges import PER_TIER
from indexer.schema import schema as make_schema
from indexer.shards import Writers
from search.engine import SearchEngine
from tests.items import page


def _document(n: int, version: str = "first") -> dict[str, Any]:
    return {
        "url": f"http://site.test/{n}",
        "title": f"Page {n} {version}",
        "body": f"lighthouse {version} keeper{n % 7} " + " ".join(f"word{(n * k) % 23}" for k in range(12)),
    }


def _index_of_segments(path: Path, sizes: list[int]) -> Any:
    """An index of one committed segment of each size (documents numbered on), merged never."""
    path.mkdir()
    ix = index.create_in(str(path), make_schema())
    n = 0
    for size in sizes:
        writer = Writer(ix, codec=Codec())
        for _ in range(size):
            writer.add_document(**_document(n))
            n += 1
        writer.commit(merge=False)
    return ix


def _segments(path: Path) -> list[tuple[str, int]]:
    return [(segment.segment_id(), segment.doc_count()) for segment in index.open_dir(str(path))._segments()]


def _urls(path: Path, word: str = "lighthouse") -> list[str]:
    """The URLs of the documents whose body has ``word``."""
    ix = index.open_dir(str(path))
    with ix.searcher() as searcher:
        query = QueryParser("body", ix.schema).parse(word)
        return sorted(hit["url"] for hit in searcher.search(query, limit=None))


def test_a_commit_merges_nothing_in_its_own_time_and_the_large_segment_is_left_alone(tmp_path: Path) -> None:
    """Many small segments beside a large one: Whoosh's commit merged the
    small ones in its own time (the crawl waiting), and as they grew, the
    large one with them. Here the commit only adds its segment; the ten
    smallest are merged beside it, the large one untouched."""
    path = tmp_path / "pages"
    ix = _index_of_segments(path, [1200] + [8] * 14)
    large = _segments(path)[0]
    writers = Writers({0: ix}, str(path))
    try:
        writers.update(0, "http://site.test/new", _document(5000))
        writers.commit()
        assert len(_segments(path)) == 16  # every segment as it was, and the commit's
        writers.settle()
    finally:
        writers.close()
    segments = _segments(path)
    assert large in segments
    # The commit's segment and nine of the eight-document ones: the ten smallest.
    assert sorted(count for _, count in segments) == sorted([1200, 1 + 8 * 9] + [8] * 5)
    assert len(_urls(path)) == 1200 + 8 * 14 + 1
    assert [entry.name for entry in path.iterdir() if entry.is_dir()] == []


def test_documents_deleted_while_their_segment_is_merged_stay_deleted(tmp_path: Path) -> None:
    path = tmp_path / "pages"
    ix = _index_of_segments(path, [5] * (PER_TIER - 1))
    writers = Writers({0: ix}, str(path))
    try:
        writers.update(0, "http://site.test/new", _document(100))
        writers.commit()  # the tenth segment: the ten merged beside the writer
        for n in (0, 7, 44):  # in segments being merged
            writers.update(0, f"http://site.test/{n}", _document(n, "second"))
        writers.commit()
        writers.settle()
    finally:
        writers.close()
    assert len(_segments(path)) <= 2
    assert len(_urls(path)) == 5 * (PER_TIER - 1) + 1
    assert _urls(path, "second") == ["http://site.test/0", "http://site.test/44", "http://site.test/7"]
    with index.open_dir(str(path)).searcher() as searcher:
        assert searcher.doc_count() == 5 * (PER_TIER - 1) + 1
        assert [stored["title"] for stored in searcher.documents(url="http://site.test/7")] == ["Page 7 second"]


def test_a_segment_whose_documents_are_all_deleted_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "anchors"
    ix = _index_of_segments(path, [3, 4])
    writers = Writers({0: ix}, str(path))
    try:
        for n in range(3):  # the first segment's documents, rewritten
            writers.update(0, f"http://site.test/{n}", _document(n, "second"))
        writers.commit()
    finally:
        writers.close()
    assert sorted(count for _, count in _segments(path)) == [3, 4]


def test_a_segment_mostly_deleted_is_rewritten_without_them(tmp_path: Path) -> None:
    """Anchor documents rewritten as links come, pages fetched again: a
    segment whose documents are mostly deleted is read by every search as
    if whole, until it is merged."""
    path = tmp_path / "anchors"
    ix = _index_of_segments(path, [200])
    writers = Writers({0: ix}, str(path))
    try:
        for n in range(150):
            writers.update(0, f"http://site.test/{n}", _document(n, "second"))
        writers.commit()
        writers.settle()
    finally:
        writers.close()
    with index.open_dir(str(path)).reader() as reader:
        assert sorted((segment.doc_count_all(), segment.deleted_count()) for segment in reader.segments()) == [
            (50, 0),
            (150, 0),
        ]
    assert len(_urls(path)) == 200 and len(_urls(path, "second")) == 150


def test_a_merge_that_dies_leaves_its_segments_as_they_were(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Killed at once: a merge of 1,350 documents takes its process a
    good part of a second, its start alone a tenth, the kill a few
    microseconds."""
    path = tmp_path / "pages"
    ix = _index_of_segments(path, [150] * (PER_TIER - 1))
    writers = Writers({0: ix}, str(path))
    try:
        writers.update(0, "http://site.test/new", _document(5000))
        writers.commit()
        (merge,) = writers._merges[0].running
        os.kill(merge.process.pid, signal.SIGKILL)  # the out-of-memory killer, say
        before = _segments(path)
        merge.finished(block=True)
        with caplog.at_level(logging.WARNING, logger="indexer.merges"):
            writers.update(0, "http://site.test/newer", _document(5001))
            writers.commit()
        assert "failed (exit status -9)" in caplog.text
        assert _segments(path)[: len(before)] == before
        assert not writers._merges[0].running  # and no other started
    finally:
        writers.close()
    assert len(_urls(path)) == 150 * (PER_TIER - 1) + 2
    assert [entry.name for entry in path.iterdir() if entry.is_dir()] == []


def test_closing_the_writers_ends_a_merge_and_leaves_the_index_as_committed(tmp_path: Path) -> None:
    path = tmp_path / "pages"
    ix = _index_of_segments(path, [40] * (PER_TIER - 1))
    writers = Writers({0: ix}, str(path))
    writers.update(0, "http://site.test/new", _document(5000))
    writers.commit()
    committed = _segments(path)
    (merge,) = writers._merges[0].running
    writers.close()
    assert merge.status is not None  # ended, and waited for
    assert _segments(path) == committed
    assert [entry.name for entry in path.iterdir() if entry.is_dir()] == []


def test_writer_processes_merge_their_shards_beside_them(tmp_path: Path) -> None:
    """Commits enough for a merge in each page shard, through two writer
    processes: a later commit puts each merge's segment in place (polled
    for, commit by commit), every page is found, and closing leaves no
    merge's directory behind."""

    def segments() -> list[int]:
        return [len(_segments(index_dir(tmp_path) / f"pages-{number}")) for number in range(2)]

    def pages(count: int) -> list[Any]:
        """Four pages in each shard."""
        urls = [f"http://a.test/{count}-{n}" for n in range(40)]
        chosen = [url for url in urls if shard_of(url, 2) == 0][:4] + [url for url in urls if shard_of(url, 2) == 1][:4]
        return [page(url, f"Harbour {count}", f"ferry timetable {url}") for url in chosen]

    with IndexBuilder(tmp_path, shards=2, processes=2) as builder:
        for commits in range(PER_TIER):
            builder.add(pages(commits))
            builder.commit()
        assert segments() == [PER_TIER, PER_TIER]  # a merge started in each shard
        commits, deadline = PER_TIER, time.monotonic() + 60
        while max(segments()) >= PER_TIER and time.monotonic() < deadline:
            builder.add(pages(commits))
            builder.commit()
            commits += 1
            time.sleep(0.05)
        assert max(segments()) < PER_TIER
        builder.finalize()
    for number in range(2):
        part = index_dir(tmp_path) / f"pages-{number}"
        assert [entry.name for entry in part.iterdir() if entry.is_dir()] == []
    with SearchEngine(tmp_path) as engine:
        assert engine.search("ferry", n=500).total == commits * 8

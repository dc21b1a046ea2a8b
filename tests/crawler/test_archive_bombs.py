"""A decompression bomb in the archive: a rebuild cuts it where the crawl did.

The archive keeps bodies as they came, compressed; ``python -m indexer
rebuild`` inflates them again with the crawl's own decoder, to the
``DOWNLOAD_MAXSIZE`` the crawl ran with (which the archive records), so the
rebuilt page is the crawl's page and a few hundred KB that inflate to 256
MiB cost the rebuild no more than the crawl.
"""

from __future__ import annotations

import doctest
import gzip
import shutil
import sys
import zlib
from pathlib import Path

import pytest

from crawler import limits
from crawler.archive import ArchiveReader, ArchiveWriter, Fetch, decode_body
from crawler.datadir import archive_dir
from crawler.pages import PageLogic, replay
from search.engine import SearchEngine
from tests.commands import measured
from tests.crawler.test_hostile_bodies import crawl_measured
from tests.webserver import Reply, page, serve_site

INFLATED = 256 * 1024 * 1024
MAXSIZE = 1024 * 1024  # the crawl's DOWNLOAD_MAXSIZE here
RSS_LIMIT = 200 * 1024 * 1024
BEFORE_CUT = "cormorant"  # a word 900 KiB in: read by the crawl
AFTER_CUT = "quartermaster"  # a word 1.1 MiB in: past the cut


def _bomb(size: int = INFLATED) -> bytes:
    """An HTML page of about ``size`` bytes, mostly spaces, gzipped a megabyte at a time,
    with one word before ``MAXSIZE`` and one after it."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [packer.compress(b"<html><title>Bomb</title><p>The harbour lighthouse keeper wrote this.</p>")]
    parts.append(packer.compress(b" " * (900 * 1024) + f"<p>{BEFORE_CUT}</p>".encode()))
    parts.append(packer.compress(b" " * (200 * 1024) + f"<p>{AFTER_CUT}</p>".encode()))
    spaces = b" " * (1 << 20)
    parts += [packer.compress(spaces) for _ in range((size >> 20) - 2)]
    parts.append(packer.flush())
    return b"".join(parts)


def _gzipped(body: bytes) -> Reply:
    return Reply(body, 200, {"Content-Type": "text/html; charset=utf-8", "Content-Encoding": "gzip"})


def rebuild_measured(data: Path) -> tuple[int, str, int]:
    """``python -m indexer rebuild --data DATA``: (exit status, log, peak RSS in bytes)."""
    return measured([sys.executable, "-m", "indexer", "rebuild", "--data", str(data)])


def found(data: Path, query: str) -> list[str]:
    with SearchEngine(data) as engine:
        return [result.url for result in engine.search(query, n=10).results]


@pytest.fixture(scope="module")
def crawled_and_rebuilt(tmp_path_factory: pytest.TempPathFactory):
    routes = {
        "/": page("<title>Compressed</title><p>One page inflates far.</p><a href='/bomb.html'>bomb</a>"),
        "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
        "/bomb.html": _gzipped(_bomb()),
    }
    root = tmp_path_factory.mktemp("archive-bomb")
    data = root / "data"
    with serve_site(routes) as site:
        status, log, _ = crawl_measured(site.url("/"), data, "DOWNLOAD_DELAY=0", f"DOWNLOAD_MAXSIZE={MAXSIZE}")
    assert status == 0, log[-3000:]
    copy = root / "copy"
    copy.mkdir()
    shutil.copytree(archive_dir(data), archive_dir(copy))  # the archive alone: no index, no Redis
    status, rebuild_log, peak = rebuild_measured(copy)
    assert status == 0, rebuild_log[-3000:]
    return site.base, data, copy, peak


def test_the_rebuilt_bomb_page_is_cut_where_the_crawl_cut_it(crawled_and_rebuilt) -> None:
    base, crawled, rebuilt, _ = crawled_and_rebuilt
    for data in (crawled, rebuilt):
        assert found(data, "lighthouse keeper") == [f"{base}/bomb.html"]
        assert found(data, BEFORE_CUT) == [f"{base}/bomb.html"]
        assert found(data, AFTER_CUT) == []


def test_the_rebuild_stays_within_its_memory_budget(crawled_and_rebuilt) -> None:
    *_, peak = crawled_and_rebuilt
    assert peak < RSS_LIMIT, f"peak RSS {peak / 2**20:.0f} MiB"


# --- replay and decode_body, without a crawl ----------------------------------------------

SMALL_BOMB = _bomb(8 * 1024 * 1024)


def _archived(tmp_path: Path, settings: dict) -> tuple[Fetch, dict]:
    with ArchiveWriter(tmp_path / "archive", 1 << 30, settings=settings) as writer:
        writer.write(
            Fetch(
                "http://127.0.0.1:9/bomb.html",
                200,
                [("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", "gzip")],
                SMALL_BOMB,
            )
        )
    reader = ArchiveReader(tmp_path / "archive")
    ((_, fetch),) = list(reader)
    return fetch, reader.settings


@pytest.mark.parametrize(
    ("recorded", "kept"),
    [
        ({"DOWNLOAD_MAXSIZE": MAXSIZE}, False),  # what the crawl ran with, as the archive records it
        ({"DOWNLOAD_MAXSIZE": 2 * MAXSIZE}, True),
        ({}, True),  # an archive that does not record it: today's default (10 MiB)
    ],
)
def test_a_replayed_body_inflates_to_the_limit_the_archive_records(tmp_path: Path, recorded, kept) -> None:
    fetch, settings = _archived(tmp_path, recorded)
    (logic_settings,) = settings.values()
    items = replay(PageLogic.from_settings(logic_settings), fetch)
    (item,) = [item for item in items if item["type"] == "page"]
    assert item["title"] == "Bomb"
    assert BEFORE_CUT in item["text"]
    assert (AFTER_CUT in item["text"]) is kept


# A fixed gzip time stamp: the same bytes, so the same test ids, in every process of a run.
@pytest.mark.parametrize(
    ("headers", "body", "limit", "expected", "left"),
    [
        ([("Content-Encoding", "gzip")], gzip.compress(b"x" * 100, mtime=0), 10, b"x" * 10, []),
        ([("Content-Encoding", "gzip")], gzip.compress(b"x" * 100, mtime=0), 0, b"x" * 100, []),
        ([("Content-Encoding", "identity, gzip")], gzip.compress(b"page", mtime=0), 10, b"page", []),
        (
            [("Content-Encoding", "compress, gzip")],
            gzip.compress(b"page", mtime=0),
            10,
            b"page",
            [("Content-Encoding", "compress")],
        ),
        ([("Content-Type", "text/html")], b"plain", 2, b"plain", [("Content-Type", "text/html")]),
    ],
)
def test_decode_body_undoes_what_the_crawl_undid(headers, body, limit, expected, left) -> None:
    decoded, kept = decode_body(headers, body, limit)
    assert decoded == expected
    assert [pair for pair in kept if pair[0] == "Content-Encoding"] == [
        pair for pair in left if pair[0] == "Content-Encoding"
    ]


def test_decode_body_refuses_a_body_not_in_its_coding() -> None:
    with pytest.raises(ValueError, match="not a gzip body"):
        decode_body([("Content-Encoding", "gzip")], b"<p>plain</p>", 100)


def test_the_examples_in_the_docstrings_hold() -> None:
    failures, _ = doctest.testmod(limits)
    assert failures == 0

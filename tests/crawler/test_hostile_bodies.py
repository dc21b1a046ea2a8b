"""Compressed bodies that inflate far past DOWNLOAD_MAXSIZE: cut off, counted, memory bounded.

A real crawl of a local site serving gzip, deflate and brotli "bombs" (a few
hundred KB that inflate to 256 MiB each); the crawl's own peak memory is read
from the kernel when the process is reaped.
"""

from __future__ import annotations

import gzip
import random
import sys
import zlib
from pathlib import Path

import brotli
import pytest
from backports import zstd

from crawler.codings import inflate
from indexer.layout import stored_documents
from tests.commands import measured
from tests.webserver import Reply, page, serve_site

INFLATED = 256 * 1024 * 1024
MAXSIZE = 10 * 1024 * 1024  # the DOWNLOAD_MAXSIZE default
RSS_LIMIT = 300 * 1024 * 1024


def _bomb(coding: str, title: str, size: int = INFLATED) -> bytes:
    """An HTML page of ``size`` bytes, mostly spaces, compressed a megabyte at a time."""
    head = f"<html><title>{title}</title><p>The harbour lighthouse keeper wrote this first.</p>".encode()
    spaces = b" " * (1 << 20)
    if coding == "br":
        compressor = brotli.Compressor(quality=1)
        parts = [
            compressor.process(head),
            *(compressor.process(spaces) for _ in range(size >> 20)),
            compressor.finish(),
        ]
    else:
        packer = zlib.compressobj(9, zlib.DEFLATED, 31 if coding == "gzip" else 15)
        parts = [packer.compress(head), *(packer.compress(spaces) for _ in range(size >> 20)), packer.flush()]
    return b"".join(parts)


def _compressed(coding: str, body: bytes) -> Reply:
    return Reply(body, 200, {"Content-Type": "text/html; charset=utf-8", "Content-Encoding": coding})


def crawl_measured(seed: str, data: Path, *settings: str) -> tuple[int, str, int]:
    """``scrapy crawl web`` as tests.commands.crawl runs it: (exit status, log, peak RSS in bytes of
    the crawl and the processes it waited for, as the kernel counted them)."""
    command = [sys.executable, "-m", "scrapy", "crawl", "web", "-a", f"seeds={seed}", "-s", f"DATA_DIR={data}"]
    for setting in settings:
        command += ["-s", setting]
    return measured(command)


CODINGS = ["gzip", "deflate", "br"]


@pytest.fixture(scope="module")
def bomb_crawl(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, int, dict, str]:
    routes = {
        "/": page(
            "<title>Compressed pages</title><p>Three archives.</p>"
            + "".join(f'<a href="/{coding}.html">{coding}</a> ' for coding in CODINGS)
            + '<a href="/small.html">small</a> <a href="/liar.html">liar</a>'
        ),
        "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
        "/small.html": _compressed("gzip", gzip.compress(b"<title>Small gzip</title><p>A modest page.</p>")),
        # Declares gzip, sends plain HTML: not a body in its coding.
        "/liar.html": _compressed("gzip", b"<title>Liar</title><p>Plain text that says it is gzip.</p>"),
    }
    for coding in CODINGS:
        routes[f"/{coding}.html"] = _compressed(coding, _bomb(coding, f"Bomb {coding}"))
    data = tmp_path_factory.mktemp("bombs") / "data"
    with serve_site(routes) as site:
        status, log, peak = crawl_measured(site.url("/"), data, "DOWNLOAD_DELAY=0")
    return status, log, peak, stored_documents(data), site.base


def test_the_crawl_ends_without_an_error(bomb_crawl) -> None:
    status, log, _, _, _ = bomb_crawl
    assert status == 0, log[-3000:]
    assert "Traceback" not in log


def test_each_bomb_is_cut_off_counted_and_indexed(bomb_crawl) -> None:
    _, log, _, documents, base = bomb_crawl
    assert f"'limits/truncated/decompressed': {len(CODINGS)}" in log
    assert "inflates past 10485760 bytes: kept its first part" in log
    for coding in CODINGS:
        assert documents[f"{base}/{coding}.html"]["title"] == f"Bomb {coding}"


def test_the_crawl_stays_within_its_memory_budget(bomb_crawl) -> None:
    _, _, peak, _, _ = bomb_crawl
    assert peak < RSS_LIMIT, f"peak RSS {peak / 2**20:.0f} MiB"


def test_a_small_compressed_page_is_read_whole(bomb_crawl) -> None:
    _, _, _, documents, base = bomb_crawl
    assert documents[f"{base}/small.html"]["title"] == "Small gzip"


def test_a_body_not_in_its_declared_coding_is_a_counted_skip(bomb_crawl) -> None:
    _, log, _, documents, base = bomb_crawl
    assert "'limits/undecodable': 1" in log
    assert f"{base}/liar.html: not a gzip body" in log
    assert not documents.get(f"{base}/liar.html", {}).get("crawled")


# --- inflate(), the pure part -----------------------------------------------------------

NOISE = random.Random(7).randbytes(100_000)  # incompressible: its gzip is as long


def _deflate_raw(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def _gzip(data: bytes) -> bytes:
    """gzip with a fixed time stamp: the same bytes, so the same test ids, in every process of a run."""
    return gzip.compress(data, mtime=0)


INFLATE = [
    ("gzip", _gzip(b"abc"), 10, b"abc", False),
    ("x-gzip", _gzip(b"abc"), 10, b"abc", False),
    ("gzip", _gzip(b"abc") + _gzip(b"def"), 10, b"abcdef", False),  # two members
    ("gzip", _gzip(b"abc") + b"\0\0\0", 10, b"abc", False),  # padding after the member
    ("gzip", _gzip(b"x" * 100), 10, b"x" * 10, True),
    ("gzip", _gzip(b"x" * 10), 10, b"x" * 10, False),  # exactly the limit: whole
    ("gzip", _gzip(NOISE)[:50_000], 0, None, False),  # broken off on the wire: what came
    ("deflate", zlib.compress(b"abc"), 10, b"abc", False),
    ("deflate", _deflate_raw(b"abc"), 10, b"abc", False),  # raw deflate, as some servers send it
    ("deflate", zlib.compress(b"y" * 200_000), 1000, b"y" * 1000, True),
    ("br", brotli.compress(b"abc"), 10, b"abc", False),
    ("br", brotli.compress(b"z" * 200_000), 1000, b"z" * 1000, True),
    ("zstd", zstd.compress(b"abc"), 10, b"abc", False),
    ("zstd", zstd.compress(b"v" * 200_000), 1000, b"v" * 1000, True),
    ("zstd", zstd.compress(b"ab") + zstd.compress(b"cd"), 10, b"abcd", False),  # two frames
    ("gzip", _gzip(b"w" * 300_000), 0, b"w" * 300_000, False),  # 0: no limit
]


@pytest.mark.parametrize(("coding", "body", "limit", "expected", "cut"), INFLATE)
def test_inflate(coding: str, body: bytes, limit: int, expected: bytes | None, cut: bool) -> None:
    decoded, was_cut = inflate(body, coding, limit)
    if expected is None:
        assert 40_000 < len(decoded) < len(NOISE) and NOISE.startswith(decoded)
    else:
        assert decoded == expected
    assert was_cut is cut


@pytest.mark.parametrize(
    ("coding", "body"),
    [("gzip", b"<p>plain</p>"), ("br", b"<p>plain</p>"), ("deflate", b"\xff" * 20), ("zstd", b"nonsense")],
)
def test_inflate_refuses_a_body_not_in_its_coding(coding: str, body: bytes) -> None:
    with pytest.raises(ValueError, match=f"not a {coding} body"):
        inflate(body, coding, 100)


def test_a_large_bomb_inflates_in_bounded_chunks() -> None:
    decoded, cut = inflate(_bomb("gzip", "big", 64 * 1024 * 1024), "gzip", MAXSIZE)
    assert cut and len(decoded) == MAXSIZE and decoded.startswith(b"<html><title>big</title>")

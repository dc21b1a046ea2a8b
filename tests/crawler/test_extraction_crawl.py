"""Extraction in a real crawl: types, charsets, limits, refreshes and soft 404s.

One literal site serves a page of each kind; the crawl's index and the
server's log say what became of them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from indexer.layout import stored_documents
from tests.commands import crawl
from tests.crawler.test_extractors import make_pdf
from tests.webserver import Reply, Site, page, serve_site

TEA = "西湖龙井茶是中国著名的绿茶，产于浙江杭州西湖一带，已有一千二百多年历史。"
HOME = page(
    "<title>Kinds of pages</title><p>Everything a crawler meets.</p>"
    + "".join(
        f'<a href="{path}">{text}</a> '
        for path, text in [
            ("/refresh", "refreshing page"),
            ("/meta-refresh.html", "meta refresh"),
            ("/big.html", "a very long page"),
            ("/stall.html", "a page that never ends"),
            ("/report.pdf", "the annual report"),
            ("/photo.jpg", "harbour photograph"),
            ("/download?id=7", "the archive"),
            ("/gbk.html", "龙井 in GBK"),
            ("/big5.html", "龙井 in Big5"),
        ]
    )
)
BIG = ("<title>Long</title><p>" + "lighthouse keeper log entry. " * 800_000 + "</p>").encode()


def _stall(path: str) -> Reply:
    time.sleep(6)  # longer than the crawl's DOWNLOAD_TIMEOUT
    return page("<title>Too late</title>")


ROUTES = {
    "/": HOME,
    "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
    "/refresh": Reply(b"<title>Moving</title>", 200, {"Content-Type": "text/html", "Refresh": "0; url=/target.html"}),
    "/target.html": page("<title>Refresh target</title><p>Where the refresh header leads.</p>"),
    "/meta-refresh.html": page('<meta http-equiv="refresh" content="0; URL=\'/target2.html\'"><title>Old</title>'),
    "/target2.html": page("<title>Meta refresh target</title><p>Where the meta tag leads.</p>"),
    "/big.html": Reply(BIG, 200, {"Content-Type": "text/html; charset=utf-8"}),
    "/stall.html": _stall,
    "/report.pdf": Reply(
        make_pdf(
            [["Annual report of the harbour trust", "Tonnage rose by a tenth."]], title="Harbour Trust Annual Report"
        ),
        200,
        {"Content-Type": "application/pdf"},
    ),
    "/photo.jpg": Reply(b"\xff\xd8\xff\xe0" + b"\x00" * 1000, 200, {"Content-Type": "image/jpeg"}),
    "/download?id=7": Reply(b"PK\x03\x04" + b"\x00" * 200_000, 200, {"Content-Type": "application/zip"}),
    "/gbk.html": Reply(
        f'<meta charset="gbk"><title>龙井茶（GBK）</title><p>{TEA}</p>'.encode("gbk"),
        200,
        {"Content-Type": "text/html"},
    ),
    "/big5.html": Reply(
        f"<title>龍井茶（Big5）</title><p>{TEA}</p>".encode("big5", "replace"), 200, {"Content-Type": "text/html"}
    ),
}


def _soft(path: str) -> Reply:
    """A site that answers 200 for pages it does not have."""
    return page(
        f"<title>Oops</title><h1>Page not found</h1><p>We looked everywhere for {path}. "
        "Try the home page or the search box instead.</p>"
    )


SOFT_ROUTES = {
    "/": page('<title>Soft home</title><p>Welcome.</p><a href="/real.html">real</a>'),
    "/real.html": page('<title>Real page</title><p>A page that exists.</p><a href="/missing.html">gone</a>'),
    "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
}


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, Site, str, dict[str, dict]]]:
    data = tmp_path_factory.mktemp("kinds")
    with ExitStack() as stack:
        site = stack.enter_context(serve_site(ROUTES))
        soft = stack.enter_context(serve_site(SOFT_ROUTES, default=_soft))
        done = crawl(
            [site.url("/"), soft.url("/")],
            data,
            "DOWNLOAD_DELAY=0",
            "DOWNLOAD_TIMEOUT=2",
            "RETRY_TIMES=0",
            "DOWNLOAD_MAXSIZE=1048576",
        )
        assert done.returncode == 0, done.stderr[-3000:]
        documents = stored_documents(data)
        yield site, soft, done.stderr, documents


def test_a_refresh_header_and_a_meta_refresh_are_followed(crawled) -> None:
    site, _, log, documents = crawled
    assert {"/target.html", "/target2.html"} <= set(site.paths())
    assert documents[site.url("/target.html")]["title"] == "Refresh target"
    assert documents[site.url("/target2.html")]["title"] == "Meta refresh target"
    assert site.url("/refresh") not in documents  # a stub, not a page
    assert "'extract/refresh': 1" in log


def test_a_page_over_the_size_limit_is_cut_off_and_indexed(crawled) -> None:
    site, _, log, documents = crawled
    assert documents[site.url("/big.html")]["title"] == "Long"
    assert "'limits/truncated': 1" in log


def test_a_stalled_page_times_out_without_stopping_the_crawl(crawled) -> None:
    site, _, log, documents = crawled
    assert "/stall.html" in site.paths()
    assert site.url("/stall.html") not in documents or not documents[site.url("/stall.html")]["crawled"]
    assert "TimeoutError" in log or "timeout" in log.lower()


def test_a_pdf_is_indexed_with_its_title_and_text(crawled) -> None:
    site, _, log, documents = crawled
    assert documents[site.url("/report.pdf")]["title"] == "Harbour Trust Annual Report"
    assert "'extract/pdf': 1" in log


def test_media_are_known_by_their_anchors_not_downloaded(crawled) -> None:
    site, _, log, documents = crawled
    assert "/photo.jpg" not in site.paths()  # its extension says enough
    photo = documents[site.url("/photo.jpg")]
    assert photo["crawled"] is False and photo["linked"] == "harbour photograph"
    assert "'limits/media_stopped': 1" in log  # the zip without an extension: headers only
    assert "the archive" in (documents[site.url("/download?id=7")].get("linked") or "")


@pytest.mark.parametrize("path", ["/gbk.html", "/big5.html"])
def test_chinese_charsets_declared_or_not(crawled, path: str) -> None:
    site, _, _, documents = crawled
    assert "龙井茶" in documents[site.url(path)]["title"] or "龍井茶" in documents[site.url(path)]["title"]


def test_a_soft_404_is_not_indexed(crawled) -> None:
    _, soft, log, documents = crawled
    assert "/missing.html" in soft.paths()
    assert soft.url("/real.html") in documents
    assert soft.url("/missing.html") not in documents
    assert "'extract/soft404': 1" in log
    assert any(path.startswith("/lantern-probe-") for path in soft.paths())

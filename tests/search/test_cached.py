"""Cached copies on the search page: the archived response, shown so that nothing in it runs or loads."""

from __future__ import annotations

import gzip
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawler.archive import ArchiveWriter, Fetch
from crawler.datadir import archive_dir
from indexer.builder import IndexBuilder
from tests import browser
from tests.items import page
from tests.search.test_web import _get, serving

RUNS = "document.title='pwned'"
HOSTILE = f"""<!doctype html><html><head><title>Harbour notes</title>
<meta http-equiv="refresh" content="0; url=javascript:{RUNS}">
<base href="http://evil.test/"><link rel="stylesheet" href="http://evil.test/x.css">
<style>p.note {{ color: #123456 }}</style>
<script>{RUNS}</script></head>
<body onload="{RUNS}"><h1>Harbour notes</h1>
<p class="note">The ferry leaves at nine. <a href="/timetable.html">Timetable</a>
<a href="javascript:{RUNS}">click</a> <img src="x" onerror="{RUNS}">
<iframe srcdoc="<script>{RUNS}</script>"></iframe><object data="http://evil.test/o"></object>
<svg onload="{RUNS}"><a href="javascript:{RUNS}"><text>svg</text></a></svg></p></body></html>"""
# What libxml2 reads otherwise than a browser: an <embed> it does not know
# is void (everything after it its content), and a <style> inside <svg>,
# whose content a browser reads as markup, breaking out of it.
EMBED = b'<p>Before the embed.</p><embed src="clip.swf"><p>After the embed, the timetable.</p>'
BREAKOUT = f'<p>Tide notes</p><svg><style><img src=x onerror="{RUNS}"></style></svg><p>Low tide</p>'
XHTML = (
    b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
    b'"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n<html xmlns="http://www.w3.org/1999/xhtml">'
    b"<head><title>Debian reference</title></head><body><p>The apt ferry of packages.</p></body></html>"
)

SECTIONS = (
    "<title>Seasons</title><h2 id=summer>Summer</h2>"
    + "<p>Boats every hour in summer.</p>" * 80
    + '<h2 id=winter title="Tide & ferry > notes">Winter</h2><p>The Ferry runs twice a day: ferryman\'s rest.</p>'
    + "<p>潮汐表和渡轮时刻表。</p>"
    + "<p>Ice on the quay in winter.</p>" * 80
)


def _fetch(url: str, body: bytes, headers: list[tuple[str, str]] | None = None) -> Fetch:
    return Fetch(
        url=url,
        status=200,
        body=body,
        headers=headers or [("Content-Type", "text/html; charset=utf-8")],
        request_headers=[("Host", urllib.parse.urlsplit(url).netloc)],
    )


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("cached")
    urls = {
        "hostile": "http://harbour.test/notes.html",
        "gzip": "http://harbour.test/gzip.html",
        "noarchive": "http://harbour.test/private.html",
        "header": "http://harbour.test/header.html",
        "embed": "http://harbour.test/embed.html",
        "breakout": "http://harbour.test/breakout.html",
        "xhtml": "http://harbour.test/reference.html",
        "sections": "http://harbour.test/seasons.html",
    }
    with ArchiveWriter(archive_dir(directory), max_bytes=10**9) as archive:
        archive.write(_fetch(urls["hostile"], b"<p>An older version</p>"))
        archive.write(_fetch(urls["hostile"], HOSTILE.encode()))
        archive.write(
            _fetch(
                urls["gzip"],
                gzip.compress(b"<p>Compressed ferry page</p>"),
                [("Content-Type", "text/html"), ("Content-Encoding", "gzip")],
            )
        )
        archive.write(_fetch(urls["noarchive"], b'<meta name="robots" content="noarchive"><p>Members ferry page</p>'))
        archive.write(
            _fetch(
                urls["header"],
                b"<p>Header ferry page</p>",
                [("Content-Type", "text/html"), ("X-Robots-Tag", "lanternbot: noarchive")],
            )
        )
        archive.write(_fetch(urls["embed"], EMBED))
        archive.write(_fetch(urls["breakout"], BREAKOUT.encode()))
        archive.write(_fetch(urls["xhtml"], XHTML, [("Content-Type", "application/xhtml+xml; charset=utf-8")]))
        archive.write(_fetch(urls["sections"], SECTIONS.encode()))
    with IndexBuilder(directory) as builder:
        builder.add([page(url, name, "ferry harbour") for name, url in urls.items()])
        builder.finalize()
    return directory


@pytest.fixture(scope="module")
def base(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serving(data, tmp_path_factory)


def _cached(base: str, url: str, query: str = "") -> tuple[int, dict[str, str], str]:
    status, headers, body = _get(base + "cached?" + urllib.parse.urlencode({"url": url, "q": query}))
    return status, headers, body.decode()


def test_a_result_links_to_its_cached_copy(base: str) -> None:
    status, _, body = _get(base + "?q=ferry")
    assert status == 200
    assert 'href="/cached?url=http%3A%2F%2Fharbour.test%2Fnotes.html&amp;q=ferry">cached</a>' in body.decode()


def test_the_latest_copy_is_served_sandboxed_with_a_banner_and_live_links(base: str) -> None:
    status, headers, text = _cached(base, "http://harbour.test/notes.html")
    assert status == 200
    assert headers["Content-Security-Policy"].startswith("sandbox; default-src 'none'")
    assert "This is the copy of" in text and "http://harbour.test/notes.html" in text
    assert "The ferry leaves at nine." in text and "An older version" not in text
    assert '<a href="http://harbour.test/timetable.html">Timetable</a>' in text
    assert "p.note" in text  # inline styles kept
    lowered = text.lower()
    for gone in (
        "<script",
        "javascript:",
        "onerror",
        "onload",
        "<iframe",
        "<object",
        "<base",
        "<link",
        "http-equiv",
        "srcdoc",
    ):
        assert gone not in lowered, gone


def test_the_query_s_words_are_marked_in_the_copy_and_its_markup_left_whole(base: str) -> None:
    status, _, text = _cached(base, "http://harbour.test/seasons.html", 'ferry 渡轮 -summer "twice" site:harbour.test')
    assert status == 200
    assert "The <mark>Ferry</mark> runs <mark>twice</mark> a day: ferryman's rest." in text
    assert "潮汐表和<mark>渡轮</mark>时刻表。" in text
    assert '<h2 id="winter" title="Tide &amp; ferry &gt; notes">Winter</h2>' in text  # no mark inside markup
    assert "<mark>summer</mark>" not in text.lower() and "<mark>site" not in text
    _, _, hostile = _cached(base, "http://harbour.test/notes.html", "ferry script onerror javascript")
    assert "The <mark>ferry</mark> leaves at nine." in hostile
    for gone in ("<script", "javascript:", "onerror", "onload", "<iframe"):
        assert gone not in hostile.lower(), gone


def test_the_copy_opens_at_the_section_the_result_names(base: str, tmp_path: Path) -> None:
    """The result's URL names the section (#winter); its cached link keeps it, and Chromium scrolls there."""
    with browser.Tab(tmp_path, (800, 600)) as tab:
        tab.go(base + "cached?" + urllib.parse.urlencode({"url": "http://harbour.test/seasons.html"}) + "#winter")
        assert tab.evaluate("scrollY") > 1000
        assert -2 <= tab.evaluate("document.getElementById('winter').getBoundingClientRect().top") < 100


def test_a_compressed_response_is_shown_decoded(base: str) -> None:
    status, _, text = _cached(base, "http://harbour.test/gzip.html")
    assert status == 200 and "Compressed ferry page" in text


@pytest.mark.parametrize("url", ["http://harbour.test/private.html", "http://harbour.test/header.html"])
def test_a_page_that_said_noarchive_has_no_cached_copy(base: str, url: str) -> None:
    status, _, text = _cached(base, url)
    assert status == 404 and "ferry page" not in text and "no cached copy" in text


def test_a_page_not_in_the_index_has_no_cached_copy(base: str) -> None:
    status, _, text = _cached(base, "http://elsewhere.test/")
    assert status == 404 and "not in the index" in text


def test_nothing_in_a_hostile_copy_runs_in_chromium(base: str, tmp_path: Path) -> None:
    browser.chromium()
    dom = browser.dump_dom(
        base + "cached?" + urllib.parse.urlencode({"url": "http://harbour.test/notes.html"}), tmp_path
    )
    assert "<title>Cached: Harbour notes</title>" in dom and "pwned" not in dom.split("</title>")[0]
    assert "The ferry leaves at nine." in dom


def test_a_copy_goes_on_past_an_embed(base: str) -> None:
    status, _, text = _cached(base, "http://harbour.test/embed.html")
    assert status == 200 and "Before the embed." in text and "After the embed, the timetable." in text
    assert "<embed" not in text.lower() and "clip.swf" not in text


def test_markup_a_browser_reads_out_of_an_svg_style_is_cleaned_too(base: str) -> None:
    status, _, text = _cached(base, "http://harbour.test/breakout.html")
    assert status == 200 and "Tide notes" in text and "Low tide" in text
    assert "onerror" not in text.lower() and "pwned" not in text


def test_a_page_starting_with_an_xml_declaration_has_its_copy(base: str) -> None:
    status, _, text = _cached(base, "http://harbour.test/reference.html")
    assert status == 200 and "The apt ferry of packages." in text
    assert "<title>Cached: Debian reference</title>" in text and "<?xml" not in text


def test_the_cleaned_copy_runs_nothing_even_without_its_sandbox(base: str, tmp_path: Path) -> None:
    """The sandbox is the second wall: the copy, saved and opened as a file
    with no Content-Security-Policy, still runs none of its payloads."""
    browser.chromium()
    for url in ("http://harbour.test/notes.html", "http://harbour.test/breakout.html"):
        _, _, text = _cached(base, url, "ferry tide img onerror")
        saved = tmp_path / "copy.html"
        saved.write_text(text, encoding="utf-8")
        dom = browser.dump_dom(saved.as_uri(), tmp_path)
        assert "<title>Cached: " in dom and "pwned" not in dom.split("</title>")[0], url
        assert "onerror" not in dom and "<script" not in dom, url


@pytest.mark.alone
def test_the_first_copy_a_server_shows_is_as_quick_as_the_next(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The archive of a manual of 800 pages is read before the server says
    it serves, not in its first cached view (which took half a second)."""
    directory = tmp_path_factory.mktemp("manual")
    body = "".join(f"<h2 id=s{k}>Section {k}</h2><p>The ferry leaves at nine, pier {k}.</p>" for k in range(300))
    urls = [f"http://manual.test/p{k}.html" for k in range(800)]
    with ArchiveWriter(archive_dir(directory), max_bytes=10**9) as archive:
        for url in urls:
            archive.write(_fetch(url, f"<title>Page</title>{body}".encode()))
    with IndexBuilder(directory) as builder:
        builder.add([page(url, "Page", "ferry") for url in urls])
        builder.finalize()
    served = serving(directory, tmp_path_factory)
    url = next(served)
    try:
        times = []
        for k in (5, 6):
            started = time.perf_counter()
            status, _, _ = _get(url + "cached?" + urllib.parse.urlencode({"url": urls[k], "q": "ferry"}))
            times.append(time.perf_counter() - started)
            assert status == 200
        assert times[0] < 0.15, times
    finally:
        served.close()

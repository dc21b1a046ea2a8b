"""Text after very deep nesting is read, not lost: libxml2 stops reading at depth 256.

A page of 100,000 nested ``div`` elements, with words and a link after the
nesting, in a real crawl: its words are indexed, its link followed, and the
work-around counted (``extract/deep_nesting``).
"""

from __future__ import annotations

import json

import pytest

from crawler.extractors.html import _flatten, extract_html
from tests.commands import crawl, run
from tests.webserver import Reply, page, serve_site


def _deep(depth: int, tag: str = "div", close: bool = True) -> str:
    inside = "<p>The deepest note mentions the lighthouse.</p>"
    return (
        "<html><head><title>Deep page</title></head><body><p>Harbour words come first.</p>"
        + f"<{tag}>" * depth
        + inside
        + (f"</{tag}>" * depth if close else "")
        + "<h2>Afterword</h2><p>Words after the nesting speak of the ferry timetable.</p>"
        + '<a href="/after.html">the page after</a></body></html>'
    )


NESTINGS = [
    # (case, html, noted)
    ("shallow", _deep(100), False),
    ("at the parser's limit", _deep(250), False),
    ("past it", _deep(300), True),
    ("100,000 divs", _deep(100_000), True),
    ("100,000 spans", _deep(100_000, "span"), True),
    ("100,000 unclosed divs", _deep(100_000, close=False), True),
    ("tables in tables", _deep(2_000, "table><tr><td"), True),
]


@pytest.mark.slow
@pytest.mark.parametrize(("case", "html", "noted"), NESTINGS, ids=[n[0] for n in NESTINGS])
def test_the_words_and_links_after_deep_nesting_are_read(case: str, html: str, noted: bool) -> None:
    page = extract_html(html, "http://a.test/deep.html")
    assert "Harbour words come first." in page.text
    assert "lighthouse" in page.text
    if "unclosed" not in case:  # else the rest of the page is inside the nesting: still read
        assert "Words after the nesting speak of the ferry timetable." in page.blocks
    assert "ferry timetable" in page.text
    assert [link.url for link in page.links] == ["http://a.test/after.html"]
    assert page.notes == (["deep_nesting"] if noted else [])


def test_a_script_is_not_read_for_tags() -> None:
    html = "<script>var s = '" + "<div>" * 500 + "';</script>" + "<div>" * 300 + "<p>deep</p>" + "</div>" * 300
    page = extract_html("<title>T</title>" + html + "<p>after</p>", "http://a.test/")
    assert "after" in page.text and "deep" in page.text and "var s" not in page.text


def test_flatten_keeps_shallow_markup_as_it_is() -> None:
    html = b"<div><p>one</p><div><a href='/x'>two</a><br/><img src=a.png></div></div>"
    assert _flatten(html, 2) == html


def test_a_deeply_nested_page_in_a_crawl(tmp_path) -> None:
    routes = {
        "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
        "/": page('<title>Home</title><p>A deep page.</p><a href="/deep.html">deep</a>'),
        "/deep.html": page(_deep(100_000)),
        "/after.html": page("<title>After</title><p>Reached through the link after the nesting.</p>"),
    }
    with serve_site(routes) as site:
        done = crawl([site.url("/")], tmp_path, "DOWNLOAD_DELAY=0")
        paths = site.paths()
    assert done.returncode == 0, done.stderr[-3000:]
    assert "/after.html" in paths
    for words in ("ferry timetable", "lighthouse"):  # after the nesting, and deep inside it
        found = run("search", "--data", str(tmp_path), "--json", words)
        assert found.returncode == 0, found.stderr
        assert site.url("/deep.html") in [result["url"] for result in json.loads(found.stdout)["results"]]
    assert "'extract/deep_nesting': 1" in done.stderr
    assert "extraction worked around deep nesting" in done.stderr

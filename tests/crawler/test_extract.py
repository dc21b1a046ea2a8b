"""Extraction from HTML: fields, visible text, links with anchors, leniency."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from crawler.extract import extract_html

PAGE = "http://site.test/docs/page.html"


def _links(html: str, url: str = PAGE) -> list[tuple[str, str, bool]]:
    return [(link.url, link.text, link.nofollow) for link in extract_html(html, url).links]


def test_fields_of_a_documentation_page() -> None:
    page = extract_html(
        """<!DOCTYPE html><html lang="en"><head><title> json — JSON encoder </title>
        <meta name="description" content="Encode and decode JSON.">
        <meta name="keywords" content="json, serialization"></head>
        <body><header>Site header words</header>
        <nav><a href="/">Home</a> <a href="/library/">Library</a></nav>
        <main><h1>json</h1><p>Use <code>json.dumps</code> to <strong>encode</strong>
        objects.</p><h2>Decoding</h2><p>And <em>decode</em> them.</p></main>
        <div role="navigation">Previous topic</div>
        <footer>Copyright footer</footer></body></html>""",
        PAGE,
    )
    assert page.title == "json — JSON encoder"
    assert page.description == "Encode and decode JSON."
    assert page.keywords == "json, serialization"
    assert page.headings == ["json", "Decoding"]
    assert page.emphasis == ["encode", "decode"]
    assert page.text == "json Use json.dumps to encode objects. Decoding And decode them."
    assert page.lang == "en"
    # Navigation text stays out of the body, its links are still found.
    assert [link.url for link in page.links] == ["http://site.test/", "http://site.test/library/"]


def test_scripts_styles_comments_and_hidden_text_are_not_content() -> None:
    page = extract_html(
        """<body><p>visible</p><script>var secret = 1;</script><style>p{}</style>
        <!-- a comment --><div hidden>hidden one</div><p style="display: none">hidden two</p>
        <span aria-hidden="true">hidden three</span><noscript>no script</noscript>
        <p>also visible</p></body>""",
        PAGE,
    )
    assert page.text == "visible also visible"


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ('<a href="other.html">Other page</a>', [("http://site.test/docs/other.html", "Other page", False)]),
        ('<a href="../up.html">Up</a>', [("http://site.test/up.html", "Up", False)]),
        ('<a href="/abs">Abs</a>', [("http://site.test/abs", "Abs", False)]),
        ('<a href="http://other.test/x#frag">X</a>', [("http://other.test/x", "X", False)]),
        ('<a href="x.html" rel="nofollow noopener">N</a>', [("http://site.test/docs/x.html", "N", True)]),
        ('<a href="pic.html"><img src="p.png" alt="A lighthouse"></a>', [("http://site.test/docs/pic.html", "A lighthouse", False)]),
        ('<a href="t.html" title="Titled"></a>', [("http://site.test/docs/t.html", "Titled", False)]),
        ('<a href="  spaced.html\n">  many   words\n here </a>', [("http://site.test/docs/spaced.html", "many words here", False)]),
        ('<map><area href="area.html" alt="Area"></map>', [("http://site.test/docs/area.html", "Area", False)]),
        ('<a href="#top">Top</a>', []),
        ('<a href="page.html">Self</a>', []),
        ('<a href="mailto:a@b.test">Mail</a><a href="javascript:void(0)">JS</a>', []),
        ('<a href="ftp://files.test/x">FTP</a>', []),
        ('<a>No href</a><a href="">Empty</a>', []),
        ('<a href="http://[bad">Bad</a>', []),
    ],
)
def test_links_are_absolute_canonical_and_carry_their_words(html: str, expected: list) -> None:
    assert _links(f"<body>{html}</body>") == expected


def test_links_resolve_against_base_href() -> None:
    html = '<head><base href="http://cdn.test/root/"></head><body><a href="a/b.html">B</a></body>'
    assert _links(html) == [("http://cdn.test/root/a/b.html", "B", False)]
    relative_base = '<head><base href="/other/"></head><body><a href="c.html">C</a></body>'
    assert _links(relative_base) == [("http://site.test/other/c.html", "C", False)]


def test_html5_elements_before_body_are_still_content() -> None:
    # libxml2 puts <main> into <head> when no <body> tag comes first.
    page = extract_html("<title>T</title><main><h1>Main heading</h1><p>Main text</p></main>", PAGE)
    assert page.headings == ["Main heading"]
    assert page.text == "Main heading Main text"


def test_meta_robots_and_chinese_pages() -> None:
    page = extract_html(
        '<meta name="ROBOTS" content="NoIndex, nofollow"><title>西湖龙井茶</title>'
        "<p>西湖龙井是中国著名的绿茶。</p>",
        PAGE,
    )
    assert page.robots == {"noindex", "nofollow"}
    assert page.title == "西湖龙井茶"
    assert page.lang == "zh"  # undeclared, detected


def test_xml_declaration_and_empty_documents() -> None:
    page = extract_html('<?xml version="1.0" encoding="utf-8"?><html><body><p>x</p></body></html>', PAGE)
    assert page.text == "x"
    assert extract_html("", PAGE).text == ""
    assert extract_html(b"   ", PAGE).title == ""


def test_title_falls_back_to_the_first_heading() -> None:
    assert extract_html("<body><h1>Only a heading</h1></body>", PAGE).title == "Only a heading"


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=2000), st.text(max_size=2000)))
def test_never_raises_on_junk(data: bytes | str) -> None:
    page = extract_html(data, PAGE)
    assert isinstance(page.text, str)

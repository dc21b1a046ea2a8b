"""Extraction from HTML: fields, visible text, links with anchors, leniency."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawler.extract import extract_html
from crawler.extractors.html import lead

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
        (
            '<a href="pic.html"><img src="p.png" alt="A lighthouse"></a>',
            [("http://site.test/docs/pic.html", "A lighthouse", False)],
        ),
        ('<a href="t.html" title="Titled"></a>', [("http://site.test/docs/t.html", "Titled", False)]),
        (
            '<a href="  spaced.html\n">  many   words\n here </a>',
            [("http://site.test/docs/spaced.html", "many words here", False)],
        ),
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
        '<meta name="ROBOTS" content="NoIndex, nofollow"><title>西湖龙井茶</title><p>西湖龙井是中国著名的绿茶。</p>',
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


# --- Hints: canonical and refresh -------------------------------------------------


@pytest.mark.parametrize(
    ("head", "canonical"),
    [
        ('<link rel="canonical" href="/docs/page.html?lang=en">', "http://site.test/docs/page.html?lang=en"),
        ('<link rel="canonical" href="other.html">', "http://site.test/docs/other.html"),
        ('<link rel="Canonical" href="http://SITE.test:80/docs/">', "http://site.test/docs/"),
        ('<link rel="canonical" href="page.html">', PAGE),  # itself: recorded all the same
        ('<link rel="canonical" href="http://other.test/page.html">', None),  # another site
        ('<link rel="canonical" href="https://site.test/docs/page.html">', None),  # another scheme
        ('<link rel="canonical" href="http://site.test:8080/docs/">', None),  # another port
        ('<link rel="canonical" href="http://[bad">', None),
        ('<link rel="canonical">', None),
        ('<link rel="alternate" href="/fr/">', None),
        ('<base href="http://site.test/base/"><link rel="canonical" href="x.html">', "http://site.test/base/x.html"),
    ],
)
def test_canonical_is_kept_only_inside_the_site(head: str, canonical: str | None) -> None:
    assert extract_html(f"<head>{head}</head><body><p>x</p></body>", PAGE).canonical == canonical


@pytest.mark.parametrize(
    ("content", "refresh"),
    [
        ("0; url=/moved.html", "http://site.test/moved.html"),
        ("0;URL='new.html'", "http://site.test/docs/new.html"),
        ("5, url=&quot;http://other.test/x&quot;", "http://other.test/x"),
        ("3; http://other.test/y", "http://other.test/y"),
        ("0; url=page.html", None),  # itself
        ("300", None),  # a reload
        ("", None),
        ("soon; url=/x", None),
        ("0; url=mailto:a@b.test", None),
    ],
)
def test_meta_refresh_is_a_redirect(content: str, refresh: str | None) -> None:
    html = f'<head><meta http-equiv="Refresh" content="{content}"></head><body>Moved</body>'
    assert extract_html(html, PAGE).refresh == refresh


def test_meta_refresh_for_browsers_without_javascript_is_not_followed() -> None:
    html = '<head><noscript><meta http-equiv="refresh" content="0; url=/nojs"></noscript></head>'
    assert extract_html(html + "<body>App</body>", PAGE).refresh is None


# --- Emphasis, chrome, meta, language ---------------------------------------------


@pytest.mark.parametrize(
    ("html", "emphasis"),
    [
        ("<big>big</big>", ["big"]),
        ('<font size="+1">plus one</font>', ["plus one"]),
        ('<font size="5">five</font>', ["five"]),
        ('<font size="3">normal</font><font size="-1">smaller</font><font size="x">junk</font>', []),
        ('<span style="font-size: 1.5em">em</span>', ["em"]),
        ('<span style="font-size:18px">px</span>', ["px"]),
        ('<span style="color:red; font-size: 120%">percent</span>', ["percent"]),
        ('<span style="font-size: x-large">keyword</span>', ["keyword"]),
        ('<span style="font-weight: bold">bold</span><span style="font-weight:700">700</span>', ["bold", "700"]),
        ('<span style="font-size: 12px">small</span><span style="font-size: 1em">same</span>', []),
        ('<div style="font-size: 2em">' + "long text " * 30 + "</div>", []),  # layout, not emphasis
        ("<nav><b>menu bold</b></nav>", []),
    ],
)
def test_emphasis_includes_larger_type(html: str, emphasis: list[str]) -> None:
    assert extract_html(f"<body><p>x</p>{html}</body>", PAGE).emphasis == emphasis


@pytest.mark.parametrize(
    ("html", "text"),
    [
        ('<div class="navbar">Menu words</div>', "Body"),
        ('<div class="site-header sticky">Site name</div>', "Body"),
        ('<div id="Footer">Footer words</div>', "Body"),
        ('<div id="header">Header words</div>', "Body"),
        ('<ul class="Breadcrumbs"><li>Home</li></ul>', "Body"),
        ('<div class="sidebar_left">x</div><div class="cookie-banner">We use cookies</div>', "Body"),
        ('<div role="contentinfo">Contact</div>', "Body"),
        ('<div class="navheader"><table><tr><th>Chapter 2. Setup</th></tr></table></div>', "Body"),  # DocBook
        (
            '<div class="toc"><a href="a.html">A page</a> <a href="b.html">B page</a></div>',
            "Body",
        ),  # other pages' titles
        # Names that can be content are kept.
        ('<div class="menu">Pad thai</div>', "Body Pad thai"),
        ('<div class="toc"><a href="#a">Setup</a> <a href="#b">Use</a></div>', "Body Setup Use"),  # its own headings
        ('<div class="toc"><a href="page.html#a">Setup</a> <a href="page.html#b">Use</a></div>', "Body Setup Use"),
        ('<div class="header">Card header</div>', "Body Card header"),
        ('<div class="entry-header">Entry header</div>', "Body Entry header"),
        ('<div class="related">See also</div>', "Body See also"),
        # An article's own header and footer are content; the site's are not.
        (
            "<article><header><h1>Post</h1></header><p>Text</p><footer>Byline</footer></article>",
            "Body Post Text Byline",
        ),
        ('<main><div id="header">Main header</div></main>', "Body Main header"),
        ("<header>Site header</header><section><footer>Section footer</footer></section>", "Body Section footer"),
        # A header that holds the page's h1 is its title block (AsciiDoc's manual pages:
        # the title, then the one-line summary); a menu inside it is still chrome.
        (
            '<div id="header"><h1>git-mv(1)</h1><h2>NAME</h2><p>git-mv - Move or rename a file</p>'
            "<nav>Home</nav></div>",
            "Body git-mv(1) NAME git-mv - Move or rename a file",
        ),
        ("<header><h1>Harbour news</h1></header>", "Body Harbour news"),
        # Chrome between two runs of text is a break, not glue.
        ("Before<nav>menu</nav>after", "Body Before after"),
    ],
)
def test_chrome_by_element_role_class_and_id(html: str, text: str) -> None:
    page = extract_html(f"<body><p>Body</p>{html}</body>", PAGE)
    assert page.text == text


def test_chrome_links_are_followed_but_its_headings_are_not_fields() -> None:
    page = extract_html(
        '<body><div class="sidebar"><h3>Archives</h3><a href="/2024/">2024</a></div>'
        "<h1>Real heading</h1><p>Body</p></body>",
        PAGE,
    )
    assert page.headings == ["Real heading"]
    assert [link.url for link in page.links] == ["http://site.test/2024/"]


def test_blocks_are_the_body_paragraphs() -> None:
    page = extract_html(
        "<body><h1>Title</h1><p>One <b>bold</b> line.</p><ul><li>Item a</li><li>Item b</li></ul>"
        "<div>Loose<br>break</div><nav>Skipped</nav><p> </p><p>Last</p></body>",
        PAGE,
    )
    assert page.blocks == ["Title", "One bold line.", "Item a", "Item b", "Loose", "break", "Last"]
    assert page.text == " ".join(page.blocks)


def test_meta_names_and_link_rel() -> None:
    page = extract_html(
        '<head><meta name="LanternBot" content="NoIndex"><meta name="robots" content="noarchive">'
        '<meta name="Robots" content="nofollow"><meta name="author" content=" A.  N. Author ">'
        '<meta property="og:title" content="ignored"><meta charset="utf-8"></head>'
        '<body><a href="/ad" rel="sponsored nofollow">Ad</a><a href="/ugc" rel="UGC">Post</a></body>',
        PAGE,
    )
    assert page.meta == {"lanternbot": "NoIndex", "robots": "noarchive, nofollow", "author": "A. N. Author"}
    assert page.robots == {"noarchive", "nofollow"}
    assert [(link.nofollow, link.rel) for link in page.links] == [
        (True, {"sponsored", "nofollow"}),
        (False, {"ugc"}),
    ]


@pytest.mark.parametrize(
    ("html", "lang"),
    [
        ('<html lang="zh-CN"><body><p>Hello</p></body></html>', "zh-cn"),
        ('<html xml:lang="ja"><body><p>Hello</p></body></html>', "ja"),
        ('<head><meta http-equiv="Content-Language" content="fr, en"></head><p>Bonjour</p>', "fr"),
        ("<p>东京是日本的首都，也是世界上最大的城市之一。</p>", "zh"),
        ("<p>東京は日本の首都であり、世界でも有数の大都市です。</p>", "ja"),
        ("<p>서울은 대한민국의 수도입니다.</p>", "ko"),
        ("<p>Plain English with one 字.</p>", ""),
    ],
)
def test_language_declared_or_guessed(html: str, lang: str) -> None:
    assert extract_html(html, PAGE).lang == lang


def test_bytes_in_any_charset() -> None:
    html = '<meta charset="big5"><title>龍井茶</title><p>西湖龍井是中國著名的綠茶。</p>'
    page = extract_html(html.encode("big5"), PAGE)
    assert (page.title, page.text, page.encoding, page.lang) == (
        "龍井茶",
        "西湖龍井是中國著名的綠茶。",
        "big5hkscs",
        "zh",
    )


def test_the_opening_sentence_follows_a_heading_with_a_permalink() -> None:
    """Sphinx ends each heading with a "¶" link to itself: the description
    is the page's first sentence, not its heading again."""
    page = extract_html(
        '<html><body><h1>queue — A synchronized queue class<a class="headerlink" href="#queue">¶</a></h1>'
        "<p>The queue module implements multi-producer, multi-consumer queues.</p></body></html>",
        PAGE,
    )
    assert lead(page.blocks, page.headings) == "The queue module implements multi-producer, multi-consumer queues."

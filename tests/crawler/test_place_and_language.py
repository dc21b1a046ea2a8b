"""What a page says of its place in its site and of its language, as real generators write it."""

from __future__ import annotations

import pytest

from crawler.extractors import extract


def read(html: str, url: str = "http://docs.test/guide/db/queries.html", **headers: str) -> object:
    extraction = extract(html.encode(), url, "text/html; charset=utf-8", headers=headers or None)
    assert extraction.page is not None
    return extraction.page


ENGLISH = "<p>" + "This section tells you how to make queries and what the results of them are. " * 4 + "</p>"


@pytest.mark.parametrize(
    "markup",
    [
        # HTML5 with ARIA, as most themes write it
        '<nav aria-label="breadcrumb"><ol><li><a href="/">Docs</a></li>'
        '<li><a href="/guide/">User guide</a></li><li><a href="/guide/db/">Models and databases</a></li>'
        "<li>Making queries</li></ol></nav>",
        # a class name, inside no navigation element
        '<div class="breadcrumbs"><a href="/">Docs</a> › <a href="/guide/">User guide</a> › '
        '<a href="/guide/db/">Models and databases</a> › Making queries</div>',
        # schema.org microdata
        '<ol itemscope itemtype="https://schema.org/BreadcrumbList" class="crumbs" role="navigation">'
        '<li itemprop="itemListElement" itemscope><a itemprop="item" href="/"><span itemprop="name">Docs'
        "</span></a></li>"
        '<li itemprop="itemListElement" itemscope><a itemprop="item" href="/guide/"><span itemprop="name">'
        "User guide</span></a></li>"
        '<li itemprop="itemListElement" itemscope><a itemprop="item" href="/guide/db/"><span itemprop="name">'
        "Models and databases</span></a></li></ol>",
        # schema.org JSON-LD, positions out of order
        '<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [{"@type": "WebPage"},'
        '{"@type": "BreadcrumbList", "itemListElement": [{"@type": "ListItem", "position": 3, "name": '
        '"Models and databases"}, {"@type": "ListItem", "position": 1, "name": "Docs"}, {"@type": "ListItem", '
        '"position": 2, "item": {"name": "User guide"}}]}]}</script>',
        # Sphinx's "related" bar
        '<div class="related" role="navigation"><ul><li class="right"><a href="x.html">next</a></li>'
        '<li class="nav-item nav-item-0"><a href="/">Docs</a> &#187;</li>'
        '<li class="nav-item nav-item-1"><a href="/guide/">User guide</a> &#187;</li>'
        '<li class="nav-item nav-item-2"><a href="/guide/db/">Models and databases</a> &#187;</li>'
        '<li class="nav-item nav-item-this"><a href="">Making queries</a></li></ul></div>',
    ],
    ids=["aria", "class", "microdata", "json-ld", "sphinx"],
)
def test_a_breadcrumb_gives_the_pages_ancestors_but_never_the_page_itself(markup: str) -> None:
    page = read(f"<title>Making queries</title>{markup}<h1>Making queries</h1>{ENGLISH}")
    assert page.hierarchy == ["Docs", "User guide", "Models and databases"]
    assert "User guide" not in page.text  # the trail stays out of the body


def test_docbook_home_and_up_links_give_the_hierarchy() -> None:
    page = read(
        '<head><title>2.1. Matériel reconnu</title><link rel="home" href="index.html" title="Manuel d\'installation">'
        '<link rel="up" href="ch02.html" title="Chapitre 2. Configuration nécessaire"></head>'
        f"<body><h1>2.1. Matériel reconnu</h1>{ENGLISH}</body>",
        "http://docs.test/fr/ch02s01.html",
    )
    assert page.hierarchy == ["Manuel d'installation", "Chapitre 2. Configuration nécessaire"]


def test_an_up_link_that_names_no_place_is_not_an_ancestor() -> None:
    page = read(
        '<title>Testing tools</title><div class="nav"><a href="../index.html" title="Using Django" accesskey="U">'
        f"up</a></div>{ENGLISH}"
    )
    assert page.hierarchy == ["Using Django"]
    bare = read(f'<title>Testing tools</title><p><a href="../index.html" rel="up">up</a></p>{ENGLISH}')
    assert bare.hierarchy == []


@pytest.mark.parametrize(
    ("url", "lang"),
    [
        ("http://docs.test/zh-CN/install.html", "zh-cn"),
        ("http://docs.test/zh_CN/ch02s01.html", "zh-cn"),
        ("http://docs.test/manual/ch02.zh-cn.html", "zh-cn"),
        ("http://docs.test/manual/index.html.fr", "fr"),
        ("http://docs.test/page?id=4&lang=ja", "ja"),
    ],
)
def test_a_half_translated_page_takes_its_editions_language_from_its_url(url: str, lang: str) -> None:
    # The translators' work in progress: a translated title over an English body.
    page = read(f"<title>第 2 章 系统需求</title><h1>第 2 章 系统需求</h1>{ENGLISH}{ENGLISH}", url)
    assert page.lang == lang


def test_declared_languages_come_first_in_their_order() -> None:
    body = f"<title>T</title>{ENGLISH}"
    url = "http://docs.test/fr/page.html"
    assert read(f'<html lang="de_AT">{body}</html>', url, **{"Content-Language": "es"}).lang == "de-at"
    assert read(f"<html>{body}</html>", url, **{"Content-Language": "es"}).lang == "es"
    alternates = (
        '<link rel="alternate" hreflang="it" href="http://docs.test/fr/page.html">'
        '<link rel="alternate" hreflang="en" href="http://docs.test/page.html">'
    )
    self_named = read(f"<html><head>{alternates}</head>{body}</html>", url)
    assert self_named.lang == "it"
    assert self_named.alternates == [["en", "http://docs.test/page.html"]]
    assert read(f"<html>{body}</html>", url).lang == "fr"
    assert read(f"<html>{body}</html>", "http://docs.test/js/page.html").lang == "en"  # no language: the text
    assert read(f'<html lang="&lt;script&gt;">{body}</html>', "http://docs.test/js/page.html").lang == "en"


def test_a_language_bar_names_the_translations_on_the_same_site() -> None:
    page = read(
        '<title>Install</title><div class="langs"><a href="/de/install.html" hreflang="de">Deutsch</a>'
        '<a href="/fr/install.html" hreflang="FR">Français</a><a href="http://other.test/x" hreflang="es">ES</a>'
        f"</div>{ENGLISH}",
        "http://docs.test/en/install.html",
    )
    assert page.alternates == [["de", "http://docs.test/de/install.html"], ["fr", "http://docs.test/fr/install.html"]]

"""The search page as :mod:`search.page` renders it: parameters and results in, HTML out, no server.

Crawled titles, snippets, URLs and host names are untrusted: they must show
as text, wherever the page echoes them. The rest is what a searcher reads
and clicks: the highlighted words, the result lines, the facets, the links
through the pages, the home page's account of the index.
"""

from __future__ import annotations

import re

import pytest

from indexer.stats import IndexStats
from search.engine import Result, Results
from search.page import KEYS_SCRIPT, Params, render_opensearch, render_page

RUNS = "document.title='pwned'"
IMG = f'<img src=x onerror="{RUNS}">'
OUR_SCRIPT = f"<script>{KEYS_SCRIPT}</script>"


def _result(url: str = "http://docs.test/a.html", title: str = "A page", snippet: str = "", **extra) -> Result:
    return Result(url, title, snippet, 1.0, 0.1, extra.pop("host", "docs.test"), **extra)


def _main(page: str) -> str:
    """The page's ``<main>``: what is shown below the search box."""
    return page.split("<main>\n", 1)[1].split("</main>", 1)[0]


def _nav(page: str) -> str:
    found = re.search(r'<nav aria-label="Result pages">(.*?)</nav>', page)
    return found.group(1) if found else ""


# ---------------------------------------------------------------- crawled text shows as text


def test_a_crawled_title_snippet_and_url_show_as_text() -> None:
    hostile = _result(
        url=f'http://evil.test/"><b>{IMG}',
        title=f"<script>{RUNS}</script> payload",
        snippet=f"a **payload** with {IMG} in it",
    )
    page = render_page(Params("payload"), Results("payload", 1, [hostile]))
    body = _main(page)
    assert "<script" not in page.replace(OUR_SCRIPT, "") and "<img" not in page and "<b>" not in body
    assert f"&lt;script&gt;{RUNS.replace(chr(39), '&#x27;')}&lt;/script&gt; payload</a>" in body
    assert 'href="http://evil.test/&quot;&gt;&lt;b&gt;&lt;img src=x onerror=&quot;' in body
    assert "a <mark>payload</mark> with &lt;img src=x onerror=&quot;document.title=&#x27;pwned&#x27;&quot;&gt;" in body


def test_only_http_urls_become_links() -> None:
    for url in ("javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<b>x</b>", "ftp://files.test/a"):
        body = _main(render_page(Params("x"), Results("x", 1, [_result(url=url, title="Click", crawled=False)])))
        assert "<h2>Click <span" in body and "href=" + '"' + url[:4] not in body.lower()
    for url in ("http://a.test/", "HTTPS://a.test/"):
        body = _main(render_page(Params("x"), Results("x", 1, [_result(url=url, title="Click")])))
        assert f'<h2><a href="{url}" rel="noreferrer">Click</a></h2>' in body


def test_the_query_is_escaped_in_the_box_the_title_and_the_stats() -> None:
    query = f'"><b>{IMG}'
    page = render_page(Params(query), Results(query, 0, []))
    assert "<b>" not in page and "<img" not in page
    assert 'value="&quot;&gt;&lt;b&gt;&lt;img src=x onerror=&quot;' in page
    assert "<title>&quot;&gt;&lt;b&gt;&lt;img" in page
    assert "No results for &#x27;&quot;&gt;&lt;b&gt;&lt;img" in page


def test_an_error_is_shown_as_an_alert_in_text() -> None:
    page = render_page(Params("x"), error=f"Sorry: {IMG}.")
    body = _main(page)
    assert body.startswith('<p class="error" role="alert">Sorry: &lt;img src=x')
    assert "<ol" not in body and "What you can search" not in body and 'class="help"' not in body


# ---------------------------------------------------------------- a page of results


def test_the_words_found_are_highlighted() -> None:
    snippet = "... the **json** module encodes **Python** objects as **JSON** text; a ** lone star ..."
    body = _main(render_page(Params("json python"), Results("json python", 1, [_result(snippet=snippet)])))
    assert (
        '<p class="snippet">... the <mark>json</mark> module encodes <mark>Python</mark> objects as '
        "<mark>JSON</mark> text; a ** lone star ...</p>"
    ) in body


def test_a_result_without_a_snippet_has_no_empty_paragraph() -> None:
    body = _main(render_page(Params("a"), Results("a", 1, [_result()])))
    assert 'class="snippet"' not in body and "<h2>" in body


def test_results_are_numbered_from_where_the_page_starts() -> None:
    results = Results("tea", 35, [_result(url=f"http://t.test/{k}") for k in range(10)], page=2, seconds=0.0123)
    body = _main(render_page(Params("tea", page=2), results))
    assert '<p class="stats">Results 11-20 of 35 for &#x27;tea&#x27; (12 ms)</p>' in body
    assert '<ol start="11" lang="en">' in body and body.count("<li>") == 10


def test_no_results_and_a_page_past_the_end_say_so() -> None:
    assert '<p class="stats">No results for &#x27;zzz&#x27;.</p>' in render_page(Params("zzz"), Results("zzz", 0, []))
    past = _main(render_page(Params("tea", page=9), Results("tea", 35, [], page=9)))
    assert "Page 9 is past the end: 35 results for &#x27;tea&#x27;, page 4 is the last." in past
    assert "<ol" not in past


def test_each_result_says_what_it_is_and_offers_its_cached_copy() -> None:
    result = _result(
        url="http://docs.test/a.html#usage",
        page="http://docs.test/a.html",
        type="pdf",
        size=12800,
        fetched="2026-01-02",
    )
    body = _main(render_page(Params("a"), Results("a", 1, [result])))
    assert (
        '<div class="url">http://docs.test/a.html#usage <span class="tag">· PDF · 12&nbsp;KB · '
        'fetched&nbsp;2026-01-02 · <a class="cached" href="/cached?url=http%3A%2F%2Fdocs.test%2Fa.html&amp;q=a#usage">'
        "cached</a></span></div>"
    ) in body  # the copy opens at the section, the query's words marked


def test_a_page_not_fetched_is_marked_and_has_no_cached_copy() -> None:
    body = _main(render_page(Params("a"), Results("a", 1, [_result(crawled=False)])))
    assert '<span class="tag">[not fetched]</span></h2>' in body
    assert "cached" not in body


def test_a_members_only_page_is_marked_and_has_no_cached_copy() -> None:
    result = _result(members_only=True, fetched="2026-01-02")
    body = _main(render_page(Params("a"), Results("a", 1, [result])))
    assert '<span class="members" title="Crawled with the site owner' in body and ">members only</span></h2>" in body
    assert "fetched&nbsp;2026-01-02" in body and "/cached" not in body


def test_a_suggestion_keeps_the_number_of_results_per_page() -> None:
    page = render_page(Params("pyhton", n=20), Results("pyhton", 0, [], suggestion="python"))
    assert '<p class="suggest">Did you mean: <a href="/?q=python&amp;n=20">python</a>?</p>' in page


def test_a_respelling_s_results_say_so_and_offer_the_query_as_typed() -> None:
    results = Results("pyhton", 1, [_result()], suggestion="python", showing="python")
    text = _main(render_page(Params("pyhton", n=20), results))
    assert (
        '<p class="suggest">Showing results for <a href="/?q=python&amp;n=20">python</a>; search instead for '
        '<a class="typed" href="/?q=pyhton&amp;n=20&amp;as_typed=1">pyhton</a>.</p>'
    ) in text
    assert "Did you mean" not in text and "Results 1-1 of 1 for &#x27;python&#x27;" in text
    # The words as typed, searched as typed: their links search again with respelling.
    typed = render_page(Params("pyhton", as_typed=True), Results("pyhton", 0, [], suggestion="python"))
    assert '<a href="/?q=python">python</a>' in typed and "No results for &#x27;pyhton&#x27;" in typed


def test_the_results_are_in_their_language_and_the_page_in_its_own() -> None:
    chinese = [_result(url=f"http://zh.test/{k}", title="龙井", lang="zh-cn") for k in range(2)]
    english_page = render_page(Params("龙井"), Results("龙井", 2, chinese))
    assert '<html lang="en">' in english_page and '<ol start="1" lang="zh">' in english_page
    assert '<html lang="zh">' in render_page(Params("龙井"), Results("龙井", 2, chinese), language="zh")
    assert '<html lang="en">' in render_page(Params("tea"), Results("tea", 0, []))
    assert '<html lang="en">' in render_page(Params())


def test_the_page_s_own_words_are_in_chinese_when_asked_and_links_keep_asking() -> None:
    result = _result(
        lang="en", fetched="2026-11-30", more_from_host=2, also_in=[{"lang": "de", "url": "http://docs.test/de/a"}]
    )
    results = Results(
        "tea", 35, [result], facets={"site": [{"value": "a.test", "count": 30}, {"value": "b", "count": 5}]}
    )
    page = render_page(Params("tea", hl="zh"), results, language="zh")
    assert '<html lang="zh">' in page and "<title>tea – 搜索</title>" in page
    assert '<a class="home" href="/?hl=zh">搜索</a>' in page and "<button>搜索</button>" in page
    assert '<input type="hidden" name="hl" value="zh">' in page
    assert "&#x27;tea&#x27; 的结果：第 1-1 条，共 35 条" in page
    assert '<p class="facets">网站: <a href="/?q=tea+site%3Aa.test&amp;hl=zh">a.test</a> (30)' in page
    assert '<span class="whole">抓取于&nbsp;2026-11-30</span>' in page and ">网页快照</a>" in page
    assert '<p class="also">其他语言： <a href="http://docs.test/de/a" hreflang="de"' in page
    assert "此网站还有 2 条</a>" in page and '<a rel="next" href="/?q=tea&amp;page=2&amp;hl=zh">下一页 ›</a>' in page
    home = render_page(Params(hl="zh"), language="zh")
    assert "包含全部词语的网页排在前面" in home and "Pages holding" not in home
    # Chosen from the browser (no hl): the words change, the links do not carry a language.
    chosen = render_page(Params("tea"), results, language="zh")
    assert "<button>搜索</button>" in chosen and "hl=" not in chosen


def test_results_sit_beside_their_facets_in_one_centred_column() -> None:
    page = render_page(Params("tea"), Results("tea", 1, [_result(hierarchy=["Guide", "Tea"])]))
    assert '<div class="found">\n<div class="lead">' in page and '<div class="side">' in page
    assert "@media (min-width:62rem){.found{grid-template-columns:minmax(0,44rem) minmax(0,16rem)" in page
    assert "main{max-width:64rem;margin:0 auto" in page
    assert '<div class="trail">Guide › Tea</div>' in page


def test_suggestions_and_more_from_a_site_are_links_and_escaped() -> None:
    payload = Result(
        url="https://x.test/",
        title="T",
        snippet="a **b** c",
        score=1.0,
        pagerank=0.1,
        host='x.test"><i>',
        more_from_host=3,
    )
    results = Results("pyhton", 1, [payload], suggestion=f"python {IMG}")
    text = render_page(Params("pyhton"), results)
    assert "<img" not in text and "<i>" not in text
    assert 'Did you mean: <a href="/?q=python+%3Cimg+src%3Dx+onerror%3D%22document.title' in text
    assert ">python &lt;img src=x onerror=&quot;document.title=&#x27;pwned&#x27;&quot;&gt;</a>?" in text
    assert (
        '<a class="more" href="/?q=pyhton+site%3Ax.test%22%3E%3Ci%3E" '
        'title="site:x.test&quot;&gt;&lt;i&gt;">3 more from this site</a>'
    ) in text
    assert "a <mark>b</mark> c" in text


def test_each_result_says_when_it_was_fetched_and_a_language_unlike_the_page() -> None:
    results = Results(
        "茶",
        3,
        [
            Result("http://zh.test/1", "龙井", "", 1.0, 0.0, "zh.test", lang="zh-cn", fetched="2026-11-30"),
            Result("http://zh.test/2", "碧螺春", "", 0.9, 0.0, "zh.test", lang="zh", fetched="2026-11-29"),
            Result("http://en.test/tea", "Tea", "", 0.8, 0.0, "en.test", lang="en", fetched="2026-10-01"),
        ],
    )
    text = render_page(Params("茶"), results)
    assert '<ol start="1" lang="zh">' in text
    assert 'zh.test/1 <span class="tag">· fetched&nbsp;2026-11-30 · <a class="cached"' in text
    assert 'fetched&nbsp;2026-10-01 · <span lang="en">en</span> · <a class="cached"' in text


# ---------------------------------------------------------------- facets


def _faceted(query: str, **facets: list[tuple[str, int]]) -> str:
    values = {name: [{"value": value, "count": count} for value, count in pairs] for name, pairs in facets.items()}
    return _main(render_page(Params(query, n=5), Results(query, 9, [_result()], per_page=5, facets=values)))


def test_facets_narrow_the_query_to_a_site_a_language_or_a_type() -> None:
    body = _faceted(
        "tea",
        site=[("a.test", 1200), ("b.test", 3)],
        lang=[("en", 5), ("zh", 4)],
        type=[("html", 8), ("pdf", 1)],
    )
    assert (
        '<p class="facets">Sites: <a href="/?q=tea+site%3Aa.test&amp;n=5">a.test</a> (1,200) · '
        '<a href="/?q=tea+site%3Ab.test&amp;n=5">b.test</a> (3)</p>'
    ) in body
    assert '<p class="facets">Languages: <a href="/?q=tea+lang%3Aen&amp;n=5">en</a> (5) · ' in body
    assert '<a href="/?q=tea+type%3Apdf&amp;n=5">PDF</a> (1)</p>' in body  # a type by its name
    assert body.index("Sites:") < body.index("Languages:") < body.index("Types:") < body.index("<ol")


def test_a_facet_of_one_value_or_already_in_the_query_is_left_out() -> None:
    body = _faceted("tea SITE:a.test", site=[("a.test", 8), ("b.test", 1)], lang=[("en", 9)], type=[("html", 9)])
    assert 'class="facets"' not in body


def test_the_members_only_count_shows_even_alone() -> None:
    body = _faceted("tea", access=[("members", 2)])
    assert '<p class="facets">Access: <a href="/?q=tea+access%3Amembers&amp;n=5">members only</a> (2)</p>' in body
    assert 'class="facets"' not in _faceted("tea access:members", access=[("members", 2)])


def test_facet_values_from_crawled_pages_are_escaped() -> None:
    body = _faceted("tea", site=[('a.test"><i>', 2), ("b.test", 1)])
    assert "<i>" not in body
    assert '<a href="/?q=tea+site%3Aa.test%22%3E%3Ci%3E&amp;n=5">a.test&quot;&gt;&lt;i&gt;</a> (2)' in body


# ---------------------------------------------------------------- paging


def _paged(page: int, total: int, n: int = 10) -> str:
    shown = max(0, min(n, total - (page - 1) * n))
    results = Results("tea", total, [_result(url=f"http://t.test/{k}") for k in range(shown)], page, n)
    return _nav(render_page(Params("tea", n, page), results))


def test_one_page_of_results_has_no_page_links() -> None:
    assert _paged(1, 7) == ""
    assert _paged(1, 0) == ""


def test_the_first_page_links_to_the_next_ones() -> None:
    assert _paged(1, 35) == (
        '<span aria-current="page">1</span> <a href="/?q=tea&amp;page=2">2</a> '
        '<a href="/?q=tea&amp;page=3">3</a> <a href="/?q=tea&amp;page=4">4</a> '
        '<a rel="next" href="/?q=tea&amp;page=2">Next ›</a>'
    )


def test_the_last_page_links_back_and_not_on() -> None:
    nav = _paged(4, 35)
    assert nav.startswith('<a rel="prev" href="/?q=tea&amp;page=3">‹ Previous</a> <a href="/?q=tea">1</a> ')
    assert nav.endswith('<span aria-current="page">4</span>') and "Next" not in nav


def test_page_links_reach_four_either_side_and_keep_n() -> None:
    nav = _paged(10, 500, n=20)
    numbers = [int(k) for k in re.findall(r">(\d+)<", nav)]
    assert numbers == list(range(6, 15))
    assert '<a rel="prev" href="/?q=tea&amp;n=20&amp;page=9">' in nav
    assert '<a rel="next" href="/?q=tea&amp;n=20&amp;page=11">Next ›</a>' in nav


def test_a_page_past_the_end_leads_back_to_the_last() -> None:
    assert _paged(9, 35) == '<a rel="prev" href="/?q=tea&amp;page=4">‹ Previous</a>'
    assert _paged(6, 35) == (
        '<a rel="prev" href="/?q=tea&amp;page=4">‹ Previous</a> <a href="/?q=tea&amp;page=2">2</a> '
        '<a href="/?q=tea&amp;page=3">3</a> <a href="/?q=tea&amp;page=4">4</a>'
    )
    assert _paged(3, 0) == '<a rel="prev" href="/?q=tea">‹ Previous</a>'  # no results: back to the first


# ---------------------------------------------------------------- the form and the home page


def test_the_search_box_keeps_the_query_and_the_number_of_results() -> None:
    page = render_page(Params("tea", n=25, page=2), Results("tea", 0, []))
    assert '<input type="search" name="q" value="tea" aria-label="Search">' in page
    assert '<input type="hidden" name="n" value="25">' in page
    assert "<title>tea – Search</title>" in page
    plain = render_page(Params("tea"), Results("tea", 0, []))
    assert 'name="n"' not in plain


def test_the_home_page_puts_the_cursor_in_the_box_and_explains_the_syntax() -> None:
    page = render_page(Params())
    assert '<input type="search" name="q" value="" aria-label="Search" autofocus>' in page
    assert "<title>Search</title>" in page
    assert "<code>site:docs.example.org</code>" in page and "<code>type:pdf</code>" in page
    assert "What you can search" not in page  # no account of the index without one
    # What the engine does, not "all words are required": it relaxes, and drops a question's own words.
    assert "All words are required" not in page
    assert "Pages holding all the words come first, then pages holding most of them" in page
    assert "searched without its question words" in page
    assert "autofocus" not in render_page(Params("tea"), Results("tea", 0, []))
    assert page.endswith(f"</main>\n{OUR_SCRIPT}\n</body>\n</html>\n")


def test_the_home_page_says_what_the_index_holds() -> None:
    about = IndexStats(
        documents=1301,
        crawled=1300,
        anchor_only=1,
        sites=[{"host": f"s{k}.test", "pages": 1000 if k == 0 else 10, "last_fetch": ""} for k in range(23)],
        languages=[{"lang": "en", "pages": 1200}, {"lang": "zh-cn", "pages": 100}],
        last_commit="2026-12-06T23:37:12.5+00:00",
    )
    about.sites[0]["last_fetch"] = "2026-12-06T23:30:01+00:00"
    body = _main(render_page(Params(), about=about))
    assert (
        "<p>1,301 documents: 1,300 crawled pages from 23 sites, and 1 known only by the links to it. "
        "Languages: en 1,200, zh-cn 100. The index last changed 2026-12-06 23:37 UTC.</p>"
    ) in body
    assert (
        '<tr><td><a href="/?q=site%3As0.test">s0.test</a></td><td class="n">1,000</td>'
        "<td>2026-12-06 23:30 UTC</td></tr>"
    ) in body
    assert '<td class="n">10</td><td>never</td>' in body
    assert body.count("<tr>") == 21 and "s19.test" in body and "s20.test" not in body  # 20 sites, then a count
    assert "<p>and 3 more sites.</p>" in body
    assert "for pages in one language (here: <code>lang:en</code>, <code>lang:zh</code>)" in body


def test_an_empty_index_says_so() -> None:
    body = _main(render_page(Params(), about=IndexStats(documents=0, crawled=0, anchor_only=0)))
    assert "0 documents: 0 crawled pages from 0 sites, and 0 known only by the links to them." in body
    assert "Languages: none yet. The index last changed never." in body and "<table>" not in body


@pytest.mark.parametrize(
    ("params", "href"),
    [
        (Params("tea"), "/?q=tea"),
        (Params("tea", 10, 1), "/?q=tea"),
        (Params("green tea", 20, 3), "/?q=green+tea&n=20&page=3"),
        (Params("a&b=c#d"), "/?q=a%26b%3Dc%23d"),
    ],
)
def test_page_links_leave_the_defaults_out(params: Params, href: str) -> None:
    assert params.href() == href


def test_the_opensearch_description_names_this_server() -> None:
    description = render_opensearch("http://search.test:8080/")
    assert '<Url type="text/html" method="get" template="http://search.test:8080/?q={searchTerms}"/>' in description
    assert 'template="http://search.test:8080/api/search?q={searchTerms}"' in description
    assert "<ShortName>Lantern</ShortName>" in description
    assert "&quot;&gt;" in render_opensearch('http://x"><y/')

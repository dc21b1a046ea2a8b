"""Pages answered 200 that say they are not found ("soft 404s" one page at a time).

The per-site probe finds sites that answer 200 for every missing page; this
rule finds a single page whose title or main heading says, and says only,
that it is not found. Both directions as a table, then a real crawl.
"""

from __future__ import annotations

import doctest
import re

import pytest

from crawler import pages
from crawler.pages import _NOT_FOUND, _plain, says_not_found
from indexer.layout import stored_documents
from tests.commands import crawl
from tests.webserver import Reply, page, serve_site

ARTICLE = " ".join(["A browser asks a server for a page the server does not have."] * 30)  # about 1,800 characters

NOT_FOUND = [
    ("Page not found – Harbor Gazette", "Page not found", ""),
    ("Page Not Found | Merrow Point Wiki", "", "The page you asked for has moved or never was."),
    ("Harbor Gazette", "Oops! That page can’t be found.", "It looks like nothing was found here."),
    ("404", "", ""),
    ("Error 404", "", "Go back home."),
    ("404 - Not Found", "", ""),
    ("Error 404: the page you requested could not be found", "", ""),
    ("Harbor Gazette", "Sorry, we couldn't find that page", ""),
    ("Nothing found", "", ""),
    ("找不到页面", "", "返回首页"),
    ("华夏风物志", "404 页面不存在", ""),
    ("抱歉，您访问的页面不存在 - 华夏风物志", "", ""),
    ("ページが見つかりません", "", ""),
    ("Seite nicht gefunden", "", ""),
    ("Page introuvable", "", ""),
]
KEPT = [
    ("404 errors explained", "404 errors explained", ""),
    ("How to fix page not found errors in nginx | Blog", "How to fix page not found errors in nginx", ""),
    ("Not Found (2015) - a film by R. Vale", "", ""),
    ("Lost and found office", "Lost and found", ""),
    ("Error handling in Kestrel", "Errors", ""),
    ("Oops", "", ""),
    ("Status codes: 200, 301, 404", "", ""),
    ("The 404 page, redesigned", "", ""),
    ("Harbor Gazette", "Harbor Gazette", ""),
    ("", "", ""),
    # An HTTP reference's page on the status: its heading says it, its text says much more.
    ("404 Not Found - HTTP reference", "404 Not Found", ARTICLE),
    ("如何解决页面不存在的问题", "", ""),
]


@pytest.mark.parametrize(("title", "heading", "text"), NOT_FOUND)
def test_a_page_that_says_it_is_not_found_is_one(title, heading, text) -> None:
    assert says_not_found(title, heading, text)


@pytest.mark.parametrize(("title", "heading", "text"), KEPT)
def test_a_page_about_not_found_pages_or_anything_else_is_kept(title, heading, text) -> None:
    assert not says_not_found(title, heading, text)


def test_the_phrases_are_spelt_as_titles_are_read() -> None:
    assert all(_plain(phrase) == phrase for phrase in _NOT_FOUND)


# --- a real crawl ---------------------------------------------------------------------------

ROUTES = {
    "/": page(
        "<title>Home</title><p>Five pages.</p><a href='/old-story.html'>old story</a> "
        "<a href='/zh/gone.html'>旧页面</a> <a href='/errors-explained.html'>errors</a> "
        "<a href='/nginx-howto.html'>nginx</a> <a href='/story.html'>story</a>"
    ),
    "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
    "/old-story.html": page(
        "<title>Page not found – Harbor Gazette</title><h1>Page not found</h1>"
        "<p>The story you asked for has moved.</p><a href='/from-missing.html'>home</a>"
    ),
    "/zh/gone.html": page(
        "<html lang='zh'><title>找不到页面</title><h1>抱歉，您访问的页面不存在</h1><p>返回首页</p></html>"
    ),
    "/errors-explained.html": page(
        "<title>404 errors explained</title><h1>404 errors explained</h1>"
        "<p>When a ferry timetable page moves, readers meet a 404 error.</p>"
    ),
    "/nginx-howto.html": page(
        "<title>How to fix page not found errors in nginx</title>"
        "<h1>How to fix page not found errors in nginx</h1><p>Check the root directive.</p>"
    ),
    "/story.html": page("<title>Ferry timetable changes</title><p>The winter ferry leaves at nine.</p>"),
    "/from-missing.html": page("<title>Only linked from a missing page</title><p>Unreached.</p>"),
}


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("soft404")
    with serve_site(ROUTES) as site:
        done = crawl([site.url("/")], data, "DOWNLOAD_DELAY=0", "MONITOR_INTERVAL=0")
    assert done.returncode == 0, done.stderr[-3000:]
    return site, stored_documents(data), done.stderr


def test_pages_that_say_they_are_not_found_are_not_indexed_nor_followed(crawled) -> None:
    site, documents, _ = crawled
    indexed = {url for url, fields in documents.items() if fields.get("crawled")}
    assert indexed == {site.url(path) for path in ("/", "/errors-explained.html", "/nginx-howto.html", "/story.html")}
    assert "/from-missing.html" not in site.paths()


def test_they_are_counted_and_logged_once_per_site(crawled) -> None:
    _, _, log = crawled
    assert "'soft404/content': 2" in log
    assert len(re.findall(r"answers 200 but says it is not found", log)) == 1


def test_the_examples_in_the_docstrings_hold() -> None:
    failures, _ = doctest.testmod(pages)
    assert failures == 0

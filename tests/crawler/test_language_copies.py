"""A page served under several language segments is the copy that fits its language.

A manual whose untranslated pages are links to the English ones serves the
English FAQ at ``/da/faq/`` and ``/faq/`` alike; the crawl may meet the
Danish URL first. The rule as a table, the extractor's part (a language only
the URL names is no evidence), the take-over in Redis as every node shares
it, the page logic's items, the indexer, then a real crawl and a search.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from crawler.extractors import extract
from crawler.frontier import Frontier
from crawler.languages import kept_copy
from crawler.pages import Fetched, LocalPageMemory, PageLogic, PageMemory
from indexer.builder import IndexBuilder
from indexer.layout import stored_documents
from search.engine import SearchEngine
from tests.commands import crawl, run
from tests.items import duplicate, gone, page
from tests.webserver import Reply, serve_site
from tests.webserver import page as html

D = "http://d.test"

KEPT = [
    # (first seen, the copy met later, the page's language): the URL kept
    (f"{D}/da/faq/", f"{D}/faq/", "en", f"{D}/faq/"),
    (f"{D}/faq/", f"{D}/da/faq/", "en", f"{D}/faq/"),
    (f"{D}/es/intro.html", f"{D}/intro.html", "en", f"{D}/intro.html"),
    (f"{D}/da/faq/", f"{D}/en/faq/", "en", f"{D}/en/faq/"),
    (f"{D}/en/faq/", f"{D}/faq/", "en", f"{D}/faq/"),  # both name English: the shorter
    (f"{D}/faq/", f"{D}/da/faq/", "da", f"{D}/da/faq/"),  # a Danish page: its Danish URL
    (f"{D}/da/faq/", f"{D}/faq/", "da", f"{D}/da/faq/"),
    (f"{D}/da/faq/", f"{D}/faq/", "", f"{D}/faq/"),  # no language known: the shorter
    (f"{D}/de/a.html", f"{D}/fr/a.html", "", f"{D}/de/a.html"),  # a tie: the first
    (f"{D}/de/a.html", f"{D}/fr/a.html", "fr-ca", f"{D}/fr/a.html"),
    (f"{D}/zh-tw/a.html", f"{D}/zh-cn/a.html", "zh-cn", f"{D}/zh-cn/a.html"),
    (f"{D}/zh-cn/a.html", f"{D}/zh-tw/a.html", "zh-cn", f"{D}/zh-cn/a.html"),
    (f"{D}/a.zh-tw.html", f"{D}/a.html", "en", f"{D}/a.html"),
    (f"{D}/doc.html.da", f"{D}/doc.html", "en", f"{D}/doc.html"),
    (f"{D}/p?id=3&lang=da", f"{D}/p?id=3", "en", f"{D}/p?id=3"),
    # not only a language segment apart: the first seen, as for any copy
    (f"{D}/da/faq/", f"{D}/faq/index.html", "en", f"{D}/da/faq/"),
    (f"{D}/print/faq/", f"{D}/faq/", "en", f"{D}/print/faq/"),
    (f"{D}/da/faq/", "http://other.test/faq/", "en", f"{D}/da/faq/"),
    (f"{D}/faq/a.html", f"{D}/faq/b.html", "en", f"{D}/faq/a.html"),
]


@pytest.mark.parametrize(("first", "other", "lang", "kept"), KEPT)
def test_the_copy_kept_fits_the_pages_language_or_is_the_shortest(first, other, lang, kept) -> None:
    assert kept_copy(first, other, lang) == kept


# --- the language the rule reads ------------------------------------------------------------

ENGLISH_FAQ = (
    "<title>The Debian GNU/Linux FAQ</title><h1>The Debian GNU/Linux FAQ</h1>"
    "<p>This document answers the questions most often asked about the quokka release of the system, "
    "and tells where to find the answers the document does not hold.</p>"
)


def test_a_language_only_the_url_names_is_marked_as_such() -> None:
    def read(markup: str, url: str, **headers: str):
        found = extract(markup.encode(), url, "text/html; charset=utf-8", headers=headers or None).page
        assert found is not None
        return found

    undeclared = read(ENGLISH_FAQ, f"{D}/da/faq/")
    assert (undeclared.lang, undeclared.lang_from_url) == ("da", True)
    declared = read(f'<html lang="en">{ENGLISH_FAQ}</html>', f"{D}/da/faq/")
    assert (declared.lang, declared.lang_from_url) == ("en", False)
    told = read(ENGLISH_FAQ, f"{D}/da/faq/", **{"Content-Language": "da"})
    assert (told.lang, told.lang_from_url) == ("da", False)
    guessed = read(ENGLISH_FAQ, f"{D}/faq/")
    assert (guessed.lang, guessed.lang_from_url) == ("en", False)


# --- the fingerprint's owner, shared by every node --------------------------------------------


def test_a_take_over_is_a_compare_and_set_every_node_shares(redis_client: redis.Redis) -> None:
    node_a, node_b = Frontier(redis_client), Frontier(redis_client)
    digest, near = b"f" * 16, 0x1234_5678_9ABC_DEF0
    assert node_a.content_seen(digest, f"{D}/da/faq/", near) is None
    assert node_b.content_seen(digest, f"{D}/faq/", near) == f"{D}/da/faq/"
    assert node_a.content_seen(digest, f"{D}/en/faq/", near) == f"{D}/da/faq/"
    assert node_b.take_over_content(digest, f"{D}/da/faq/", f"{D}/faq/", near) == f"{D}/da/faq/"
    # The other node, which read the old owner, finds the new one and changes nothing.
    assert node_a.take_over_content(digest, f"{D}/da/faq/", f"{D}/en/faq/", near) == f"{D}/faq/"
    assert node_a.content_seen(digest, f"{D}/es/faq/", near) == f"{D}/faq/"
    assert node_a.content_seen(b"g" * 16, f"{D}/de/faq/", near) == f"{D}/faq/"  # a near copy, too
    assert node_a.content_seen(digest, f"{D}/faq/", near) is None  # a refetch of the owner


def test_a_near_copy_takes_nothing_over(redis_client: redis.Redis) -> None:
    frontier = Frontier(redis_client)
    near = 0x1234_5678_9ABC_DEF0
    assert frontier.content_seen(b"a" * 16, f"{D}/da/faq/", near) is None
    assert frontier.content_seen(b"b" * 16, f"{D}/faq/", near ^ 1) == f"{D}/da/faq/"
    assert frontier.take_over_content(b"b" * 16, f"{D}/da/faq/", f"{D}/faq/", near ^ 1) == f"{D}/faq/"
    assert frontier.content_seen(b"a" * 16, f"{D}/es/faq/", near) == f"{D}/da/faq/"


# --- the page logic's items ---------------------------------------------------------------


def _memories(redis_client: redis.Redis) -> dict[str, PageMemory]:
    return {"local": LocalPageMemory(3), "redis": Frontier(redis_client)}


@pytest.mark.parametrize("memory", ["local", "redis"])
def test_a_copy_that_fits_the_pages_language_takes_the_page_over(redis_client: redis.Redis, memory: str) -> None:
    stats: dict[str, int] = {}
    logic = PageLogic.from_settings(
        {}, memory=_memories(redis_client)[memory], count=lambda key, n=1: stats.update({key: stats.get(key, 0) + n})
    )
    body = f'<html lang="en">{ENGLISH_FAQ}</html>'.encode()

    def items(path: str) -> list[tuple[str, str, str | None]]:
        fetched = Fetched(f"{D}{path}", 200, {"Content-Type": "text/html; charset=utf-8"}, body)
        return [(item["type"], item["url"], item.get("of")) for item in logic.page(fetched).items]

    assert items("/da/faq/") == [("page", f"{D}/da/faq/", None)]
    assert items("/faq/") == [("page", f"{D}/faq/", None), ("duplicate", f"{D}/da/faq/", f"{D}/faq/")]
    assert items("/es/faq/") == [("duplicate", f"{D}/es/faq/", f"{D}/faq/")]  # compared with the new owner
    assert items("/da/faq/") == [("duplicate", f"{D}/da/faq/", f"{D}/faq/")]  # a revisit: still a copy
    assert items("/faq/") == [("page", f"{D}/faq/", None)]
    assert stats["dupes/language_swap"] == 1 and stats["dupes/content"] == 3


@pytest.mark.parametrize("memory", ["local", "redis"])
def test_a_language_only_its_own_url_names_claims_nothing(redis_client: redis.Redis, memory: str) -> None:
    # Undeclared: each copy's language would be its URL's, and each would take the page in turn.
    logic = PageLogic.from_settings({}, memory=_memories(redis_client)[memory])
    body = ENGLISH_FAQ.encode()
    for path, kept in [("/da/faq/", "/da/faq/"), ("/faq/", "/faq/"), ("/es/faq/", "/faq/"), ("/de/faq/", "/faq/")]:
        outcome = logic.page(Fetched(f"{D}{path}", 200, {"Content-Type": "text/html"}, body))
        assert outcome.items[0]["url" if outcome.items[0]["type"] == "page" else "of"] == f"{D}{kept}", path


# --- the indexer ----------------------------------------------------------------------------


@pytest.mark.parametrize("batches", [1, 2], ids=["one batch", "two batches"])
def test_the_indexer_makes_the_first_url_an_alias_and_keeps_the_new_page(tmp_path: Path, batches: int) -> None:
    # In one batch, the first URL's document is not yet committed when it becomes a copy.
    with IndexBuilder(tmp_path) as builder:
        builder.add([page(f"{D}/da/faq/", "The FAQ", "quokka answers", lang="en")])
        if batches == 2:
            builder.commit()
        builder.add([page(f"{D}/faq/", "The FAQ", "quokka answers", lang="en"), duplicate(f"{D}/da/faq/", f"{D}/faq/")])
        builder.add([page(f"{D}/x", "X", "gone at once"), gone(f"{D}/x")])
        builder.add([page(f"{D}/y", "Y", "y"), duplicate(f"{D}/y", f"{D}/faq/"), page(f"{D}/y", "Y", "changed")])
        builder.commit()
        builder.finalize()
    indexed = {url for url, fields in stored_documents(tmp_path).items() if fields.get("crawled")}
    assert indexed == {f"{D}/faq/", f"{D}/y"}
    with SearchEngine(tmp_path) as engine:
        assert [result.url for result in engine.search("quokka").results] == [f"{D}/faq/"]


# --- a real crawl, then search --------------------------------------------------------------

FAQ = (
    '<html lang="en"><head><title>The Debian GNU/Linux FAQ</title></head><body>'
    "<h1>The Debian GNU/Linux FAQ</h1><p>This document answers the questions most often asked about "
    "the quokka release: where the packages live, how the archive is signed, and how to report a bug.</p>"
    '<a href="/es/intro.html">Introducción</a></body></html>'
)
INTRO = (
    '<html lang="en"><head><title>Installing with the wombat installer</title></head><body>'
    "<h1>Installing with the wombat installer</h1><p>This chapter introduces the wombat installer and "
    'the media it boots from.</p><a href="/faq/index.html">FAQ</a> <a href="/intro.html">Intro</a></body></html>'
)
MANUAL = {
    "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
    # The untranslated pages, each found first under a language segment: the only way to the
    # English copies is through the Spanish one, so the fetch order is the same on every run.
    "/": html('<title>Manual</title><p>Editions.</p><a href="/da/faq/index.html">FAQ (dansk)</a>'),
    "/da/faq/index.html": html(FAQ),
    "/es/intro.html": html(INTRO),
    "/faq/index.html": html(FAQ),
    "/intro.html": html(INTRO),
}
TRANSLATED = {
    "/robots.txt": MANUAL["/robots.txt"],
    "/": html(
        '<title>FAQ</title><p>Editions.</p><a href="/da/faq/index.html">dansk</a> <a href="/faq/index.html">English</a>'
    ),
    "/da/faq/index.html": html(
        '<html lang="da"><title>Ofte stillede spørgsmål om pelikanudgaven</title>'
        "<p>Dette dokument besvarer de spørgsmål, der oftest stilles om pelikanudgaven af systemet.</p></html>"
    ),
    "/faq/index.html": html(
        '<html lang="en"><title>Frequently asked questions about the pelican release</title>'
        "<p>This document answers the questions most often asked about the pelican release.</p></html>"
    ),
}


def _search(data: Path, *query: str) -> dict:
    done = run("search", "--data", str(data), "--json", *query)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("copies")
    with serve_site(MANUAL) as manual, serve_site(TRANSLATED) as translated:
        done = crawl([manual.url("/"), translated.url("/")], data, "DOWNLOAD_DELAY=0", "MONITOR_INTERVAL=0")
    assert done.returncode == 0, done.stderr[-3000:]
    fetched = manual.paths()
    assert fetched.index("/da/faq/index.html") < fetched.index("/faq/index.html")
    assert fetched.index("/es/intro.html") < fetched.index("/intro.html")
    return manual, translated, data, done.stderr


def test_the_english_page_is_found_under_its_own_url_once(crawled) -> None:
    manual, _, data, _ = crawled
    for query, path in [("quokka", "/faq/index.html"), ("wombat installer", "/intro.html")]:
        found = _search(data, query)
        assert [result["url"] for result in found["results"]] == [manual.url(path)], query
        assert found["total"] == 1 and found["results"][0]["lang"] == "en"
    indexed = {url for url, fields in stored_documents(data).items() if fields.get("crawled")}
    assert {manual.url(path) for path in ("/", "/faq/index.html", "/intro.html")} <= indexed
    assert not {manual.url("/da/faq/index.html"), manual.url("/es/intro.html")} & indexed


def test_the_swaps_are_counted(crawled) -> None:
    _, _, _, log = crawled
    assert "'dupes/language_swap': 2" in log


def test_a_real_translation_keeps_its_own_url_and_language(crawled) -> None:
    _, translated, data, _ = crawled
    danish, english = _search(data, "pelikanudgaven")["results"], _search(data, "pelican")["results"]
    assert [(result["url"], result["lang"]) for result in danish] == [(translated.url("/da/faq/index.html"), "da")]
    assert [(result["url"], result["lang"]) for result in english] == [(translated.url("/faq/index.html"), "en")]

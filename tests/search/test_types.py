"""Document types and sizes, from a real crawl to the results: filters, counts, result lines.

One literal site on 127.0.0.1 holds web pages, a PDF, a text file and a
link to a picture (never downloaded: known by its anchor text). It is
crawled once; the tests search its index through the engine, the command
line and the web page.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer.layout import stored_documents
from search.engine import Result, Results, SearchEngine, human_size
from search.page import Params, render_page
from tests import browser
from tests.commands import crawl, run
from tests.crawler.test_extractors import make_pdf
from tests.search.test_web import serving
from tests.webserver import Reply, page, serve_site, text

# Web pages about the harbour besides the home page, each its own text (near
# duplicates would not be indexed).
TOPICS = [
    ("cranes", "Four gantry cranes lift containers from the deep berth onto waiting trucks."),
    ("ferries", "Island ferries leave every hour from the north quay, later on Sundays."),
    ("fishing", "The fishing fleet lands cod and mackerel at dawn for the morning auction."),
    ("pilots", "Pilots board incoming tankers two miles out and steer them past the sandbar."),
    ("dredging", "Dredgers keep the channel twelve metres deep by removing silt every spring."),
    ("moorings", "Yacht owners rent swinging moorings by the month from the marina office."),
    ("lighthouse", "The lighthouse on the breakwater flashes white every five seconds at night."),
    ("customs", "Customs officers inspect cargo manifests before any container leaves the gate."),
    ("weather", "Gale warnings close the outer basin, and small boats shelter behind the mole."),
    ("history", "Roman merchants traded amphorae of wine and olive oil along the old wharf."),
    ("tugs", "Three tugboats push the largest bulk carriers against the coal terminal."),
    ("ice", "In hard winters an icebreaker clears a lane through the frozen inner harbour."),
]
PAGES = len(TOPICS)
PDF = make_pdf(
    [["Harbour dues for the year", "Every harbour berth is charged by the metre."]], title="Harbour Dues 2026"
)
NOTES = "Harbour notes\n\nThe harbour master keeps the tide tables.\n" + "Low water at noon.\n" * 200
ROUTES = {
    "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
    "/": page(
        "<title>Harbour authority</title><p>Everything about the harbour.</p>"
        + "".join(f'<a href="/p{i}.html">harbour page {i}</a> ' for i in range(PAGES))
        + '<a href="/dues.pdf">harbour dues</a> <a href="/notes.txt">harbour notes</a> '
        '<a href="/chart.png">harbour chart</a>'
    ),
    **{
        f"/p{i}.html": page(
            f"<title>Harbour {topic}</title><p>{sentence} That is how the harbour handles {topic} this year.</p>"
        )
        for i, (topic, sentence) in enumerate(TOPICS)
    },
    "/dues.pdf": Reply(PDF, 200, {"Content-Type": "application/pdf"}),
    "/notes.txt": text(NOTES),
    "/chart.png": Reply(b"\x89PNG\r\n\x1a\n" + b"\x00" * 500, 200, {"Content-Type": "image/png"}),
}


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("types")
    with serve_site(ROUTES) as site:
        done = crawl([site.url("/")], data, "DOWNLOAD_DELAY=0")
        assert done.returncode == 0, done.stderr[-3000:]
        assert "/chart.png" not in site.paths()  # a picture is known by its link, not fetched
        yield site.base, data


@pytest.fixture(scope="module")
def engine(crawled: tuple[str, Path]) -> Iterator[SearchEngine]:
    with SearchEngine(crawled[1]) as opened:
        yield opened


def _counts(facet: list[dict]) -> dict[str, int]:
    return {value["value"]: value["count"] for value in facet}


def test_type_counts_cover_every_match_not_the_page_shown(crawled, engine: SearchEngine) -> None:
    results = engine.search("harbour", n=3)
    assert len(results.results) == 3 < results.total == PAGES + 4
    assert _counts(results.facets["type"]) == {"html": PAGES + 1, "pdf": 1, "text": 1, "media": 1}
    assert "access" not in results.facets  # no members-only pages here


def test_type_filters_narrow_and_exclude(crawled, engine: SearchEngine) -> None:
    base, _ = crawled
    pdfs = engine.search("harbour type:pdf")
    assert [(r.url, r.type, r.size) for r in pdfs.results] == [(base + "/dues.pdf", "pdf", len(PDF))]
    assert _counts(pdfs.facets["type"]) == {"pdf": 1}
    others = engine.search("harbour -type:pdf", n=50)
    assert others.total == PAGES + 3 and base + "/dues.pdf" not in {r.url for r in others.results}
    picture = engine.search("chart type:media").results
    assert [(r.url, r.type, r.size, r.crawled) for r in picture] == [(base + "/chart.png", "media", None, False)]
    assert engine.search("harbour type:TEXT").results[0].size == len(NOTES.encode())


def test_json_carries_the_facets_and_each_results_type_and_size(crawled) -> None:
    base, data = crawled
    done = run("search", "--data", str(data), "--json", "-n", "2", "harbour dues")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert _counts(out["facets"]["type"]) == {"pdf": 1, "html": 1}  # the PDF, and the home page's link text
    pdf = next(result for result in out["results"] if result["url"] == base + "/dues.pdf")
    assert (pdf["type"], pdf["size"], pdf["title"]) == ("pdf", len(PDF), "Harbour Dues 2026")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", pdf["fetched"])


def test_the_command_line_shows_type_size_and_date(crawled) -> None:
    base, data = crawled
    done = run("search", "--data", str(data), "harbour", "notes", "type:text")
    assert done.returncode == 0, done.stderr
    size = human_size(len(NOTES.encode()))
    assert re.search(
        rf"^    {re.escape(base)}/notes\.txt  \(Text · {size} · fetched \d{{4}}-\d\d-\d\d\)$", done.stdout, re.MULTILINE
    ), done.stdout


@pytest.fixture(scope="module")
def web(crawled: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serving(crawled[1], tmp_path_factory)


def test_type_links_with_counts_add_the_filter_to_the_query(web: str, tmp_path: Path) -> None:
    browser.chromium()
    with urllib.request.urlopen(web + "/?q=harbour", timeout=30) as response:
        served = response.read().decode()
    links = dict(
        (html.unescape(label), html.unescape(href))
        for href, label in re.findall(r'<a href="([^"]+)">([^<]+)</a> \(\d+\)', served)
    )
    assert f'Types: <a href="/?q=harbour+type%3Ahtml">HTML</a> ({PAGES + 1})' in served
    assert "PDF" in links and "Media" in links
    for width in (1280, 375):
        shot = browser.screenshot(web + "/?q=harbour", tmp_path / f"types-{width}.png", tmp_path, size=(width, 900))
        assert browser.png_rows(shot)[0] == width
    dom = browser.dump_dom(web + links["PDF"], tmp_path)
    box = re.search(r'<input[^>]*name="q"[^>]*>', dom)
    assert box is not None and 'value="harbour type:pdf"' in box.group()
    assert "Results 1-1 of 1" in dom and "dues.pdf" in dom
    assert f"PDF · {human_size(len(PDF)).replace(' ', '&nbsp;')} · fetched&nbsp;" in dom
    assert "Types: " not in dom  # the query has its type already


def test_filter_syntax_is_parsed_like_site_and_lang() -> None:
    rest, required, excluded = SearchEngine.filters('tide -type:pdf type:"text" access:members lang:en')
    assert rest == "tide"
    assert [(term.fieldname, term.text) for term in required.subqueries] == [
        ("type", "text"),
        ("access", "members"),
        ("lang", "en"),
    ]
    assert [(term.fieldname, term.text) for term in excluded] == [("type", "pdf")]
    # Not a restriction inside a word or a phrase's word.
    assert SearchEngine.filters("subtype:pdf")[0] == "subtype:pdf"


def test_the_page_shows_the_query_syntax_for_types(web: str) -> None:
    with urllib.request.urlopen(web + "/", timeout=30) as response:
        assert "<code>type:pdf</code>" in response.read().decode()


def test_a_rebuild_from_the_archive_gives_every_document_the_same_type_and_size(crawled, tmp_path: Path) -> None:
    base, data = crawled
    copy = tmp_path / "data"
    shutil.copytree(data, copy, ignore=shutil.ignore_patterns("redis"))
    done = run("indexer", "rebuild", "--data", str(copy), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    crawl_documents, rebuilt = stored_documents(data), stored_documents(copy)
    facts = {url: (document.get("type"), document.get("size")) for url, document in crawl_documents.items()}
    assert facts == {url: (document.get("type"), document.get("size")) for url, document in rebuilt.items()}
    assert facts[base + "/dues.pdf"] == ("pdf", len(PDF)) and facts[base + "/chart.png"] == ("media", None)


def test_members_only_matches_are_counted_and_linked_only_when_there_are_some() -> None:
    shown = [Result("http://a.test/q3", "Q3 report", "", 1.0, 0.0, "a.test", members_only=True, type="pdf")]
    facets = {
        "site": [{"value": "a.test", "count": 4}],
        "type": [{"value": "pdf", "count": 4}],
        "access": [{"value": "members", "count": 1}],
    }
    page = render_page(Params("report"), Results("report", 4, shown, facets=facets))
    assert 'Access: <a href="/?q=report+access%3Amembers">members only</a> (1)' in page
    assert "Types: " not in page and "Sites: " not in page  # one of each: no link would narrow
    del facets["access"]
    assert "Access: " not in render_page(Params("report"), Results("report", 4, shown, facets=facets))

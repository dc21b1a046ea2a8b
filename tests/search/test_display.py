"""A crawled page's text is shown as text: no bidi tricks, no highlights of its own, no raw language attribute.

A page can spoof its result: a right-to-left override turns the title
``invoice`` U+202E ``gpj.exe`` into what reads as ``invoiceexe.jpg``, its
own ``**free**`` would be shown as if the engine had matched it, and its
``lang`` attribute, whatever it holds, would appear as a fact. Checked on a
real index, through the engine, the page, the command line and its JSON.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from search.__main__ import render
from search.display import marked
from search.engine import SearchEngine
from search.page import Params, render_page
from tests.items import page
from tests.search.conftest import indexed, opened

ROOT = Path(__file__).parents[2]
RLO, LRI, PDI, RLM = "\u202e", "\u2066", "\u2069", "\u200f"
SPOOFS = (RLO, LRI, PDI, RLM, "\u202a", "\u202d", "\u200b", "\x1b")
INVOICE = "http://shop.test/invoice"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("display")
    return indexed(
        directory,
        [
            page(
                INVOICE,
                f"Your invoice{RLO}gpj.exe",
                f"Open the invoice attached. Shipping is **free** for {LRI}members{PDI} this week{RLM}. "
                "The terminal\x1b[2J is cleared by nobody.",
                [("http://shop.test/terms", f"**terms** of the invoice {RLO}txt.exe")],
                lang="EN_us ",
            ),
            page("http://shop.test/garbage", "Invoice archive", "Every invoice of the year.", lang="<b>x</b>"),
        ],
    )


@pytest.fixture(scope="module")
def engine(data: Path) -> Iterator[SearchEngine]:
    yield from opened(data)


def _spoof_free(text: str) -> bool:
    return not any(char in text for char in SPOOFS)


def test_titles_and_snippets_carry_no_bidi_or_control_characters(engine: SearchEngine) -> None:
    results = engine.search("invoice", n=10).results
    assert {result.url for result in results} == {INVOICE, "http://shop.test/garbage", "http://shop.test/terms"}
    for result in results:
        assert _spoof_free(result.title) and _spoof_free(result.snippet), result
    invoice = next(result for result in results if result.url == INVOICE)
    assert invoice.title == "Your invoicegpj.exe"


def test_only_the_engines_matches_are_highlighted(engine: SearchEngine) -> None:
    results = {result.url: result for result in engine.search("invoice shipping", n=10).results}
    pieces = marked(results[INVOICE].snippet)
    assert {text.lower() for text, mark in pieces if mark} == {"invoice", "shipping"}
    shown = "".join(text for text, _ in pieces)
    assert "Shipping is **free** for members this week." in shown
    anchor = marked(engine.search("terms", n=10).results[0].snippet)
    assert [text for text, mark in anchor if mark] == [] and "**terms** of the invoice" in "".join(t for t, _ in anchor)


def test_the_page_marks_only_the_engines_matches(engine: SearchEngine) -> None:
    html = render_page(Params("invoice shipping"), engine.search("invoice shipping", n=10))
    assert _spoof_free(html)
    assert sorted(set(re.findall(r"<mark>(.*?)</mark>", html))) == ["Shipping", "invoice"]
    assert "Shipping</mark> is **free** for members" in html


def test_the_language_fact_is_a_normalised_tag_or_nothing(engine: SearchEngine) -> None:
    results = {result.url: result for result in engine.search("invoice", n=10).results}
    assert results[INVOICE].lang == "en-us" and results["http://shop.test/garbage"].lang == ""
    assert "en-us" in results[INVOICE].facts("zh")
    assert not any("<" in fact for fact in results["http://shop.test/garbage"].facts("zh"))
    assert {value["value"] for value in engine.search("invoice", n=10).facets["lang"]} <= {"en", "en-us"}
    assert engine.search("invoice lang:en-us").total == 1


def test_the_command_line_and_its_json_show_the_same_clean_text(engine: SearchEngine, data: Path) -> None:
    text = render(engine.search("invoice shipping", n=10), color=True)
    assert _spoof_free(text.replace("\033[1m", "").replace("\033[0m", ""))
    assert "\033[1mShipping\033[0m is **free** for members" in text
    done = subprocess.run(
        [sys.executable, "-m", "search", "--data", str(data), "--json", "invoice"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    for result in json.loads(done.stdout)["results"]:
        assert _spoof_free(result["title"]) and _spoof_free(result["snippet"]) and "<" not in result["lang"]

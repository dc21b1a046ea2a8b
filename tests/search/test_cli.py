"""Search from the command line over a small literal index built in tmp_path."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from crawler.datadir import claim_format, index_dir
from indexer.builder import IndexBuilder
from search.engine import SearchEngine, SearchError
from tests.commands import crawl
from tests.items import page
from tests.webserver import page as page_of
from tests.webserver import serve_site, text

ROOT = Path(__file__).parents[2]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    with IndexBuilder(tmp_path) as builder:
        builder.add(
            [
                page(
                    "http://docs.test/",
                    "Library index",
                    "All modules of the library.",
                    [
                        ("http://docs.test/json.html", "json"),
                        ("http://docs.test/csv.html", "csv"),
                        ("http://zh.test/tea.html", "龙井茶"),
                    ],
                ),
                page(
                    "http://docs.test/json.html",
                    "json — JSON encoder and decoder",
                    "The json module encodes Python objects as JSON text.",
                ),
                page(
                    "http://docs.test/csv.html",
                    "csv — CSV files",
                    "Read and write CSV files. Some CSV files carry JSON in a column.",
                ),
                page("http://zh.test/tea.html", "西湖龙井茶", "西湖龙井是产于杭州西湖的绿茶。"),
            ]
        )
        builder.finalize()
    return tmp_path


def _search(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "search", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_json_output_has_the_documented_shape(data: Path) -> None:
    done = _search("--data", str(data), "--json", "-n", "5", "json", "encoder")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) == {"query", "total", "results", "facets"}
    assert out["query"] == "json encoder" and out["total"] >= 1
    assert set(out["facets"]) == {"site", "lang", "type"}
    assert out["facets"]["site"][0] == {"value": "docs.test", "count": 2}
    first = out["results"][0]
    assert set(first) == {
        "url",
        "title",
        "snippet",
        "score",
        "pagerank",
        "host",
        "crawled",
        "fetched",
        "more_from_host",
        "page",
        "lang",
        "members_only",
        "type",
        "size",
        "hierarchy",
        "also_in",
    }
    assert first["members_only"] is False
    assert first["hierarchy"] == [] and first["also_in"] == []
    assert first["url"] == first["page"] == "http://docs.test/json.html"
    assert first["host"] == "docs.test"
    assert "**json**" in first["snippet"]
    assert isinstance(first["score"], float) and 0 < first["pagerank"] < 1


def test_text_output_reads_like_a_result_list(data: Path) -> None:
    done = _search("--data", str(data), "西湖龙井茶")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Results 1-1 of 1 for '西湖龙井茶'")
    assert lines[2] == " 1. 西湖龙井茶"
    assert re.fullmatch(r"    http://zh\.test/tea\.html  \(HTML · fetched \d{4}-\d\d-\d\d\)", lines[3]), lines[3]


def test_a_misspelt_query_shows_the_respelling_s_results_and_offers_the_words_as_typed(data: Path) -> None:
    done = _search("--data", str(data), "jsno", "decodr")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Showing results for 'json decoder'; search instead for 'jsno decodr' with --as-typed."
    assert lines[1].startswith("Results 1-2 of 2 for 'json decoder'")
    assert lines[3] == " 1. json — JSON encoder and decoder"
    out = json.loads(_search("--data", str(data), "--json", "jsno", "decodr").stdout)
    assert (out["query"], out["showing"], out["suggestion"], out["total"]) == (
        "jsno decodr",
        "json decoder",
        "json decoder",
        2,
    )
    typed = _search("--data", str(data), "--as-typed", "jsno", "decodr").stdout.splitlines()
    assert typed == ["Did you mean: json decoder?", "No results for 'jsno decodr'."]


def test_explain_prints_a_table_of_factors_and_the_formula_once(data: Path) -> None:
    done = _search("--data", str(data), "--explain", "json")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert not [line for line in lines if "{" in line]  # no JSON blob
    scores = [line for line in lines if re.fullmatch(r"    score \d+\.\d{4}", line)]
    texts = [line for line in lines if re.fullmatch(r"      text +\d+\.\d{4}", line)]
    assert len(scores) == len(texts) >= 2
    assert any(re.fullmatch(r"      fields +title \d+\.\d{4} · .+", line) for line in lines)
    assert done.stdout.count("score = (text") == 1 and lines[-1].endswith(")")
    data_ = json.loads(_search("--data", str(data), "--explain", "--json", "json").stdout)
    assert all("formula" in result["explain"] for result in data_["results"])  # the data stays whole


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--data", "{missing}", "json"], "search: no index in {missing}: crawl something first"),
        (["--data", "{data}"], "search: empty query: type some words to search for"),
        (["--data", "{data}", "-n", "0", "json"], "search: -n and --page must be at least 1"),
    ],
)
def test_user_errors_are_one_line_not_a_traceback(data: Path, tmp_path: Path, args, message) -> None:
    values = {"missing": str(tmp_path / "nothing"), "data": str(data)}
    done = _search(*(arg.format(**values) for arg in args))
    assert done.returncode == 2
    assert done.stderr.startswith(message.format(**values))
    assert len(done.stderr.strip().splitlines()) == 1


def test_an_index_still_being_created_is_reported(tmp_path: Path) -> None:
    claim_format(tmp_path)  # as the indexer does before it makes the index
    index_dir(tmp_path).mkdir()
    with pytest.raises(SearchError, match="being built"):
        SearchEngine(tmp_path)


def test_all_words_are_required_then_relaxed(data: Path) -> None:
    with SearchEngine(data) as engine:
        both = engine.search("csv json", explain=True)
        assert both.results[0].url == "http://docs.test/csv.html"  # has both words
        assert both.results[0].explain["all_words"] is True
        assert [r.explain["all_words"] for r in both.results[1:]] == [False] * (len(both.results) - 1)
        relaxed = engine.search("json nonexistentword")
        assert relaxed.results[0].url == "http://docs.test/json.html"


def test_title_beats_body_and_anchor_only_pages_are_found(data: Path) -> None:
    with SearchEngine(data) as engine:
        assert engine.search("json").results[0].url == "http://docs.test/json.html"
        assert engine.search("龙井").results[0].title == "西湖龙井茶"
        assert engine.search("site:zh.test 龙井").total == 1


def test_later_pages_are_numbered_from_where_they_start(data: Path) -> None:
    done = _search("--data", str(data), "-n", "1", "--page", "2", "csv", "OR", "json")
    assert done.stdout.splitlines()[0].startswith("Results 2-2 of 2 for 'csv OR json'")
    assert done.stdout.splitlines()[2].startswith(" 2. ")


def test_a_reader_that_stops_early_gets_no_traceback(data: Path) -> None:
    """`python -m search ... | head -1`: the pipe closes before the results are written."""
    reader, writer = os.pipe()
    os.close(reader)  # the reader is gone before the first line
    with os.fdopen(writer, "w") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "search", "--data", str(data), "json"],
            cwd=ROOT,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr


def test_a_page_past_the_last_answers_at_once_with_the_last_page(data: Path) -> None:
    done = _search("--data", str(data), "--page", "999999999", "json")
    assert done.returncode == 0, done.stderr
    assert "Page 999999999 is past the last page: 2 results for 'json', page 1 is the last." in done.stdout


def test_a_query_longer_than_the_web_allows_is_refused_in_one_line(data: Path) -> None:
    done = _search("--data", str(data), "json " * 20_000)
    assert done.returncode == 2
    assert done.stderr.strip() == "search: the query is too long: at most 1000 characters"


def test_searching_an_empty_index_says_it_has_no_pages_and_how_to_fill_it(tmp_path: Path) -> None:
    with serve_site(
        {"/robots.txt": text("User-agent: *\n"), "/": page_of("<title>Harbour</title><p>Tides</p>")}
    ) as site:
        crawled = crawl([site.url("/missing")], tmp_path, "DOWNLOAD_DELAY=0")  # a seed that answers 404
    assert crawled.returncode == 3, crawled.stderr[-3000:]
    done = _search("--data", str(tmp_path), "harbour")
    assert done.returncode == 2 and not done.stdout
    assert done.stderr.strip() == (
        f"search: the index in {tmp_path} has no pages yet: crawl something first "
        f"(scrapy crawl web -a seeds=URL -s DATA_DIR={tmp_path}), or try `make demo`"
    )


def test_the_default_data_directory_points_to_the_index_a_subdirectory_holds(tmp_path: Path) -> None:
    # make demo crawls into data/demo; a search then runs with the default --data data.
    routes = {"/robots.txt": text("User-agent: *\n"), "/": page_of("<title>Harbour</title><p>The harbour tides</p>")}
    with serve_site(routes) as site:
        crawled = crawl([site.url("/")], tmp_path / "data" / "demo", "DOWNLOAD_DELAY=0")
    assert crawled.returncode == 0, crawled.stderr[-3000:]
    done = _search("--data", str(tmp_path / "data"), "harbour")
    assert done.returncode == 2
    assert done.stderr.strip().endswith(
        f"; {tmp_path / 'data' / 'demo'} holds one: search it with --data {tmp_path / 'data' / 'demo'}"
    )
    found = _search("--data", str(tmp_path / "data" / "demo"), "harbour")
    assert found.returncode == 0 and "Harbour" in found.stdout

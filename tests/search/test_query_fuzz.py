"""No query string makes search fail: not the parser at any level, not the engine on a real index.

Whatever a user types (quotes left open or empty, operators with nothing
beside them, field names without a word, brackets, other scripts) is
answered with results, or none, or for an empty query its one-line
:class:`SearchError`; never an exception from inside the parser.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from indexer.schema import schema as make_schema
from search import ranking
from search.engine import SearchEngine, SearchError
from search.parsing import LEVELS, QueryParser
from tests.items import page
from tests.search.conftest import indexed, opened

ROOT = Path(__file__).parents[2]
# What a query is made of: the syntax's characters and words, field names,
# words the parser rewrites (hyphenated, dotted, code names), other scripts.
PIECES = st.sampled_from(
    [
        *"\"'()+-:*?[]{}^~\\!<>/._ ",
        *("AND", "OR", "NOT", "ANDNOT", "ANDMAYBE", "TO", " ", " ", " "),
        *("title:", "site:", "lang:", "type:", "access:", "url:", "body:"),
        *("json", "the", "in-memory", "os.path", "JSONEncoder", "西湖", "2024", "Über", "\u202e", "\x00"),
    ]
)
QUERIES = st.one_of(st.lists(PIECES, max_size=12).map("".join), st.text(max_size=40))
EMPTY = "empty query: type some words to search for"


@pytest.fixture(scope="module")
def parser() -> QueryParser:
    return QueryParser(make_schema(), dict(ranking.FIELD_WEIGHTS))


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("fuzz")
    return indexed(
        directory,
        [
            page("http://docs.test/", "Library index", "All modules: json, csv, os.path.", [("/json", "json")]),
            page("http://docs.test/json", "json — JSON encoder", "JSONEncoder encodes objects in-memory."),
            page("http://zh.test/tea", "西湖龙井茶", "西湖龙井是产于杭州西湖的绿茶。", lang="zh-cn"),
        ],
    )


@pytest.fixture(scope="module")
def engine(data: Path) -> Iterator[SearchEngine]:
    yield from opened(data)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(QUERIES)
@example('""')
@example('title:""')
@example('json ""')
@example('NOT AND "')  # an operator left with nothing to apply to
@example("'(+\")")  # a plus inside a group
def test_no_query_string_makes_the_parser_raise(parser: QueryParser, text: str) -> None:
    for level in LEVELS:
        parser.parse(text, level)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(QUERIES)
@example('""')
@example('"" json')
@example('NOT AND "')
@example('title:"" -""')
def test_no_query_string_makes_a_search_fail(engine: SearchEngine, text: str) -> None:
    try:
        results = engine.search(text, n=5)
    except SearchError as exc:
        assert str(exc) == EMPTY and not text.split()
    else:
        assert results.total >= len(results.results)


def test_an_empty_phrase_finds_nothing_and_beside_a_word_is_ignored(engine: SearchEngine, data: Path) -> None:
    assert engine.search('""').total == 0
    assert [result.url for result in engine.search('"" encoder').results] == ["http://docs.test/json"]
    done = subprocess.run(
        [sys.executable, "-m", "search", "--data", str(data), '""'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "No results for '\"\"'.\n")

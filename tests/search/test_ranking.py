"""Ranking on small literal indexes: each test a situation a user would notice."""

from __future__ import annotations

import pytest

from indexer import schema as fields
from search.engine import SearchEngine
from tests.items import page
from tests.search.conftest import Build


def urls(engine: SearchEngine, query: str, n: int = 10) -> list[str]:
    return [result.url for result in engine.search(query, n=n).results]


FILLER = "The harbour committee met on Tuesday to discuss the ferry timetable and the market. "


def test_a_title_beats_a_mention_in_the_body(build: Build) -> None:
    engine = build(
        page("http://a.test/mention", "Harbour news", FILLER * 3 + "We also saw a lighthouse."),
        page("http://b.test/lighthouse", "The lighthouse", FILLER * 3),
    )
    assert urls(engine, "lighthouse")[0] == "http://b.test/lighthouse"


def test_repeating_a_word_does_not_beat_a_page_about_it(build: Build) -> None:
    engine = build(
        page("http://spam.test/", "Cheap deals", "tea " * 100 + FILLER),
        page("http://tea.test/", "Tea", "Tea is brewed from leaves. " + FILLER * 2 + "Green tea and black tea."),
    )
    assert urls(engine, "tea")[0] == "http://tea.test/"


def test_anchor_text_finds_a_page_that_was_never_fetched(build: Build) -> None:
    engine = build(
        page(
            "http://a.test/",
            "Home",
            FILLER,
            [("http://a.test/private/ledger.html", "quarterly lighthouse inspection ledger")],
        ),
    )
    results = engine.search("inspection ledger").results
    assert results[0].url == "http://a.test/private/ledger.html"
    assert results[0].crawled is False and results[0].title == "quarterly lighthouse inspection ledger"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("os path join", "http://docs.test/os.path.join"),
        ("os.path.join", "http://docs.test/os.path.join"),
        ("json dumps", "http://docs.test/json.dumps"),
        ("read csv", "http://docs.test/read_csv"),
        ("read_csv", "http://docs.test/read_csv"),
        ("json encoder", "http://docs.test/JSONEncoder"),
        ("JSONEncoder", "http://docs.test/JSONEncoder"),
    ],
)
def test_code_names_are_found_whole_and_split(build: Build, query: str, expected: str) -> None:
    engine = build(
        page("http://docs.test/os.path.join", "os.path.join", "Join one or more path components."),
        page("http://docs.test/json.dumps", "json.dumps", "Serialize an object to a string."),
        page("http://docs.test/read_csv", "read_csv", "Read a comma-separated file into rows."),
        page("http://docs.test/JSONEncoder", "JSONEncoder", "The extensible encoder class."),
        page("http://docs.test/other", "Unrelated", "Paths, joins, reads and dumps in prose."),
    )
    assert urls(engine, query)[0] == expected


def test_a_two_character_chinese_word_finds_its_page_inside_a_compound(build: Build) -> None:
    engine = build(
        page("http://zh.test/tea", "西湖龙井茶", "西湖龙井茶是产于杭州西湖的绿茶。"),
        page("http://zh.test/city", "杭州", "杭州是浙江省省会，以西湖闻名。"),
    )
    assert urls(engine, "龙井") == ["http://zh.test/tea"]
    assert urls(engine, "西湖龙井茶")[0] == "http://zh.test/tea"
    assert engine.search("龙井").results[0].snippet.count("**龙井**") >= 1


def test_a_one_character_chinese_query_finds_the_character_inside_compounds(build: Build) -> None:
    engine = build(
        page("http://zh.test/puer", "普洱茶", "普洱茶产于云南，常被压制成茶饼。"),
        page("http://zh.test/tea", "西湖龙井茶", "西湖龙井茶是产于杭州西湖的绿茶。"),
        page("http://zh.test/noodles", "兰州牛肉面", "兰州牛肉面是甘肃兰州的特色面食。"),
    )
    assert set(urls(engine, "茶")) == {"http://zh.test/puer", "http://zh.test/tea"}
    assert urls(engine, "面") == ["http://zh.test/noodles"]
    assert "**茶**" in engine.search("茶").results[0].snippet
    # Two characters still ask for the two together, not each alone.
    assert urls(engine, "茶饼") == ["http://zh.test/puer"]
    assert urls(engine, "龙井茶") == ["http://zh.test/tea"]


def test_a_chinese_query_without_spaces_finds_the_pages_with_most_of_it(build: Build) -> None:
    """西湖醋鱼做法 ("West Lake fish, how to cook it") is one word of five
    bigrams; no page holds 做法, and the page about the dish comes first."""
    engine = build(
        page("http://zh.test/fish", "西湖醋鱼", "西湖醋鱼是杭州传统名菜，选用草鱼烹制。"),
        page("http://zh.test/lake", "西湖", "西湖位于杭州城西，湖光山色。"),
        page("http://zh.test/noodles", "兰州牛肉面", "兰州牛肉面是甘肃兰州的特色面食。"),
    )
    assert urls(engine, "西湖醋鱼做法") == ["http://zh.test/fish", "http://zh.test/lake"]
    results = engine.search("西湖醋鱼", explain=True).results
    assert [(r.url, r.explain["level"]) for r in results] == [
        ("http://zh.test/fish", "strict"),
        ("http://zh.test/lake", "any"),
    ]


def test_characters_indexed_beside_their_bigrams_do_not_lengthen_a_page(build: Build) -> None:
    """BM25 weighs a page by its length: Chinese text is as long as its bigrams, not twice that."""
    engine = build(
        page("http://zh.test/tea", "龙井", "西湖龙井茶是绿茶"), page("http://en.test/tea", "Tea", "green tea")
    )
    searcher = engine._fresh_searcher()
    lengths = {
        searcher.stored_fields(docnum)[fields.URL]: searcher.doc_field_length(docnum, fields.BODY)
        for docnum in searcher.document_numbers()
        if fields.URL in searcher.stored_fields(docnum)
    }
    assert lengths == {"http://zh.test/tea": 7, "http://en.test/tea": 2}


def test_snippets_mark_a_word_whose_stem_is_not_how_it_starts(build: Build) -> None:
    engine = build(page("http://a.test/ferry", "Crossings", FILLER + "Two ferries cross; the city ferry is older."))
    snippet = engine.search("ferry city").results[0].snippet
    assert "**ferries**" in snippet and "**ferry**" in snippet and "**city**" in snippet


def test_all_words_first_then_pages_with_more_of_them(build: Build) -> None:
    engine = build(
        page("http://a.test/one", "Ferry", "The ferry leaves at noon."),
        page("http://a.test/two", "Ferry timetable", "The ferry timetable for winter."),
        page("http://a.test/none", "Market", "Fish and bread."),
    )
    results = engine.search("ferry timetable winter", explain=True).results
    assert [r.url for r in results] == ["http://a.test/two", "http://a.test/one"]
    assert results[0].explain["all_words"] and not results[1].explain["all_words"]
    assert set(urls(engine, "ferry submarine")) == {"http://a.test/one", "http://a.test/two"}


def test_words_together_rank_above_words_apart(build: Build) -> None:
    engine = build(
        page("http://a.test/apart", "Notes", "The storm was short. " + FILLER * 2 + "A surge came later."),
        page("http://a.test/together", "More notes", FILLER + "The storm surge flooded the quay. " + FILLER),
    )
    results = engine.search("storm surge", explain=True).results
    assert results[0].url == "http://a.test/together"
    assert results[0].explain["proximity"] > results[1].explain["proximity"] == 0


def test_pagerank_orders_otherwise_equal_pages(build: Build) -> None:
    text = "An article about the breakwater and its stones."
    linked = [
        page(f"http://hub.test/{n}", f"Hub {n}", FILLER, [("http://b.test/popular", "article")]) for n in range(5)
    ]
    engine = build(
        page("http://a.test/lonely", "Breakwater", text), page("http://b.test/popular", "Breakwater", text), *linked
    )
    assert urls(engine, "breakwater stones")[:2] == ["http://b.test/popular", "http://a.test/lonely"]


def test_pagerank_never_pushes_an_exact_title_match_down(build: Build) -> None:
    linked = [
        page(f"http://hub.test/{n}", f"Hub {n}", FILLER, [("http://b.test/popular", "lighthouse keeper")])
        for n in range(30)
    ]
    engine = build(
        page("http://a.test/keeper", "Lighthouse keeper", "Who kept the light."),
        page(
            "http://b.test/popular",
            "A lighthouse keeper's many duties at the point",
            "The lighthouse keeper trimmed wicks. The keeper of the lighthouse. " * 3,
        ),
        *linked,
    )
    results = engine.search("lighthouse keeper", explain=True).results
    assert results[0].url == "http://a.test/keeper" and results[0].explain["exact_title"]
    assert results[1].pagerank > results[0].pagerank


def test_at_most_two_results_a_host_while_others_have_results(build: Build) -> None:
    items = [page(f"http://big.test/{n}", f"Lighthouse {n}", "lighthouse " + FILLER) for n in range(6)]
    items += [
        page("http://small.test/", "Small lighthouse", "lighthouse"),
        page("http://other.test/", "Other lighthouse", "lighthouse"),
    ]
    engine = build(*items)
    first = engine.search("lighthouse", n=4).results
    hosts = [r.host for r in first]
    assert hosts.count("big.test") == 2 and {"small.test", "other.test"} <= set(hosts)
    assert max(r.more_from_host for r in first if r.host == "big.test") == 4
    second = engine.search("lighthouse", n=4, page=2).results
    assert [r.host for r in second] == ["big.test"] * 4  # nothing else left: the rest, in order


def test_query_syntax(build: Build) -> None:
    engine = build(
        page("http://docs.example.org/a", "Tide tables", "Reading tide tables by the harbour."),
        page("http://www.example.org/b", "Harbour history", "The harbour and its tide mill."),
        page("http://other.test/c", "Tide power", "Energy from the tide."),
        page("http://other.test:8080/d", "Tide clock", "A clock for the tide."),
    )
    # A host with a port, as "more from this site" links give it.
    assert urls(engine, "tide site:other.test:8080") == ["http://other.test:8080/d"]
    assert set(urls(engine, "tide site:other.test")) == {"http://other.test/c", "http://other.test:8080/d"}
    assert set(urls(engine, "tide site:example.org")) == {"http://docs.example.org/a", "http://www.example.org/b"}
    assert urls(engine, "tide site:docs.example.org") == ["http://docs.example.org/a"]
    assert set(urls(engine, "tide -harbour")) == {"http://other.test/c", "http://other.test:8080/d"}
    assert set(urls(engine, "tide NOT harbour")) == {"http://other.test/c", "http://other.test:8080/d"}
    assert set(urls(engine, "mill OR energy")) == {"http://www.example.org/b", "http://other.test/c"}
    assert urls(engine, "title:history") == ["http://www.example.org/b"]
    assert urls(engine, '"tide tables"') == ["http://docs.example.org/a"]


def test_did_you_mean_from_the_index_vocabulary(build: Build) -> None:
    engine = build(
        page("http://a.test/1", "Lighthouse", "The lighthouse keeper."),
        page("http://a.test/2", "Lighthouses", "Lighthouses of the coast."),
    )
    results = engine.search("lighthose keeper")
    assert results.suggestion == "lighthouse keeper"
    assert engine.search("lighthouse keeper").suggestion is None
    assert engine.search("qqqqqqqq").suggestion is None  # nothing close: no suggestion


def test_a_misspelt_query_that_finds_nothing_shows_its_respelling_at_once(build: Build) -> None:
    engine = build(
        page("http://a.test/1", "Lighthouse", "The lighthouse keeper."),
        page("http://b.test/2", "Lighthouses", "Lighthouses of the coast."),
    )
    results = engine.search("lighthose site:a.test")
    assert (results.query, results.showing, results.suggestion) == (
        "lighthose site:a.test",
        "lighthouse site:a.test",  # the restriction kept
        "lighthouse",
    )
    assert [r.url for r in results.results] == ["http://a.test/1"] and results.total == 1
    assert results.to_json()["showing"] == "lighthouse site:a.test"
    typed = engine.search("lighthose site:a.test", respell=False)
    assert (typed.total, typed.showing, typed.suggestion) == (0, None, "lighthouse")
    # A query whose words are found, if not all together, keeps its results and is offered the respelling.
    kept = engine.search("lighthose keeper")
    assert kept.showing is None and kept.suggestion == "lighthouse keeper" and kept.total == 1


def test_explain_shows_every_number(build: Build) -> None:
    engine = build(page("http://a.test/", "Ferry timetable", "The ferry timetable for winter."))
    details = engine.search("ferry timetable", explain=True).results[0].explain
    assert {"fields", "text", "proximity", "pagerank", "prior", "formula", "exact_title"} <= set(details)
    assert details["fields"]["title"] > 0 and details["fields"]["body"] > 0
    assert details["exact_title"] is True


def test_explain_of_a_query_that_finds_nothing_says_so(build: Build) -> None:
    engine = build(
        page("http://a.test/", "Ferry timetable", "The ferry timetable for winter."),
        page("http://a.test/b", "Ferry fares", "Fares of the ferry."),
    )
    found = engine.search("ferry -ferry", explain=True)  # the words match, the exclusion takes every page
    assert found.results == [] and found.total == 0

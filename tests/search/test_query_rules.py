"""The query rules that real documentation sites called for, on small literal indexes:
hyphenated words, dotted names, pages known only by anchors, language, deep links."""

from __future__ import annotations

import json
import sqlite3
import zlib

import pytest

from crawler.datadir import pages_path
from search.engine import SearchEngine
from tests.items import page
from tests.search.conftest import Build

FILLER = "The harbour committee met on Tuesday to discuss the ferry timetable and the market. "


def urls(engine: SearchEngine, query: str, n: int = 10) -> list[str]:
    return [result.page for result in engine.search(query, n=n).results]


# --- hyphens -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("in-memory database", "http://a.test/hyphen"),  # the page's own form
        ("inmemory database", "http://a.test/hyphen"),  # joined
        ("in memory database", "http://a.test/hyphen"),  # two words
        ("email", "http://a.test/email"),  # the page writes e-mail
        ("e-mail", "http://a.test/email"),
        ("wifi", "http://a.test/wifi"),  # the page writes Wi-Fi
        ("thread-safe queue", "http://a.test/queue"),  # the page writes "thread safe"
    ],
)
def test_a_hyphen_inside_a_word_joins_it_never_negates(build: Build, query: str, expected: str) -> None:
    engine = build(
        page("http://a.test/hyphen", "Databases", "An in-memory database keeps its tables in RAM."),
        page("http://a.test/disk", "Disks", "A database on disk keeps its tables in files."),
        page("http://a.test/email", "Sending", "Send an e-mail to the harbour master."),
        page("http://a.test/wifi", "Networks", "The ferry has Wi-Fi on board."),
        page("http://a.test/queue", "Queues", "A thread safe queue for the ferry tickets."),
    )
    assert urls(engine, query)[0] == expected


def test_only_a_hyphen_starting_a_word_excludes(build: Build) -> None:
    engine = build(
        page("http://a.test/1", "Tide", "Tide tables by the harbour."),
        page("http://a.test/2", "Tide mill", "A tide mill on the river."),
    )
    assert urls(engine, "tide -harbour") == ["http://a.test/2"]
    # One hyphenated word, written so nowhere: its pieces, not "tide without harbour".
    assert urls(engine, "tide-harbour") == ["http://a.test/1"]


# --- dotted names ----------------------------------------------------------------------


def test_a_dotted_name_not_written_whole_finds_the_page_holding_its_parts(build: Build) -> None:
    engine = build(
        page(
            "http://docs.test/querysets",
            "QuerySet API reference",
            "The django.db.models module. QuerySet.select_related(*fields) follows foreign keys. " + FILLER,
            headings=["django.db.models", "select_related()"],
        ),
        page("http://docs.test/models", "Models", "A model is the source of information. " + FILLER),
    )
    results = engine.search("django.db.models.QuerySet.select_related", explain=True).results
    assert [r.page for r in results] == ["http://docs.test/querysets"]
    assert results[0].explain["level"] == "parts"
    assert any("code name" in rule for rule in results[0].explain["rules"])


def test_relaxing_keeps_site_and_language_restrictions(build: Build) -> None:
    engine = build(
        page("http://a.test/1", "Ferry tickets", "Tickets for the ferry."),
        page("http://b.test/1", "Ferry timetable", "The ferry leaves at noon."),
    )
    # "submarine" is nowhere: relaxed to any word, but still only a.test.
    assert urls(engine, "ferry submarine site:a.test") == ["http://a.test/1"]
    assert urls(engine, "ferry -site:a.test") == ["http://b.test/1"]


# --- pages known only by anchor text ----------------------------------------------------


def _stub_web(mentions: int) -> list[dict]:
    pages = [
        page(
            f"http://docs.test/page{i}.html",
            f"Lighthouse keeping part {i}",
            f"The lighthouse lamp, part {i}. " + FILLER,
        )
        for i in range(5)
    ]
    for i in range(mentions):  # each a page of its own linking to a foreign stub
        pages.append(
            page(
                f"http://docs.test/links{i}.html",
                "Links",
                FILLER,
                [(f"http://foreign{i}.test/", "lighthouse lamp mailing list")],
            )
        )
    return pages


def test_weakly_linked_stubs_never_take_the_crawled_pages_places(build: Build) -> None:
    engine = build(*_stub_web(5))
    results = engine.search("lighthouse lamp").results
    crawled = [r.crawled for r in results]
    # Five crawled pages of one host first, although host crowding would
    # give each foreign stub a place after two of them.
    assert crawled[:5] == [True] * 5 and not any(crawled[5:])


def test_a_stub_many_pages_link_to_ranks_with_the_crawled_pages(build: Build) -> None:
    items = _stub_web(0)
    for i in range(4):
        items.append(
            page(
                f"http://docs.test/refs{i}.html",
                "References",
                FILLER,
                [
                    ("http://docs.test/spec.pdf", "lighthouse lamp lighthouse lamp specification"),
                    ("http://lamps.test/spec", "lighthouse lamp lighthouse lamp specification"),
                ],
            )
        )
    engine = build(*items)
    results = engine.search("lighthouse lamp specification", explain=True).results
    # A PDF of the crawled site (never fetched: robots.txt, say) that four pages link to.
    assert results[0].page == "http://docs.test/spec.pdf" and not results[0].crawled
    assert any("4 linking page(s): ranked among" in rule for rule in results[0].explain["rules"])
    # The same evidence for another site's page: after the crawled pages.
    assert results[-1].page == "http://lamps.test/spec"


@pytest.mark.parametrize(("policy", "order"), [("rank", [False, True]), ("last", [True, False]), ("hide", [True])])
def test_the_anchor_only_policy_is_a_choice(build: Build, policy: str, order: list[bool]) -> None:
    # Three pages link to the stub with the query as their anchor text: strong evidence.
    items = [page("http://docs.test/a.html", "Harbour", "A lighthouse lamp in the harbour. " + FILLER)]
    items += [
        page(f"http://docs.test/r{i}.html", "Refs", FILLER, [("http://docs.test/private/", "lighthouse lamp")])
        for i in range(3)
    ]
    engine = build(*items, anchor_only=policy)
    assert [r.crawled for r in engine.search("lighthouse lamp").results] == order


# --- language -----------------------------------------------------------------------------


def test_an_english_query_prefers_english_pages(build: Build) -> None:
    engine = build(
        page(
            "http://ref.test/ch02.zh-cn.html",
            "第 2 章 软件包管理 apt-get",
            "使用 apt-get install 安装软件包。apt-get 是软件包管理工具。" * 3,
            lang="zh-cn",
        ),
        page(
            "http://ref.test/ch02.en.html",
            "Chapter 2. Package management",
            "Install packages with apt-get install. " + FILLER,
            lang="en",
        ),
        page(
            "http://ref.test/notes.zh-cn.html",
            "笔记 apt-get",
            "apt-get install 的笔记。apt-get install 安装软件包。" * 3,
            lang="zh-cn",
        ),
    )
    results = engine.search("apt-get install", explain=True).results
    # The chapter's two editions are one result, in English; the Chinese
    # page that has no English edition comes after it.
    assert [r.page for r in results] == ["http://ref.test/ch02.en.html", "http://ref.test/notes.zh-cn.html"]
    assert results[0].also_in == [{"lang": "zh-cn", "url": "http://ref.test/ch02.zh-cn.html"}]
    assert any("not the query's" in rule for rule in results[1].explain["rules"])
    assert urls(engine, "软件包 管理")[0] == "http://ref.test/ch02.zh-cn.html"
    assert urls(engine, "apt-get lang:zh") == ["http://ref.test/notes.zh-cn.html", "http://ref.test/ch02.zh-cn.html"]
    assert urls(engine, "apt-get -lang:zh") == ["http://ref.test/ch02.en.html"]


# --- deep links ---------------------------------------------------------------------------


def test_a_result_links_to_the_section_its_query_names(build: Build) -> None:
    sections = [
        ["querysets", "QuerySet API reference", "h1"],
        ["methods", "Methods that return new QuerySets", "h2"],
        ["django.db.models.query.QuerySet.filter", "filter(*args, **kwargs)", "dt"],
        ["django.db.models.query.QuerySet.select_related", "select_related(*fields)", "dt"],
    ]
    engine = build(
        page(
            "http://docs.test/querysets.html",
            "QuerySet API reference",
            "filter(*args) select_related(*fields) " + FILLER,
            sections=sections,
        )
    )
    first = engine.search("QuerySet.select_related").results[0]
    assert first.url == "http://docs.test/querysets.html#django.db.models.query.QuerySet.select_related"
    assert first.page == "http://docs.test/querysets.html"
    assert engine.search("methods that return new querysets").results[0].url.endswith("#methods")
    # The page's own title names no section: the page is the answer.
    assert engine.search("queryset api reference").results[0].url == "http://docs.test/querysets.html"


def test_a_quoted_phrase_with_stop_words_finds_its_page(build: Build) -> None:
    engine = build(
        page(
            "http://faq.test/su",
            "Why GNU su does not support the wheel group",
            "Richard Stallman explains why GNU su does not support the wheel group. " + FILLER,
        ),
        page("http://faq.test/other", "Groups", "The wheel of the ferry; support groups. " + FILLER),
    )
    assert urls(engine, '"Why GNU su does not support the wheel group"') == ["http://faq.test/su"]
    assert urls(engine, '"support wheel group"') == []  # not the words as written


def test_the_tail_of_a_dotted_name_finds_the_whole_name(build: Build) -> None:
    engine = build(
        page("http://docs.test/path", "os.path", "os.path.join(a, b) joins two paths. " + FILLER),
        page("http://docs.test/other", "Paths", "A path to join the ferry. " + FILLER),
    )
    results = engine.search("path.join", explain=True).results
    assert results[0].page == "http://docs.test/path" and results[0].explain["level"] == "strict"
    assert all(r.explain["level"] != "strict" for r in results[1:])


# --- questions ---------------------------------------------------------------------


def test_a_question_finds_the_page_whose_summary_holds_most_of_its_words(build: Build) -> None:
    engine = build(
        page(
            "http://a.test/git-mv",
            "git-mv(1)",
            "git-mv - Move or rename a file, a directory, or a symlink. "
            + "The index is updated after successful completion. " * 3,
            description="git-mv - Move or rename a file, a directory, or a symlink",
        ),
        *[
            page(
                f"http://a.test/long{n}",
                f"git-long{n}(1)",
                FILLER * 20 + "a file may move; the tool can rename branches; a tracked path " + FILLER * 20,
            )
            for n in range(3)
        ],
        *[page(f"http://a.test/other{n}", f"Harbour {n}", FILLER * 3) for n in range(10)],
    )
    # No page holds all four words but the long ones, each once among hundreds.
    assert urls(engine, "move or rename a tracked file")[0] == "http://a.test/git-mv"
    # A short query still wants every word first.
    assert urls(engine, "rename tracked")[0].startswith("http://a.test/long")


def test_a_question_put_as_one_finds_the_page_whose_summary_answers_it(build: Build) -> None:
    # The manual page's one-line summary is the question's answer; the long
    # article about the same command holds each of the words more often.
    engine = build(
        page(
            "http://a.test/git-bisect",
            "git-bisect(1)",
            "git-bisect - Use binary search to find the commit that introduced a bug. "
            + "Start with a bad revision and a good one; each step halves the range. " * 3
            + FILLER * 6,
            description="git-bisect - Use binary search to find the commit that introduced a bug",
        ),
        page(
            "http://a.test/bisect-talk",
            "Fighting regressions with git bisect",
            FILLER * 12
            + "A regression is a bug introduced by a commit: we find the commit that introduced it. " * 4
            + FILLER * 12,
            description="Why good tools matter against regressions, and how bisecting works inside.",
            headings=["Fighting regressions with git bisect", "Finding the bad commit", "Bug reports"],
        ),
        *[
            page(f"http://a.test/other{n}", f"Harbour {n}", FILLER * 3, description=f"Harbour {n} - ferry the wheel")
            for n in range(10)
        ],
    )
    assert urls(engine, "how do I find the commit that introduced a bug?")[0] == "http://a.test/git-bisect"
    # Put as a list of words, the same words weigh as everywhere else.
    assert urls(engine, "find the commit that introduced a bug")[0] == "http://a.test/bisect-talk"


def test_a_page_with_a_heading_that_is_the_query_goes_first(build: Build) -> None:
    engine = build(
        page(
            "http://a.test/crypto",
            "Crypto",
            "Sign the data and verify a signature with the crypto module: sign once, verify often. " * 3 + FILLER,
            headings=["Crypto", "Hashes"],
        ),
        page(
            "http://a.test/webcrypto",
            "Web Crypto API",
            FILLER * 3 + "How to sign and verify. " + FILLER,
            headings=["Web Crypto API", "Sign and verify", "Digests"],
            sections=[
                ["web-crypto-api", "Web Crypto API", "h1"],
                ["sign-and-verify", "Sign and verify", "h2"],
                ["digests", "Digests", "h2"],
            ],
        ),
        *[page(f"http://a.test/other{n}", f"Harbour {n}", FILLER * 3) for n in range(5)],
    )
    first = engine.search("Sign and verify", explain=True).results[0]
    assert (first.page, first.url) == ("http://a.test/webcrypto", "http://a.test/webcrypto#sign-and-verify")
    assert any("heading of the page is the query" in rule for rule in first.explain["rules"])
    # A page stored before the store kept its sections apart from its text
    # (in the page's data): its headings are read from the page itself.
    db = sqlite3.connect(pages_path(engine.data_dir))
    for url, blob, sections in db.execute("SELECT url, data, sections FROM pages").fetchall():
        stored = zlib.decompress(sections) if isinstance(sections, bytes) else sections  # compressed when long
        data = {**json.loads(zlib.decompress(blob)), "sections": json.loads(stored)}
        db.execute(
            "UPDATE pages SET sections = NULL, data = ? WHERE url = ?",
            (zlib.compress(json.dumps(data).encode()), url),
        )
    db.commit()
    db.close()
    with SearchEngine(engine.data_dir) as older:
        again = older.search("Sign and verify", explain=True).results[0]
    assert again.to_json(True) == first.to_json(True)


def test_a_numbered_heading_is_the_query_without_its_number(build: Build) -> None:
    """DocBook and Sphinx number their sections: "11.4.4. Printing with CUPS" is the query "Printing with CUPS"."""
    engine = build(
        page(
            "http://a.test/network",
            "Network applications",
            FILLER * 3 + "The CUPS server prints for every host: printing with CUPS needs a queue. " + FILLER,
            sections=[["network", "6. Network applications", "h1"], ["cups-server", "6.9. The CUPS server", "h2"]],
        ),
        page(
            "http://a.test/data",
            "Data conversion",
            FILLER * 3 + "To print with CUPS, use lp. " + FILLER,
            sections=[
                ["data", "11. Data conversion", "h1"],
                ["printing-with-cups", "11.4.4. Printing with CUPS", "h3"],
                ["mail", "11.5. Mail data conversion", "h2"],
            ],
        ),
        *[page(f"http://a.test/other{n}", f"Harbour {n}", FILLER * 3) for n in range(5)],
    )
    first = engine.search("Printing with CUPS", explain=True).results[0]
    assert (first.page, first.url) == ("http://a.test/data", "http://a.test/data#printing-with-cups")
    assert any("heading of the page is the query" in rule for rule in first.explain["rules"])


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("Installation", "A.3. Installation"),  # an appendix's number, as DocBook writes it
        ("Εγκατάσταση", "A.3. Εγκατάσταση"),
        ("Instal·lació", "A.3. Instal·lació"),  # Catalan's middle dot inside the word
        ("configuració", "2. Configuració"),  # a word with a letter outside ASCII, whole
    ],
)
def test_a_numbered_title_that_is_the_query_ranks_first(build: Build, query: str, title: str) -> None:
    """On a translated installation manual the one-word query naming an
    appendix ("A.3. Εγκατάσταση") ranked a longer title that holds the word
    ("4.6. Αυτόματη Εγκατάσταση") first, and the Catalan one found neither."""
    word = title.split(" ", 1)[1]
    engine = build(
        page("http://a.test/apa03", title, FILLER * 2 + f"{word}. " + FILLER),
        page("http://a.test/ch04s06", f"4.6. Automatic {word}", (f"{word} by {word} with {word}. " + FILLER) * 3),
        page("http://a.test/ch03", f"3. Before {word}", (f"{word} again. " + FILLER) * 3),
        *[page(f"http://a.test/other{n}", f"Harbour {n}", FILLER * 3) for n in range(5)],
    )
    assert urls(engine, query)[0] == "http://a.test/apa03"


@pytest.mark.parametrize("query", ["instal·lació", "installació", "instal lació", "Instal·lació automàtica"])
def test_a_catalan_word_is_found_however_its_middle_dot_is_typed(build: Build, query: str) -> None:
    engine = build(
        page("http://a.test/auto", "Instal·lació automàtica", "La instal·lació automàtica fa servir un fitxer."),
        *[page(f"http://a.test/other{n}", f"Harbour {n}", FILLER * 3) for n in range(5)],
    )
    assert urls(engine, query) == ["http://a.test/auto"]


@pytest.mark.parametrize("query", ["*", "*:*", "x?y", "[a TO z]"])
def test_wildcards_and_ranges_are_characters_not_syntax(build: Build, query: str) -> None:
    """`*` expanded to every document (30 s on 10,000 pages), `q*` to every term starting with q."""
    engine = build(*(page(f"http://a.test/{k}", f"Page {k}", f"xay zebra apple {k}") for k in range(5)))
    assert engine.search(query).total == 0


def test_results_past_the_most_served_are_a_last_page_not_a_search(
    build: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = build(*(page(f"http://s{k}.test/", f"Harbour {k}", "harbour ferry") for k in range(14)))
    monkeypatch.setattr("search.results.MAX_RESULTS", 5)
    served = engine.search("harbour", n=3, page=2)
    assert len(served.results) == 3 and served.last_page == 2
    past = engine.search("harbour", n=3, page=3)
    assert past.results == [] and past.total == 14 and past.last_page == 2


def test_facets_count_every_match_not_the_page_shown(build: Build) -> None:
    engine = build(
        *(page(f"http://a.test/{k}", f"Ferry {k}", "harbour ferry timetable", lang="en") for k in range(12)),
        *(page(f"http://b.test/{k}", f"渡轮 {k}", "harbour ferry 渡轮", lang="zh-cn") for k in range(3)),
        page("http://c.test/", "Gulls", "no such word here", lang="en"),
    )
    found = engine.search("ferry", n=2)
    assert len(found.results) == 2
    assert found.facets == {
        "site": [{"value": "a.test", "count": 12}, {"value": "b.test", "count": 3}],
        "lang": [{"value": "en", "count": 12}, {"value": "zh", "count": 3}],
        "type": [{"value": "html", "count": 15}],
    }
    assert found.to_json()["facets"] == found.facets
    narrowed = engine.search("ferry lang:zh", n=2)
    assert narrowed.facets["site"] == [{"value": "b.test", "count": 3}]
    # A phrase is answered by Whoosh, which tells only the best: the facets count those.
    phrase = engine.search('"harbour ferry"', n=20)
    assert sum(value["count"] for value in phrase.facets["site"]) == phrase.total == 15
    assert phrase.facets["type"] == [{"value": "html", "count": 15}]


def test_the_total_counts_the_pages_the_facets_count(build: Build) -> None:
    """Few pages have every word, so pages with some of them follow: the
    total says how many matched, as the facets do, not how many of them
    were ranked (the search page said "of 34" beside a site of 62)."""
    engine = build(
        *(page(f"http://a.test/both{k}", f"Ferry timetable {k}", "harbour ferry timetable") for k in range(4)),
        *(page(f"http://b.test/ferry{k}", f"Ferry {k}", "a ferry crossing" + " gull" * k) for k in range(80)),
        page("http://c.test/", "Gulls", "no such word here"),
    )
    strict = engine.search("ferry timetable", n=3)
    assert strict.total == 4 and strict.facets["type"] == [{"value": "html", "count": 4}]
    relaxed = engine.search("ferry timetable", n=10)
    assert relaxed.results[0].url.startswith("http://a.test/both") and len(relaxed.results) == 10
    assert relaxed.total == 84 == sum(value["count"] for value in relaxed.facets["site"])
    assert relaxed.facets["type"] == [{"value": "html", "count": 84}]


def test_a_facet_shows_the_most_frequent_values_ties_by_name(build: Build) -> None:
    """Fourteen sites match, one of them more than the others: the facet
    shows it, then nine of the thirteen tied ones, by name."""
    engine = build(
        *(page(f"http://s{k:02}.test/{n}", f"Ferry {k} {n}", "harbour ferry") for k in range(14) for n in range(2)),
        page("http://s13.test/more", "Ferry more", "harbour ferry"),
    )
    found = engine.search("ferry")
    assert found.facets["site"] == [{"value": "s13.test", "count": 3}] + [
        {"value": f"s{k:02}.test", "count": 2} for k in range(9)
    ]


def test_a_result_carries_the_day_its_page_was_fetched(build: Build) -> None:
    engine = build(
        page("http://a.test/", "Ferry", "harbour ferry", fetched=1764633600.0),
        page("http://b.test/", "Gull", "harbour gull", links=[("http://c.test/", "harbour map")]),
    )
    days = {result.url: result.fetched for result in engine.search("harbour").results}
    assert days["http://a.test/"] == "2025-12-02" and days["http://c.test/"] == ""


# --- questions ------------------------------------------------------------------------


def test_a_question_finds_the_page_that_answers_it_not_the_one_that_asks_likewise(build: Build) -> None:
    engine = build(
        page(
            "http://git.test/git-reset.html",
            "git-reset(1)",
            "Reset current HEAD. Undo the last commit and keep the changes in the working tree. " + FILLER,
        ),
        page(
            "http://git.test/howto/messages.html",
            "How do I write a commit message",
            "How do I know what to write? I do it as the project does: a commit says why. " + FILLER,
        ),
    )
    for question in ("how do I undo the last commit", "How can I undo my last commit?"):
        assert urls(engine, question)[0] == "http://git.test/git-reset.html", question
    # A title that is a question is still its page's, word for word.
    assert urls(engine, "How do I write a commit message")[0] == "http://git.test/howto/messages.html"


def test_the_snippet_comes_from_the_section_the_result_links_to(build: Build) -> None:
    engine = build(
        page(
            "http://ref.test/packages.html",
            "Package management",
            "Quick reference: install packages, remove packages, upgrade packages. "
            + FILLER
            + "Installing packages Run apt-get install to add a package. "
            + FILLER
            + "Removing packages Use apt-get remove to remove packages you no longer need. "
            + FILLER,
            sections=[["install", "Installing packages", "h2"], ["remove", "Removing packages", "h2"]],
        ),
    )
    result = engine.search("removing packages").results[0]
    assert result.url == "http://ref.test/packages.html#remove"
    assert "Use apt-get **remove**" in result.snippet and "Quick reference" not in result.snippet


def test_a_snippet_is_a_passage_of_the_page_not_its_table_of_contents(build: Build) -> None:
    sections = [
        ["install", "Installing packages", "h2"],
        ["remove", "Removing packages", "h2"],
        ["upgrade", "Upgrading packages", "h2"],
    ]
    engine = build(
        page(
            "http://ref.test/packages.html",
            "Package management",
            "Table of contents Installing packages Removing packages Upgrading packages "
            + FILLER
            + "Installing packages Run apt-get install to add a package. "
            + "Removing packages Run apt-get remove. "
            + "Upgrading packages Packages are upgraded with apt-get upgrade, after apt-get update. "
            + FILLER,
            sections=sections,
        ),
    )
    snippet = engine.search("installing removing upgrading").results[0].snippet
    # The headings one after another are the table of contents; the page says more.
    assert "**Removing** packages **Upgrading**" not in snippet
    assert snippet.startswith("... **Installing** packages Run apt-get **install** to add a package.")


def test_a_page_that_lists_its_contents_twice_gives_snippets_from_neither(build: Build) -> None:
    """Node.js's API pages hold their table of contents twice (a list, and a
    picker for narrow screens), under a title ("Net") that a word of the
    table starts with; the snippet of a section showed the second table."""
    sections = [
        ["net", "Net", "h2"],
        ["class-netsocketaddress", "Class: net.SocketAddress", "h3"],
        ["class-netserver", "Class: net.Server", "h3"],
        ["class-netsocket", "Class: net.Socket", "h3"],
        ["socketconnect", "socket.connect()", "h4"],
    ]
    table = "Class: net.SocketAddress Class: net.Server Class: net.Socket socket.connect() "
    engine = build(
        page(
            "http://node.test/api/net.html",
            "Net",
            table
            + table
            + "Net The node:net module provides an asynchronous network API. "
            + "Class: net.SocketAddress An address of a socket. "
            + "Class: net.Server This class is used to create a TCP or IPC server. "
            + "Class: net.Socket This class is an abstraction of a TCP socket or a streaming IPC endpoint. "
            + "socket.connect() Initiate a connection on a given socket. "
            + FILLER,
            sections=sections,
        ),
        *[page(f"http://node.test/api/other{n}.html", f"Harbour {n}", FILLER * 3) for n in range(3)],
    )
    result = engine.search("Class: net.Socket").results[0]
    assert result.url == "http://node.test/api/net.html#class-netsocket"
    # The section of net.Socket, not of net.SocketAddress, whose heading starts with its words.
    assert "abstraction of a TCP" in result.snippet and "SocketAddress" not in result.snippet


def test_a_query_of_kanji_alone_finds_the_japanese_page_that_is_it(build: Build) -> None:
    """Han characters alone are Chinese and Japanese: "決定的瞬間" names a
    Japanese manual's section, and went after every Chinese page holding
    one of its characters."""
    engine = build(
        page("http://m.test/ja/ch07s01.html", "7.1. 決定的瞬間", "システムを起動する決定的瞬間です。", lang="ja"),
        *[
            page(
                f"http://m.test/zh_CN/ch0{n}.html", f"第 {n} 章 安装", f"确定的安装方法。这是确定的 {n}。", lang="zh-cn"
            )
            for n in range(1, 6)
        ],
    )
    assert urls(engine, "決定的瞬間")[0] == "http://m.test/ja/ch07s01.html"
    # A Chinese query still has the Chinese pages first.
    assert urls(engine, "安装方法")[0].startswith("http://m.test/zh_CN/")

"""The search-quality bench's pure parts: inventory, titles, headings, judging.

No crawl, no server: literal inputs, as Sphinx, asciidoc and DocBook write
them. The bench modules' doctests run here too (pytest collects doctests
of ``tests crawler indexer search`` only).
"""

from __future__ import annotations

import doctest
import json
import zlib
from pathlib import Path

import lxml.html
import pytest

import bench.docsites
import bench.queries
import bench.queries.make_auto
import bench.search_quality
from bench.queries import Query, QueryFileError, dump, load, sets
from bench.queries.make_auto import (
    _Page,
    api_queries,
    headings,
    read_inventory,
    strip_title,
    title_queries,
    title_suffixes,
)
from bench.search_quality import Outcome, SetResult, Verdict, answers, judge, summary

# --- objects.inv ------------------------------------------------------------------------


def _inventory(lines: list[str]) -> bytes:
    header = b"# Sphinx inventory version 2\n# Project: Demo\n# Version: 1.0\n"
    header += b"# The remainder of this file is compressed using zlib.\n"
    return header + zlib.compress("".join(line + "\n" for line in lines).encode())


def test_inventory_parsed_with_dollar_names_and_display_names() -> None:
    items = read_inventory(
        _inventory(
            [
                "json.dumps py:function 1 library/json.html#$ -",
                "ALLOWED_HOSTS std:setting 1 ref/settings.html#std-setting-$ -",
                "querysets std:label -1 ref/models/querysets.html#querysets QuerySet API reference",
                "json py:module 0 library/json.html#module-json -",
                "intro std:doc -1 intro.html Introduction",
            ]
        )
    )
    assert [(i.name, i.role, i.priority, i.page, i.fragment, i.dispname) for i in items] == [
        ("json.dumps", "py:function", 1, "library/json.html", "json.dumps", "json.dumps"),
        ("ALLOWED_HOSTS", "std:setting", 1, "ref/settings.html", "std-setting-ALLOWED_HOSTS", "ALLOWED_HOSTS"),
        ("querysets", "std:label", -1, "ref/models/querysets.html", "querysets", "QuerySet API reference"),
        ("json", "py:module", 0, "library/json.html", "module-json", "json"),
        ("intro", "std:doc", -1, "intro.html", "", "Introduction"),
    ]


def test_inventory_of_another_version_is_refused() -> None:
    with pytest.raises(ValueError, match="version 2"):
        read_inventory(b"# Sphinx inventory version 1\n# Project: X\n# Version: 1\nx mod x.html\n")


def test_api_queries_typed_as_a_programmer_would_and_spread_over_roles() -> None:
    items = read_inventory(
        _inventory(
            [
                "django.db.models.query.QuerySet.filter py:method 1 ref/models/querysets.html#$ -",
                "django.db.models.Model py:class 1 ref/models/class.html#$ -",
                "url std:templatetag 1 ref/templates/builtins.html#std-templatetag-$ -",
                "migrate std:django-admin 1 ref/django-admin.html#django-admin-$ -",
                "ALLOWED_HOSTS std:setting 1 ref/settings.html#std-setting-$ -",
                "GONE std:setting 1 ref/missing.html#std-setting-$ -",  # page not on the site
                "intro std:label -1 intro.html#intro Intro",  # not an API role
                "a.Thing py:class 1 a.html#$ -",  # "Thing" names two pages: dropped
                "b.Thing py:class 1 b.html#$ -",
            ]
        )
    )
    pages = [
        "ref/models/querysets.html",
        "ref/models/class.html",
        "ref/templates/builtins.html",
        "ref/django-admin.html",
        "ref/settings.html",
        "intro.html",
        "a.html",
        "b.html",
    ]
    chosen = api_queries(items, pages, seed="t")
    assert sorted((q.query, q.url, q.fragment) for q in chosen) == [
        ("ALLOWED_HOSTS", "{site}/ref/settings.html", "std-setting-ALLOWED_HOSTS"),
        ("Model", "{site}/ref/models/class.html", "django.db.models.Model"),
        ("QuerySet.filter", "{site}/ref/models/querysets.html", "django.db.models.query.QuerySet.filter"),
        ("django-admin migrate", "{site}/ref/django-admin.html", "django-admin-migrate"),
        ("url template tag", "{site}/ref/templates/builtins.html", "std-templatetag-url"),
    ]
    # A limit takes one of each role in turn before a second of any.
    two = api_queries(items, pages, seed="t", limit=2)
    assert len({q.note.split()[0] for q in two}) == 2
    assert api_queries(items, pages, seed="t") == chosen  # seeded: the same every run


# --- titles --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "titles, suffixes",
    [
        (
            [
                "json — JSON encoder and decoder — Python 3.11.2 documentation",
                "os — Miscellaneous operating system interfaces — Python 3.11.2 documentation",
                "Glossary — Python 3.11.2 documentation",
                "Python 3.11.2 documentation",
            ],
            [" — Python 3.11.2 documentation"],
        ),
        (
            [
                "Models | Django documentation | Django",
                "Forms | Django documentation | Django",
                "Django documentation | Django",
            ],
            [" | Django documentation | Django", " | Django"],
        ),
        (
            [
                "File system | Node.js v18.20.4 Documentation",
                "Events | Node.js v18.20.4 Documentation",
                "Node.js v18.20.4 Documentation",
            ],
            [" | Node.js v18.20.4 Documentation"],
        ),
        (["git-add(1)", "git-commit(1)", "Git User Manual"], []),
        (["Chapter 1. GNU/Linux tutorials", "Chapter 2. Debian package management"], []),
    ],
)
def test_the_site_wide_suffix_is_found_not_written_down(titles: list[str], suffixes: list[str]) -> None:
    assert title_suffixes(titles) == suffixes


def test_a_suffix_on_a_minority_of_pages_is_part_of_their_titles() -> None:
    titles = ["A — Topics — Site", "B — Site", "C — Site", "D — Site"]
    assert title_suffixes(titles) == [" — Site"]
    assert strip_title("A — Topics — Site", title_suffixes(titles)) == "A — Topics"


@pytest.mark.parametrize(
    "title, typed",
    [
        ("json — JSON encoder and decoder — Python 3.11.2 documentation", "json — JSON encoder and decoder"),
        ("Python 3.11.2 documentation", "Python 3.11.2 documentation"),  # the whole title is the suffix
        ("Chapter 2. Debian package management — Python 3.11.2 documentation", "Debian package management"),
        ("第 1 章 GNU/Linux 教程", "GNU/Linux 教程"),
        ("附录 A. 高级打包", "高级打包"),
        ("git-commit(1)", "git-commit"),
        ("Django 2.0 release notes", "Django 2.0 release notes"),
    ],
)
def test_titles_as_a_user_types_them(title: str, typed: str) -> None:
    assert strip_title(title, [" — Python 3.11.2 documentation"]) == typed


def test_shared_and_trivial_titles_are_dropped() -> None:
    pages = [
        _Page("a.html", "Index — Site", ()),
        _Page("b.html", "index — Site", ()),  # shared, case aside
        _Page("c.html", "X — Site", ()),  # one character
        _Page("d.html", "Forms — Site", ()),
    ]
    assert [(q.query, q.url, q.note) for q in title_queries(pages)] == [
        ("Forms", "{site}/d.html", "Forms — Site"),
    ]


# --- headings ------------------------------------------------------------------------------


SNIPPET = """<html><body>
<div class="sphinxsidebar"><h3>Navigation</h3><h4>Previous topic</h4></div>
<div class="section" id="x"><h2>Title<a class="headerlink" title="Permalink">¶</a></h2>
  <section id="basic-usage"><h3>Basic usage</h3>
    <div class="admonition"><h4>Notes on <code>dumps</code></h4></div>
  </section>
</div>
<div class="sect1"><h2 id="_description">DESCRIPTION</h2><h2>NAME</h2></div>
<div class="section" id="s-filter"><span id="filter"></span>
  <h3><code>filter()</code><a class="headerlink" href="#filter" title="Permalink">¶</a></h3></div>
<h2>File system<span><a class="mark" href="#file-system" id="file-system">#</a></span>
  <a aria-hidden="true" class="legacy" id="fs_file_system"></a></h2>
<h2 class="title"><a id="_console_basics"></a>1.1. 控制台基础</h2>
<h1 class="title"><a name="id-1"></a>Git User Manual</h1>
<h5 id="deep">Too deep</h5>
</body></html>"""


def test_headings_with_their_fragments() -> None:
    assert headings(lxml.html.document_fromstring(SNIPPET)) == [
        (2, "Title", "x"),  # Sphinx's div.section; the permalink sign stripped
        (3, "Basic usage", "basic-usage"),  # <section id>
        (4, "Notes on dumps", "basic-usage"),  # the enclosing section
        (2, "DESCRIPTION", "_description"),  # the heading's own id (asciidoc)
        (3, "filter()", "filter"),  # the permalink's target, not the div's s-filter
        (2, "File system", "file-system"),  # Node's "#" mark
        (2, "控制台基础", "_console_basics"),  # DocBook's anchor inside; numbering off
        (1, "Git User Manual", "id-1"),  # <a name>
    ]  # navigation and "NAME" have no anchor: not content; h5 is too deep


# --- query files ------------------------------------------------------------------------------


def test_query_files_round_trip_sorted_and_read_with_their_fragments(tmp_path: Path) -> None:
    queries = [
        Query("b", ("{site}/b.html",), "sec", "h2"),
        Query("a", ("{site}/a.html",)),
        Query("c", ("{site}/a.html", "{site}/c.html")),
    ]
    dump(queries + queries[:1], tmp_path / "auto" / "s.titles.jsonl")
    text = (tmp_path / "auto" / "s.titles.jsonl").read_text()
    assert text.splitlines() == [
        '{"query": "a", "url": "{site}/a.html"}',
        '{"query": "c", "urls": ["{site}/a.html", "{site}/c.html"]}',
        '{"query": "b", "url": "{site}/b.html", "fragment": "sec", "note": "h2"}',
    ]
    (tmp_path / "hand").mkdir()
    (tmp_path / "hand" / "s.jsonl").write_text(
        json.dumps({"query": "x  y", "url": "{site}/x.html", "fragment": "#top"}) + "\n\n"
    )
    assert sets("s", tmp_path) == {
        "titles": tmp_path / "auto" / "s.titles.jsonl",
        "hand": tmp_path / "hand" / "s.jsonl",
    }
    assert load(tmp_path / "hand" / "s.jsonl") == [Query("x y", ("{site}/x.html",), "top")]
    assert sorted(load(tmp_path / "auto" / "s.titles.jsonl"), key=lambda q: q.query) == sorted(
        queries, key=lambda q: q.query
    )


def test_a_bad_query_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"query": "a", "url": "{site}/a.html"}\n{"query": "b"}\n')
    with pytest.raises(QueryFileError, match=r"q.jsonl:2: give either"):
        load(path)


# --- judging -----------------------------------------------------------------------------------


class _Result:
    def __init__(self, url: str, page: str | None = None) -> None:
        self.url = url
        if page is not None:
            self.page = page


EXPECTED = ("http://127.0.0.1:8080/library/json.html",)


def test_a_hit_is_the_page_canonicalized_with_the_fragment_stripped() -> None:
    found = answers(
        [
            "http://127.0.0.1:8080/library/os.html",
            "HTTP://127.0.0.1:8080/library/./json.html#json.dumps",
            "http://127.0.0.1:8080/library/json.html",
        ]
    )
    assert judge(EXPECTED, "json.dumps", found) == Verdict(2, True, "http://127.0.0.1:8080/library/os.html")
    assert judge(EXPECTED, "json.loads", found).deep is False
    assert judge(EXPECTED, "", found).deep is None  # no section asked for
    assert judge(("http://127.0.0.1:8080/library/re.html",), "", found).rank is None
    assert judge(EXPECTED, "", []) == Verdict(None, None, "")


def test_percent_encoding_and_default_ports_do_not_make_a_miss() -> None:
    expected = ("http://127.0.0.1/jieri/%E7%AB%AF%E5%8D%88.html",)
    assert judge(expected, "", answers(["http://127.0.0.1:80/jieri/端午.html"])).rank == 1


def test_a_result_with_a_page_is_judged_by_it_and_its_url_read_for_the_fragment() -> None:
    results = [
        _Result("http://127.0.0.1:8080/library/json.html#json.dumps", page="http://127.0.0.1:8080/library/json.html"),
        _Result("http://127.0.0.1:8080/library/os.html"),
    ]
    verdict = judge(EXPECTED, "json.dumps", answers(results))
    assert (verdict.rank, verdict.deep) == (1, True)
    assert verdict.top == "http://127.0.0.1:8080/library/json.html#json.dumps"


def test_metrics_of_a_set_and_the_deep_link_share() -> None:
    verdicts = [Verdict(1, True, ""), Verdict(1, False, ""), Verdict(4, None, ""), Verdict(None, None, "")]
    assert summary(verdicts) == {"mrr@10": 0.5625, "success@1": 0.5, "success@10": 0.75, "deep_link": 0.5}
    assert summary([Verdict(11, None, "")])["mrr@10"] == 0.0
    assert summary([Verdict(2, None, "")])["deep_link"] is None


def test_worst_misses_are_the_unfound_first_then_those_plain_answered() -> None:
    def outcome(query: str, ours: int | None, plain: int | None) -> Outcome:
        return Outcome(Query(query, ("{site}/a.html",)), Verdict(ours, None, ""), Verdict(plain, None, ""))

    judged = SetResult(
        "s",
        "titles",
        [
            outcome("found", 1, 1),
            outcome("late", 3, 1),
            outcome("lost", None, None),
            outcome("lost, plain found", None, 1),
        ],
        0,
        "http://h",
    )
    assert [o.query.query for o in judged.worst()] == ["lost, plain found", "lost", "late"]
    assert judged.numbers()["delta_mrr@10"] == round((1 + 1 / 3) / 4 - 3 / 4, 4)


# --- the bench modules' doctests ----------------------------------------------------------------


@pytest.mark.parametrize(
    "module",
    [bench.docsites, bench.queries, bench.queries.make_auto, bench.search_quality],
    ids=lambda module: module.__name__,
)
def test_doctests(module: object) -> None:
    failed, tried = doctest.testmod(module)  # type: ignore[arg-type]
    assert tried and not failed

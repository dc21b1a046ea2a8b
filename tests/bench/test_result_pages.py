"""The new sets and measures of the search-quality bench, in their pure parts.

Translation keys of the multilingual manuals, the judgement of a snippet
as navigation (on pages written as Sphinx, DocBook and Node write them),
translation copies in a top 10, the rewritten and hub queries. Literal
inputs and small files in a temporary directory: no crawl, no server.
"""

from __future__ import annotations

import doctest
import json
import random
from pathlib import Path

import lxml.html
import pytest

import bench.queries.make_hubs
import bench.queries.make_rewritten
import bench.result_pages
from bench.docsites import DEBREF_ALL, INSTALL_GUIDE, SITES, DocSite, Edition, translation_key
from bench.queries import Query, sets
from bench.queries.make_auto import site_sets, strip_numbering, untranslated_share
from bench.queries.make_hubs import hub_of, hub_query, section_words
from bench.queries.make_rewritten import ENGLISH, abbreviate, as_question, rewrite, rewritten
from bench.result_pages import (
    Shown,
    SiteStructure,
    from_navigation,
    page_texts,
    shingles,
    tokens,
    translation_copies,
)
from bench.search_quality import Outcome, SetResult, SiteResult, Verdict, table

# --- translations -----------------------------------------------------------------------------


def test_the_same_page_in_two_languages_has_one_key_on_both_layouts() -> None:
    assert translation_key(DEBREF_ALL, "ch05.fr.html") == ("ch05", "fr")
    assert translation_key(DEBREF_ALL, "ch05.zh-tw.html") == ("ch05", "zh-tw")
    assert translation_key(DEBREF_ALL, "ch05.en.html") == ("ch05", "en")
    assert translation_key(INSTALL_GUIDE, "de/ch05s01.html") == ("ch05s01", "de")
    assert translation_key(INSTALL_GUIDE, "zh_CN/ch05s01.html") == ("ch05s01", "zh-cn")
    # Two chapters are two pages, in any language.
    assert translation_key(DEBREF_ALL, "ch06.fr.html") == ("ch06", "fr")


def test_a_site_of_one_edition_has_no_translations() -> None:
    django = next(site for site in SITES if site.name == "django")
    assert translation_key(django, "topics/index.html") is None
    assert translation_key(DEBREF_ALL, "debian-reference.css") is None


def test_the_old_bilingual_site_keeps_its_two_editions_only() -> None:
    """Its recorded figures stay comparable: the other translations, now in
    the same directory, are neither its pages nor its seeds."""
    debref = next(site for site in SITES if site.name == "debref")
    assert [edition.lang for edition in debref.editions] == ["en", "zh"]
    assert debref.edition("ch02.fr.html") is None and debref.edition("ch02.zh-cn.html") is not None
    assert debref.seeds == ("index.en.html", "index.zh-cn.html")


def test_translation_copies_count_a_page_shown_again_in_another_language() -> None:
    keys = [("ch02", "en"), ("ch02", "fr"), ("ch02", "de"), ("ch03", "fr"), None, ("ch02", "fr")]
    assert translation_copies(keys) == 2  # de and fr after en; fr twice is not a translation
    assert translation_copies([("a", "en"), ("b", "en"), ("c", "fr")]) == 0


def test_structure_maps_result_urls_to_keys_and_counts_copies(tmp_path: Path) -> None:
    site = DocSite(
        "multi",
        (),
        tmp_path,
        ("en/index.html",),
        editions=(Edition("en", "en/*.html"), Edition("fr", "fr/*.html", "-fr")),
    )
    structure = SiteStructure(site, "http://127.0.0.1:8123")
    base = "http://127.0.0.1:8123"
    assert structure.key(f"{base}/fr/ch01.html") == ("ch01", "fr")
    assert structure.key(f"{base}/fr/") == ("index", "fr")
    assert structure.key("http://elsewhere/fr/ch01.html") is None
    shown = structure.shown([(f"{base}/en/ch01.html", "", None), (f"{base}/fr/ch01.html", "", None)])
    assert (shown.results, shown.copies) == (2, 1)


# --- navigation snippets ----------------------------------------------------------------------

_SPHINX = """<html><head><title>json — JSON encoder</title></head><body>
<div class="related" role="navigation"><ul><li class="nav-item"><a href="index.html">The Python Standard Library</a>
</li><li><a href="netdata.html">Internet Data Handling</a></li></ul></div>
<div class="body"><h1>json — JSON encoder and decoder</h1>
<p>JSON is a lightweight data interchange format inspired by JavaScript object literal syntax.</p>
<p>Encoding basic Python object hierarchies is done with dumps and dump.</p></div>
<div class="sphinxsidebar"><h3>Table of Contents</h3><ul><li>Basic Usage</li><li>Encoders and Decoders</li>
<li>Exceptions</li><li>Standard Compliance and Interoperability</li><li>Command Line Interface</li></ul></div>
<script>var data = "not text";</script></body></html>"""

_DOCBOOK = """<html><body><div class="navheader"><table><tr><th>Chapter 2. Debian package management</th></tr>
<tr><td><a href="ch01.en.html">Prev</a></td><td><a href="ch03.en.html">Next</a></td></tr></table></div>
<div class="chapter"><div class="toc"><p><b>Table of Contents</b></p><dl><dt>2.1. Package configuration</dt>
<dt>2.2. Basic precautions</dt><dt>2.3. Package activity logs</dt></dl></div>
<div class="section"><h2>2.1. Package configuration</h2><p>Debian is a volunteer organization which builds
consistent distributions of compiled binary packages of free software.</p></div>
<div class="section"><h3>See also</h3><p>apt-get(8) apt-cache(8) aptitude(8) dpkg(1)</p></div>
</div></body></html>"""


def _judged(page: str, snippet: str) -> bool:
    navigation, text = page_texts(lxml.html.document_fromstring(page))
    return from_navigation(snippet, shingles(tokens(navigation)), shingles(tokens(text)))


def test_a_sidebar_table_of_contents_snippet_is_navigation() -> None:
    assert _judged(_SPHINX, "... Basic Usage Encoders and **Decoders** Exceptions Standard Compliance ...")
    assert _judged(_SPHINX, "The Python Standard Library Internet Data Handling")


def test_a_sentence_of_the_text_is_not_navigation_even_when_it_names_a_heading() -> None:
    assert not _judged(_SPHINX, "**JSON** is a lightweight data interchange format inspired by JavaScript")
    assert not _judged(_SPHINX, "")
    # The script's text is neither navigation nor text.
    assert not _judged(_SPHINX, 'var data = "not text"')


def test_docbook_headers_tables_of_contents_and_see_also_are_navigation() -> None:
    assert _judged(_DOCBOOK, "2.1. Package configuration 2.2. Basic precautions 2.3. Package activity")
    assert _judged(_DOCBOOK, "Chapter 2. Debian package management Prev Next")
    assert _judged(_DOCBOOK, "See also apt-get(8) apt-cache(8) aptitude(8)")
    assert not _judged(_DOCBOOK, "Debian is a volunteer organization which builds consistent distributions")


def test_a_result_is_judged_from_its_page_file(tmp_path: Path) -> None:
    (tmp_path / "json.html").write_text(_SPHINX, encoding="utf-8")
    site = DocSite("one", (), tmp_path, ("json.html",))
    structure = SiteStructure(site, "http://127.0.0.1:9")

    class Result:  # as our engine's results will be: a hierarchy, maybe other languages
        hierarchy = ["The Python Standard Library", "Internet Data Handling"]
        also_in = [{"lang": "fr", "url": "http://127.0.0.1:9/fr/json.html"}]

    shown = structure.shown(
        [
            ("http://127.0.0.1:9/json.html", "Basic Usage Encoders and Decoders Exceptions", Result()),
            ("http://127.0.0.1:9/json.html", "JSON is a lightweight data interchange format", {"hierarchy": []}),
            ("http://127.0.0.1:9/missing.html", "Basic Usage Encoders and Decoders", None),
        ]
    )
    assert shown == Shown(results=3, copies=0, snippets=2, navigation=1, hierarchy=1, also_in=1)
    assert shown.measures(1) == {"copies@10": 0.0, "nav_snippets": 0.5, "hierarchy": 0.3333}


def test_the_table_shows_the_result_page_measures_of_both_engines() -> None:
    query = Query("q", ("{site}/a.html",))
    outcome = Outcome(
        query, Verdict(1, None, ""), Verdict(2, None, ""), Shown(10, 0, 10, 1, 10, 0), Shown(10, 3, 10, 5)
    )
    judged = SetResult("multi", "titles-fr", [outcome], 0, "http://h")
    numbers = judged.numbers()
    assert numbers["ours"]["copies@10"] == 0.0 and numbers["plain"]["copies@10"] == 3.0
    assert numbers["plain"]["nav_snippets"] == 0.5 and numbers["ours"]["hierarchy"] == 1.0
    row = table([SiteResult(DEBREF_ALL, sets=[judged])], {})[-1]
    assert "0.00/3.00" in row and "0.10/0.50" in row and "1.00/0.00" in row


# --- rewritten queries ------------------------------------------------------------------------


def test_abbreviations_and_questions_as_people_type_them() -> None:
    assert abbreviate(["Database", "configuration"]) == ["db", "configuration"]
    assert abbreviate(["Directory", "layout"]) == ["dir", "layout"]
    assert abbreviate(["Writing", "documentation"]) == ["Writing", "docs"]
    assert as_question(["Writing", "custom", "model", "fields"]) == ["how", "to", "write", "custom", "model", "fields"]


def test_a_rewritten_query_is_never_the_original_and_keeps_its_answer() -> None:
    originals = [
        Query("Writing custom model fields", ("{site}/howto/custom-model-fields.html",)),
        Query("Configuration of the network", ("{site}/ch05.en.html",), "_net"),
        Query("Sockets", ("{site}/ch01.en.html",), "_sockets"),
        Query("fs.read(fd[, options], callback)", ("{site}/api/fs.html",), "fsread"),
    ]
    made = {query.url: query for query in rewritten(originals, "seed", chinese=False)}
    assert len(made) == 4
    for original in originals:
        query = made[original.url]
        assert query.query.casefold() != original.query.casefold()
        assert query.fragment == original.fragment
        assert repr(original.query) in query.note
    # A signature's words keep their order: no "options], fs.read(fd[,".
    assert "fs.read(fd[, options], callback)" in made["{site}/api/fs.html"].query


def test_rewriting_is_the_same_for_the_same_seed() -> None:
    queries = [Query(f"Managing static files number {i}", (f"{{site}}/{i}.html",)) for i in range(30)]
    assert rewritten(queries, "s", chinese=False) == rewritten(queries, "s", chinese=False)
    assert rewritten(queries, "s", chinese=False) != rewritten(queries, "t", chinese=False)


def test_a_query_no_rewrite_can_change_is_left_out() -> None:
    assert rewrite(Query("x", ("{site}/x.html",)), random.Random(0), {"word order": ENGLISH["word order"]}) is None


def test_chinese_queries_are_reordered_not_abbreviated() -> None:
    made = rewritten([Query("Debian 软件包管理", ("{site}/ch02.zh-cn.html",))], "zh", chinese=True)
    assert [query.query for query in made] == ["软件包管理 Debian"]


# --- hub-versus-page queries --------------------------------------------------------------------


def test_hub_queries_name_the_section_then_the_page() -> None:
    assert section_words("topics/testing/tools.html") == ["topics", "testing"]
    assert hub_query(["topics", "testing"], ["Testing", "tools"]) == "topics testing tools"
    assert hub_query(["ref", "models"], ["instances"]) == "ref models instances"
    assert hub_query(["Using", "Django"], ["the", "Django"]) is None


def test_the_hub_is_read_from_the_page() -> None:
    sphinx = lxml.html.document_fromstring(
        '<html><body><div class="nav"><a href="../index.html" accesskey="U">up</a></div></body></html>'
    )
    assert hub_of(sphinx, "topics/testing/tools.html", {"topics/index.html"}) == "topics/index.html"
    python = lxml.html.document_fromstring(
        '<html><body><div class="related"><ul><li class="nav-item nav-item-1"><a href="index.html">Library</a></li>'
        '<li class="nav-item nav-item-2"><a href="netdata.html">Internet Data</a></li></ul></div></body></html>'
    )
    assert hub_of(python, "library/json.html", {"library/index.html", "library/netdata.html"}) == "library/netdata.html"
    flat = lxml.html.document_fromstring("<html><body><p>git-commit(1)</p></body></html>")
    assert hub_of(flat, "git-commit.html", {"index.html"}) is None


# --- the multilingual sets ----------------------------------------------------------------------


def _page(path: Path, title: str, headings: list[str], paragraphs: list[str], links: list[str] = ()) -> None:  # type: ignore[assignment]
    body = "".join(f'<h2 id="h{i}">{text}</h2>' for i, text in enumerate(headings))
    body += "".join(f"<p>{text}</p>" for text in paragraphs) + "".join(f'<a href="{link}">x</a>' for link in links)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'<html><head><meta charset="utf-8"><title>{title}</title></head><body>{body}</body></html>', encoding="utf-8"
    )


def test_a_partly_translated_page_is_asked_in_its_language_its_english_leftovers_are_not(tmp_path: Path) -> None:
    english = ["The package manager keeps track of every installed file.", "Holding a package keeps it at one version."]
    _page(tmp_path / "en" / "index.html", "Manual", ["Contents"], [], ["ch01.html"])
    _page(tmp_path / "en" / "ch01.html", "Chapter 1. Package management", ["Basic operations", "Holding"], english)
    _page(tmp_path / "fr" / "index.html", "Manuel", ["Sommaire"], [], ["ch01.html"])
    # Translated title and first heading; the second heading and a paragraph left in English.
    _page(
        tmp_path / "fr" / "ch01.html",
        "Chapitre 1. Gestion des paquets",
        ["Opérations de base", "Holding"],
        ["Le gestionnaire de paquets suit chaque fichier installé.", english[1]],
    )
    _page(tmp_path / "de" / "index.html", "Handbuch", ["Inhalt"], [], ["ch01.html"])
    _page(tmp_path / "de" / "ch01.html", "Kapitel 1. Paketverwaltung", ["Grundlagen", "Zurückhalten"], english[:0])
    site = DocSite(
        "m",
        (),
        tmp_path,
        ("en/index.html", "fr/index.html", "de/index.html"),
        editions=(Edition("en", "en/*.html"), Edition("fr", "fr/*.html", "-fr"), Edition("de", "de/*.html", "-de")),
    )
    made = site_sets(site)
    french = {query.query: query for query in made["titles-fr"]}
    assert set(french) == {"Gestion des paquets", "Manuel"}
    assert french["Gestion des paquets"].url == "{site}/fr/ch01.html"
    assert "partly translated: 50%" in french["Gestion des paquets"].note
    assert [query.query for query in made["headings-fr"]] == ["Opérations de base", "Sommaire"]
    assert "Holding" in [query.query for query in made["headings"]]  # English keeps it
    assert sorted(query.query for query in made["titles-de"]) == ["Handbuch", "Paketverwaltung"]


def test_translated_chapter_numbers_are_not_typed() -> None:
    assert strip_numbering("Kapitel 2. Debian-Paketmanagement") == "Debian-Paketmanagement"
    assert strip_numbering("Chapitre 2. Gestion des paquets Debian") == "Gestion des paquets Debian"
    assert strip_numbering("第2章 Debian パッケージ管理") == "Debian パッケージ管理"
    assert strip_numbering("章 2. Debian 軟體包管理") == "Debian 軟體包管理"
    assert strip_numbering("2장. 시스템 요구 사항") == "시스템 요구 사항"
    assert strip_numbering("Bab 2. Persyaratan Sistem") == "Persyaratan Sistem"


def test_untranslated_share_counts_paragraphs_left_word_for_word() -> None:
    assert (
        untranslated_share(
            ["Un texte traduit ici, en entier.", "Kept as it was in English."], ["Kept as it was in English."]
        )
        == 0.5
    )
    assert untranslated_share([], ["Anything at all here."]) == 0.0


def test_questions_are_a_set_of_their_own(tmp_path: Path) -> None:
    (tmp_path / "auto").mkdir()
    (tmp_path / "hand").mkdir()
    for name in ("auto/git.titles.jsonl", "auto/git.rewritten.jsonl", "hand/git.jsonl", "hand/git.questions.jsonl"):
        (tmp_path / name).write_text(json.dumps({"query": "q", "url": "{site}/a.html"}) + "\n")
    assert sorted(sets("git", tmp_path)) == ["hand", "questions", "rewritten", "titles"]


def test_every_committed_question_names_one_page_and_is_no_title() -> None:
    for site in ("django", "python3", "git", "nodejs", "debref"):
        questions = sets(site).get("questions")
        assert questions is not None, site
        lines = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines()]
        assert len(lines) >= 30, site
        titles = {json.loads(line)["query"].casefold() for line in sets(site)["titles"].read_text().splitlines()}
        assert all("url" in line and line["query"].casefold() not in titles for line in lines), site


@pytest.mark.parametrize(
    "module",
    [bench.result_pages, bench.queries.make_rewritten, bench.queries.make_hubs],
    ids=lambda module: module.__name__,
)
def test_doctests(module: object) -> None:
    failed, tried = doctest.testmod(module)  # type: ignore[arg-type]
    assert tried and not failed

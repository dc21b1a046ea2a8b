"""Manuals translated side by side, and pages that know their place in their site:
one result per page whatever its languages, shown in the searcher's; section words find the page."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from search.__main__ import render
from search.engine import SearchEngine
from tests.items import page
from tests.search.conftest import Build, indexed, opened
from tests.search.test_web import serving

OPTION = {
    "en": ("Configuration options", "The option KeepAliveTimeout sets how long the server waits for the next request."),
    "fr": ("Options de configuration", "L'option KeepAliveTimeout fixe combien de temps le serveur attend la requête."),
    "de": ("Konfigurationsoptionen", "Die Option KeepAliveTimeout legt fest, wie lange der Server wartet."),
    "es": ("Opciones de configuración", "La opción KeepAliveTimeout fija cuánto tiempo espera el servidor."),
    "tr": ("Yapılandırma seçenekleri", "KeepAliveTimeout seçeneği sunucunun ne kadar bekleyeceğini belirler."),
}


def manual() -> list[dict]:
    """A manual in five languages, one directory each, and an English page that has no translation."""
    pages = [
        page(f"http://manual.test/{lang}/options.html", title, text, lang=lang)
        for lang, (title, text) in OPTION.items()
    ]
    pages.append(
        page(
            "http://manual.test/en/timeouts.html",
            "Timeouts",
            "Every timeout of the server, KeepAliveTimeout among them, and how they interact.",
            lang="en",
        )
    )
    return pages


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("manual")
    return indexed(directory, manual())


@pytest.fixture(scope="module")
def engine(data: Path) -> Iterator[SearchEngine]:
    yield from opened(data)


def test_one_page_in_five_languages_is_one_result_with_its_other_languages(engine: SearchEngine) -> None:
    results = engine.search("KeepAliveTimeout", languages=["en"]).results
    assert [result.page for result in results] == [
        "http://manual.test/en/options.html",
        "http://manual.test/en/timeouts.html",
    ]
    assert [other["lang"] for other in results[0].also_in] == ["de", "es", "fr", "tr"]
    assert {other["url"] for other in results[0].also_in} == {
        f"http://manual.test/{lang}/options.html" for lang in ("de", "es", "fr", "tr")
    }
    assert results[1].also_in == []
    assert "also in: de, es, fr, tr" in render(engine.search("KeepAliveTimeout", languages=["en"]))


def test_the_searchers_language_chooses_the_copy_shown(engine: SearchEngine) -> None:
    shown = engine.search("KeepAliveTimeout", languages=["de", "en"]).results[0]
    assert shown.page == "http://manual.test/de/options.html"
    assert shown.lang == "de"
    assert "en" in [other["lang"] for other in shown.also_in]


def test_a_language_filter_still_lists_only_that_languages_pages(engine: SearchEngine) -> None:
    results = engine.search("KeepAliveTimeout lang:fr").results
    assert [result.page for result in results] == ["http://manual.test/fr/options.html"]


def test_paging_never_shows_a_page_twice_in_another_language(engine: SearchEngine) -> None:
    first = engine.search("KeepAliveTimeout", n=1, page=1).results
    second = engine.search("KeepAliveTimeout", n=1, page=2).results
    assert len(first) == len(second) == 1
    shown = {first[0].page.split("/")[-1], second[0].page.split("/")[-1]}
    assert shown == {"options.html", "timeouts.html"}


@pytest.fixture(scope="module")
def base(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serving(data, tmp_path_factory)


def test_the_browsers_language_chooses_the_copy_on_the_page_and_in_the_api(base: str) -> None:
    request = urllib.request.Request(
        base + "/api/search?q=KeepAliveTimeout", headers={"Accept-Language": "fr, en;q=0.5"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        found = json.loads(response.read())
    first = found["results"][0]
    assert first["url"] == "http://manual.test/fr/options.html"
    assert [other["lang"] for other in first["also_in"]] == ["de", "en", "es", "tr"]
    request = urllib.request.Request(base + "/?q=KeepAliveTimeout", headers={"Accept-Language": "fr"})
    with urllib.request.urlopen(request, timeout=30) as response:
        html = response.read().decode()
    assert 'also in: <a href="http://manual.test/de/options.html" hreflang="de"' in html
    assert html.count("options.html</div>") + html.count("options.html <span") <= 1


# --- hierarchy ---------------------------------------------------------------------------

TESTING = ["Django documentation", "Using Django", "Testing in Django"]


def test_section_and_page_words_find_the_page_not_its_sections_hub(build: Build) -> None:
    hub_text = "Testing in Django. Writing and running tests. Testing tools. Advanced testing topics."
    engine = build(
        page(
            "http://docs.test/topics/testing/index.html",
            "Testing in Django",
            hub_text,
            links=[
                ("http://docs.test/topics/testing/overview.html", "Writing and running tests"),
                ("http://docs.test/topics/testing/tools.html", "Testing tools"),
                ("http://docs.test/topics/testing/advanced.html", "Advanced testing topics"),
            ],
            hierarchy=TESTING[:2],
        ),
        page(
            "http://docs.test/topics/testing/tools.html",
            "Testing tools",
            "The test client is a Python class that acts as a dummy web browser. " * 5,
            hierarchy=TESTING,
        ),
        page(
            "http://docs.test/topics/testing/advanced.html",
            "Advanced testing topics",
            "The request factory shares the test client's API. " * 5,
            hierarchy=TESTING,
        ),
        page(
            "http://docs.test/howto/deployment.html",
            "Deploying Django",
            "Django tools for deployment. " * 5,
            hierarchy=TESTING[:1],
        ),
    )
    for query in ("django testing tools", "using django tools", "tools testing in django"):
        results = engine.search(query).results
        assert results[0].page == "http://docs.test/topics/testing/tools.html", query
    shown = engine.search("test client").results[0]
    assert shown.hierarchy == TESTING
    assert json.loads(json.dumps(shown.to_json()))["hierarchy"] == TESTING
    assert "    Django documentation › Using Django › Testing in Django" in render(engine.search("test client"))


def test_a_korean_query_finds_the_korean_edition_not_a_copy(build: Build) -> None:
    engine = build(
        page(
            "http://guide.test/ko/apb.html",
            "부록 B. 미리 설정을 이용한 설치 자동화",
            "미리 설정 파일로 설치를 자동화합니다.",
            lang="ko",
        ),
        page(
            "http://guide.test/en/apb.html",
            "Appendix B. Automating the installation",
            "Preseeding automates it.",
            lang="en",
        ),
        page("http://guide.test/ko/apc.html", "부록 C. 파티션", "디스크 파티션을 나눕니다.", lang="ko"),
    )
    results = engine.search("미리 설정 자동화").results
    assert results[0].page == "http://guide.test/ko/apb.html"
    assert not any(
        "not the query's" in rule for rule in engine.search("미리 설정", explain=True).results[0].explain["rules"]
    )


def test_the_original_is_shown_when_a_half_translated_copy_only_repeats_its_words(build: Build) -> None:
    english = "Programming tools: compilers, debuggers and build systems for C programs. "
    engine = build(
        page("http://ref.test/ch12.en.html", "Chapter 12. Programming", english * 2, lang="en"),
        # The French edition: its title translated, its body left in English, longer.
        page(
            "http://ref.test/ch12.fr.html", "Chapitre 12. Programmation", english * 6 + "Programming. " * 4, lang="fr"
        ),
    )
    shown = engine.search("programming").results
    assert [result.page for result in shown] == ["http://ref.test/ch12.en.html"]
    assert shown[0].also_in == [{"lang": "fr", "url": "http://ref.test/ch12.fr.html"}]
    asked = engine.search("programming", languages=["fr"]).results
    assert asked[0].page == "http://ref.test/ch12.fr.html"


def test_a_query_in_one_of_two_close_languages_is_shown_the_page_titled_with_its_words(build: Build) -> None:
    engine = build(
        page(
            "http://guide.test/es/apas01.html", "A.1. Preliminares", "Preliminares de la instalación. " * 4, lang="es"
        ),
        page("http://guide.test/ca/apas01.html", "A.1. Preliminars", "Preliminars de la instal·lació.", lang="ca"),
    )
    shown = engine.search("Preliminars").results
    assert [result.page for result in shown] == ["http://guide.test/ca/apas01.html"]
    assert shown[0].also_in == [{"lang": "es", "url": "http://guide.test/es/apas01.html"}]


def test_a_page_without_a_breadcrumb_takes_its_place_from_the_hub_that_lists_it(build: Build) -> None:
    """Git's manual pages have no breadcrumb: git(1) lists each command
    under the headings that say what kind of command it is."""
    hub = page(
        "http://git.test/git.html",
        "git(1)",
        "git(1) Manual Page NAME git - the stupid content tracker. Start with git-add(1) and git-commit(1). "
        "High-level commands Main porcelain commands git-add(1) Add file contents to the index. "
        "git-commit(1) Record changes to the repository. git-mv(1) Move a file. git-rm(1) Remove files. "
        "git-tag(1) Create a tag. "
        "Low-level commands Interrogation commands git-cat-file(1) Provide contents of repository objects. "
        "git-ls-files(1) Show files. git-ls-tree(1) List a tree. git-rev-parse(1) Pick out parameters. "
        "git-show-ref(1) List references.",
        links=[
            *[
                (f"http://git.test/{name}.html", f"{name}(1)")
                for name in "git-add git-commit git-mv git-rm git-tag git-cat-file git-ls-files git-ls-tree "
                "git-rev-parse git-show-ref".split()
            ],
            ("http://elsewhere.test/git-add.html", "git-add(1)"),
        ],
        sections=[
            ["top", "git(1) Manual Page", "h1"],
            ["name", "NAME", "h2"],
            ["high", "High-level commands", "h2"],
            ["main", "Main porcelain commands", "h3"],
            ["low", "Low-level commands", "h2"],
            ["interrogation", "Interrogation commands", "h3"],
        ],
    )
    suite = [("http://git.test/git.html", "git(1)")]
    engine = build(
        hub,
        # Pages listed before, linking back: the hub stands above its pages.
        *[
            page(f"http://git.test/{name}.html", f"{name}(1)", f"The {name} command.", links=suite)
            for name in ("git-mv", "git-rm")
        ],
        page("http://git.test/git-add.html", "git-add(1)", "Add file contents to the index. " * 3, links=suite),
        page(
            "http://git.test/git-commit.html",
            "git-commit(1)",
            "Record changes to the repository. See also git-add(1). " * 3,
            links=[*suite, ("http://git.test/git-add.html", "git-add(1)")],
        ),
        page(
            "http://git.test/git-cat-file.html",
            "git-cat-file(1)",
            "Provide contents of repository objects. " * 3,
            links=suite,
            hierarchy=["Git", "Plumbing"],  # a breadcrumb of its own stays
        ),
    )
    add = engine.search("add file contents").results[0]
    assert add.url == "http://git.test/git-add.html"
    # Its hub is git(1), which every page links to, not git-commit(1) that mentions it;
    # the place is where git(1) lists it, not where it first names it.
    assert add.hierarchy == ["git(1)", "High-level commands", "Main porcelain commands"]
    assert engine.search("repository objects").results[0].hierarchy == ["Git", "Plumbing"]
    # The place is the page's words too: "porcelain" finds the porcelain commands.
    assert {r.url for r in engine.search("porcelain").results} >= {
        "http://git.test/git-add.html",
        "http://git.test/git-commit.html",
    }

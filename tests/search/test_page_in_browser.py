"""The search page in Chromium, used as a person uses it: at a desk's width
and a phone's, in English and Chinese, typing and moving with the keys.

The index is a manual translated into five languages, each page placed in
its site (a hierarchy line) and linked to its translations ("also in"),
its pages served by a local site so that opening a result opens a page.
The screenshots are kept in the test's directory.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer.builder import IndexBuilder
from tests import browser
from tests.items import page
from tests.search.test_web import serving
from tests.webserver import Site, serve_site
from tests.webserver import page as html_page

LANGUAGES = {
    "en": ("Configuration options", "The option KeepAliveTimeout sets how long the server waits."),
    "fr": ("Options de configuration", "L'option KeepAliveTimeout fixe combien de temps le serveur attend."),
    "de": ("Konfigurationsoptionen", "Die Option KeepAliveTimeout legt fest, wie lange der Server wartet."),
    "es": ("Opciones de configuración", "La opción KeepAliveTimeout fija cuánto tiempo espera el servidor."),
    "zh": ("配置选项", "KeepAliveTimeout 选项设置服务器等待下一个请求的时间。"),
}
TOPICS = ["timeouts", "keepalive", "limits", "logging", "proxies", "modules", "security", "caching"]


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    """The manual's pages, so that opening a result loads one."""
    routes = {f"/{topic}.html": html_page(f"<title>{topic}</title><p>{topic}</p>") for topic in TOPICS}
    routes.update(
        {f"/{lang}/options.html": html_page(f"<title>{title}</title>") for lang, (title, _) in LANGUAGES.items()}
    )
    with serve_site(routes) as served:
        yield served


@pytest.fixture(scope="module")
def base(site: Site, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    directory = tmp_path_factory.mktemp("manual")
    place = ["Server manual", "Configuring the server", "Directives in depth, with a long section name"]
    pages = [
        page(site.url(f"/{lang}/options.html"), title, text, lang=lang, hierarchy=place[:2])
        for lang, (title, text) in LANGUAGES.items()
    ]
    pages += [
        page(
            site.url(f"/{topic}.html"),
            f"Server {topic}: every directive",
            f"How the server handles {topic}. KeepAliveTimeout and {topic} directives, "
            "with examples of configuration files and their effects on connections. " * 3,
            lang="en",
            hierarchy=place,
        )
        for topic in TOPICS
    ]
    with IndexBuilder(directory) as builder:
        builder.add(pages)
        builder.finalize()
    yield from serving(directory, tmp_path_factory)


@pytest.fixture(scope="module")
def chromium() -> str:
    return browser.chromium()


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("width", [1280, 375])
def test_the_page_fits_a_wide_and_a_narrow_screen(
    chromium: str, base: str, tmp_path: Path, width: int, language: str
) -> None:
    with browser.Tab(tmp_path, (width, 900)) as tab:
        tab.go(f"{base}?q=keepalivetimeout&hl={language}")
        shot = tab.screenshot(tmp_path / f"results-{width}-{language}.png")
        assert tab.evaluate("document.documentElement.scrollWidth <= innerWidth"), tab.evaluate(
            "[document.documentElement.scrollWidth, innerWidth]"
        )
        box = tab.evaluate(
            "(() => {const r = s => document.querySelector(s).getBoundingClientRect();"
            "const [list, side, input] = [r('.list'), r('.side'), r('input[name=q]')];"
            "return {list: [list.left, list.right, list.top], side: [side.left, side.top], input: input.left,"
            "trail: document.querySelectorAll('.trail').length, also: document.querySelectorAll('.also a').length,"
            "words: document.querySelector('button').textContent}})()"
        )
        assert box["words"] == {"en": "Search", "zh": "搜索"}[language]
        assert box["trail"] >= 5 and box["also"] >= 4  # the places in the site, the other languages
        if width == 1280:
            assert box["list"][0] > 100  # centred, not against the left edge
            assert box["side"][0] >= box["list"][1]  # the facets beside the results
            assert abs(box["input"] - box["list"][0]) < 120  # the box above the results
        else:
            assert box["side"][1] < box["list"][2]  # the facets above the results
    assert browser.png_rows(shot)[:2] == (width, 900)
    assert browser.busy_rows(shot) > 0.3


def test_results_follow_the_query_as_it_is_typed_and_the_keys_move_through_them(
    chromium: str, base: str, site: Site, tmp_path: Path
) -> None:
    with browser.Tab(tmp_path) as tab:
        tab.go(base)
        assert tab.evaluate("document.activeElement.name") == "q"
        tab.type("keepalivetimeout")
        assert _wait_for_results_of(tab, "keepalivetimeout") >= 5 and "for 'keepalivetimeout'" in tab.evaluate(
            "document.querySelector('.stats').textContent"
        )
        tab.screenshot(tmp_path / "typed.png")
        tab.type(" site:127.0.0.1 lang:fr")
        _wait_for_results_of(tab, "keepalivetimeout site:127.0.0.1 lang:fr")
        assert tab.evaluate("document.querySelectorAll('main ol > li').length") == 1
        assert tab.evaluate("document.querySelector('main h2').textContent") == "Options de configuration"
        for _ in " lang:fr":
            tab.press("Backspace")
        assert _wait_for_results_of(tab, "keepalivetimeout site:127.0.0.1") > 1
        titles = tab.evaluate("[...document.querySelectorAll('main h2 a')].map(a => a.textContent)")
        tab.press("ArrowDown")
        assert tab.evaluate("document.activeElement.textContent") == titles[0]
        tab.press("ArrowDown")
        assert tab.evaluate("document.activeElement.textContent") == titles[1]
        assert tab.evaluate("document.querySelector('li.chosen h2 a').textContent") == titles[1]
        tab.press("ArrowUp")
        tab.press("ArrowUp")
        assert tab.evaluate("document.activeElement.name") == "q"  # above the first: back in the box
        tab.press("ArrowDown")
        tab.press("ArrowDown")
        target = tab.evaluate("document.activeElement.href")
        tab.press("Enter", loads=True)
        assert tab.evaluate("location.href") == target and target.startswith(site.base)


def _wait_for_results_of(tab: browser.Tab, query: str) -> int:
    """How many results the page shows once they are ``query``'s (the
    address follows the results shown)."""
    search = json.dumps("?" + urllib.parse.urlencode({"q": query}))
    return int(tab.wait_for(f"location.search === {search} && document.querySelectorAll('main ol > li').length"))

"""The search page and JSON API, served by a real ``python -m search.web`` on a free port.

The index is small and literal, with crawled text that attacks the page:
script and image tags in a title, a body, a URL, and the anchor text of a
link to a ``javascript:`` URL (so an anchor-only result carries it). The
payloads set ``document.title`` when they run, so a headless Chromium's
dumped DOM tells whether any did.
"""

from __future__ import annotations

import base64
import hashlib
import json
import selectors
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from indexer.builder import IndexBuilder
from search.live import LiveEngine
from search.page import KEYS_SCRIPT
from tests import browser
from tests.items import page

ROOT = Path(__file__).parents[2]
OUR_SCRIPT = f"<script>{KEYS_SCRIPT}</script>"
KEYS_HASH = base64.b64encode(hashlib.sha256(KEYS_SCRIPT.encode()).digest()).decode()
CSP = (
    f"default-src 'none'; script-src 'sha256-{KEYS_HASH}'; connect-src 'self'; "
    "style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
RUNS = "document.title='pwned'"
IMG = f'<img src=x onerror="{RUNS}">'
SCRIPT = f"<script>{RUNS}</script>"
PYTHON_PAGES = 14


def _pages() -> list[dict]:
    pages = [
        page(
            "http://evil.test/",
            "<script>alert(1)</script> payload",
            f"A payload page: {IMG} and {SCRIPT} in the body.",
            [(f"javascript:{RUNS}", f"{IMG} payload anchor"), ("http://zh.test/tea.html", "龙井茶")],
        ),
        page(
            f'http://evil.test/"><img src=x onerror="{RUNS}">',
            "Quoted payload in the URL",
            "The payload hides in this page's address.",
        ),
        page("http://zh.test/tea.html", "西湖龙井茶", "西湖龙井是产于杭州西湖的绿茶。", lang="zh-cn"),
    ]
    for i in range(PYTHON_PAGES):
        pages.append(
            page(
                f"http://py{i % 3}.test/p{i}.html",
                f"Python notes {i}",
                f"Python lesson {i}: modules, classes and python functions.",
            )
        )
    return pages


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("web")
    with IndexBuilder(directory) as builder:
        builder.add(_pages())
        builder.finalize()
    return directory


def _start(data_dir: Path, log: Path, *options: str) -> tuple[subprocess.Popen[str], str]:
    """``python -m search.web`` on a free port, and its URL once it says it listens."""
    with log.open("w") as stderr:
        server = subprocess.Popen(
            [sys.executable, "-m", "search.web", "--data", str(data_dir), "--port", "0", "--quiet", *options],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    assert server.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(server.stdout, selectors.EVENT_READ)
        ready = selector.select(timeout=30)
    line = server.stdout.readline() if ready else ""
    if not line.startswith("Serving search for "):
        server.kill()
        server.wait()
        pytest.fail(f"the server did not start: {line!r}\n{log.read_text()}")
    return server, line.split()[-1]


def serving(data: Path, tmp_path_factory: pytest.TempPathFactory, *options: str) -> Iterator[str]:
    """``python -m search.web`` on ``data`` for a module's tests: its URL; stopped after them."""
    server, url = _start(data, tmp_path_factory.mktemp("log") / "web.log", *options)
    try:
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="module")
def base(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serving(data, tmp_path_factory)


def _get(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, dict(error.headers), error.read()


def _html(base: str, query: str) -> str:
    status, _, body = _get(base + query)
    assert status == 200
    return body.decode()


# ---------------------------------------------------------------- the API


@pytest.mark.parametrize("args", [("-n", "5", "--page", "2", "python"), ("龙井",)])
def test_api_answers_exactly_what_the_cli_prints(data: Path, base: str, args: tuple[str, ...]) -> None:
    cli = subprocess.run(
        [sys.executable, "-m", "search", "--data", str(data), "--json", *args],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
    )
    assert cli.returncode == 0, cli.stderr
    options = dict(zip(args[:-1:2], args[1:-1:2], strict=False))
    query = {"q": args[-1], "n": options.get("-n", "10"), "page": options.get("--page", "1")}
    status, headers, body = _get(base + "api/search?" + urllib.parse.urlencode(query))
    assert (status, headers["Content-Type"]) == (200, "application/json; charset=utf-8")
    assert body == cli.stdout
    assert json.loads(body)["results"]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("q=python&n=0", "n must be a whole number from 1 to 100, not '0'"),
        ("q=python&n=101", "n must be a whole number from 1 to 100, not '101'"),
        ("q=python&n=ten", "n must be a whole number from 1 to 100, not 'ten'"),
        ("q=python&page=0", "page must be a whole number, 1 or more, not '0'"),
        ("q=python&page=-1", "page must be a whole number, 1 or more, not '-1'"),
        ("q=python&page=99999999999", "page must be a whole number, 1 or more, not '99999999999'"),
        ("q=", "empty query: type some words to search for"),
        ("n=5", "empty query: type some words to search for"),
        ("q=" + "x" * 1001, "the query is too long: at most 1000 characters"),
        ("q=pyhton&as_typed=yes", "as_typed must be 0 or 1, not 'yes'"),
        ("q=python&hl=fr", "hl must be one of en, zh, not 'fr'"),
    ],
)
def test_bad_parameters_are_400_with_a_reason(base: str, query: str, message: str) -> None:
    status, headers, body = _get(base + "api/search?" + query)
    assert (status, headers["Content-Type"]) == (400, "application/json; charset=utf-8")
    assert json.loads(body) == {"error": message}
    if "empty" not in message:
        status, _, body = _get(base + "?" + query)
        assert status == 400
        assert f"Sorry: {message}." in body.decode().replace("&#x27;", "'")


def test_a_misspelt_query_answers_with_its_respelling_unless_asked_as_typed(base: str) -> None:
    status, _, body = _get(base + "api/search?q=pyhton")
    found = json.loads(body)
    assert (status, found["query"], found["showing"], found["suggestion"]) == (200, "pyhton", "python", "python")
    assert found["total"] == PYTHON_PAGES
    typed = json.loads(_get(base + "api/search?q=pyhton&as_typed=1")[2])
    assert typed == {"query": "pyhton", "total": 0, "results": [], "suggestion": "python"}
    shown = _html(base, "?q=pyhton")
    assert "Showing results for <a" in shown and 'href="/?q=pyhton&amp;as_typed=1">pyhton</a>' in shown
    assert shown.count("<li>") == 10
    assert "No results for &#x27;pyhton&#x27;" in _html(base, "?q=pyhton&as_typed=1")


def test_the_page_speaks_chinese_when_the_browser_reads_it_or_hl_asks(base: str) -> None:
    request = urllib.request.Request(base + "?q=python", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
    with urllib.request.urlopen(request, timeout=30) as response:
        chosen, vary = response.read().decode(), response.headers["Vary"]
    assert vary == "Accept-Language"
    assert '<html lang="zh">' in chosen and "<button>搜索</button>" in chosen and "的结果：第 1-10 条" in chosen
    asked = _html(base, "?q=python&hl=zh")
    assert "<button>搜索</button>" in asked and 'href="/?q=python&amp;page=2&amp;hl=zh"' in asked
    assert "<button>Search</button>" in _html(base, "?q=python")
    assert "包含全部词语的网页排在前面" in _html(base, "?hl=zh")


def test_empty_query_shows_just_the_form(base: str) -> None:
    for path in ("", "?q=", "?q=+++"):
        text = _html(base, path)
        assert '<input type="search" name="q" value=""' in text
        assert "<ol" not in text and "Results" not in text and "Sorry" not in text


def test_unknown_paths_and_methods(base: str) -> None:
    assert _get(base + "search?q=python")[0] == 404
    assert _get(base + "index.html")[0] == 404
    status, headers, body = _get(base + "api/other")
    assert (status, json.loads(body)) == (404, {"error": "no such API: /api/other"})
    for method in ("POST", "PUT", "DELETE"):
        status, headers, _ = _get(base + "?q=python", method)
        assert (status, headers["Allow"]) == (405, "GET, HEAD")
    status, headers, body = _get(base + "?q=python", "HEAD")
    assert (status, body) == (200, b"") and int(headers["Content-Length"]) > 1000


@pytest.mark.parametrize("path", ["", "?q=python", "api/search?q=python", "api/search?q=", "?n=0", "nothing"])
def test_every_answer_carries_the_security_headers(base: str, path: str) -> None:
    _, headers, _ = _get(base + path)
    assert headers["Content-Security-Policy"] == CSP
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"


def test_concurrent_requests_get_the_same_answers(base: str) -> None:
    urls = [base + f"api/search?q=python&n=3&page={page}" for page in (1, 2, 3, 4)] * 4
    alone = [_get(url)[2] for url in urls[:4]]
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda url: _get(url)[2], urls))
    assert together == alone * 4


# ---------------------------------------------------------------- the page


def test_crawled_payloads_show_as_text(base: str) -> None:
    text = _html(base, "?q=payload")
    assert "<script" not in text.replace(OUR_SCRIPT, "") and "<img" not in text and 'onerror="' not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; payload</a>" in text
    assert "&lt;img src=x onerror=&quot;document.title=&#x27;pwned&#x27;&quot;&gt;" in text
    # The anchor-only result for a javascript: URL: its URL shown, never linked.
    assert 'href="javascript' not in text.lower()
    assert '<div class="url">javascript:document.title=&#x27;pwned&#x27; <span class="tag">· Other</span></div>' in text
    assert "[not fetched]" in text
    # The quoted URL stays inside its attribute.
    assert 'href="http://evil.test/&quot;&gt;&lt;img src=x onerror=&quot;' in text


def test_the_query_is_escaped_wherever_it_is_echoed(base: str) -> None:
    text = _html(base, "?" + urllib.parse.urlencode({"q": f'"><b>{IMG}'}))
    assert "<b>" not in text and "<img" not in text
    assert 'value="&quot;&gt;&lt;b&gt;&lt;img src=x' in text
    assert "<title>&quot;&gt;&lt;b&gt;&lt;img src=x" in text


def test_results_read_like_a_result_list(base: str) -> None:
    text = _html(base, "?q=python+lesson+3")
    # One page has all three words; pages with some of them follow it.
    assert f"Results 1-10 of {PYTHON_PAGES} for &#x27;python lesson 3&#x27; (" in text
    first = text.index("<h2>")
    assert text.startswith('<h2><a href="http://py0.test/p3.html" rel="noreferrer">Python notes 3</a></h2>', first)
    assert '<div class="url">http://py0.test/p3.html <span class="tag">· HTML · fetched&nbsp;20' in text
    assert "<mark>Python</mark> <mark>lesson</mark> <mark>3</mark>" in text


def test_chinese_text_is_served_as_utf8(base: str) -> None:
    status, headers, body = _get(base + "?q=" + urllib.parse.quote("龙井"))
    assert (status, headers["Content-Type"]) == (200, "text/html; charset=utf-8")
    text = body.decode("utf-8")
    assert '<ol start="1" lang="zh">' in text and '<meta charset="utf-8">' in text
    assert ">西湖龙井茶</a>" in text and "<mark>龙井</mark>" in text


def test_paging_links_lead_through_the_results(base: str) -> None:
    first = _html(base, "?q=python")
    assert f"Results 1-10 of {PYTHON_PAGES} for" in first
    assert '<span aria-current="page">1</span> <a href="/?q=python&amp;page=2">2</a>' in first
    assert '<a rel="next" href="/?q=python&amp;page=2">Next ›</a>' in first
    assert "Previous" not in first
    second = _html(base, "?q=python&page=2")
    assert f"Results 11-{PYTHON_PAGES} of {PYTHON_PAGES} for" in second
    assert '<a rel="prev" href="/?q=python">‹ Previous</a>' in second
    assert "Next" not in second
    small = _html(base, "?q=python&n=3&page=2")
    assert "Results 4-6 of" in small and 'name="n" value="3"' in small
    assert '<a rel="next" href="/?q=python&amp;n=3&amp;page=3">' in small
    past = _html(base, "?q=python&page=9")
    assert f"Page 9 is past the end: {PYTHON_PAGES} results for" in past and "page 2 is the last" in past
    status, _, body = _get(base + "api/search?q=python&n=100&page=999999999")
    assert status == 200 and json.loads(body)["results"] == [] and json.loads(body)["total"] == PYTHON_PAGES
    assert '<a rel="prev" href="/?q=python&amp;page=2">' in past


def test_no_index_is_the_cli_message_and_status_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "search.web", "--data", str(tmp_path / "none"), "--port", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"search: no index in {tmp_path / 'none'}: crawl something first")
    assert len(done.stderr.splitlines()) == 1


def test_the_engine_is_reopened_when_the_index_changes(tmp_path: Path) -> None:
    with IndexBuilder(tmp_path) as builder:
        builder.add([page("http://a.test/", "First", "the first page")])
        builder.commit()
        live = LiveEngine(tmp_path)
        try:
            assert live.search("first", 10, 1).total == 1 and live.reopened == 0
            before = live.search("page", 10, 1)
            assert live.search("page", 10, 1) is before  # asked again: answered from memory
            builder.add([page("http://b.test/", "Second", "the second page")])
            builder.finalize()
            assert [r.url for r in live.search("second", 10, 1).results] == ["http://b.test/"]
            assert live.search("page", 10, 1).total == 2  # not the remembered answer
            assert live.reopened == 1 and live.engine.graph is not None
            live.search("page", 10, 1)
            assert live.reopened == 1
        finally:
            live.close()


# ---------------------------------------------------------------- in a browser


@pytest.fixture(scope="module")
def chromium() -> str:
    """Installed on first use; a failure to install fails (never skips) each browser test, once."""
    return browser.chromium()


def test_payload_detection_works_on_an_unprotected_page(chromium: str, tmp_path: Path) -> None:
    dom = browser.dump_dom(f"data:text/html,<title>safe</title>{IMG}", tmp_path)
    assert "<title>pwned</title>" in dom


def test_no_payload_runs_or_becomes_an_element_in_chromium(chromium: str, base: str, tmp_path: Path) -> None:
    dom = browser.dump_dom(base + "?q=payload", tmp_path)
    assert "<title>payload – Search</title>" in dom
    assert "pwned</title>" not in dom
    body = dom.split("<body>", 1)[1]
    assert "<script" not in body.replace(OUR_SCRIPT, "") and "<img" not in body and "<i>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt; payload" in body
    assert body.count("<li>") == 3 and "<mark>payload</mark>" in body


def test_the_rendered_page_shows_results(chromium: str, base: str, tmp_path: Path) -> None:
    empty = browser.screenshot(base, tmp_path / "empty.png", tmp_path)
    full = browser.screenshot(base + "?q=python", tmp_path / "results.png", tmp_path)
    width, height, _ = browser.png_rows(full)
    assert (width, height) == (1280, 900)
    assert browser.busy_rows(empty) < browser.busy_rows(full)  # the home page says what there is
    assert browser.busy_rows(full) > 0.35


def test_two_hundred_concurrent_requests_are_all_answered(base: str) -> None:
    """The listen queue holds them (the standard library's held 5) and a
    bounded pool of threads serves them in turn."""
    port = urllib.parse.urlsplit(base).port
    listening = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True, check=True)
    assert int(listening.stdout.split()[2]) >= 200  # Send-Q of a listening socket: its backlog; 200 fit
    urls = [base if k % 2 else base + f"api/search?q=python&n=3&page={k % 5 + 1}" for k in range(200)]
    with ThreadPoolExecutor(200) as pool:
        statuses = list(pool.map(lambda url: _get(url)[0], urls))
    assert statuses == [200] * 200


# ---------------------------------------------------------------- what the page offers


def test_the_home_page_says_what_can_be_searched(base: str) -> None:
    home = _html(base, "")
    assert (
        f"{PYTHON_PAGES + 4} documents: {PYTHON_PAGES + 3} crawled pages from 5 sites, "
        "and 1 known only by the links to it."
    ) in home
    assert f"Languages: unknown {PYTHON_PAGES + 2}, zh-cn 1." in home
    assert '<a href="/?q=site%3Apy0.test">py0.test</a>' in home  # each site, a link to its pages
    assert "(here: <code>lang:zh</code>)" in home and "<code>site:docs.example.org</code>" in home
    assert "autofocus" in home


def test_the_results_language_follows_the_results(base: str) -> None:
    assert '<ol start="1" lang="zh">' in _html(base, "?q=%E9%BE%99%E4%BA%95")  # 龙井
    assert '<ol start="1" lang="en">' in _html(base, "?q=python")


def test_a_favicon_and_an_opensearch_description_are_served_and_linked(base: str) -> None:
    page_ = _html(base, "?q=python")
    assert '<link rel="icon" href="/favicon.svg"' in page_ and 'href="/opensearch.xml"' in page_
    status, headers, icon = _get(base + "favicon.svg")
    assert status == 200 and headers["Content-Type"] == "image/svg+xml" and icon.startswith(b"<svg")
    status, headers, description = _get(base + "opensearch.xml")
    assert status == 200 and headers["Content-Type"].startswith("application/opensearchdescription+xml")
    assert f'template="{base}?q={{searchTerms}}"'.encode() in description


def _get_as(url: str, host: str) -> tuple[int, bytes]:
    """``url`` asked for with ``host`` in the ``Host`` header, as a page whose name points here asks."""
    request = urllib.request.Request(url, headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read()


@pytest.mark.parametrize("host", ['evil"><x a="', "evil.test", "127.0.0.1.evil.test", "10.0.0.1:8080", "local"])
def test_a_name_the_server_does_not_answer_to_gets_421(base: str, host: str) -> None:
    """DNS rebinding: another site's page, its name pointed at 127.0.0.1, reads nothing."""
    for path in ("api/search?q=python", "", "opensearch.xml", "cached?url=http://py0.test/p0.html"):
        status, body = _get_as(base + path, host)
        assert status == 421 and b"evil" not in body and b"python" not in body.lower()
        assert body.startswith(b"421 Misdirected Request: this server answers to localhost")


def test_loopback_names_are_answered_and_echoed_into_the_description(base: str) -> None:
    port = urllib.parse.urlsplit(base).port
    for host in (f"localhost:{port}", "LOCALHOST", "127.0.0.2", f"[::1]:{port}", "localhost."):
        assert _get_as(base + "api/search?q=python", host)[0] == 200
    status, body = _get_as(base + "opensearch.xml", f"localhost:{port}")
    assert status == 200 and f'template="http://localhost:{port}/?q='.encode() in body


def test_names_given_with_allowed_host_are_answered(data: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    served = serving(data, tmp_path_factory, "--allowed-host", "search.example", "--allowed-host", "Lantern.Test")
    url = next(served)
    try:
        assert _get_as(url + "api/search?q=python", "search.example:8080")[0] == 200
        assert _get_as(url + "api/search?q=python", "lantern.test")[0] == 200
        assert _get_as(url + "api/search?q=python", "localhost")[0] == 200
        assert _get_as(url + "api/search?q=python", "other.example")[0] == 421
    finally:
        served.close()


def test_the_search_box_and_its_button_fit_a_375_pixel_screen(chromium: str, base: str, tmp_path: Path) -> None:
    """The button's right border (#c4c7c5) is drawn inside the window, not cut off."""
    shot = browser.screenshot(base + "?q=python", tmp_path / "narrow.png", tmp_path, size=(375, 600))
    width, _, rows = browser.png_rows(shot)
    channels = len(rows[0]) // width
    border = [
        x
        for row in rows[10:70]
        for x in range(width)
        if all(abs(row[x * channels + c] - value) <= 8 for c, value in enumerate((196, 199, 197)))
    ]
    assert border and 330 <= max(border) < width - 8, max(border, default=None)


def test_facets_link_to_the_query_narrowed_to_a_site_or_a_language(base: str) -> None:
    text = _html(base, "?q=python")
    assert "Sites: " in text and '<a href="/?q=python+site%3Apy0.test">py0.test</a> (5)' in text
    narrowed = _html(base, "?q=python+site%3Apy0.test")
    assert "Sites: " not in narrowed and "Results 1-5 of 5" in narrowed


def test_a_slash_puts_the_cursor_in_the_search_box(chromium: str, base: str, tmp_path: Path) -> None:
    """The page's one script, run as Chromium runs it, on a page holding the same box and a link."""
    assert OUR_SCRIPT in _html(base, "?q=python")
    probe = (
        f'<title>none</title><input type="search" name="q" value="python"><a href="#">link</a>{OUR_SCRIPT}'
        "<script>document.body.dispatchEvent(new KeyboardEvent('keydown', {key: '/', bubbles: true}));"
        "document.title = 'focused:' + document.activeElement.name;</script>"
    )
    dom = browser.dump_dom("data:text/html," + urllib.parse.quote(probe), tmp_path)
    assert "<title>focused:q</title>" in dom

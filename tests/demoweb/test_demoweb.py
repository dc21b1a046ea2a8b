"""The demo web, checked over real HTTP the way a crawler would meet it."""

from __future__ import annotations

import doctest
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import urllib.robotparser
from collections import Counter, deque
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urldefrag, urljoin, urlsplit

import pytest

from tests.demoweb import DemoWeb, content, serve
from tests.demoweb.server import respond

REPO = Path(__file__).resolve().parents[2]
#: Direct connections only: a proxy from the environment must not see 127.0.0.1.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@dataclass
class Fetched:
    status: int
    headers: dict[str, str]
    body: bytes


def fetch(url: str, method: str = "GET") -> Fetched:
    request = urllib.request.Request(_as_uri(url), method=method)
    try:
        with _OPENER.open(request, timeout=5) as response:
            return Fetched(response.status, dict(response.headers), response.read())
    except urllib.error.HTTPError as error:
        with error:
            return Fetched(error.code, dict(error.headers), error.read())


def _as_uri(url: str) -> str:
    """Percent-encode non-ASCII characters, as browsers do with raw UTF-8 hrefs."""
    return quote(url, safe=":/?#[]@!$&'()*+,;=%~")


@dataclass
class Page:
    """What html.parser finds in a page: enough to check structure and follow links."""

    lang: str = ""
    title: str = ""
    h1: list[str] = field(default_factory=list)
    base: str | None = None
    links: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    nav: list[str] = field(default_factory=list)
    tags: Counter = field(default_factory=Counter)
    description: str = ""


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self._open: list[str] = []
        self._text: list[str] = []
        self._anchor: dict[str, str] | None = None
        self._in_nav = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.page.tags[tag] += 1
        if tag == "html":
            self.page.lang = values.get("lang", "")
        elif tag == "base" and self.page.base is None:
            self.page.base = values.get("href")
        elif tag == "meta" and values.get("name") == "description":
            self.page.description = values.get("content", "")
        elif tag == "nav":
            self._in_nav = True
        elif tag == "a" and "href" in values:
            self._anchor, self._text = values, []
            if self._in_nav:
                self.page.nav.append(values["href"])
        if tag in ("title", "h1"):
            self._open.append(tag)
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        text = "".join(self._text).strip()
        if tag == "nav":
            self._in_nav = False
        elif tag == "a" and self._anchor is not None:
            self.page.links.append((self._anchor["href"], text, self._anchor))
            self._anchor = None
        elif tag == "title" and self._open:
            self.page.title = text
            self._open.pop()
        elif tag == "h1" and self._open:
            self.page.h1.append(text)
            self._open.pop()

    def handle_data(self, data: str) -> None:
        self._text.append(data)


def parse(body: bytes) -> Page:
    parser = _Parser()
    parser.feed(body.decode("utf-8"))
    parser.close()
    return parser.page


@dataclass
class Crawl:
    """The result of a polite breadth-first walk from the seeds."""

    fetched: dict[str, Fetched]
    parsed: dict[str, Page]
    links: list[tuple[str, str, str]]  # (from url, to url, anchor text)
    skipped: set[str]


def _robots(web: DemoWeb) -> dict[str, urllib.robotparser.RobotFileParser]:
    rules = {}
    for base in web.sites.values():
        parser = urllib.robotparser.RobotFileParser()
        parser.parse(fetch(base + "/robots.txt").body.decode().splitlines())
        rules[urlsplit(base).netloc] = parser
    return rules


def crawl(web: DemoWeb, limit: int = 2000) -> Crawl:
    """Follow links from the seeds, staying on the demo sites, obeying robots.txt, skipping the
    calendar and the almanac."""
    robots = _robots(web)
    queue = deque(web.seeds)
    seen = set(web.seeds)
    result = Crawl({}, {}, [], set())
    while queue and len(result.fetched) < limit:
        url = queue.popleft()
        page = result.fetched[url] = fetch(url)
        if page.status != 200:
            continue
        parsed = result.parsed[url] = parse(page.body)
        for href, text, _attrs in parsed.links:
            target = _as_uri(urldefrag(urljoin(parsed.base or url, href))[0])
            parts = urlsplit(target)
            if parts.scheme != "http" or parts.netloc not in robots:
                continue
            result.links.append((url, target, text))
            if target in seen:
                continue
            seen.add(target)
            if parts.path.startswith(("/calendar/", "/almanac/")) or not robots[parts.netloc].can_fetch("*", target):
                result.skipped.add(target)
            else:
                queue.append(target)
    return result


@pytest.fixture(scope="module")
def web():
    with serve() as web:
        yield web


@pytest.fixture(scope="module")
def walked(web: DemoWeb) -> Crawl:
    return crawl(web)


@pytest.mark.slow
def test_link_walk_reaches_every_static_page(web, walked):
    ok = {url for url, page in walked.fetched.items() if page.status == 200}
    assert len(ok) == web.page_count >= 300
    assert len({walked.fetched[url].body for url in ok}) >= 300
    assert sum(web.facts["pages_per_site"].values()) == web.page_count
    for name, base in web.sites.items():
        assert sum(url.startswith(base + "/") for url in ok) == web.facts["pages_per_site"][name]


def test_every_link_resolves_except_the_known_broken_one(web, walked):
    failed = {url for url, page in walked.fetched.items() if page.status != 200}
    assert failed == set(web.facts["broken_links"])
    assert all(walked.fetched[url].status == 404 for url in failed)


def test_every_page_is_a_complete_html_document(walked):
    for url, page in walked.parsed.items():
        body = walked.fetched[url].body
        assert body.startswith(b"<!DOCTYPE html>"), url
        assert b'<meta charset="utf-8">' in body, url
        assert walked.fetched[url].headers["Content-Type"] == "text/html; charset=utf-8", url
        assert page.lang in ("en", "zh"), url
        assert page.title and page.description, url
        assert len(page.h1) == 1 and page.h1[0], url
        for tag in ("header", "nav", "main", "footer", "p"):
            assert page.tags[tag] >= 1, (url, tag)
        assert page.tags["h2"] + page.tags["h3"] >= 1, url


def test_every_page_of_a_site_has_the_same_navigation(web, walked):
    for base in web.sites.values():
        navs = {
            tuple(urljoin(page.base or url, href) for href in page.nav)
            for url, page in walked.parsed.items()
            if url.startswith(base + "/")
        }
        assert len(navs) == 1, base
        assert len(next(iter(navs))) >= 4


def test_pages_differ_in_how_much_they_are_linked(walked):
    inbound = Counter(target for source, target, _ in walked.links if source != target)
    counts = [inbound[url] for url in walked.parsed]
    assert max(counts) >= 100
    assert min(counts) <= 3


def test_sites_link_to_each_other(web, walked):
    netlocs = {urlsplit(base).netloc: name for name, base in web.sites.items()}
    pairs = {(netlocs[urlsplit(s).netloc], netlocs[urlsplit(t).netloc]) for s, t, _ in walked.links}
    for name in web.sites:
        assert any(a == name and b != name for a, b in pairs), f"{name} links nowhere else"
        assert any(b == name and a != name for a, b in pairs), f"nothing links to {name}"


def test_generation_is_deterministic_apart_from_ports():
    one = {name: f"http://127.0.0.1:{8001 + i}" for i, name in enumerate(content.SITE_NAMES)}
    other = {name: f"http://127.0.0.1:{9001 + i}" for i, name in enumerate(content.SITE_NAMES)}
    first, again, moved = content.build(one), content.build(one), content.build(other)
    for name in content.SITE_NAMES:
        assert first.sites[name].pages == again.sites[name].pages
        for path, body in moved.sites[name].pages.items():
            for site in content.SITE_NAMES:
                body = body.replace(other[site].encode(), one[site].encode())
            assert body == first.sites[name].pages[path], (name, path)
    assert first.sites["news"].dynamic("/calendar/1999/02/") == again.sites["news"].dynamic("/calendar/1999/02/")


def test_generation_is_fast():
    started = time.perf_counter()
    content.build({name: f"http://127.0.0.1:{8001 + i}" for i, name in enumerate(content.SITE_NAMES)})
    assert time.perf_counter() - started < 1.0


def test_served_bytes_are_the_generated_bytes(web):
    generated = content.build(web.sites)
    assert fetch(web.facts["json_module"]["url"]).body == generated.sites["docs"].pages["/library/json.html"]


def test_robots_txt_on_every_site(web):
    for name, base in web.sites.items():
        robots = fetch(base + "/robots.txt")
        assert robots.status == 200
        assert robots.headers["Content-Type"] == "text/plain; charset=utf-8"
        text = robots.body.decode()
        assert text.startswith("User-agent: *\n")
        assert "Crawl-delay" not in text
        for prefix in web.facts["disallowed_prefixes"][name]:
            assert f"Disallow: {prefix}\n" in text
    assert web.facts["disallowed_prefixes"]["wiki"] == ["/private/", "/drafts/"]


def test_calendar_goes_on_forever(web):
    url = web.facts["calendar_start"]
    start = parse(fetch(url).body)
    assert any(re.search(r"/\d{4}/\d{2}/\d{2}/", href) for href, _t, _a in start.links), "start month lists articles"
    visited = [url]
    for _ in range(20):
        page = fetch(url)
        assert page.status == 200
        parsed = parse(page.body)
        assert parsed.h1[0].startswith("Archive: ") and parsed.tags["nav"] == parsed.tags["footer"] == 1
        assert any(a.get("rel") == "prev" for _h, _t, a in parsed.links)
        url = urljoin(url, next(h for h, _t, a in parsed.links if a.get("rel") == "next"))
        visited.append(url)
    assert len(set(visited)) == 21


def test_the_almanac_goes_on_forever_each_month_in_words_of_its_own(web):
    url = web.facts["almanac_start"]
    assert url in {
        urljoin(web.url("news", "/archive/"), href)
        for href, _t, _a in parse(fetch(web.url("news", "/archive/")).body).links
    }
    texts = []
    for _ in range(30):
        page = fetch(url)
        assert page.status == 200
        parsed = parse(page.body)
        assert parsed.h1[0].startswith("Almanac: ")
        body = page.body.decode()
        main = body[body.index("<main>") : body.index("</main>")]
        texts.append(re.sub(r"\d+|<[^>]+>", " ", main.split('class="pager"')[0]).split()[3:])
        url = urljoin(url, next(h for h, _t, a in parsed.links if a.get("rel") == "prev"))
    # Each month differs from every other in many words, not only in its name and numbers.
    for i, one in enumerate(texts):
        for other in texts[i + 1 :]:
            assert len(set(one) ^ set(other)) >= 10
    assert fetch(web.url("news", "/almanac/2024/13/")).status == 404


def test_calendar_rejects_malformed_months(web):
    for path in ("/calendar/2024/13/", "/calendar/0000/01/", "/calendar/2024/5/", "/calendar/2024/05", "/calendar/"):
        assert fetch(web.url("news", path)).status == 404, path
    assert fetch(web.url("news", "/calendar/1066/10/")).status == 200


def test_duplicates_are_byte_identical(web):
    assert len(web.facts["duplicates"]) >= 3
    for first, second in web.facts["duplicates"]:
        assert first != second
        assert fetch(first).body == fetch(second).body


def test_anchor_only_page_is_disallowed_but_linked_by_its_anchor(web, walked):
    fact = web.facts["anchor_only"]
    robots = _robots(web)[urlsplit(fact["url"]).netloc]
    assert not robots.can_fetch("*", fact["url"])
    anchors = [text for _s, target, text in walked.links if target == fact["url"]]
    assert len(anchors) >= 2 and set(anchors) == {fact["anchor"]}
    assert fact["url"] not in walked.fetched
    assert not any("/private/" in r.path or "/drafts/" in r.path for r in web.requests)
    # Only the anchor text carries the word, so search can only find the page through it.
    for url, page in walked.fetched.items():
        text = page.body.decode().lower()
        assert text.count("inspection") == text.count(fact["anchor"]), url


def test_chinese_page_has_its_chinese_title(web):
    fact = web.facts["chinese_title"]
    page = fetch(fact["url"])
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    parsed = parse(page.body)
    assert parsed.lang == "zh"
    assert parsed.title.startswith(fact["title"])
    assert parsed.h1 == [fact["title"]]


def test_non_ascii_paths_answer_raw_or_percent_encoded(web):
    fact = web.facts["non_ascii_path"]
    assert "%E7%AB%AF" in fact["url"]
    assert parse(fetch(fact["url"]).body).h1 == [fact["title"]]
    site = content.build(web.sites).sites["zh"]
    assert respond(site, "/jieri/端午节.html") == respond(site, urlsplit(fact["url"]).path)


def test_base_href_links_resolve_only_against_the_base(web):
    fact = web.facts["base_href"]
    parsed = parse(fetch(fact["url"]).body)
    assert parsed.base == fact["base"]
    main_links = [href for href, _t, _a in parsed.links if not href.startswith(("/", "mailto:", "#"))]
    assert [urljoin(parsed.base, href) for href in main_links] == fact["links"]
    for href, resolved in zip(main_links, fact["links"], strict=False):
        assert fetch(resolved).status == 200
        assert fetch(urljoin(fact["url"], href)).status == 404


def test_unknown_paths_get_a_small_404_page(web):
    for name in web.sites:
        page = fetch(web.url(name, "/no/such/page.html"))
        assert page.status == 404
        assert page.headers["Content-Type"] == "text/html; charset=utf-8"
        assert b"404" in page.body and len(page.body) < 1000


def test_head_sends_headers_without_a_body(web):
    url = web.facts["json_module"]["url"]
    head, get = fetch(url, "HEAD"), fetch(url)
    assert head.status == 200 and head.body == b""
    assert int(head.headers["Content-Length"]) == len(get.body)
    assert fetch(web.url("wiki", "/robots.txt"), "HEAD").headers["Content-Type"] == "text/plain; charset=utf-8"


def test_request_log_records_each_request(web):
    before = time.monotonic()
    request = urllib.request.Request(web.url("zh", "/guanyu.html?from=test"), headers={"X-Probe": "log-test"})
    with _OPENER.open(request, timeout=5) as response:
        response.read()
    record = next(r for r in web.requests if r.headers.get("X-Probe") == "log-test")
    assert before <= record.time <= time.monotonic()
    assert (record.site, record.method, record.path, record.status) == ("zh", "GET", "/guanyu.html?from=test", 200)
    assert web.wait_for_request(lambda r: r.headers.get("X-Probe") == "log-test", timeout=0) == record
    snapshot = web.requests
    snapshot.clear()
    assert web.requests, "requests is a copy"


def test_close_stops_listening_and_ports_can_be_fixed():
    running = set(threading.enumerate())
    with serve() as first:
        ports = {name: urlsplit(base).port for name, base in first.sites.items()}
        assert fetch(first.seeds[0]).status == 200
    for port in ports.values():
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    assert not [t for t in threading.enumerate() if t not in running and t.name.startswith("demoweb-")]
    with serve(ports) as again:
        assert again.sites == first.sites
        assert fetch(again.url("wiki", "/")).status == 200


def test_unknown_site_in_ports_is_an_error():
    with pytest.raises(ValueError, match="unknown demo sites"):
        DemoWeb.start({"blog": 0})


def test_command_line_serves_until_stopped():
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.demoweb"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        lines = []
        for line in process.stdout:
            lines.append(line.strip())
            if line.strip() == "Demo web ready":
                break
        assert lines[-1] == "Demo web ready"
        urls = [line.split()[1] for line in lines[:-1]]
        assert len(urls) == 4 and all(fetch(url).status == 200 for url in urls)
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        process.stdout.close()


def test_demo_queries_are_listed(web):
    assert 5 <= len(web.facts["demo_queries"]) <= 7
    assert {"json encoder", "西湖龙井茶"} <= set(web.facts["demo_queries"])


@pytest.mark.parametrize("module", ["markup", "site", "docs", "news", "server"])
def test_doctests(module):
    imported = __import__(f"tests.demoweb.{module}", fromlist=["_"])
    assert doctest.testmod(imported).failed == 0

"""Traps and duplicates against a real crawl: what each costs, from the server's log."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from tests.commands import crawl
from tests.webserver import Reply, page, serve_site

WORDS = "harbour lighthouse keeper ferry market storm tide village council museum".split()


def _prose(seed: str, words: int = 60) -> str:
    """Text of its own for each seed: pages that must not look like duplicates."""
    rng = random.Random(seed)
    vocabulary = WORDS + "red green blue north south east west old new small large quiet".split()
    return " ".join(rng.choice(vocabulary) + rng.choice("abcdefgh") for _ in range(words))


def _article(links: str) -> Reply:
    paragraphs = " ".join(
        f"<p>Paragraph {n} tells of the {WORDS[n % 10]} and the {WORDS[(n * 3) % 10]} "
        f"seen by {WORDS[(n * 7) % 10]} folk.</p>"
        for n in range(60)
    )
    return page(f"<title>The harbour story</title><h1>The harbour story</h1>{paragraphs}{links}")


def _near(variant: str, link: str) -> Reply:
    story = " ".join(
        f"<p>{WORDS[n % 10]} {WORDS[(n * 3) % 10]} {WORDS[(n * 7) % 10]} {WORDS[(n + 4) % 10]} "
        f"{WORDS[(n * 9) % 10]} line{chr(97 + n % 26)}{chr(97 + n // 26)}</p>"
        for n in range(300)
    )
    return page(f"<title>Long report</title>{story}<p>Printed {variant}.</p>{link}")


def _calendar(path: str) -> Reply | None:
    match = re.fullmatch(r"/(cal|events)/(\d{4})/(\d{2})/", path)
    if not match:
        return None
    kind, year, month = match.group(1), int(match.group(2)), int(match.group(3))
    prev_y, prev_m = (year, month - 1) if month > 1 else (year - 1, 12)
    next_y, next_m = (year, month + 1) if month < 12 else (year + 1, 1)
    # /events/ months each describe different events: their content differs.
    event = f"<p>{_prose(path)}</p>" if kind == "events" else ""
    return page(
        f"<title>{kind} {year}-{month:02d}</title><h1>{kind} {year}-{month:02d}</h1>"
        f"<table><tr><td>1</td><td>2</td><td>3</td></tr></table>{event}"
        f'<a href="/{kind}/{prev_y}/{prev_m:02d}/">previous month</a> '
        f'<a href="/{kind}/{next_y}/{next_m:02d}/">next month</a>'
    )


def _loop(path: str) -> Reply | None:
    if re.fullmatch(r"/a(/a)*/", path):
        return page(f'<title>Loop</title><p>{_prose(path)}</p><a href="a/">deeper</a>')
    return _calendar(path)


HOME = page(
    "<title>Trap garden</title>"
    '<a href="/article.html">story</a> <a href="/copy/article.html">story</a>'
    '<a href="/near1.html">report</a> <a href="/near2.html">report</a>'
    '<a href="/cal/2026/11/">calendar</a> <a href="/events/2026/11/">events</a> <a href="/a/">loop</a>'
    '<a href="/item?id=1&sid=3c9f0a2b7d4e4f1a8b6c5d2e9f0a1b3c">item</a>'
    '<a href="/item?sid=7e1d2c3b4a5f46e7a8b9c0d1e2f3a4b5&id=1">item</a>'
    '<a href="/item;jsessionid=C3?id=1">item</a> <a href="/item?id=1&utm_source=mail">item</a>'
    '<a href="/blocked/one.html">blocked</a>'
)
ROUTES = {
    "/": HOME,
    "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
    "/article.html": _article('<a href="/from-a.html">more</a>'),
    "/copy/article.html": _article('<a href="/from-b.html">more</a>'),
    "/near1.html": _near("first", '<a href="/from-near1.html">annex</a>'),
    "/near2.html": _near("again", '<a href="/from-near2.html">annex</a>'),
    "/item?id=1": page("<title>Item one</title><p>The only item.</p>"),
}
for leaf in ("/from-a.html", "/from-b.html", "/from-near1.html", "/from-near2.html", "/blocked/one.html"):
    ROUTES[leaf] = page(f"<title>{leaf}</title><p>Leaf page {leaf}.</p>")


@pytest.fixture(scope="module")
def crawl_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Counter[str], str]:
    data = tmp_path_factory.mktemp("traps")
    with serve_site(ROUTES, default=_loop) as site:
        done = crawl(
            [site.url("/")],
            data,
            "DOWNLOAD_DELAY=0",
            "TRAPS_MAX_PAGES_PER_PATTERN=40",
            "TRAPS_BLACKLIST_URLS=/blocked/",
            "CLOSESPIDER_PAGECOUNT=500",
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert "closespider_pagecount" not in done.stderr, "a trap ran away"
        return Counter(site.paths()), done.stderr


def test_session_ids_and_tracking_parameters_make_no_extra_fetch(crawl_log) -> None:
    paths, _ = crawl_log
    assert [path for path in paths if path.startswith("/item")] == ["/item?id=1"]
    assert paths["/item?id=1"] == 1


def test_a_duplicate_pages_links_are_not_followed(crawl_log) -> None:
    paths, log = crawl_log
    assert paths["/article.html"] == paths["/copy/article.html"] == 1
    assert paths["/from-a.html"] + paths["/from-b.html"] == 1
    assert "'dupes/content': " in log


def test_a_near_duplicate_pages_links_are_not_followed(crawl_log) -> None:
    paths, _ = crawl_log
    assert paths["/near1.html"] == paths["/near2.html"] == 1
    assert paths["/from-near1.html"] + paths["/from-near2.html"] == 1


def test_a_link_loop_stops_at_the_third_repeat(crawl_log) -> None:
    paths, log = crawl_log
    assert [path for path in paths if path.startswith("/a/")] == ["/a/", "/a/a/"]
    assert "'traps/repeated_path': 1" in log


def test_an_empty_calendar_stops_at_its_first_repeated_month(crawl_log) -> None:
    paths, _ = crawl_log
    months = [path for path in paths if path.startswith("/cal/")]
    assert 1 <= len(months) <= 5, months


def test_a_calendar_whose_months_differ_is_bounded_by_its_pattern_budget(crawl_log) -> None:
    paths, log = crawl_log
    months = [path for path in paths if path.startswith("/events/")]
    assert 20 <= len(months) <= 40, len(months)
    assert "'traps/pattern_budget': " in log
    assert re.search(r"Refusing URLs on http://127\.0\.0\.1:\d+ \(pattern_budget\), first one", log)


def test_blacklisted_urls_are_not_fetched(crawl_log) -> None:
    paths, log = crawl_log
    assert "/blocked/one.html" not in paths
    assert "'traps/blacklist_pattern': 1" in log


def test_no_page_is_fetched_twice(crawl_log) -> None:
    paths, _ = crawl_log
    assert max(paths.values()) == 1, [path for path, n in paths.items() if n > 1]

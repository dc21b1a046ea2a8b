"""Chains of same-pattern pages against a real crawl: an endless calendar whose
months each say something new stops after TRAPS_CHAIN_MAX months, both ways together,
while a site's pagination of 200 pages, "older posts" one page after another
or behind a numbered pager, is crawled to its end."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from tests.commands import crawl
from tests.webserver import Reply, page, serve_site

PAGES = 200  # of each pagination
PER_PAGE = 2  # posts or stories listed on each of its pages
CHAIN_MAX = 50  # the TRAPS_CHAIN_MAX default
ALMANAC_WORDS = (
    "tide moon frost sowing barley herring gale fog lantern orchard swallow thaw "
    "ember kelp plough hay oyster mackerel rain drought"
).split()
POST_WORDS = "quay ferry council museum market lane chapel".split()


def _words(seed: object, count: int, vocabulary: list[str]) -> str:
    """Words of their own for each seed: pages that must not look like duplicates."""
    rng = random.Random(str(seed))
    return " ".join(rng.choice(vocabulary) + rng.choice("abcdefgh") for _ in range(count))


def _almanac(year: int, month: int) -> Reply:
    """A month of an endless almanac: text of its own, links to the months either side."""
    prev_y, prev_m = (year, month - 1) if month > 1 else (year - 1, 12)
    next_y, next_m = (year, month + 1) if month < 12 else (year + 1, 1)
    return page(
        f"<title>Almanac {year}-{month:02d}</title><h1>Almanac</h1>"
        f"<p>{_words((year, month), 80, ALMANAC_WORDS)}</p>"
        f'<a href="/almanac/{prev_y}/{prev_m:02d}/">previous month</a> '
        f'<a href="/almanac/{next_y}/{next_m:02d}/">next month</a> <a href="/about.html">about us</a>'
    )


def _listed(kind: str, number: int) -> str:
    """The posts or stories on a listing's page ``number``, each with its title and first words."""
    first = (number - 1) * PER_PAGE + 1
    return (
        "<ul>"
        + "".join(
            f'<li><a href="/{kind}/{n}.html">{_words((kind, n), 3, POST_WORDS)}</a> '
            f"{_words((kind, n), 30, POST_WORDS)}</li>"
            for n in range(first, first + PER_PAGE)
        )
        + "</ul>"
    )


def _prev_next(path: str, kind: str, number: int) -> Reply:
    """A listing one page after another ("newer", "older"), nothing else."""
    links = [f'<a href="{path}{number - 1}">newer</a>'] if number > 1 else []
    if number < PAGES:
        links.append(f'<a href="{path}{number + 1}">older</a>')
    return page(f"<title>{kind}, page {number}</title>{_listed(kind, number)}{' '.join(links)}")


def _pager(number: int) -> Reply:
    """Stories found elsewhere, behind a numbered pager (first, last, three either side)."""
    shown = sorted({1, PAGES, *range(max(1, number - 3), min(PAGES, number + 3) + 1)} - {number})
    pager = " ".join(f'<a href="/list/{n}/">{n}</a>' for n in shown)
    return page(f"<title>All stories, page {number}</title>{_listed('story', number)}<p>{pager}</p>")


def _route(path: str) -> Reply | None:
    if match := re.fullmatch(r"/almanac/(\d{4})/(\d{2})/", path):
        return _almanac(int(match[1]), int(match[2])) if 1 <= int(match[2]) <= 12 else None
    if (match := re.fullmatch(r"/(older|category)\?page=(\d+)", path)) and 1 <= int(match[2]) <= PAGES:
        kind = "post" if match[1] == "older" else "story"
        return _prev_next(f"/{match[1]}?page=", kind, int(match[2]))
    if (match := re.fullmatch(r"/list/(\d+)/", path)) and 1 <= int(match[1]) <= PAGES:
        return _pager(int(match[1]))
    if (match := re.fullmatch(r"/(post|story)/(\d+)\.html", path)) and 1 <= int(match[2]) <= PAGES * PER_PAGE:
        return page(
            f"<title>{_words(match.groups(), 3, POST_WORDS)}</title><p>{_words(match.groups(), 60, POST_WORDS)}</p>"
        )
    return None


STORIES = "".join(f'<a href="/story/{n}.html">story {n}</a> ' for n in range(1, PAGES * PER_PAGE + 1))
ROUTES = {
    "/": page(
        '<title>A small site</title><a href="/almanac/1990/06/">almanac</a> '
        '<a href="/older?page=1">posts</a> <a href="/stories.html">every story</a> '
        '<a href="/about.html">about</a>'
    ),
    "/about.html": page("<title>About us</title><p>Who keeps this site.</p>"),
    # Every story, on one page; then two listings of them: a numbered pager, and one page after another.
    "/stories.html": page(
        f"<title>Every story</title><p>{STORIES}</p>"
        '<a href="/list/1/">by page</a> <a href="/category?page=1">one after another</a>'
    ),
    "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
}


@pytest.fixture(scope="module")
def crawl_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Counter[str], str]:
    data = tmp_path_factory.mktemp("chains")
    with serve_site(ROUTES, default=_route) as site:
        # What is checked is what was fetched: no index, no archive of 1,300 pages.
        done = crawl(
            [site.url("/")],
            data,
            "DOWNLOAD_DELAY=0",
            "CONCURRENT_REQUESTS_PER_DOMAIN=8",
            "CLOSESPIDER_PAGECOUNT=3000",
            "MONITOR_INTERVAL=0",
            "INDEX_WITH_CRAWL=0",
            "ARCHIVE_ENABLED=False",
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert "closespider_pagecount" not in done.stderr, "a chain ran away"
        return Counter(site.paths()), done.stderr


def count(paths: Counter[str], prefix: str) -> int:
    return sum(path.startswith(prefix) for path in paths)


def test_an_endless_calendar_of_new_texts_stops_after_the_chain_budget_both_ways_together(crawl_log) -> None:
    paths, log = crawl_log
    months = sorted(path for path in paths if path.startswith("/almanac/"))
    assert len(months) == 1 + CHAIN_MAX, len(months)  # June 1990, and 50 months either side of it in all
    assert months[0] < "/almanac/1990/06/" < months[-1]
    assert "/almanac/1986/03/" not in months and "/almanac/1994/09/" not in months


def test_older_posts_one_page_after_another_are_crawled_to_the_end(crawl_log) -> None:
    paths, _ = crawl_log
    assert count(paths, "/older?") == PAGES
    assert count(paths, "/post/") == PAGES * PER_PAGE


def test_a_numbered_pager_over_pages_found_elsewhere_is_crawled_to_the_end(crawl_log) -> None:
    paths, _ = crawl_log
    assert count(paths, "/list/") == PAGES


def test_a_listing_one_page_after_another_of_pages_found_elsewhere_stops_like_a_calendar(crawl_log) -> None:
    """What the rule gives up: the listing's own pages past the budget; every story is fetched."""
    paths, _ = crawl_log
    assert count(paths, "/category?") == 1 + CHAIN_MAX
    assert count(paths, "/story/") == PAGES * PER_PAGE


def test_each_chain_stopped_is_counted_and_logged_once_per_site(crawl_log) -> None:
    _, log = crawl_log
    assert "'traps/chain': 3" in log  # the almanac each way, the listing
    assert len(re.findall(r"Refusing URLs on http://127\.0\.0\.1:\d+ \(chain\), first one", log)) == 1


def test_no_page_is_fetched_twice(crawl_log) -> None:
    paths, _ = crawl_log
    assert max(paths.values()) == 1

"""Endless calendars against real crawls (tests/calendar_site.py): months that
each read differently and link pages the crawl found long ago (a dozen
events, or one recurring page) stop after TRAPS_CHAIN_MAX months in all, both
ways together, even when those pages were found by an earlier run of the
crawl; an archive whose months each list new articles is crawled to its end;
and a recrawl of the known pages walks no calendar further."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from tests.calendar_site import ARCHIVE, EVENTS, START, articles, months, serve_calendars
from tests.commands import crawl

CHAIN_MAX = 50  # the TRAPS_CHAIN_MAX default
SAFETY = "CLOSESPIDER_PAGECOUNT=1500"  # a runaway crawl still ends, and the test says why


class Run:
    def __init__(self, paths: list[str], log: str, returncode: int) -> None:
        self.paths, self.log, self.returncode = Counter(paths), log, returncode

    def months(self, kind: str) -> set[str]:
        return months(self.paths, kind)

    def ended_on_its_own(self) -> bool:
        return self.returncode == 0 and "'finish_reason': 'finished'" in self.log


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, Run]:
    """The calendars crawled by a second run of a crawl whose first run found
    the events; then a recrawl of every page the two runs know."""
    data = tmp_path_factory.mktemp("calendars")
    done: list[Run] = []
    with serve_calendars() as site:
        steps = [
            ([site.url("/events.html")], ()),
            ([site.url(path) for path in START.values()], ()),
            ([], ("recrawl=all",)),
        ]
        for seeds, arguments in steps:
            before = len(site.paths())
            result = crawl(seeds, data, "DOWNLOAD_DELAY=0", "MONITOR_INTERVAL=0", SAFETY, spider_args=arguments)
            done.append(Run(site.paths()[before:], result.stderr, result.returncode))
    assert done[0].ended_on_its_own(), done[0].log[-3000:]
    assert len(done[0].paths) < EVENTS + 6 and not done[0].months("calendar")
    return done[1], done[2]


def test_a_calendar_linking_events_found_earlier_stops_after_the_chain_budget(runs) -> None:
    calendars, _ = runs
    assert calendars.ended_on_its_own(), calendars.log[-3000:]
    assert len(calendars.months("calendar")) <= CHAIN_MAX + 10, len(calendars.months("calendar"))
    assert not any(path.startswith("/event/") for path in calendars.paths)  # known: not fetched again


def test_a_calendar_linking_one_recurring_page_stops_after_the_chain_budget(runs) -> None:
    calendars, _ = runs
    assert len(calendars.months("agenda")) <= CHAIN_MAX + 10, len(calendars.months("agenda"))
    assert calendars.paths["/agenda/weekly-market.html"] == 1


def test_an_archive_listing_new_articles_each_month_is_crawled_to_its_end(runs) -> None:
    calendars, _ = runs
    assert {f"/archive/{year}-{month:02d}" for year, month in ARCHIVE} <= calendars.months("archive")
    assert len(articles(calendars.paths)) == 2 * len(ARCHIVE)


def test_the_chains_stopped_are_counted(runs) -> None:
    calendars, _ = runs
    found = re.search(r"'traps/chain': (\d+)", calendars.log)
    assert found and int(found[1]) >= 2, calendars.log[-3000:]


def test_a_recrawl_revisits_the_known_months_and_walks_no_calendar_further(runs) -> None:
    calendars, recrawl = runs
    assert recrawl.ended_on_its_own(), recrawl.log[-3000:]
    for kind in START:
        assert recrawl.months(kind) <= calendars.months(kind), kind
    assert "/events.html" in recrawl.paths  # the pages that were due, revisited

"""A site of endless calendars and one real archive, served on 127.0.0.1: the
hostile site of the chain rule's tests and of ``python -m bench.hostile``.

    with serve_calendars() as site:
        site.url("/events.html")            # a dozen event pages
        site.url(START["calendar"])         # months naming one of those events each
        site.url(START["agenda"])           # months naming one recurring page
        site.url(START["archive"])          # ARCHIVE months, each listing two new articles
        months(site.paths(), "calendar")    # the calendar months requested

Every month of a calendar or the agenda, in any year, has text of its own and
links the months before and after it: a crawl that follows them never ends
unless it stops itself. The archive's months exist from 2000 to 2006 (84),
each linking the two articles it lists, the months either side and an event.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from tests.webserver import Reply, Site, page, serve_site

__all__ = ["ARCHIVE", "EVENTS", "PATHS", "START", "articles", "months", "serve_calendars"]

EVENTS = 12
ARCHIVE = [(year, month) for year in range(2000, 2007) for month in range(1, 13)]
PATHS = {"calendar": "/calendar/month/", "agenda": "/agenda/", "archive": "/archive/"}
START = {"calendar": "/calendar/month/1999-06", "agenda": "/agenda/1999-06", "archive": "/archive/2003-06"}
_WORDS = "tide moon frost sowing barley herring gale fog lantern orchard swallow thaw ember kelp".split()
_MONTH = re.compile(r"/(calendar/month|agenda|archive)/(\d{4})-(\d{2})")
_LEAF = re.compile(r"/(event/\d+|article/\d{4}-\d{2}-\d|agenda/weekly-market)\.html")


def _words(seed: object, count: int = 60) -> str:
    """Words of their own for each seed: pages that must not look like duplicates."""
    rng = random.Random(str(seed))
    return " ".join(rng.choice(_WORDS) + rng.choice("abcdefgh") for _ in range(count))


def _month(path: str, prefix: str, year: int, month: int, extra: str) -> Reply:
    before = f"{year}-{month - 1:02d}" if month > 1 else f"{year - 1}-12"
    after = f"{year}-{month + 1:02d}" if month < 12 else f"{year + 1}-01"
    return page(
        f"<title>{path}</title><p>{_words(path)}</p>"
        f'<a href="{prefix}{before}">previous month</a> <a href="{prefix}{after}">next month</a> {extra}'
    )


def _route(path: str) -> Reply | None:
    if match := _MONTH.fullmatch(path):
        kind, year, month = match[1], int(match[2]), int(match[3])
        prefix = f"/{kind}/"
        if not 1 <= month <= 12:
            return None
        if kind == "calendar/month":
            return _month(path, prefix, year, month, f'<a href="/event/{month % EVENTS}.html">this month</a>')
        if kind == "agenda":
            return _month(path, prefix, year, month, '<a href="/agenda/weekly-market.html">the market</a>')
        if (year, month) not in ARCHIVE:
            return None
        listed = " ".join(f'<a href="/article/{year}-{month:02d}-{n}.html">story {n}</a>' for n in (1, 2))
        return _month(path, prefix, year, month, f'{listed} <a href="/event/3.html">the fair</a>')
    if _LEAF.fullmatch(path):
        return page(f"<title>{path}</title><p>{_words(path)}</p>")
    return None


_ROUTES = {
    "/events.html": page(
        "<title>Events</title>" + " ".join(f'<a href="/event/{n}.html">event {n}</a>' for n in range(EVENTS))
    ),
    "/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"}),
}


@contextmanager
def serve_calendars() -> Iterator[Site]:
    with serve_site(_ROUTES, default=_route) as site:
        yield site


def months(paths: Iterable[str], kind: str) -> set[str]:
    """The months of ``kind`` (a key of :data:`PATHS`) among ``paths``."""
    prefix = PATHS[kind]
    return {path for path in paths if path.startswith(prefix) and re.fullmatch(r"\d{4}-\d{2}", path[len(prefix) :])}


def articles(paths: Iterable[str]) -> set[str]:
    return {path for path in paths if path.startswith("/article/")}

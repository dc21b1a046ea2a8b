"""When to fetch a known page again: adaptive revisit intervals (pure).

ARCHITECTURE.md, item 24: pages change at their own pace, so each URL gets its own
interval. A page starts at ``RECRAWL_INTERVAL``; every revisit that finds it
changed halves the interval, every one that finds it unchanged (a 304, or
the same text) doubles it, always within the site's minimum and maximum
(``RECRAWL_MIN_INTERVAL`` / ``RECRAWL_MAX_INTERVAL``, or the site's own pair
in ``RECRAWL_SITE_INTERVALS``). Halving and doubling converge on a page's
rate of change within a few visits (Cho and Garcia-Molina's estimators do
better with a long history; this needs none) and never revisit more often
than a site allows.

The crawler decides the bounds (they are settings of the crawl) and puts
them into each page item; the indexer, which keeps each URL's history,
computes the next interval with :func:`next_interval` and keeps it in its
page store, where a recrawl (``-a recrawl=1``) reads which pages are due
with :func:`due_pages`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from typing import Any

from crawler.sites import site_of

__all__ = ["RevisitBounds", "next_interval", "conditional_headers", "due_pages"]


def next_interval(previous: float, changed: bool, low: float, high: float) -> float:
    """The interval after a revisit: half when the page changed, double when not.

    >>> next_interval(86400, changed=True, low=3600, high=30 * 86400)
    43200.0
    >>> next_interval(86400, changed=False, low=3600, high=172800)
    172800.0
    >>> next_interval(5000, changed=True, low=3600, high=86400)   # never below the minimum
    3600.0
    >>> next_interval(0, changed=False, low=600, high=86400)       # grows from the minimum
    1200.0
    """
    low, high = float(low), max(float(low), float(high))
    current = min(max(float(previous), low), high)
    return min(max(current / 2 if changed else current * 2, low), high)


class RevisitBounds:
    """The first interval, minimum and maximum (seconds) of each site's pages.

    >>> bounds = RevisitBounds(86400, 3600, 2592000, {"https://news.example": [600, 43200]})
    >>> bounds.for_url("https://news.example/today.html"), bounds.for_url("http://a.test/")
    ((43200.0, 600.0, 43200.0), (86400.0, 3600.0, 2592000.0))
    """

    def __init__(self, first: float, low: float, high: float, sites: Mapping[str, Any] | None = None) -> None:
        self.first, self.low, self.high = float(first), float(low), max(float(low), float(high))
        self.sites: dict[str, tuple[float, float]] = {}
        for site, pair in (sites or {}).items():
            try:
                site_low, site_high = (float(value) for value in pair)
            except (TypeError, ValueError):
                raise ValueError(f"RECRAWL_SITE_INTERVALS[{site!r}] must be [minimum, maximum] in seconds") from None
            self.sites[site_of(site)] = (site_low, max(site_low, site_high))

    @classmethod
    def from_settings(cls, settings: Any) -> RevisitBounds:
        return cls(
            settings.getfloat("RECRAWL_INTERVAL"),
            settings.getfloat("RECRAWL_MIN_INTERVAL"),
            settings.getfloat("RECRAWL_MAX_INTERVAL"),
            settings.getdict("RECRAWL_SITE_INTERVALS"),
        )

    def for_url(self, url: str) -> tuple[float, float, float]:
        """``(first interval, minimum, maximum)`` for ``url``'s site."""
        low, high = self.sites.get(site_of(url), (self.low, self.high))
        return min(max(self.first, low), high), low, high


def conditional_headers(etag: str | None, last_modified: str | None) -> dict[str, str]:
    """The validators of the last fetch, as a conditional request sends them back.

    >>> conditional_headers('"v1"', None)
    {'If-None-Match': '"v1"'}
    """
    headers = {}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    return headers


def due_pages(db: sqlite3.Connection, now: float | None) -> Iterator[tuple[str, str | None, str | None, float]]:
    """``(url, etag, last_modified, fetched)`` of the pages due by ``now``
    (None: every page), soonest due first.

    ``db`` is the indexer's page store (``DATA_DIR/pages.sqlite``), whose
    ``revisits`` table :class:`indexer.store.PageStore` writes: the crawl
    reads it here, so that it needs nothing of the indexer's code.

    >>> db = sqlite3.connect(":memory:")
    >>> _ = db.execute("CREATE TABLE revisits (url, etag, last_modified, fetched, due)")
    >>> _ = db.executemany("INSERT INTO revisits VALUES (?, NULL, NULL, 0, ?)",
    ...                    [("http://a.test/", 50), ("http://b.test/", 10)])
    >>> [url for url, *_ in due_pages(db, 20)], [url for url, *_ in due_pages(db, None)]
    (['http://b.test/'], ['http://b.test/', 'http://a.test/'])
    """
    query = "SELECT url, etag, last_modified, fetched FROM revisits"
    if now is None:
        yield from db.execute(query + " ORDER BY due")
    else:
        yield from db.execute(query + " WHERE due <= ? ORDER BY due", (now,))

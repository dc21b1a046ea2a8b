"""Crawler items as the spider yields them (:mod:`crawler.items`), for tests of the indexer and search.

A test names only the keys it is about: the indexer reads an item that
leaves the others out as it reads the crawl's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from crawler.items import DuplicateItem, GoneItem, PageItem, UnchangedItem


def page(url: str, title: str, text: str = "", links: Iterable[tuple[str, str]] = (), **extra: Any) -> PageItem:
    """A page item: its URL, title, body text and ``(target, anchor text)`` links."""
    return PageItem(type="page", url=url, title=title, text=text, links=[list(link) for link in links], **extra)


def gone(url: str, status: int = 404) -> GoneItem:
    """A gone item: the URL answered ``status`` (404, 410)."""
    return GoneItem(type="gone", url=url, status=status)


def duplicate(url: str, of: str) -> DuplicateItem:
    """A duplicate item: ``url`` holds the content ``of`` had first."""
    return DuplicateItem(type="duplicate", url=url, of=of)


def unchanged(url: str, fetched: float, revisit: list[float]) -> UnchangedItem:
    """An unchanged item: a revisit of ``url`` answered 304 at ``fetched``."""
    return UnchangedItem(type="unchanged", url=url, fetched=fetched, revisit=revisit)

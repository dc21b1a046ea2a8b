"""Crawler items as the spider yields them, for tests of the indexer and search."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def page(url: str, title: str, text: str = "", links: Iterable[tuple[str, str]] = (), **extra: Any) -> dict:
    """A page item: its URL, title, body text and ``(target, anchor text)`` links."""
    return {"type": "page", "url": url, "title": title, "text": text, "links": [list(link) for link in links], **extra}

"""What the crawl hands the indexer: four kinds of item, and their JSON form (pure).

The page logic (:mod:`crawler.pages`) makes them, in the crawl and in a
rebuild; the crawl's pipeline pushes them onto the Redis item queue as JSON
(:func:`encode_item`), and the indexer reads them back (:func:`decode_item`)
and indexes them (:mod:`indexer.builder`). The table of the four is in
ARCHITECTURE.md, "Contracts".

Each is a ``TypedDict``, told apart by ``type``: an item is the JSON object
on the queue, and a dict wherever a program holds it, so mypy checks every
key and value where items are made and where they are read, while the bytes
on the queue stay exactly what the crawl always wrote, without a conversion
at either end. Keys marked ``NotRequired`` are sent only when they say
something (``members_only`` when true, ``soft`` and ``noindex`` when so).

>>> item = GoneItem(type="gone", url="http://a.test/x", status=404)
>>> encode_item(item)
b'{"type":"gone","url":"http://a.test/x","status":404}'
>>> decode_item(encode_item(item)) == item
True
"""

from __future__ import annotations

import json
from typing import Any, Literal, NotRequired, TypedDict, cast

__all__ = [
    "ITEM_TYPES",
    "DuplicateItem",
    "GoneItem",
    "Item",
    "NotAnItem",
    "PageItem",
    "UnchangedItem",
    "decode_item",
    "encode_item",
]


class PageItem(TypedDict):
    """A page fetched and read (a 2xx answer): what the index, the page
    store and the link graph keep of it."""

    type: Literal["page"]
    url: str  # canonical
    aliases: list[str]  # URLs that redirected here, canonical
    status: int
    depth: int
    title: str
    description: str
    keywords: str
    headings: list[str]
    sections: list[list[str]]  # [id, text, tag] of each heading a link can point into
    emphasis: list[str]
    text: str
    lang: str
    kind: str  # the extractor that read it: html, text, pdf, media
    media_type: str
    size: int | None  # bytes of the body, as a result shows it
    links: list[list[str]]  # [target URL, anchor text], the links to follow and index
    fetched: float | None  # epoch seconds
    etag: str | None
    last_modified: str | None
    revisit: list[float]  # the site's revisit bounds: first, least and longest interval (s)
    digest: str | None  # MD5 of the page's text (hex): the indexer's "changed?"
    members_only: NotRequired[bool]  # fetched with a site owner's credentials
    hierarchy: NotRequired[list[str]]  # its ancestors' titles, the site's top first
    alternates: NotRequired[list[list[str]]]  # [lang, url] of its translations (hreflang)


class GoneItem(TypedDict):
    """A URL that must leave the index: a 404 or 410, a 200 that says it is
    not found (``soft``), a page indexed before that now says ``noindex``."""

    type: Literal["gone"]
    url: str
    status: int
    soft: NotRequired[bool]
    noindex: NotRequired[bool]


class DuplicateItem(TypedDict):
    """A page whose content another URL, ``of``, had first: ``url`` and its
    ``aliases`` become aliases of that one."""

    type: Literal["duplicate"]
    url: str
    of: str
    aliases: list[str]


class UnchangedItem(TypedDict):
    """A revisit answered 304: the page stays; when to fetch it next changes."""

    type: Literal["unchanged"]
    url: str
    fetched: float
    etag: str | None
    last_modified: str | None
    revisit: list[float]


Item = PageItem | GoneItem | DuplicateItem | UnchangedItem

#: The ``type`` of each kind of item.
ITEM_TYPES = ("page", "gone", "duplicate", "unchanged")


class NotAnItem(ValueError):
    """Bytes on the item queue that are no item: why, in a few words."""


def encode_item(item: Item) -> bytes:
    """An item as it travels on the item queue: compact JSON, UTF-8, keys in
    the order the item has them."""
    return json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode()


def decode_item(data: bytes | str) -> Item:
    """The item :func:`encode_item` wrote, or :class:`NotAnItem`.

    >>> decode_item(b'{"url": "http://a.test/"}')
    Traceback (most recent call last):
    ...
    crawler.items.NotAnItem: an item of unknown type None
    """
    try:
        found: Any = json.loads(data)
    except ValueError:
        raise NotAnItem("an item that is not JSON") from None
    if not isinstance(found, dict) or not isinstance(found.get("url"), str):
        raise NotAnItem("an item without a url")
    if found.get("type") not in ITEM_TYPES:
        raise NotAnItem(f"an item of unknown type {found.get('type')!r}")
    return cast(Item, found)

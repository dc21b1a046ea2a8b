"""A page's place in its site: the titles of its ancestors (pure).

A manual's page is found by its section's words as well as its own
(``topics testing tools``, ``ref models instances``), yet a breadcrumb is
chrome and never reaches the body. So the walk over a page hands the
breadcrumb here, and :func:`ancestry` makes the page's hierarchy from the
top of the site down to its parent, from what the page says of itself, the
first that gives one:

1. a breadcrumb: an element marked as one (``aria-label="breadcrumb"``, a
   ``breadcrumb`` class or id, schema.org's ``BreadcrumbList`` in
   microdata or JSON-LD), or Sphinx's ``nav-item-N`` links;
2. the ``rel="home"`` and ``rel="up"`` links (DocBook's, Sphinx's
   ``accesskey="U"``), by their titles.

The page's own title is never one of its ancestors, and neither are link
words that name no place ("up", "home", "previous").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

import lxml.etree

__all__ = ["MAX_LEVELS", "ancestry", "breadcrumb_titles", "is_breadcrumb", "json_ld_trail", "nav_item_level"]

MAX_LEVELS = 8
_MAX_TITLE = 120
_MAX_JSON = 65536
_NAV_ITEM = re.compile(r"\bnav-item-(\d+)\b")
# Link words that say where a link goes in the page sequence, not what is there.
_NO_PLACE = frozenset(
    "up home top index contents previous prev next back parent start toc « » ‹ › ↑ ^".split()
    + ["table of contents", "up one level", "go up"]
)


def is_breadcrumb(element: lxml.etree._Element) -> bool:
    """Whether ``element`` is marked as a breadcrumb trail.

    >>> is_breadcrumb(lxml.etree.fromstring('<nav aria-label="Breadcrumb"/>'))
    True
    >>> is_breadcrumb(lxml.etree.fromstring('<ol itemtype="https://schema.org/BreadcrumbList"/>'))
    True
    >>> is_breadcrumb(lxml.etree.fromstring('<div class="nav"/>'))
    False
    """
    if "breadcrumb" in (element.get("aria-label") or "").lower():
        return True
    if (element.get("itemtype") or "").endswith("BreadcrumbList"):
        return True
    names = f"{element.get('class') or ''} {element.get('id') or ''}".lower()
    return "breadcrumb" in names


def breadcrumb_titles(element: lxml.etree._Element) -> list[str]:
    """The places a breadcrumb names, in order: its microdata names when it
    has them, else the words of its links.

    >>> breadcrumb_titles(lxml.etree.fromstring(
    ...     '<ol><li><a href="/">Docs</a> ›</li><li><a href="/db/">Models and databases</a></li>'
    ...     '<li>Making queries</li></ol>'))
    ['Docs', 'Models and databases']
    """
    named = [_text(found) for found in element.iter() if found.get("itemprop") == "name"]
    if named:
        return [name for name in named if name]
    return [text for text in (_text(link) for link in element.iter("a")) if text]


def nav_item_level(element: lxml.etree._Element) -> int | None:
    """Sphinx's trail: the level of a ``li class="nav-item nav-item-N"``.

    >>> nav_item_level(lxml.etree.fromstring('<li class="nav-item nav-item-2"/>'))
    2
    >>> nav_item_level(lxml.etree.fromstring('<li class="nav-item nav-item-this"/>')) is None
    True
    """
    match = _NAV_ITEM.search(element.get("class") or "")
    return int(match.group(1)) if match else None


def json_ld_trail(text: str) -> list[str]:
    """The names of a schema.org ``BreadcrumbList`` in JSON-LD, by position;
    [] for anything else or for JSON that does not parse.

    >>> json_ld_trail('{"@type": "BreadcrumbList", "itemListElement": ['
    ...               '{"position": 2, "name": "Guides"}, {"position": 1, "item": {"name": "Home"}}]}')
    ['Home', 'Guides']
    >>> json_ld_trail("{broken")
    []
    """
    if len(text) > _MAX_JSON:
        return []
    try:
        data = json.loads(text)
    except ValueError:
        return []
    for node in _nodes(data, 0):
        if node.get("@type") == "BreadcrumbList" and isinstance(node.get("itemListElement"), list):
            entries = [entry for entry in node["itemListElement"] if isinstance(entry, dict)]
            entries.sort(key=_position)
            names = []
            for entry in entries:
                name = entry.get("name")
                item = entry.get("item")
                if not isinstance(name, str) and isinstance(item, dict):
                    name = item.get("name")
                if isinstance(name, str) and name.strip():
                    names.append(" ".join(name.split()))
            return names
    return []


def _position(entry: dict[str, Any]) -> int:
    position = entry.get("position")
    return position if isinstance(position, int) else 0


def _nodes(data: Any, depth: int) -> Iterable[dict[str, Any]]:
    """The JSON objects of a JSON-LD document, a few levels down."""
    if depth > 4:
        return
    if isinstance(data, list):
        for value in data:
            yield from _nodes(value, depth + 1)
    elif isinstance(data, dict):
        yield data
        graph = data.get("@graph")
        if isinstance(graph, list):
            yield from _nodes(graph, depth + 1)


def ancestry(trail: list[str], home: str, up: str, title: str) -> list[str]:
    """A page's hierarchy, from the top of its site to its parent: the
    ``trail`` a breadcrumb gave, else the ``home`` and ``up`` links'
    titles; without the page's own title, link words that name no place,
    or a level said twice.

    >>> ancestry(["Home", "Docs", "Models and databases", "Making queries"], "", "", "Making queries")
    ['Docs', 'Models and databases']
    >>> ancestry([], "Debian Reference", "Debian Reference", "Chapter 2. Debian package management")
    ['Debian Reference']
    >>> ancestry([], "", "up", "Testing tools")
    []
    """
    levels = trail or [home, up]
    own = _key(title)
    found: list[str] = []
    for level in levels:
        level = " ".join(level.split())[:_MAX_TITLE]
        key = _key(level)
        if not key or key in _NO_PLACE or key == own or any(_key(seen) == key for seen in found):
            continue
        found.append(level)
    return found[-MAX_LEVELS:]


def _key(text: str) -> str:
    return " ".join(text.lower().split()).strip(" :|»›>/")


def _text(element: lxml.etree._Element) -> str:
    return " ".join("".join(element.itertext()).split())

"""What extraction hands on: a page's fields and its links (pure data).

One shape for every media type, so the spider, the content fingerprints and
the indexer never ask which extractor made a page; ``kind`` says it when it
matters (a "media" page has no text and is known by the anchors pointing at
it, ARCHITECTURE.md, item 22).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Link", "Page", "KINDS"]

#: What ``Page.kind`` may be: which extractor made the page.
KINDS = ("html", "text", "pdf", "media")


@dataclass
class Link:
    """A link found on a page: where to, the words on it, and its ``rel``.

    ``text`` is the anchor text, else the link's ``title``, else the ``alt``
    text of its images; ``rel`` holds the lower-cased ``rel`` tokens
    (``nofollow`` among them sets ``nofollow``).
    """

    url: str
    text: str
    nofollow: bool = False
    rel: frozenset[str] = frozenset()


@dataclass
class Page:
    """A fetched document's fields, as the index wants them.

    ``url`` is where it was fetched; ``canonical`` is the same-site URL the
    document names as its own (``<link rel="canonical">`` or a ``Link``
    header), ``refresh`` where a meta refresh or a ``Refresh`` header sends
    the reader. ``blocks`` are the body's paragraph-level pieces in reading
    order (``text`` is them joined by spaces): the unit the per-site
    boilerplate detector counts. ``meta`` holds every ``<meta name>`` by its
    lower-cased name (repeated names joined by ", "), for crawler-specific
    robots tags; ``robots`` is the parsed ``robots`` one. ``kind`` is one of
    ``KINDS``, ``media_type`` what the body was read as (declared or
    sniffed), ``encoding`` the codec that decoded it ("" when text came in).
    ``lang`` is declared (``<html lang>``) or guessed ("zh", "ja", "ko");
    ``lang_from_url`` says it is only what the page's URL names (nothing
    declared one), which tells nothing of the language of its text.
    ``sections`` are the ``[id, text, tag]`` of the headings (``h1``...)
    and definitions (``dt``) a link can point into (``page.html#id``):
    search links a result to the section its query names. ``notes`` name
    what the extractor had to work around to read the page (``deep_nesting``),
    counted as ``extract/<note>``. ``hierarchy`` is the page's place in its
    site, the titles of its ancestors from the top down (a breadcrumb, the
    ``rel="up"`` and ``rel="home"`` links), ``alternates`` the ``[lang,
    url]`` of its translations its markup names (``hreflang``).
    """

    url: str
    title: str = ""
    description: str = ""
    keywords: str = ""
    headings: list[str] = field(default_factory=list)
    emphasis: list[str] = field(default_factory=list)
    text: str = ""
    lang: str = ""
    lang_from_url: bool = False
    links: list[Link] = field(default_factory=list)
    robots: frozenset[str] = frozenset()
    kind: str = "html"
    media_type: str = "text/html"
    encoding: str = ""
    canonical: str | None = None
    refresh: str | None = None
    meta: dict[str, str] = field(default_factory=dict)
    blocks: list[str] = field(default_factory=list)
    sections: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    hierarchy: list[str] = field(default_factory=list)
    alternates: list[list[str]] = field(default_factory=list)

"""From any fetched body to a page, by media type (pure).

One module per type, each with ``MEDIA_TYPES`` (exact types, or prefixes
ending in ``*``) and ``extract(body, url, content_type, resolve)`` returning
a :class:`Page` or a skip reason; :func:`extract` picks the module, so the
spider has one call for every type (ARCHITECTURE.md, item 20). Adding a type means
adding a module and naming it in ``_MODULES``.  Every outcome is data, never
an exception: a page, or one of ``SKIP_REASONS`` for the caller to count.

>>> result = extract(b"<title>Hi</title><p>there</p>", "http://a.test/", "text/html")
>>> result.page.title, result.page.text, result.page.kind, result.skip
('Hi', 'there', 'html', None)
>>> extract(b"\\x00\\x01junk\\x00" * 20, "http://a.test/", "text/html").skip
'binary_as_html'
>>> extract(b"body{}", "http://a.test/s.css", "text/css").skip
'unknown_type'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from crawler.extractors import html, media, pdf, text
from crawler.extractors.html import settle_language
from crawler.extractors.location import (
    Resolve,
    link_header_canonical,
    refresh_target,
)
from crawler.extractors.page import Link, Page
from crawler.extractors.sniff import GENERIC, magic, media_type_of, sniff
from crawler.languages import language_tag
from crawler.sites import same_site
from crawler.urls import canonicalize, has_userinfo

__all__ = ["Extraction", "Extractor", "Link", "Page", "SKIP_REASONS", "extract", "extractor_for"]

#: The note (counted as ``extract/credentials_in_link``) for each link that
#: named a user or password before its host: the link is kept without them.
CREDENTIALS_IN_LINK = "credentials_in_link"

#: Why a body gave no page. "binary_as_html"/"binary_as_text": junk served as
#: text; "unknown_type": a type no extractor reads (CSS, scripts, JSON, fonts...).
SKIP_REASONS = (
    "empty",
    "unknown_type",
    "binary_as_html",
    "binary_as_text",
    "pdf_unreadable",
    "pdf_encrypted",
)


class Extractor(Protocol):
    """What a type's module provides: a page from a body, or a skip reason."""

    def __call__(self, body: bytes, url: str, content_type: str | None, resolve: Resolve) -> Page | str: ...


_MODULES = (html, text, pdf, media)
_BY_TYPE: dict[str, Extractor] = {
    media_type: module.extract
    for module in _MODULES
    for media_type in module.MEDIA_TYPES
    if not media_type.endswith("*")
}
_BY_PREFIX: tuple[tuple[str, Extractor], ...] = tuple(
    (media_type[:-1], module.extract)
    for module in _MODULES
    for media_type in module.MEDIA_TYPES
    if media_type.endswith("*")
)
_TEXT_TYPES = ("text/", "application/xhtml+xml")


@dataclass(frozen=True)
class Extraction:
    """The outcome for one body: a ``page``, or the ``skip`` reason why none.

    ``media_type`` is what the body was read as (declared or sniffed).
    """

    media_type: str
    page: Page | None = None
    skip: str | None = None


def extractor_for(media_type: str) -> Extractor | None:
    """The extractor registered for a media type, exactly or by prefix.

    >>> extractor_for("image/png") is media.extract, extractor_for("text/css")
    (True, None)
    """
    found = _BY_TYPE.get(media_type)
    if found is not None:
        return found
    for prefix, extractor in _BY_PREFIX:
        if media_type.startswith(prefix):
            return extractor
    return None


def _media_type(body: bytes, content_type: str | None) -> str:
    """The declared media type, unless it is missing, malformed or generic
    (then sniffed), or a binary signature contradicts a declared text type
    (see :mod:`crawler.extractors.sniff`)."""
    declared = media_type_of(content_type)
    if declared is None or declared in GENERIC:
        return sniff(body)
    if declared.startswith(_TEXT_TYPES):
        return magic(body) or declared
    return declared


def extract(
    body: bytes,
    url: str,
    content_type: str | None = None,
    headers: Mapping[str, str] | None = None,
    resolve: Resolve = canonicalize,
) -> Extraction:
    """Extract the document fetched from ``url`` (already canonical).

    ``content_type`` is the Content-Type header (None: taken from
    ``headers``, else sniffed); ``headers`` are the response headers, any
    case, one string each (Scrapy: ``response.headers.to_unicode_dict()``);
    ``resolve(href, base)`` is the crawl's canonicalization.
    """
    lowered = {name.lower(): value for name, value in headers.items()} if headers else {}
    if content_type is None:
        content_type = lowered.get("content-type")
    media_type = _media_type(body, content_type)
    if not body or body.isspace():
        return Extraction(media_type, skip="empty")
    extractor = extractor_for(media_type)
    if extractor is None:
        return Extraction(media_type, skip="unknown_type")
    with_userinfo: list[str] = []

    def resolve_noting_userinfo(href: str, base: str) -> str:
        if has_userinfo(href):
            with_userinfo.append(href)
        return resolve(href, base)

    result = extractor(body, url, content_type, resolve_noting_userinfo)
    if isinstance(result, str):
        return Extraction(media_type, skip=result)
    result.media_type = media_type
    _apply_headers(result, lowered, resolve_noting_userinfo)
    result.notes.extend(CREDENTIALS_IN_LINK for _ in with_userinfo)
    return Extraction(media_type, page=result)


def _apply_headers(page: Page, headers: Mapping[str, str], resolve: Resolve) -> None:
    """What HTTP headers add to what markup says: ``Refresh`` (it wins over a
    meta refresh, as the header comes first), a ``Link: <...>;
    rel="canonical"`` (used when markup names no canonical) and
    ``Content-Language`` (used when markup declares no language; then
    :func:`~crawler.extractors.html.undeclared_language`)."""
    if not page.lang:  # markup declares none: the header, else hreflang, the URL, a guess
        settle_language(page, language_tag((headers.get("content-language") or "").split(",")[0]))
    page.alternates = [pair for pair in page.alternates if pair[1] != page.url]
    refresh = headers.get("refresh")
    if refresh:
        target = refresh_target(refresh, page.url, resolve)
        if target is not None and target != page.url:
            page.refresh = target
    link = headers.get("link")
    if link and page.canonical is None:
        href = link_header_canonical(link)
        if href:
            try:
                canonical = resolve(href, page.url)
            except ValueError:
                return
            if same_site(canonical, page.url):
                page.canonical = canonical

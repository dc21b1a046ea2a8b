"""Where a document says it lives, or sends its reader (pure).

Two hints, each in markup or in an HTTP header:

- a refresh (``<meta http-equiv="refresh" content="5; url=...">`` or the
  ``Refresh`` header, same syntax): followed like a redirect (ARCHITECTURE.md,
  item 10). Parsed the WHATWG way ("shared declarative refresh steps"):
  leniently, ``0;URL='x'``, ``0, x`` and ``1.5 ; url = x`` all work; no URL
  means "reload this page", which is no hint at all.
- a canonical URL (``<link rel="canonical">`` or ``Link: <...>;
  rel="canonical"``): kept only when it stays on the same site (scheme, host
  and port), because a page may not speak for another site's URLs: a
  cross-site canonical is how scrapers and spammers steal rank.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["parse_refresh", "refresh_target", "link_header_canonical"]

Resolve = Callable[[str, str], str]

_REFRESH = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?(.*)", re.I | re.S)
_LINK_VALUE = re.compile(r"<([^>]*)>([^<]*)")
_REL = re.compile(r""";\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))""", re.I)
_HTTP = ("http://", "https://")


def parse_refresh(value: str) -> tuple[float, str] | None:
    """(delay in seconds, the URL as written) of a refresh value, or None.

    >>> parse_refresh("0; URL='/next.html'"), parse_refresh("5,http://a.test/")
    ((0.0, '/next.html'), (5.0, 'http://a.test/'))
    >>> parse_refresh("30"), parse_refresh("soon; url=/x")
    ((30.0, ''), None)
    """
    match = _REFRESH.match(value)
    if match is None:
        return None
    url = match.group(2).strip()
    if url[:1] in ("'", '"'):
        url = url[1:].split(url[0], 1)[0].strip()
    return float(match.group(1)), url


def refresh_target(value: str, base: str, resolve: Resolve) -> str | None:
    """The absolute http(s) URL a refresh value sends to, or None.

    >>> from crawler.urls import canonicalize
    >>> refresh_target("0;url=../b.html", "http://a.test/x/y.html", canonicalize)
    'http://a.test/b.html'
    >>> refresh_target("10", "http://a.test/", canonicalize) is None
    True
    """
    parsed = parse_refresh(value)
    if parsed is None or not parsed[1]:
        return None
    try:
        target = resolve(parsed[1], base)
    except ValueError:
        return None
    return target if target.startswith(_HTTP) else None


def link_header_canonical(value: str) -> str | None:
    """The URL a ``Link`` header marks ``rel="canonical"``, as written.

    >>> link_header_canonical('<http://a.test/p?x=1>; rel="canonical", </n>; rel=next')
    'http://a.test/p?x=1'
    """
    for match in _LINK_VALUE.finditer(value):
        for rel in _REL.finditer(match.group(2)):
            if "canonical" in (rel.group(1) or rel.group(2) or "").lower().split():
                return match.group(1).strip()
    return None

"""Which elements are a site's chrome: navigation, site header and footer,
sidebars (pure).

Chrome text stays out of a page's body, headings and emphasis so that a
menu does not make every page of a site match its words (ARCHITECTURE.md, item 21);
its links are still followed.  Chrome is what HTML says is chrome
(:func:`is_chrome`); what escapes it, the per-site boilerplate detector
(crawler/boilerplate.py) catches once a site has a few pages.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import lxml.etree

__all__ = ["SECTIONS", "is_chrome"]

#: Elements inside which ``header`` and ``footer`` are content.
SECTIONS = frozenset(["article", "main", "section"])

_CHROME_TAGS = frozenset(["nav", "aside"])
_SECTION_CHROME = frozenset(["header", "footer"])  # chrome unless inside a section
# ARIA landmarks that mark the same chrome on sites that predate HTML5.
_CHROME_ROLES = frozenset(["navigation", "banner", "contentinfo", "complementary", "search"])
# Class or id names that only ever mean chrome ("_" is read as "-" and case
# is ignored). The list is conservative on purpose: text wrongly taken for
# chrome is lost, while chrome wrongly kept is caught by the per-site
# boilerplate detector (crawler/boilerplate.py) once a site has a few pages.
# So bare "menu" is left out (a restaurant's menu is its content), as are
# bare "related", "banner"
# (hero banners carry content), "comments", and "header" / "footer" as
# classes (card and entry headers); id="header" and id="footer" are the
# site's on pre-HTML5 sites, and count like the elements.
_CHROME_NAMES = frozenset(
    # navigation
    [
        "nav",
        "navbar",
        "nav-bar",
        "navigation",
        "navmenu",
        "nav-menu",
        "nav-links",
        "main-nav",
        "mainnav",
        "main-navigation",
        "site-nav",
        "site-navigation",
        "top-nav",
        "topnav",
        "global-nav",
        "primary-nav",
        "primary-navigation",
        "secondary-nav",
        "subnav",
        "sub-nav",
        "sidenav",
        "side-nav",
        "menubar",
        "menu-bar",
        "main-menu",
        "mainmenu",
        "site-menu",
        "top-menu",
        "primary-menu",
        "breadcrumb",
        "breadcrumbs",
        "pagination",
        "pager",
        "skip-link",
        "skip-links",
        "skip-to-content",
        # site header and footer
        "site-header",
        "global-header",
        "masthead",
        "site-branding",
        "topbar",
        "top-bar",
        "site-footer",
        "global-footer",
        "page-footer",
        "colophon",
        # sidebars and widgets
        "sidebar",
        "side-bar",
        "sidebar-left",
        "sidebar-right",
        "left-sidebar",
        "right-sidebar",
        "widget-area",
        # notices, sharing, cross-links, ads
        "cookie-banner",
        "cookie-notice",
        "cookie-consent",
        "cookie-bar",
        "cookie-law",
        "share-buttons",
        "social-share",
        "sharing",
        "sharedaddy",
        "social-links",
        "social-icons",
        "related-posts",
        "related-articles",
        "related-links",
        "related-stories",
        "jp-relatedposts",
        "advertisement",
        "ad-container",
        "ads",
        "adsbygoogle",
        # DocBook's navigation bars: the previous, next and parent pages' titles
        "navheader",
        "navfooter",
        # language bars
        "language-switcher",
        "lang-switcher",
        "language-selector",
        "language-bar",
        "languages-bar",
    ]
)


# Tables of contents (DocBook's div.toc and lists of tables, Sphinx's
# toctree) that list other pages: their titles, as a hub lists its
# children. As body text they made a section's hub win on its children's
# titles and gave its snippets as a list of titles; the children have those
# words as anchor text. A table of the page's own sections (links to
# ``#ids``) is the page's own headings again, and stays.
_TOC_NAMES = frozenset(
    [
        "toc",
        "toctree-wrapper",
        "table-of-contents",
        "tableofcontents",
        "list-of-tables",
        "list-of-figures",
        "list-of-examples",
        "list-of-equations",
    ]
)


def _fragment_only(href: str) -> bool:
    return href.startswith("#")


def is_chrome(
    element: lxml.etree._Element, tag: str, sectioned: bool, in_page: Callable[[str], bool] = _fragment_only
) -> bool:
    """Whether ``element`` (tag ``tag``, inside a section or not) is chrome,
    as HTML says it is:

    - ``nav`` and ``aside``;
    - ``header`` and ``footer`` outside ``article``, ``main`` and ``section``
      (inside them they are that section's own heading and byline, as the HTML
      spec gives them the banner and contentinfo roles only outside);
    - the ARIA landmark roles for the same things (sites older than HTML5);
    - class or id names that only ever mean chrome (``_CHROME_NAMES``);
    - a table of contents (``_TOC_NAMES``) that lists other pages, not
      ``in_page`` links (by default, links to ``#ids``).

    >>> from lxml.html import fragment_fromstring as html
    >>> is_chrome(html('<div class="Site_Header">x</div>'), "div", False)
    True
    >>> is_chrome(html("<header>x</header>"), "header", True)
    False
    """
    if tag in _CHROME_TAGS:
        return True
    if tag in _SECTION_CHROME and not sectioned:
        return not _title_block(element, tag)
    get = element.get
    if get("role") in _CHROME_ROLES:
        return True
    value = get("class")
    if value and _chrome_class(value):
        return True
    if value and _toc_class(value):
        return _lists_other_pages(element, in_page)
    value = get("id")
    if not value:
        return False
    name = value.strip().lower().replace("_", "-")
    if name in _SECTION_CHROME and not sectioned:
        return not _title_block(element, name)
    return name in _CHROME_NAMES or (name in _TOC_NAMES and _lists_other_pages(element, in_page))


def _lists_other_pages(element: lxml.etree._Element, in_page: Callable[[str], bool] = _fragment_only) -> bool:
    """Whether most links of a table of contents lead to other pages.

    >>> from lxml.html import fragment_fromstring as html
    >>> _lists_other_pages(html('<div class="toc"><a href="tools.html">Tools</a><a href="#a">A</a>'
    ...                         '<a href="advanced.html">Advanced</a></div>'))
    True
    >>> _lists_other_pages(html('<div class="toc"><a href="#install">Install</a><a href="#use">Use</a></div>'))
    False
    """
    links = [(link.get("href") or "").strip() for link in element.iter("a")]
    other = sum(1 for href in links if href and not in_page(href))
    return other * 2 > len(links)


@functools.lru_cache(maxsize=4096)
def _toc_class(value: str) -> bool:
    return not _TOC_NAMES.isdisjoint(value.lower().replace("_", "-").split())


def _title_block(element: lxml.etree._Element, kind: str) -> bool:
    """Whether a header holds the page's own title (its ``h1``): a manual
    page's header holds its title and its one-line summary (AsciiDoc's
    ``<div id="header"><h1>git-mv(1)</h1><h2>NAME</h2>...``), the best
    words of the page. Its navigation, if any, is chrome of its own.

    >>> from lxml.html import fragment_fromstring as html
    >>> _title_block(html('<div id="header"><h1>git-mv(1)</h1><p>Move or rename</p></div>'), "header")
    True
    >>> _title_block(html('<header><a href="/">Home</a></header>'), "header")
    False
    """
    return kind == "header" and element.find(".//h1") is not None


@functools.lru_cache(maxsize=4096)
def _chrome_class(value: str) -> bool:
    """Whether a class attribute names chrome (cached: a site repeats its classes).

    >>> _chrome_class("site-header sticky"), _chrome_class("entry-header"), _chrome_class("NAV_BAR")
    (True, False, True)
    """
    return not _CHROME_NAMES.isdisjoint(value.lower().replace("_", "-").split())

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
# "toc" (a page's own headings, harmless to keep), bare "related", "banner"
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
    ]
)


def is_chrome(element: lxml.etree._Element, tag: str, sectioned: bool) -> bool:
    """Whether ``element`` (tag ``tag``, inside a section or not) is chrome,
    as HTML says it is:

    - ``nav`` and ``aside``;
    - ``header`` and ``footer`` outside ``article``, ``main`` and ``section``
      (inside them they are that section's own heading and byline, as the HTML
      spec gives them the banner and contentinfo roles only outside);
    - the ARIA landmark roles for the same things (sites older than HTML5);
    - class or id names that only ever mean chrome (``_CHROME_NAMES``).

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
    value = get("id")
    if not value:
        return False
    name = value.strip().lower().replace("_", "-")
    if name in _SECTION_CHROME and not sectioned:
        return not _title_block(element, name)
    return name in _CHROME_NAMES


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

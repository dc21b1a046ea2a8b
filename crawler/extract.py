"""From an HTML document to the fields the index wants, and its links (pure).

What goes where follows the Google paper's "fancy hits" (SEEDS.md item 26):
the title, headings and emphasised text get fields of their own so ranking can
weigh them; the body holds the visible text *outside* navigation, header,
footer and sidebars, so that a site's menu does not make every page match its
words (item 21) — the links there are still collected. Scripts, styles,
comments and hidden elements never reach any field.

Lenient on purpose: broken markup, an empty document or stray bytes give a
page with fewer fields, never an exception; the caller counts what it skips.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import lxml.etree
import lxml.html

from crawler.urls import canonicalize

__all__ = ["Link", "Page", "extract_html", "cjk_ratio"]

# Their text is never body content. (Not "head": libxml2's HTML4 parser puts
# HTML5 elements that come before any body element, <main> included, there.)
_DROPPED = frozenset(
    ["script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas",
     "select", "button", "title", "meta", "link", "base"]
)
# Their text is boilerplate, kept out of the body field (links still followed).
_CHROME = frozenset(["nav", "header", "footer", "aside"])
_BLOCK = frozenset(
    ["address", "article", "blockquote", "br", "dd", "details", "div", "dl", "dt",
     "fieldset", "figcaption", "figure", "form", "h1", "h2", "h3", "h4", "h5", "h6",
     "hr", "li", "main", "ol", "p", "pre", "section", "summary", "table", "td", "th",
     "tr", "ul", "caption", "tbody", "thead", "tfoot", "body", "head", "html"]
    + list(_CHROME)
)
# ARIA landmarks that mark the same chrome on sites that predate HTML5.
_CHROME_ROLES = frozenset(["navigation", "banner", "contentinfo", "complementary", "search"])
_HEADINGS = frozenset(["h1", "h2", "h3", "h4", "h5", "h6"])
_EMPHASIS = frozenset(["b", "strong", "em", "i", "mark", "big"])
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_SPACES = re.compile(r"\s+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_LINK_SCHEMES = ("http://", "https://")
_MAX_ANCHOR = 200


@dataclass
class Link:
    """A link found on a page: where to, the words on it, and its ``rel``."""

    url: str
    text: str
    nofollow: bool = False


@dataclass
class Page:
    url: str
    title: str = ""
    description: str = ""
    keywords: str = ""
    headings: list[str] = field(default_factory=list)
    emphasis: list[str] = field(default_factory=list)
    text: str = ""
    lang: str = ""
    links: list[Link] = field(default_factory=list)
    robots: frozenset[str] = frozenset()


def _clean(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def cjk_ratio(text: str) -> float:
    """The share of non-space characters that are Chinese, Japanese or Korean.

    >>> cjk_ratio("西湖 ab")
    0.5
    """
    chars = len(text) - text.count(" ")
    return len(_CJK.findall(text)) / chars if chars else 0.0


def _hidden(element: lxml.html.HtmlElement) -> bool:
    attrib = element.attrib
    if "hidden" in attrib or attrib.get("aria-hidden") == "true":
        return True
    style = attrib.get("style")
    return bool(style and _HIDDEN_STYLE.search(style))


def _parse(html: str | bytes) -> lxml.html.HtmlElement | None:
    # Bytes with a known encoding avoid lxml's refusal of str input that
    # carries an XML encoding declaration.
    data = html.encode("utf-8", "replace") if isinstance(html, str) else html
    if not data.strip():
        return None
    parser = lxml.html.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)
    try:
        return lxml.html.document_fromstring(data, parser=parser)
    except (lxml.etree.ParserError, ValueError):
        return None


def extract_html(
    html: str | bytes,
    url: str,
    resolve: Callable[[str, str], str] = canonicalize,
) -> Page:
    """Extract a page's fields and links; ``url`` is where it was fetched.

    ``resolve(href, base)`` turns an ``href`` into an absolute canonical URL
    (the crawl's configured canonicalization), raising ValueError for junk.

    >>> page = extract_html(
    ...     '<title>T</title><nav><a href="/">Home</a></nav>'
    ...     '<h1>Hello</h1><p>Some <b>bold</b> text.</p><a href="b.html">Next page</a>',
    ...     "http://a.test/dir/x.html")
    >>> page.title, page.headings, page.emphasis, page.text
    ('T', ['Hello'], ['bold'], 'Hello Some bold text. Next page')
    >>> [(link.url, link.text) for link in page.links]
    [('http://a.test/', 'Home'), ('http://a.test/dir/b.html', 'Next page')]
    """
    page = Page(url=url)
    root = _parse(html)
    if root is None:
        return page
    base = url
    for element in root.iter("base"):
        href = element.get("href")
        if href:
            try:
                base = resolve(href.strip(), url)
            except ValueError:
                pass
            break
    for meta in root.iter("meta"):
        name = (meta.get("name") or "").strip().lower()
        content = meta.get("content") or ""
        if name == "description":
            page.description = _clean(content)
        elif name == "keywords":
            page.keywords = _clean(content)
        elif name == "robots":
            page.robots = page.robots | {
                token.strip().lower() for token in content.split(",") if token.strip()
            }
    title = root.find(".//title")
    if title is not None:
        page.title = _clean(title.text_content())
    page.lang = (root.get("lang") or "").strip().lower()

    body: list[str] = []
    _walk(root, page, body, base, resolve, in_chrome=False)
    page.text = _clean("".join(body))
    if not page.title and page.headings:
        page.title = page.headings[0]
    if not page.lang and cjk_ratio(page.title + " " + page.text[:2000]) > 0.3:
        page.lang = "zh"  # undeclared: the indexer segments CJK text anyway
    return page


def _walk(
    element: lxml.html.HtmlElement,
    page: Page,
    body: list[str],
    base: str,
    resolve: Callable[[str, str], str],
    in_chrome: bool,
) -> None:
    """Depth-first: body text in reading order, with fields and links on the way."""
    for child in element:
        tag = child.tag
        if not isinstance(tag, str):  # comments, processing instructions
            if not in_chrome and child.tail:
                body.append(child.tail)
            continue
        tag = tag.lower()
        if tag in _DROPPED or _hidden(child):
            if not in_chrome and child.tail:
                body.append(child.tail)
            continue
        if tag in _HEADINGS:
            text = _clean(child.text_content())
            if text:
                page.headings.append(text)
        elif tag in _EMPHASIS and not in_chrome:
            text = _clean(child.text_content())
            if text:
                page.emphasis.append(text)
        elif tag in ("a", "area"):
            _add_link(child, page, base, resolve)
        chrome = in_chrome or tag in _CHROME or child.get("role") in _CHROME_ROLES
        block = tag in _BLOCK
        if block and not chrome:
            body.append(" ")
        if child.text and not chrome:
            body.append(child.text)
        _walk(child, page, body, base, resolve, chrome)
        if block and not chrome:
            body.append(" ")
        if child.tail and not in_chrome:
            body.append(child.tail)


def _add_link(
    element: lxml.html.HtmlElement, page: Page, base: str, resolve: Callable[[str, str], str]
) -> None:
    href = element.get("href")
    if not href:
        return
    href = href.strip()
    if href.startswith("#"):
        return  # the same page
    try:
        target = resolve(href, base)
    except ValueError:
        return
    if not target.startswith(_LINK_SCHEMES) or target == page.url:
        return
    text = _clean(element.text_content())
    if not text:
        text = _clean(
            element.get("title")
            or element.get("alt")
            or " ".join(img.get("alt") or "" for img in element.iter("img"))
        )
    rel = (element.get("rel") or "").lower().split()
    page.links.append(Link(target, text[:_MAX_ANCHOR], "nofollow" in rel))

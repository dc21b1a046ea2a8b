"""HTML and XHTML: fields, body blocks, links and hints (pure).

What goes where follows the Google paper's "fancy hits" (ARCHITECTURE.md, item 26):
the title, headings and emphasised text (bold, italic, marked or larger type:
``_EMPHASIS``) get fields of their own so ranking can weigh them; the body
holds the visible text *outside* the site's chrome (navigation, site header
and footer, sidebars: :mod:`crawler.extractors.chrome`), so that a menu does
not make every page match its words (item 21); the chrome's links are still
collected.  Scripts, styles, comments and hidden elements never reach any
field.  Lenient on purpose: broken markup, an empty document or stray bytes
give a page with fewer fields, never an exception (a page nested too deep
for libxml2: ``_MAX_DEPTH``).
"""

from __future__ import annotations

import codecs
import re

import lxml.etree

from crawler.charset import decode
from crawler.extractors.chrome import SECTIONS, is_chrome
from crawler.extractors.hierarchy import ancestry, breadcrumb_titles, is_breadcrumb, json_ld_trail, nav_item_level
from crawler.extractors.lang import guess_lang
from crawler.extractors.location import Resolve, refresh_target
from crawler.extractors.page import Link, Page
from crawler.extractors.sniff import binary_text
from crawler.languages import language_tag, url_language
from crawler.sites import same_site
from crawler.urls import canonicalize

__all__ = ["MEDIA_TYPES", "extract", "extract_html", "settle_language", "text_language", "undeclared_language"]

MEDIA_TYPES = ("text/html", "application/xhtml+xml")

# Their text is never body content. (Not "head": libxml2's HTML4 parser puts
# HTML5 elements that come before any body element, <main> included, there.)
_DROPPED = frozenset(
    [
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "math",
        "iframe",
        "object",
        "canvas",
        "select",
        "button",
        "title",
        "meta",
        "link",
        "base",
    ]
)
_BLOCK = frozenset(
    [
        "address",
        "article",
        "blockquote",
        "br",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "li",
        "main",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "td",
        "th",
        "tr",
        "ul",
        "caption",
        "tbody",
        "thead",
        "tfoot",
        "body",
        "head",
        "html",
        "nav",
        "aside",
        "header",
        "footer",
    ]
)
_HEADINGS = frozenset(["h1", "h2", "h3", "h4", "h5", "h6"])
# Emphasis, a field of its own: these elements, and larger or bold type set
# otherwise: ``<font size=4>`` or ``+1`` (_larger_font), an inline
# ``font-size`` of at least CSS ``large``, 18px = 1.125em, or a bold
# ``font-weight`` (_emphatic_style).
_EMPHASIS = frozenset(["b", "strong", "em", "i", "mark", "big"])
# Elements that may give a field: headings, definitions, emphasis, <font> (and any with a style).
_FIELD_TAGS = _HEADINGS | _EMPHASIS | {"dt", "font"}
_LINK_TAGS = frozenset(["a", "area"])
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_LARGE_STYLE = re.compile(
    r"font-size\s*:\s*(?:([\d.]+)\s*(px|pt|r?em|%)|(larger|large|x-large|xx-large|xxx-large))"
    r"|font-weight\s*:\s*(bold|bolder|[6-9]00)\b",
    re.I,
)
# How many 16px "medium" units each CSS length is: the threshold is CSS "large".
_TO_MEDIUM = {"px": 1 / 16, "pt": 1 / 12, "em": 1.0, "rem": 1.0, "%": 0.01}
_LARGE = 1.125
_MAX_STYLED_EMPHASIS = 200  # a styled container this long is layout, not emphasis
_LINK_SCHEMES = ("http://", "https://")
_MAX_ANCHOR = 200
_HEAD_TAGS = ("title", "meta", "link", "base")
# Sections a result can link into: at most this many a page, text cut to this.
_MAX_SECTIONS = 1000
_MAX_SECTION_TEXT = 200
_PERMALINK_MARKS = "¶#§🔗"
_SECTION_PARENTS = frozenset(["section", "div", "article"])
_MAX_ALTERNATES = 200


def extract(body: bytes, url: str, content_type: str | None, resolve: Resolve) -> Page | str:
    """A page from HTML bytes in any charset, or why there is none; its
    ``lang`` only as declared in the markup."""
    text, encoding = decode(body, content_type)
    if binary_text(text):
        return "binary_as_html"
    return _extract_decoded(body, text, encoding, url, resolve)


def extract_html(html: str | bytes, url: str, resolve: Resolve = canonicalize) -> Page:
    """Extract a page's fields and links; ``url`` is where it was fetched.

    ``resolve(href, base)`` turns an ``href`` into an absolute canonical URL
    (the crawl's configured canonicalization), raising ValueError for junk.
    Bytes are decoded by their BOM, ``<meta>`` charset or detection.

    >>> page = extract_html(
    ...     '<title>T</title><nav><a href="/">Home</a></nav>'
    ...     '<h1>Hello</h1><p>Some <b>bold</b> text.</p><a href="b.html">Next page</a>',
    ...     "http://a.test/dir/x.html")
    >>> page.title, page.headings, page.emphasis, page.text
    ('T', ['Hello'], ['bold'], 'Hello Some bold text. Next page')
    >>> page.blocks
    ['Hello', 'Some bold text.', 'Next page']
    >>> [(link.url, link.text) for link in page.links]
    [('http://a.test/', 'Home'), ('http://a.test/dir/b.html', 'Next page')]
    """
    if isinstance(html, bytes):
        text, encoding = decode(html)
        page = _extract_decoded(html, text, encoding, url, resolve)
    else:
        page = _extract(html.encode("utf-8", "replace"), url, resolve)
    if not page.lang:
        settle_language(page)
    return page


def undeclared_language(page: Page) -> str:
    """The language of a page whose markup and headers declare none: the
    one its ``hreflang`` alternates give its own URL, else the one its URL
    names (``/zh-CN/``, ``.fr.html``), else a guess from its text. A page
    of a partly translated edition (a Chinese title, a half-English body)
    is its edition's."""
    for lang, url in page.alternates:
        if url == page.url:
            return lang
    return url_language(page.url) or text_language(page)


def settle_language(page: Page, declared: str = "") -> None:
    """Give a page whose markup declares no language ``declared`` (its
    ``Content-Language``), else :func:`undeclared_language`, noting when
    that is only its URL's (``lang_from_url``): a copy of a page under
    another language segment would name another."""
    page.lang = declared or undeclared_language(page)
    page.lang_from_url = not declared and bool(page.lang) and page.lang == url_language(page.url)


def text_language(page: Page) -> str:
    """The language a page's text shows (English, Chinese, Japanese,
    Korean), whatever its URL or markup say; "" for any other."""
    return guess_lang(page.title + " " + page.text[:2000])


def _extract_decoded(body: bytes, text: str, encoding: str, url: str, resolve: Resolve) -> Page:
    # lxml parses UTF-8 bytes: a UTF-8 body (the common case) goes in as it came.
    utf8 = encoding == "utf-8" and not body.startswith(codecs.BOM_UTF8)
    page = _extract(body if utf8 else text.encode("utf-8", "replace"), url, resolve)
    page.encoding = encoding
    return page


def _clean(text: str) -> str:
    return " ".join(text.split())


def _text_of(element: lxml.etree._Element) -> str:
    """All the text inside ``element`` (what lxml.html's ``text_content`` gives)."""
    return "".join(element.itertext())


def _parse(data: bytes) -> tuple[lxml.etree._Element | None, bool]:
    """The tree, and whether libxml2 stopped reading at its depth limit."""
    # UTF-8 bytes, not str: lxml refuses str input that carries an XML
    # encoding declaration.
    if not data.strip():
        return None, False
    # lxml.etree's elements, not lxml.html's: each HtmlElement the walk
    # touches is made through a class lookup written in Python (a million
    # calls over Python's documentation: 8% of extracting it).
    parser = lxml.etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)
    try:
        root = lxml.etree.fromstring(data, parser=parser)
    except (lxml.etree.ParserError, lxml.etree.XMLSyntaxError, ValueError):
        return None, False
    too_deep = any(
        entry.type == lxml.etree.ErrorTypes.ERR_RESOURCE_LIMIT and "depth" in entry.message
        for entry in parser.error_log
    )
    return root, too_deep


# libxml2 stops nesting at depth 255, which keeps the recursive walk far from
# Python's recursion limit; but it stops *reading* there too, and drops the
# rest of the document. A page nested deeper (100,000 ``div`` elements) is
# read again with the elements past this depth taken out (their text and
# links kept, block elements as line breaks: _flatten), and noted as
# ``deep_nesting`` (counted ``extract/deep_nesting``). Some headroom below
# libxml2's 256 for the elements the parser adds itself.
_MAX_DEPTH = 200
# Tags, and what a depth count must step over whole: comments, and elements
# whose content is not markup.
_TAG = re.compile(
    rb"<!--.*?-->|<(script|style|textarea|title|xmp|plaintext)\b[^>]*>.*?</\1\s*>"
    rb"|<(/?)([a-z][a-z0-9:-]*)\b[^>]*>",
    re.DOTALL | re.IGNORECASE,
)
# Not counted: void elements, and links (kept wherever they are; they never nest).
_UNCOUNTED = frozenset(b"area base br col embed hr img input link meta param source track wbr a".split())
_BLOCK_BYTES = frozenset(tag.encode() for tag in _BLOCK)


def _flatten(data: bytes, max_depth: int = _MAX_DEPTH) -> bytes:
    """``data`` with the start and end tags nested deeper than ``max_depth``
    taken out: their text stays, a block element becomes a line break (so
    its words stay apart), links stay (``a`` never nests).  Depth is counted
    from the tags as written (a ``p`` left open counts until it closes), so
    it may run ahead of the parser's, never behind.

    >>> _flatten(b"<div><div><div><p>deep</p></div></div></div><p>after</p>", 2)
    b'<div><div><br><br>deep<br><br></div></div><p>after</p>'
    """
    out: list[bytes] = []
    depth = kept = 0
    for match in _TAG.finditer(data):
        name = match.group(3)
        if name is None:
            continue  # a comment, a script: as it is
        name = name.lower()
        if name in _UNCOUNTED or match.group(0).endswith(b"/>"):
            continue
        if match.group(2):  # an end tag
            deep = depth > max_depth
            depth = max(0, depth - 1)
        else:
            depth += 1
            deep = depth > max_depth
        if deep:
            out.append(data[kept : match.start()])
            out.append(b"<br>" if name in _BLOCK_BYTES else b" ")
            kept = match.end()
    out.append(data[kept:])
    return b"".join(out)


def _extract(data: bytes, url: str, resolve: Resolve) -> Page:
    page = Page(url=url)
    root, too_deep = _parse(data)
    if too_deep:
        root, _ = _parse(_flatten(data))
        page.notes.append("deep_nesting")
    if root is None:
        return page
    head = _Head(url)
    for element in root.iter(_HEAD_TAGS):
        head.read(element, page)
    base = head.resolve_base(resolve)
    walker = _Walker(page, base, resolve)
    walker.walk(root)
    walker.flush()
    page.blocks = walker.blocks
    page.text = " ".join(walker.blocks)
    if not page.title and page.headings:
        page.title = page.headings[0]
    page.canonical = head.canonical_url(base, resolve)
    if head.refresh:
        target = refresh_target(head.refresh, base, resolve)
        page.refresh = target if target != url else None
    # Declared only: extract() may still find a Content-Language header.
    page.lang = language_tag(root.get("lang") or root.get("xml:lang") or head.language)
    page.hierarchy = ancestry(walker.trail or walker.sphinx_trail(), head.home, head.up or walker.up, page.title)
    page.alternates = head.alternates_of(base, resolve) + walker.alternates
    return page


_LEAD_WORDS = (5, 80)
_LEAD_BLOCKS = 30


def lead(blocks: list[str], headings: list[str]) -> str:
    """A page's opening sentence, for a page with no meta description
    (taken once its site's boilerplate is out of its blocks): the
    first block of a few words to a few lines after its first heading, as
    a manual page's summary (``git-mv - Move or rename a file``) or a
    reference page's first paragraph. Not a heading, not a short label
    (``Source code: Lib/json/__init__.py``).

    >>> lead(["git-mv(1)", "NAME", "git-mv - Move or rename a file, a directory, or a symlink",
    ...       "SYNOPSIS"], ["git-mv(1)", "NAME", "SYNOPSIS"])
    'git-mv - Move or rename a file, a directory, or a symlink'
    >>> lead(["Home", "Contact"], [])
    ''
    """
    start = 0
    if headings:
        try:
            start = blocks.index(headings[0], 0, _LEAD_BLOCKS) + 1
        except ValueError:
            start = 0
    titles = set(headings)
    low, high = _LEAD_WORDS
    for block in blocks[start : start + _LEAD_BLOCKS]:
        if block in titles:
            continue
        words = len(block.split())
        if low <= words <= high:
            return block
    return ""


class _Head:
    """What the document says about itself: meta tags, base, canonical, title."""

    __slots__ = ("url", "base", "canonical", "refresh", "language", "has_title", "home", "up", "alternates")

    def __init__(self, url: str) -> None:
        self.url = url
        self.base: str | None = None
        self.canonical: str | None = None
        self.refresh: str | None = None
        self.language = ""
        self.has_title = False
        self.home = ""  # the titles of the rel="home" and rel="up" links
        self.up = ""
        self.alternates: list[tuple[str, str]] = []  # (hreflang, href)

    def read(self, element: lxml.etree._Element, page: Page) -> None:
        tag = element.tag
        if tag == "meta":
            self._meta(element, page)
        elif tag == "title":
            if not self.has_title:
                self.has_title = True
                page.title = _clean(_text_of(element))
        elif tag == "link":
            self._link(element)
        elif tag == "base" and self.base is None:
            self.base = (element.get("href") or "").strip() or None

    def _link(self, element: lxml.etree._Element) -> None:
        rel = (element.get("rel") or "").lower().split()
        if self.canonical is None and "canonical" in rel:
            self.canonical = (element.get("href") or "").strip() or None
        if "home" in rel or "up" in rel:
            self._place(element, rel)
        if "alternate" in rel and element.get("hreflang") and len(self.alternates) < _MAX_ALTERNATES:
            self.alternates.append((element.get("hreflang") or "", (element.get("href") or "").strip()))

    def _place(self, element: lxml.etree._Element, rel: list[str]) -> None:
        """The titles of the site's top and of the page's parent."""
        if "home" in rel and not self.home:
            self.home = element.get("title") or ""
        if "up" in rel and not self.up:
            self.up = element.get("title") or ""

    def alternates_of(self, base: str, resolve: Resolve) -> list[list[str]]:
        """The ``[lang, url]`` of the translations ``<link rel="alternate"
        hreflang>`` names, on this page's site (``x-default`` is none)."""
        return _alternates(self.alternates, base, resolve, self.url)

    def _meta(self, element: lxml.etree._Element, page: Page) -> None:
        content = element.get("content") or ""
        name = (element.get("name") or "").strip().lower()
        if name:
            _named_meta(page, name, _clean(content))
            return
        equiv = (element.get("http-equiv") or "").strip().lower()
        if equiv == "refresh" and self.refresh is None:
            # Inside <noscript> it is only for browsers without JavaScript
            # (Scrapy's METAREFRESH_IGNORE_TAGS agrees).
            if next(element.iterancestors("noscript"), None) is None:
                self.refresh = content
        elif equiv == "content-language" and not self.language:
            self.language = content.split(",")[0]

    def resolve_base(self, resolve: Resolve) -> str:
        if self.base:
            try:
                return resolve(self.base, self.url)
            except ValueError:
                pass
        return self.url

    def canonical_url(self, base: str, resolve: Resolve) -> str | None:
        if not self.canonical:
            return None
        try:
            canonical = resolve(self.canonical, base)
        except ValueError:
            return None
        return canonical if same_site(canonical, self.url) else None


def _alternates(found: list[tuple[str, str]], base: str, resolve: Resolve, url: str) -> list[list[str]]:
    """``[lang, url]`` of each ``(hreflang, href)`` that names a language and
    a page of ``url``'s site, each language once."""
    alternates: list[list[str]] = []
    langs = set()
    for hreflang, href in found:
        lang = language_tag(hreflang)
        if not lang or lang in langs or not href:
            continue
        try:
            target = resolve(href, base)
        except ValueError:
            continue
        if same_site(target, url):
            langs.add(lang)
            alternates.append([lang, target])
    return alternates


def _named_meta(page: Page, name: str, content: str) -> None:
    """A ``<meta name=... content=...>``: kept by name (a repeated name's
    contents joined), and the description, keywords and robots directives
    read from it."""
    page.meta[name] = f"{page.meta[name]}, {content}" if name in page.meta else content
    if name == "description":
        page.description = content
    elif name == "keywords":
        page.keywords = content
    elif name == "robots":
        page.robots = page.robots | {token.strip().lower() for token in content.split(",") if token.strip()}


def _never_shown(element: lxml.etree._Element, tag: object, style: str | None) -> bool:
    """Whether an element's own words never reach a field: a comment or a
    processing instruction (its tag is no string), an element dropped
    whole (a script, a style...), or one hidden by an attribute or its
    style. The text after it (its tail) is still the page's."""
    return (
        not isinstance(tag, str)
        or tag in _DROPPED
        or element.get("hidden") is not None
        or element.get("aria-hidden") == "true"
        or bool(style and _HIDDEN_STYLE.search(style))
    )


def _larger_font(size: str) -> bool:
    """``<font size>``: "+1" and up, or 4 (CSS "large") and up.

    >>> [_larger_font(size) for size in ("+1", "4", "3", "-1", "big")]
    [True, True, False, False, False]
    """
    size = size.strip()
    try:
        return int(size[1:]) >= 1 if size.startswith("+") else int(size) >= 4
    except ValueError:
        return False


def _emphatic_style(style: str) -> bool:
    """An inline style that sets larger or bold type.

    >>> [_emphatic_style(s) for s in ("font-size: 1.5em", "font-size:18px", "font-size: 12pt",
    ...                               "font-weight:700", "font-size: 90%", "color: red")]
    [True, True, False, True, False, False]
    """
    for match in _LARGE_STYLE.finditer(style):
        number, unit, keyword, weight = match.groups()
        if keyword or weight:
            return True
        try:
            if float(number) * _TO_MEDIUM[unit.lower()] >= _LARGE:
                return True
        except ValueError:
            continue
    return False


class _Walker:
    """Depth-first over the tree: body blocks in reading order, fields and links."""

    __slots__ = ("page", "base", "resolve", "blocks", "parts", "trail", "nav_items", "up", "hreflangs")

    def __init__(self, page: Page, base: str, resolve: Resolve) -> None:
        self.page = page
        self.base = base
        self.resolve = resolve
        self.blocks: list[str] = []
        self.parts: list[str] = []
        self.trail: list[str] = []  # the first breadcrumb's places
        self.nav_items: list[tuple[int, str]] = []  # Sphinx's trail: (level, title)
        self.up = ""  # the title of a link with accesskey="U" (Sphinx's "up")
        self.hreflangs: list[tuple[str, str]] = []  # a language bar's links: (hreflang, href)

    def sphinx_trail(self) -> list[str]:
        return [title for _, title in sorted(self.nav_items)]

    @property
    def alternates(self) -> list[list[str]]:
        return _alternates(self.hreflangs, self.base, self.resolve, self.page.url)

    def flush(self) -> None:
        """End the current block (a block element began or ended)."""
        if self.parts:
            text = _clean("".join(self.parts))
            self.parts.clear()
            if text:
                self.blocks.append(text)

    def walk(self, element: lxml.etree._Element, sectioned: bool = False) -> None:
        """The content under ``element``, in reading order: its text in
        blocks, its fields and links. Chrome met on the way gives only its
        links (:meth:`_walk_chrome`); ``sectioned``: inside an article,
        main or section element, where a header is the section's own."""
        parts = self.parts
        for child in element:
            tag = child.tag
            style = child.get("style")
            if not _never_shown(child, tag, style):
                if is_chrome(child, tag, sectioned, self._in_page):
                    self._walk_chrome(child, tag)
                else:
                    if tag in _FIELD_TAGS or style:
                        self._fields(child, tag, style)
                    if tag in _LINK_TAGS:
                        self._add_link(child)
                    block = tag in _BLOCK
                    if block:
                        self.flush()
                    text = self._shown_text(child, tag)
                    if text:
                        parts.append(text)
                    if len(child):
                        self.walk(child, sectioned or tag in SECTIONS)
                    if block:
                        self.flush()
            elif tag == "script" and not self.trail:
                self._json_ld(child)
            if child.tail:
                parts.append(child.tail)

    def _heading_text(self, element: lxml.etree._Element) -> str:
        """A heading's text without its permalink mark, as the body's text
        has it (the opening sentence is the first block that is no heading)."""
        text = _clean(_text_of(element))
        for link in element.iter("a"):
            if text and self._shown_text(link, "a") is None:
                text = text.removesuffix((link.text or "").strip()).rstrip()
        return text

    def _shown_text(self, element: lxml.etree._Element, tag: object) -> str | None:
        """An element's own text, but for a heading's permalink mark ("#",
        "¶": a link to the heading's own id), no word of the page ("Net#"
        in a snippet)."""
        text = element.text
        if tag != "a" or not text or len(text.strip()) > 2:
            return text
        mark = text.strip()
        if mark and all(c in _PERMALINK_MARKS for c in mark) and self._in_page(element.get("href") or ""):
            return None
        return text

    def _json_ld(self, script: lxml.etree._Element) -> None:
        """A schema.org breadcrumb in a JSON-LD script."""
        if (script.get("type") or "").lower() == "application/ld+json" and script.text:
            self.trail = json_ld_trail(script.text)

    def _in_page(self, href: str) -> bool:
        """Whether a link leads into this page (``#id``, ``page.html#id``)."""
        if href.startswith("#"):
            return True
        try:
            return self.resolve(href, self.base).split("#")[0] == self.page.url
        except ValueError:
            return False

    def _walk_chrome(self, element: lxml.etree._Element, tag: str) -> None:
        """Chrome (navigation, site header and footer...): its links, and a
        break in the text for each block element; none of its words."""
        if tag in _LINK_TAGS:
            self._add_link(element)
        elif not self.trail and is_breadcrumb(element):
            self.trail = breadcrumb_titles(element)
        elif tag == "li":
            level = nav_item_level(element)
            if level is not None:
                self.nav_items.append((level, _clean(_text_of(element)).rstrip(" »›>|")))
        block = tag in _BLOCK
        if block:
            self.flush()
        for child in element:
            child_tag = child.tag
            if not _never_shown(child, child_tag, child.get("style")):
                self._walk_chrome(child, child_tag)
        if block:
            self.flush()

    def _fields(self, element: lxml.etree._Element, tag: str, style: str | None) -> None:
        """A heading (and the section it opens), a definition a link can
        point into, or emphasised text: each to its field."""
        if tag in _HEADINGS:
            text = self._heading_text(element)
            if text:
                self.page.headings.append(text)
                self._section(element, tag, text)
        elif tag == "dt" and element.get("id"):
            self._section(element, tag, _clean(_text_of(element)))
        elif tag in _EMPHASIS:
            text = _clean(_text_of(element))
            if text:
                self.page.emphasis.append(text)
        elif style or tag == "font":
            self._styled(element, tag, style)

    def _section(self, element: lxml.etree._Element, tag: str, text: str) -> None:
        """Record a heading or definition that a link can point into, by the
        id a documentation generator gives it: its own, a permalink's or an
        anchor's inside it (Sphinx, Node.js, DocBook), or that of the
        section it opens."""
        sections = self.page.sections
        if len(sections) >= _MAX_SECTIONS:
            return
        anchor = element.get("id")
        if not anchor:
            for inner in element.iter("a"):
                href = inner.get("href") or ""
                anchor = inner.get("id") or inner.get("name") or (href[1:] if href.startswith("#") else "")
                if anchor:
                    break
        if not anchor:
            parent = element.getparent()
            if parent is not None and parent.tag in _SECTION_PARENTS:
                anchor = parent.get("id")
        text = text.strip(_PERMALINK_MARKS + " ")[:_MAX_SECTION_TEXT]
        if anchor and text:
            sections.append([anchor.strip(), text, tag])

    def _styled(self, element: lxml.etree._Element, tag: str, style: str | None) -> None:
        if (style and _emphatic_style(style)) or (tag == "font" and _larger_font(element.get("size") or "")):
            text = _clean(_text_of(element))
            if text and len(text) <= _MAX_STYLED_EMPHASIS:
                self.page.emphasis.append(text)

    def _add_link(self, element: lxml.etree._Element) -> None:
        href = element.get("href")
        if not href:
            return
        href = href.strip()
        if href.startswith("#"):
            return  # the same page
        try:
            target = self.resolve(href, self.base)
        except ValueError:
            return
        if not target.startswith(_LINK_SCHEMES) or target == self.page.url:
            return
        text = _clean(_text_of(element))
        if not text:
            text = _clean(
                element.get("title")
                or element.get("alt")
                or " ".join(img.get("alt") or "" for img in element.iter("img"))
            )
        rel = frozenset((element.get("rel") or "").lower().split())
        self.page.links.append(Link(target, text[:_MAX_ANCHOR], "nofollow" in rel, rel))
        self._hints(element, rel, text, href)

    def _hints(self, element: lxml.etree._Element, rel: frozenset[str], text: str, href: str) -> None:
        """What a link says of the page: its parent (``rel="up"``, Sphinx's
        ``accesskey="U"``), a translation (a language bar's ``hreflang``)."""
        if ("up" in rel or element.get("accesskey") in ("U", "u")) and not self.up:
            self.up = element.get("title") or text
        hreflang = element.get("hreflang")
        if hreflang and len(self.hreflangs) < _MAX_ALTERNATES:
            self.hreflangs.append((hreflang, href))

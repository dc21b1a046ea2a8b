"""Cached copies: a crawled page as the archive keeps it, shown so that nothing in it runs or loads.

As Google's first system kept its repository, every response the crawl
fetched is in ``DATA_DIR/archive`` (:mod:`crawler.archive`). The search page
offers a result's latest archived copy:

- found through :class:`ArchiveIndex`, which reads each archive file's
  index, and the file where its index ends (on from there when it grew),
  and remembers where each URL's latest response starts;
- decoded as the crawl's spider saw it (``Content-Encoding`` undone, to the
  crawl's size limit; the character set as the crawl read it);
- never for a page that said ``noarchive`` (``<meta name="robots">``,
  ``<meta name="lanternbot">`` or ``X-Robots-Tag``), nor for a page fetched
  with a site owner's credentials (``lantern-members-only`` in its metadata
  record: ARCHITECTURE.md, item 12), whoever asks;
- cleaned by a maintained sanitizer, ``nh3`` (Ammonia, on html5ever: it
  reads the page as a browser does, so nothing a browser would make an
  element of hides from it): only elements and attributes of an allow-list
  are kept, scripts, frames, objects, SVG and MathML removed with their
  content, links made absolute to the live site and only ``http(s):``
  ones kept; the page's style sheets kept in the copy's head, a banner
  naming the URL and the fetch time on top;
- the query's words marked in its text (:func:`query_words`), the
  sanitized markup written anew around them, never inside it. The web server adds
  ``Content-Security-Policy: sandbox; default-src 'none'; style-src
  'unsafe-inline'``, a second wall: were anything left, it could neither
  run nor load.
"""

from __future__ import annotations

import html
import logging
import re
import threading
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import lxml.html
import nh3
from warcio.archiveiterator import ArchiveIterator

from crawler.archive import Damage, IndexedResponse
from crawler.archive_index import Reading, read_index, responses
from search.display import shown

__all__ = ["ArchiveIndex", "Copy", "read_copy", "render_copy", "query_words", "CSP"]

logger = logging.getLogger(__name__)

CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'"
# Elements whose content could run, load or navigate, or is no text to
# read: dropped with their content (any other element not allowed is
# dropped, its content kept).
_DROPPED = frozenset(
    {
        *("script", "noscript", "template", "style", "title", "textarea", "select"),
        *("iframe", "frame", "frameset", "noframes", "object", "embed", "noembed", "applet", "portal"),
        *("svg", "math"),
    }
)
# The sanitizer's allow-list, and the page's layout elements and attributes
# that change how it reads, not what it does.
_KEPT = frozenset(nh3.ALLOWED_TAGS | {"main", "section", "address", "tfoot", "font", "big", "label", "legend"})
_ATTRIBUTES = {
    **{tag: set(names) for tag, names in nh3.ALLOWED_ATTRIBUTES.items()},
    "*": {"class", "id", "style", "title", "lang", "dir"},
}
# An XML declaration, which lxml refuses in a decoded string (an XHTML page's first line).
_XML_DECLARATION = re.compile(r"\A\ufeff?\s*<\?xml\b[^>]*>")
_HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass
class Copy:
    """An archived response: what the crawl received for ``url`` on ``date``."""

    url: str
    date: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def header_values(self, name: str) -> list[str]:
        lowered = name.lower()
        return [value for key, value in self.headers if key.lower() == lowered]


class ArchiveIndex:
    """Where each URL's latest archived response starts, across the archive's files.

    Each file is read once: what its index (``<file>.cdxj``, written by the
    crawl) says, then the file itself from where the index ends, with the
    damage-tolerant reading of :func:`crawler.archive_index.responses`. A
    file that grew (the running crawl's) is read on from where the last
    reading ended; one without an index (an older crawl's) is read whole.
    """

    def __init__(self, *directories: str | Path) -> None:
        """The archives in ``directories`` (a data directory's, or several: each crawl node's)."""
        self.directories = [Path(directory) for directory in directories]
        self._lock = threading.Lock()
        self._files: dict[Path, _ArchiveFile] = {}

    def warm(self) -> None:
        """Read the archive's files now, before the first copy is asked
        for, and load what rendering one uses: otherwise the first view of
        a server process reads every file (the demo's 827 pages: half a
        second), its page still waiting."""
        with self._lock:
            self._refresh()
        from crawler.archive import decode_body  # noqa: F401  (imported once, here, not in a first view)
        from crawler.charset import decode  # noqa: F401
        from crawler.robots import page_directives  # noqa: F401

        render_copy(
            Copy("http://warm.test/", "", 200, [("Content-Type", "text/html")], b"<p>warm</p>"), 64, "x", ("warm",)
        )

    def locate(self, url: str) -> tuple[Path, int] | None:
        """The file and offset of ``url``'s latest response; None if there
        is none, or it was fetched with credentials (members only)."""
        with self._lock:
            self._refresh()
            best: tuple[str, Path, int, bool] | None = None
            for path, known in self._files.items():
                found = known.latest.get(url)
                if found is not None and (best is None or found[0] > best[0]):
                    best = (found[0], path, found[1], found[2])
        return None if best is None or best[3] else (best[1], best[2])

    def _refresh(self) -> None:
        present = {
            path
            for directory in self.directories
            if directory.is_dir()
            for path in directory.iterdir()
            if path.name.endswith((".warc.gz", ".warc"))
        }
        for gone in set(self._files) - present:
            del self._files[gone]
        for path in present:
            stat = path.stat()
            stamp = (stat.st_size, stat.st_mtime)
            known = self._files.get(path)
            if known is not None and known.stamp == stamp:
                continue
            if known is None or stamp[0] < known.stamp[0] or known.reading.read_to == 0:
                known = self._files[path] = _indexed(path)  # new, not the file it was, or read whole each time
            known.stamp = stamp
            _read_on(path, known)


@dataclass
class _ArchiveFile:
    """What search knows of one archive file: its size and time when last
    read, each URL's latest complete response in it (date, offset, members
    only), and how far it was read."""

    stamp: tuple[int, float]
    latest: dict[str, tuple[str, int, bool]]
    reading: Reading


def _indexed(path: Path) -> _ArchiveFile:
    """What a file's index says of it (nothing, without one)."""
    known = _ArchiveFile((0, 0.0), {}, Reading())
    for response in read_index(path):
        _found(known.latest, response)
        known.reading.read_to = response.end
    return known


def _read_on(path: Path, known: _ArchiveFile) -> None:
    """Read ``path`` from where ``known`` ends: its responses added, a
    damaged record skipped and the records after it found."""
    try:
        for found in responses(path, known.reading):
            if isinstance(found, Damage):
                logger.warning("Reading %s for cached copies: skipping %s", path.name, found)
            else:
                _found(known.latest, found)
    except Exception as exc:
        logger.warning("Reading %s for cached copies stopped early: %s", path.name, exc)


def _found(latest: dict[str, tuple[str, int, bool]], response: IndexedResponse) -> None:
    """``response`` kept if it is its URL's latest (the later of two of one date: written after)."""
    if response.url not in latest or response.date >= latest[response.url][0]:
        latest[response.url] = (response.date, response.offset, response.members_only)


def read_copy(path: Path, offset: int) -> Copy | None:
    """The response record at ``offset`` of ``path`` (None if it is not one, or is cut short)."""
    try:
        with open(path, "rb") as stream:
            stream.seek(offset)
            for record in ArchiveIterator(stream):
                if record.rec_type != "response" or record.http_headers is None:
                    return None
                body = record.raw_stream.read()
                if record.raw_stream.limit > 0:
                    return None
                status = record.http_headers.get_statuscode() or "0"
                return Copy(
                    url=record.rec_headers.get_header("WARC-Target-URI") or "",
                    date=record.rec_headers.get_header("WARC-Date") or "",
                    status=int(status) if status.isdigit() else 0,
                    headers=list(record.http_headers.headers),
                    body=body,
                )
    except Exception as exc:
        logger.warning("Reading the cached copy in %s at %d failed: %s", path.name, offset, exc)
    return None


def render_copy(copy: Copy, limit: int, user_agent: str, words: tuple[str, ...] = ()) -> str | None:
    """The cleaned page with its banner, or None when the page forbids a
    cached copy (``noarchive``) or is not HTML or text. ``limit``: the
    crawl's body size limit; ``user_agent``: the crawl's, whose product
    token a ``<meta name="...">`` or an ``X-Robots-Tag`` may name;
    ``words``: the query's, marked wherever the copy's text has them
    (:func:`query_words`)."""
    from crawler.robots import page_directives

    decoded = _decoded(copy, limit)
    if decoded is None:
        return None
    kind, text = decoded
    robots_tags = copy.header_values("X-Robots-Tag")
    if kind == "text/plain":
        if "noarchive" in page_directives({}, robots_tags, user_agent):
            return None
        return _page(copy, f"<pre>{_marked_text(text, _words_pattern(words))}</pre>")
    document = _document(text) if kind in _HTML_TYPES else None
    if document is None or "noarchive" in page_directives(_metas(document), robots_tags, user_agent):
        return None
    title = shown(document.findtext(".//title") or "")
    return _page(copy, _marked(_cleaned(text, copy.url), words), _styles(document), title or copy.url)


def _decoded(copy: Copy, limit: int) -> tuple[str, str] | None:
    """The body's media type and text, as the crawl's spider read them
    (``Content-Encoding`` undone, to ``limit``); None when it cannot be undone."""
    from crawler.archive import decode_body
    from crawler.charset import decode

    try:
        body, headers = decode_body(copy.headers, copy.body, limit)
    except ValueError:
        return None
    content_type = next((value for name, value in headers if name.lower() == "content-type"), "text/html")
    text, _ = decode(body, content_type)
    return content_type.split(";")[0].strip().lower(), text


def _document(text: str) -> Any | None:
    """The page's tree, or None for text lxml cannot read at all."""
    try:
        return lxml.html.document_fromstring(_XML_DECLARATION.sub("", text) or "<p></p>")
    except Exception:
        return None


def _metas(document: Any) -> dict[str, str]:
    """The page's ``<meta name content>`` pairs, names lowered: where robots directives are."""
    return {
        (meta.get("name") or "").strip().lower(): meta.get("content") or ""
        for meta in document.iter("meta")
        if meta.get("name")
    }


def _cleaned(text: str, base: str) -> str:
    """The page's content, sanitized: what the allow-list keeps, links
    absolute to the live site (``base``; relative ones dropped if it is no
    URL), none but ``http(s):``.

    >>> _cleaned('<p onclick="x()">a <a href="b.html">b</a><embed src=x> c', "http://s.test/")
    '<p>a <a href="http://s.test/b.html">b</a> c</p>'
    >>> _cleaned("<svg><style><img src=x onerror=alert(1)></style></svg>", "http://s.test/")
    '<img src="http://s.test/x">'
    """
    options: dict[str, Any] = {
        "tags": _KEPT,
        "clean_content_tags": _DROPPED,
        "attributes": _ATTRIBUTES,
        "url_schemes": {"http", "https"},
        "link_rel": None,
    }
    try:
        return nh3.clean(text, url_relative=("rewrite_with_base", base), **options)
    except ValueError:  # a base nh3 cannot read
        return nh3.clean(text, url_relative="deny", **options)


# Query terms that are no words of the page: operators and restrictions.
_NOT_WORDS = re.compile(r'(?:^|\s)(?:-\S*|[\w-]+:\S*|OR|AND|NOT)(?=\s|$)|["()+~]')
_WORD = re.compile(r"\w+")


def query_words(query: str) -> tuple[str, ...]:
    """The words of a query a copy shows marked: neither operators,
    restrictions (``site:``), nor excluded words, nor letters alone.

    >>> query_words('KeepAlive "tide tables" -harbour site:a.test lang:en OR 龙井')
    ('KeepAlive', 'tide', 'tables', '龙井')
    """
    kept = _NOT_WORDS.sub(" ", query)
    return tuple(dict.fromkeys(word for word in _WORD.findall(kept) if len(word) > 1 or not word.isascii()))


def _words_pattern(words: tuple[str, ...]) -> re.Pattern[str] | None:
    """Any of ``words`` in any case: a word of letters whole, a Chinese one
    (written without spaces) wherever it stands."""
    spaced = "|".join(sorted((re.escape(word) for word in words if word.isascii()), key=len, reverse=True))
    unspaced = "|".join(sorted((re.escape(word) for word in words if not word.isascii()), key=len, reverse=True))
    parts = ([rf"(?<!\w)(?:{spaced})(?!\w)"] if spaced else []) + ([unspaced] if unspaced else [])
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def _marked_text(text: str, pattern: re.Pattern[str] | None) -> str:
    """``text`` escaped, what ``pattern`` finds in it marked.

    >>> _marked_text("Tide <b>tides</b> TIDE 潮汐表", _words_pattern(("tide", "潮汐")))
    '<mark>Tide</mark> &lt;b&gt;tides&lt;/b&gt; <mark>TIDE</mark> <mark>潮汐</mark>表'
    """
    if pattern is None:
        return html.escape(text, quote=False)
    out, start = [], 0
    for found in pattern.finditer(text):
        out.append(f"{html.escape(text[start : found.start()], quote=False)}<mark>{html.escape(found.group())}</mark>")
        start = found.end()
    return "".join(out) + html.escape(text[start:], quote=False)


class _Marker(HTMLParser):
    """The cleaned copy again, the query's words marked in its text: each
    tag written anew from its parsed name and attributes (escaped), each
    text escaped, so that no mark lands inside markup. The sanitizer's
    output has no element whose content is not markup (script, style,
    textarea...), which this parser would read otherwise than a browser."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.pattern = pattern
        self.out: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(f"<{tag}{_attributes(attrs)}>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(f"<{tag}{_attributes(attrs)}>")

    def handle_endtag(self, tag: str) -> None:
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        self.out.append(_marked_text(data, self.pattern))


def _attributes(attrs: list[tuple[str, str | None]]) -> str:
    return "".join(f' {name}="{html.escape(value or "", quote=True)}"' for name, value in attrs)


def _marked(cleaned: str, words: tuple[str, ...]) -> str:
    """The cleaned copy with the query's words marked in its text.

    >>> _marked('<p title="a>b tide">Tide &amp; <a href="http://t.test/?a=1&amp;b=2">tides</a></p>', ("tide",))
    '<p title="a&gt;b tide"><mark>Tide</mark> &amp; <a href="http://t.test/?a=1&amp;b=2">tides</a></p>'
    """
    pattern = _words_pattern(words)
    if pattern is None:
        return cleaned
    marker = _Marker(pattern)
    marker.feed(cleaned)
    marker.close()
    return "".join(marker.out)


def _styles(document: Any) -> str:
    """The page's style sheets, for the copy's head: their text only, where
    a ``<`` cannot end the element (it is escaped as CSS reads it); those of
    its SVG and MathML are dropped with them."""
    sheets = []
    for style in document.iter("style"):
        if any(parent.tag in ("svg", "math") for parent in style.iterancestors()):
            continue  # not the page's: a browser reads its content as markup
        media = style.get("media")
        opening = f'<style media="{html.escape(media, quote=True)}">' if media else "<style>"
        sheets.append(opening + (style.text or "").replace("<", "\\3c ") + "</style>")
    return "".join(sheets)


def _page(copy: Copy, inner: str, styles: str = "", title: str = "") -> str:
    url = html.escape(copy.url, quote=True)
    when = html.escape(copy.date[:19].replace("T", " ") + " UTC" if copy.date else "an unknown date")
    banner = (
        '<div style="all:initial;display:block;font:14px/1.5 system-ui,sans-serif;background:#fef7e0;'
        'color:#202124;border-bottom:1px solid #e0c97f;padding:.6rem 1rem;margin:0 0 1rem">'
        f'This is the copy of <a style="color:#1a0dab" href="{url}">{url}</a> that the crawl fetched '
        f"on {when}. The page may have changed since: the link leads to it as it is now. "
        "Nothing in this copy runs or loads.</div>"
    )
    return (
        f'<!doctype html>\n<html>\n<head>\n<meta charset="utf-8">\n<title>Cached: {html.escape(title or copy.url)}'
        f"</title>\n<style>mark{{background:#fdeaa7;color:#202124}}</style>{styles}\n</head>\n<body>\n{banner}\n{inner}\n</body>\n</html>\n"
    )

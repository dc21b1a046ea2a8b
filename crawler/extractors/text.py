"""Plain text: paragraphs in any charset, titled by their first line (pure).

A text file has no markup to say what its title is; its first line usually
is one (a README, an RFC, a poem) when it is short (at most 120 characters),
else the file name stands in. Paragraphs (runs of lines between blank lines)
are its blocks.
"""

from __future__ import annotations

import re

from crawler.charset import decode
from crawler.extractors.lang import guess_lang
from crawler.extractors.location import Resolve
from crawler.extractors.media import file_name
from crawler.extractors.page import Page
from crawler.extractors.sniff import binary_text

__all__ = ["MEDIA_TYPES", "extract", "first_line"]

MEDIA_TYPES = ("text/plain", "text/markdown", "text/x-markdown")

_PARAGRAPHS = re.compile(r"\n[ \t\r\f\v]*\n")
_FIRST_LINE = re.compile(r"\S[^\r\n]*")
_MAX_TITLE = 120


def first_line(text: str) -> str:
    """The first non-blank line, when it is short enough to be a title.

    >>> first_line("\\n  Notes on tea \\nbody"), first_line("x" * 121)
    ('Notes on tea', '')
    """
    match = _FIRST_LINE.search(text)
    line = " ".join(match.group().split()) if match else ""
    return line if len(line) <= _MAX_TITLE else ""


def extract(body: bytes, url: str, content_type: str | None, resolve: Resolve) -> Page | str:
    """A page from plain text bytes, or why there is none.

    >>> page = extract("Tea\\n\\n西湖龙井是中国著名的绿茶。".encode("gbk"), "http://a.test/t.txt",
    ...                "text/plain; charset=gbk", str)
    >>> page.title, page.blocks, page.lang, page.encoding
    ('Tea', ['Tea', '西湖龙井是中国著名的绿茶。'], 'zh', 'gb18030')
    """
    text, encoding = decode(body, content_type)
    if binary_text(text):
        return "binary_as_text"
    blocks = [" ".join(part.split()) for part in _PARAGRAPHS.split(text)]
    blocks = [block for block in blocks if block]
    if not blocks:
        return "empty"
    joined = " ".join(blocks)
    return Page(
        url=url,
        title=first_line(text) or file_name(url),
        text=joined,
        blocks=blocks,
        lang=guess_lang(joined[:2000]),
        kind="text",
        encoding=encoding,
    )

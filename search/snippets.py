"""Result snippets: the passages of a page around the words a query matched.

Whoosh finds the fragments (with the index's own analysis, so a stemmed or
bigram match is found in the original text); this module trims them to a
width a result line can hold, counting a Chinese character as two columns.
Matched words are wrapped in ``**``: the CLI turns that into bold, the web
page into ``<mark>`` after escaping everything else.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from whoosh import highlight

__all__ = ["snippet", "trim"]

WIDTH = 240  # columns of a snippet (a CJK character takes two)
_FRAGMENT = 150


def _columns(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def trim(text: str, width: int = WIDTH) -> str:
    """``text`` cut to ``width`` columns at a word (or CJK character) boundary.

    >>> trim("one two three", 9)
    'one two ...'
    >>> trim("西湖龙井茶是绿茶", 8)
    '西湖龙井 ...'
    >>> trim("a **match** here", 9)
    'a **match** ...'
    """
    text = " ".join(text.split())
    used = 0
    for index, char in enumerate(text):
        used += _columns(char) if char != "*" else 0
        if used > width:
            cut = text[:index]
            if _columns(char) == 1 and " " in cut:
                cut = cut.rsplit(" ", 1)[0]
            if cut.count("**") % 2:  # a mark cut in half
                cut += "**"
            return cut.rstrip() + " ..."
    return text


def snippet(hit: Any, body: str, field: str) -> str:
    """Up to two fragments of ``body`` around matched words, trimmed."""
    if not body:
        return ""
    hit.results.fragmenter = highlight.ContextFragmenter(maxchars=_FRAGMENT, surround=50)
    hit.results.formatter = _Marker()
    try:
        text = hit.highlights(field, text=body, top=2)
    except (KeyError, ValueError):
        text = ""
    return trim(text or body)


class _Marker(highlight.Formatter):
    between = " ... "

    def format_token(self, text: str, token: Any, replace: bool = False) -> str:
        return "**" + highlight.get_text(text, token, replace) + "**"

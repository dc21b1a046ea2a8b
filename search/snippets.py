"""Result snippets: the passage of a page where the query's words gather.

The query's tokens, as the index analyzed them (stems, code-name parts,
Chinese bigrams), become one regular expression that finds their surface
forms in the page's text (``encod`` finds "encoder" and "encoding"); the
snippet is the window with the most distinct query words, trimmed to a width
a result line can hold (a Chinese character counts two columns). Finding
words by expression instead of re-analysing every result's text keeps
snippets cheap on long pages. Matched words are wrapped in ``**``: the CLI
turns that into bold, the web page into ``<mark>`` after escaping everything
else.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from whoosh import highlight

__all__ = ["snippet", "trim", "word_pattern", "passage"]

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


_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_STEM = re.compile(r"[a-z]+\Z")
_SCAN = 200_000  # characters of a page looked at
_MAX_MATCHES = 200


def word_pattern(tokens: Iterable[str]) -> re.Pattern[str] | None:
    """An expression finding the query's tokens in text, case-insensitively.

    >>> word_pattern(["encod", "json.dumps", "龙井"]).findall("JSON encoders: json.dumps; 西湖龙井茶")
    ['encoders', 'json.dumps', '龙井']
    """
    alternatives = set()
    for token in tokens:
        if _LATIN_STEM.match(token):
            alternatives.add(rf"\b{re.escape(token)}\w*")  # a stem and its endings
        elif _CJK.search(token):
            alternatives.add(re.escape(token))
        elif token:
            alternatives.add(rf"(?<!\w){re.escape(token)}(?!\w)")
    if not alternatives:
        return None
    ordered = sorted(alternatives, key=len, reverse=True)  # longest first: json.dumps before json
    return re.compile("|".join(ordered), re.IGNORECASE)


def passage(text: str, pattern: re.Pattern[str] | None, width: int = WIDTH) -> str:
    """The window of ``text`` with the most distinct matches, matches marked.

    >>> passage("a b c tea d e f green tea g", word_pattern(["green", "tea"]), width=14)
    '... **green** **tea** g'
    """
    text = " ".join(text[:_SCAN].split())
    matches = list(pattern.finditer(text))[:_MAX_MATCHES] if pattern else []
    if not matches:
        return trim(text, width)
    # A window is judged on the part sure to be shown (a lead and "... "
    # take the rest of the width).
    span = width * 2 // 3
    best, best_count = 0, -1
    for index, match in enumerate(matches):
        start = match.start()
        distinct = {m.group().lower() for m in matches[index:] if m.start() < start + span}
        if len(distinct) > best_count:
            best, best_count = index, len(distinct)
    start = matches[best].start()
    lead = text.rfind(" ", max(0, start - width // 6), start)
    start = lead + 1 if lead > 0 else (0 if start < width // 6 else start)
    window = text[start:]
    marked = pattern.sub(lambda m: f"**{m.group()}**", window[: width * 2]) if pattern else window
    return ("... " if start > 0 else "") + trim(marked, width)


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

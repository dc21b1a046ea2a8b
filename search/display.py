"""Crawled text as people are shown it: nothing that rewrites the text around it, only the engine's highlights.

A title or snippet comes from a crawled page and can carry characters that
change how the text beside them reads: bidi overrides and isolates
(U+202A-202E, U+2066-2069) show ``invoice`` U+202E ``gpj.exe`` as what
looks like a ``.jpg``, marks and zero-width characters hide in words, and
control characters reach a terminal as escape sequences. :func:`shown` leaves
them out (the joiners that emoji and some scripts need stay).

Snippets mark the query's words with ``**``, which the page turns into
``<mark>`` and the command line into bold. A page's own ``*`` and ``\\``
are escaped with a backslash (:func:`escape_marks`, where a snippet is
made), so that its ``**text**`` is not shown as a match; :func:`marked`
reads a snippet back into its pieces, marked or not.
"""

from __future__ import annotations

import re
from unicodedata import category

__all__ = ["shown", "escape_marks", "marked"]

# Format characters that are not left out: the zero-width non-joiner and
# joiner, which Persian, Indic scripts and emoji sequences need.
_JOINERS = frozenset("\u200c\u200d")
# A backslash escape, or a mark: ``**`` around text with neither ``*`` nor ``\``.
_PIECE = re.compile(r"\\([\\*])|\*\*([^*\\]+)\*\*")


def shown(text: str) -> str:
    r"""``text`` without format characters (bidi controls, zero-width
    spaces, soft hyphens...), its control and line-separator characters
    each a space, a lone surrogate U+FFFD.

    >>> shown("invoice\u202egpj.exe"), shown("a\u200bb\u2066c\u2069"), shown("bold\x1b[1m\nnext")
    ('invoicegpj.exe', 'abc', 'bold [1m next')
    >>> shown("\U0001f469\u200d\U0001f4bb") == "\U0001f469\u200d\U0001f4bb"  # a joiner stays
    True
    """
    if text.isascii() and text.isprintable():
        return text
    return "".join(_shown_char(char) for char in text)


def _shown_char(char: str) -> str:
    kind = category(char)
    if kind == "Cf":
        return char if char in _JOINERS else ""
    if kind in ("Cc", "Zl", "Zp"):
        return " "
    return "\ufffd" if kind == "Cs" else char


def escape_marks(text: str) -> str:
    r"""A page's text as a snippet holds it: its ``\`` and ``*`` escaped,
    so that no ``**`` of its own reads as a mark.

    >>> print(escape_marks(r"**free** C:\new"))
    \*\*free\*\* C:\\new
    """
    return text.replace("\\", "\\\\").replace("*", "\\*")


def marked(snippet: str) -> list[tuple[str, bool]]:
    r"""A snippet's pieces of text, escapes undone, each with whether the
    engine marked it (a ``**`` with no partner is text).

    >>> marked("a **tea** cup")
    [('a ', False), ('tea', True), (' cup', False)]
    >>> "".join(f"[{text}]" if mark else text for text, mark in marked(r"a **tea** \*\*no\*\* \\ **"))
    'a [tea] **no** \\ **'

    """
    pieces: list[tuple[str, bool]] = []
    last = 0
    for match in _PIECE.finditer(snippet):
        if match.start() > last:
            pieces.append((snippet[last : match.start()], False))
        escaped, mark = match.groups()
        pieces.append((mark, True) if mark is not None else (escaped, False))
        last = match.end()
    if last < len(snippet):
        pieces.append((snippet[last:], False))
    return pieces

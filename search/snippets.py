"""Result snippets: the passage of a page where the query's words gather.

The query's tokens, as the index analyzed them (stems, code-name parts,
Chinese bigrams), become one regular expression that finds their surface
forms in the page's text (``encod`` finds "encoder" and "encoding"); the
snippet is the window with the most distinct query words, trimmed to a width
a result line can hold (a Chinese character counts two columns). Finding
words by expression instead of re-analysing every result's text keeps
snippets cheap on long pages. Matched words are wrapped in ``**``, the
page's own ``*`` and ``\\`` escaped (:mod:`search.display`): the CLI turns
the marks into bold, the web page into ``<mark>`` after escaping everything
else.

A members-only page (crawled with a site owner's credentials) gets no more
than :func:`sentence`: the one sentence that holds the most query words, so
that search does not republish what only members may read.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any
from unicodedata import east_asian_width

from whoosh import highlight

from indexer.analysis import has_cjk, is_cjk, plain_term
from search.display import escape_marks

__all__ = [
    "snippet",
    "trim",
    "word_pattern",
    "passage",
    "section_text",
    "sentence",
    "without_contents",
    "WordPattern",
]

WIDTH = 240  # columns of a snippet (a CJK character takes two)
_FRAGMENT = 150


_WIDE = ("W", "F")  # east Asian widths of two columns


def _columns(char: str) -> int:
    return 2 if east_asian_width(char) in _WIDE else 1


def trim(text: str, width: int = WIDTH) -> str:
    """``text`` cut to ``width`` columns at a word (or CJK character) boundary.

    >>> trim("one two three", 9)
    'one two ...'
    >>> trim("西湖龙井茶是绿茶", 8)
    '西湖龙井 ...'
    >>> trim("a **match** here", 9)
    'a **match** ...'
    """
    index = None
    if len(text) > _HEAD * width:
        # What shows of a long text is at its start: the start alone is cut
        # when the cut falls inside it (the rest changes nothing, and
        # looking at every character of a page took most of a snippet's time).
        head = " ".join(text[: _HEAD * width].split())
        index = _cut(head, width)
        if index is not None:
            text = head
    if index is None:
        text = " ".join(text.split())
        index = _cut(text, width)
    if index is None:
        return text
    cut = text[:index]
    if _columns(text[index]) == 1 and " " in cut:  # not inside a word (CJK has no spaces to cut at)
        cut = cut.rsplit(" ", 1)[0]
    if cut.count("**") % 2:  # a mark cut in half
        cut += "**"
    return cut.rstrip() + " ..."


# No character before this one is wide (east Asian width W or F).
_FIRST_WIDE = "\u1100"
# A text longer than this many times the width is cut from its start.
_HEAD = 2


def _cut(text: str, width: int) -> int | None:
    """Where :func:`trim` cuts single-spaced ``text``: at the character that
    overflows ``width`` columns (a mark's ``*`` takes none); None if it fits.

    >>> _cut("ab **c** de", 4), _cut("西湖龙井茶", 4), _cut("abc", 3)
    (8, 2, None)
    """
    if not text or text.isascii() or max(text) < _FIRST_WIDE:  # one column each: no need to look at every character
        return _narrow_cut(text, width)
    used = 0
    for index, char in enumerate(text):
        if char != "*":
            used += 2 if east_asian_width(char) in _WIDE else 1
            if used > width:
                return index
    return None


def _narrow_cut(text: str, width: int) -> int | None:
    """Where ``trim`` cuts text of narrow characters: at its ``width + 1``-th
    character that is not a mark's ``*`` (they take no room); None if it fits.

    >>> _narrow_cut("a **bc** d", 3), _narrow_cut("abc", 3)
    (5, None)
    """
    counted = start = 0
    while True:
        star = text.find("*", start)
        end = len(text) if star < 0 else star
        if counted + end - start > width:
            return start + width - counted
        counted += end - start
        if star < 0:
            return None
        start = star + 1


_LATIN_STEM = re.compile(r"[a-z]+\Z")
_SCAN = 100_000  # characters of a page looked at
_SPACES = re.compile(r"\s\s|[^\S ]")
# The whitespace of ASCII text other than the space (str.split's and \s's).
_ASCII_SPACES = ("  ", "\n", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")


def _single_spaced(text: str) -> bool:
    """Whether ``text``'s words are apart by one space each, nothing else
    (a search for each ASCII whitespace, or for two spaces in printable text,
    runs far faster than an expression over every character).

    >>> _single_spaced("a b"), _single_spaced("a  b"), _single_spaced("a\\nb"), _single_spaced("é\\u3000b")
    (True, False, False, False)
    >>> _single_spaced("西湖 龙井"), _single_spaced("西湖  龙井"), _single_spaced("西湖\\u200b 龙井")
    (True, False, True)
    """
    if text.isascii():
        return not any(space in text for space in _ASCII_SPACES)
    if text.isprintable():  # no whitespace but the space (the others are not printable)
        return "  " not in text
    return not _SPACES.search(text)


_MAX_MATCHES = 200
_STEM_ENDING = r"[^\W\d_]*"  # a stem's letters after it: ``mod`` of ``mod_cgi`` is a word of its own
_LETTERS = re.compile(_STEM_ENDING)
_WORD_CHAR = re.compile(r"\w")


class WordPattern:
    """Finds a query's words in text: each match with the query word it is of.

    One alternation of every token (a stem with any ending, a code name or
    CJK word as is), longest first, each its own group: its group says
    which query word it belongs to. The expression begins with literals
    only, so the regular expression engine skips ahead by their first
    characters (a leading ``\\b`` or look-behind would make it try every
    position); a match inside a longer word is dropped afterwards. It is
    compiled only for text that lower-cases otherwise than character for
    character (compiling it took a fifth of a snippet's time): elsewhere,
    the alternatives are tried in turn where their tokens stand.
    """

    def __init__(self, groups: Sequence[Sequence[str]]) -> None:
        alternatives: dict[str, tuple[int, str, str]] = {}  # -> its word, token (lower case), ending
        for word, tokens in enumerate(groups):
            for token in tokens:
                if not token:
                    continue
                if _LATIN_STEM.match(token):
                    ending = _STEM_ENDING  # a stem and its endings
                elif has_cjk(token):
                    ending = ""
                else:
                    ending = r"(?!\w)"
                alternatives.setdefault(re.escape(token) + ending, (word, token.lower(), ending))
        self._ordered = sorted(alternatives, key=len, reverse=True)  # longest first: json.dumps before json
        self.word_of = [alternatives[alternative][0] for alternative in self._ordered]
        self.words = len({*self.word_of})
        self._regex: re.Pattern[str] | None = None
        self._compiled: dict[int, re.Pattern[str]] = {}
        self._tried = [alternatives[alternative] for alternative in self._ordered]
        literals = {token for _, token, _ in self._tried}
        # Every alternative begins with its token: in ASCII text, a match
        # can only start where a token is found, case aside; in any text,
        # where a token without case (CJK, digits) is found as it is.
        self._literals = sorted(literals) if all(literal.isascii() for literal in literals) else None
        self._caseless = all(literal == literal.upper() == literal.casefold() for literal in literals)

    @property
    def regex(self) -> re.Pattern[str]:
        """One alternation of every token, each its own group."""
        if self._regex is None:
            self._regex = re.compile("|".join(f"({alternative})" for alternative in self._ordered), re.IGNORECASE)
        return self._regex

    def finditer(self, text: str) -> Iterator[tuple[int, int, int]]:
        """Where each match begins and ends, and the query word it is of:
        the matches that begin a word (or are CJK, which has no word boundaries)."""
        lowered = text.lower() if self._literals is not None else ""
        if self._literals is not None and (text.isascii() or _lowered_in_place(text, lowered)):
            found: Iterator[tuple[int, int, int]] = self._scan(text, lowered)
        elif self._caseless:
            found = self._scan(text, text)
        else:
            found = self._matched(text)
        for start, end, word in found:
            if start and text[start - 1].isalnum() and not is_cjk(text[start]):
                continue
            yield start, end, word

    def _matched(self, text: str) -> Iterator[tuple[int, int, int]]:
        """The expression's matches, a stem's only where its word is a form
        of it (:func:`_whole_term`)."""
        for match in self.regex.finditer(text):
            start = match.start()
            for index in range((match.lastindex or 1) - 1, len(self._tried)):
                word, token, ending = self._tried[index]
                alone = self._alone(index).match(text, start)
                if alone is None:
                    continue  # an alternative after the one the expression took
                end = alone.end()
                if ending == _STEM_ENDING:
                    end = _whole_term(text, start, start + len(token), token)
                if end >= 0:
                    yield start, end, word
                    break

    def _alone(self, index: int) -> re.Pattern[str]:
        """The expression of one alternative."""
        compiled = self._compiled.get(index)
        if compiled is None:
            compiled = self._compiled[index] = re.compile(self._ordered[index], re.IGNORECASE)
        return compiled

    def _scan(self, text: str, lowered: str) -> Iterator[tuple[int, int, int]]:
        """The matches of ``regex.finditer(text)``, tried only where one of
        the tokens stands in ``lowered`` (``text`` in lower case, its
        characters where they were), found by ``str.find``: the expression
        alone tries every position of the text, 40 ns each."""
        # Each token's next place, the nearest taken first: a caller that
        # stops at its first matches does not pay for the whole text.
        ahead = {literal: lowered.find(literal) for _, literal, _ in self._tried}
        ahead = {literal: at for literal, at in ahead.items() if at >= 0}
        end = 0
        while ahead:
            start = min(ahead.values())
            for literal, at in list(ahead.items()):
                if at == start:
                    following = lowered.find(literal, at + 1)
                    if following < 0:
                        del ahead[literal]
                    else:
                        ahead[literal] = following
            if start < end:
                continue  # inside the last match, as finditer goes on from its end
            for word, token, ending in self._tried:  # the first alternative that matches, as the expression's
                if not lowered.startswith(token, start):
                    continue
                after = start + len(token)
                if ending == _STEM_ENDING:
                    after = _whole_term(text, start, after, token)
                    if after < 0:
                        continue
                elif ending and _WORD_CHAR.match(text, after):
                    continue
                end = after
                yield start, end, word
                break

    def mark(self, text: str) -> str:
        """``text`` with every match wrapped in ``**``, its own ``*`` and ``\\`` escaped."""
        pieces, last = [], 0
        for start, end, _ in self.finditer(text):
            pieces += [escape_marks(text[last:start]), f"**{escape_marks(text[start:end])}**"]
            last = end
        return "".join(pieces) + escape_marks(text[last:])


def _whole_term(text: str, start: int, after: int, token: str) -> int:
    """Where the word that a stem ``token`` begins at ``start`` ends, when
    that word (its letters: ``mod`` of ``mod_cgi``) is indexed as the same
    term as the token (``encoders`` for ``encod``), else -1: ``mod`` does
    not mark ``module``, nor ``i`` mark ``is``.

    >>> [_whole_term(text, 0, len(token), token) for text, token in
    ...  [("encoders", "encod"), ("module", "mod"), ("mod_cgi", "mod"), ("is", "i"), ("ferrying", "ferry")]]
    [8, -1, 3, -1, 8]
    """
    end = _LETTERS.match(text, after).end()  # type: ignore[union-attr]
    word = text[start:end].lower()
    if word == token or plain_term(word) in (token, plain_term(token)):
        return end
    return -1


# The characters a case-insensitive expression matches to an ASCII letter
# other than themselves ("K", the Kelvin sign, to "k"): not so in lower case.
_ASCII_FOLDS = frozenset("\u0130\u0131\u017f\u212a")


def _lowered_in_place(text: str, lowered: str) -> bool:
    """Whether ``lowered`` (``text.lower()``) finds the ASCII tokens a
    case-insensitive expression finds in ``text``, where it finds them: each
    character lower-cased to one, and none that the expression alone matches
    to an ASCII letter.

    >>> _lowered_in_place("Café", "café"), _lowered_in_place("\u212aelvin", "kelvin")
    (True, False)
    """
    return len(lowered) == len(text) and not any(char in text for char in _ASCII_FOLDS)


def word_pattern(tokens: Iterable[str] | Sequence[Sequence[str]]) -> WordPattern | None:
    """A :class:`WordPattern` of the query's tokens (a flat list: one word
    each), or of its words' tokens (a list of lists); None without tokens.

    >>> pattern = word_pattern(["encod", "json.dumps", "龙井"])
    >>> text = "JSON encoders: json.dumps; 西湖龙井茶; xencoder"
    >>> [text[start:end] for start, end, _ in pattern.finditer(text)]
    ['encoders', 'json.dumps', '龙井']
    >>> pattern.mark("the JSON encoder")
    'the JSON **encoder**'
    """
    groups = [[token] if isinstance(token, str) else list(token) for token in tokens]
    if not any(token for group in groups for token in group):
        return None
    return WordPattern(groups)


def passage(text: str, pattern: WordPattern | None, width: int = WIDTH) -> str:
    """The window of ``text`` with the most distinct query words, matches marked.

    One pass over the matches with a sliding window; it stops at the first
    window that holds every query word, as the rest of a long page cannot
    do better.

    >>> passage("a b c tea d e f green tea g", word_pattern(["green", "tea"]), width=14)
    '... **green** **tea** g'
    """
    text = text[:_SCAN]
    if not _single_spaced(text):  # extracted text is single-spaced already; other text may not be
        text = " ".join(text.split())
    # A window is judged on the part sure to be shown (a lead and "... "
    # take the rest of the width).
    span = width * 2 // 3
    starts: list[int] = []
    kinds: list[int] = []
    inside: Counter[int] = Counter()
    best, best_count, first = -1, 0, 0
    for start, _, word in islice(pattern.finditer(text), _MAX_MATCHES) if pattern else ():
        while first < len(starts) and starts[first] <= start - span:
            inside[kinds[first]] -= 1
            if not inside[kinds[first]]:
                del inside[kinds[first]]
            first += 1
        starts.append(start)
        kinds.append(word)
        inside[kinds[-1]] += 1
        if len(inside) > best_count:
            best, best_count = first, len(inside)
            if best_count >= pattern.words:  # type: ignore[union-attr]
                break
    if best < 0 or pattern is None:
        return trim(escape_marks(text), width)
    start = starts[best]
    lead = text.rfind(" ", max(0, start - width // 6), start)
    start = lead + 1 if lead > 0 else (0 if start < width // 6 else start)
    marked = pattern.mark(text[start : start + width * 2])
    return ("... " if start > 0 else "") + trim(marked, width)


# Where a sentence ends: its stop (and a closing quote or bracket) before a
# space or the end, or a CJK full stop, question or exclamation mark.
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s|$)|[。！？]+")


_SECTION_SPAN = 4000  # characters of a section looked at when the next heading is not found
_TOC_GAP = 12  # characters between two entries of a table of contents (a number, "Table of contents")
_TOC_ENTRIES = 3
_TOC_SCAN = 30000
_TOC_HEADINGS = 300
_TOC_STARTS = 5  # the headings a table of contents may begin with
_TOC_COPIES = 2  # tables of contents one page may hold
_TOC_SKIPS = 2  # headings in a row it may leave out (definitions, a page's own title)


def without_contents(text: str, sections: list[list[str]], depth: int = 1) -> str:
    """A page's text without its table of contents: the first run of three
    or more of its own headings one after another, as a TOC lists them (a
    snippet of it is a list of headings, not a sentence the page says).

    >>> sections = [["a", "Install", "h2"], ["b", "Usage", "h2"], ["c", "Removal", "h2"]]
    >>> without_contents("Intro. Contents Install Usage Removal Install Run it. Usage Call it.", sections)
    'Intro. Contents Install Run it. Usage Call it.'
    >>> without_contents("Install Run it. Usage Call it.", sections)
    'Install Run it. Usage Call it.'
    """
    # A table of contents is near the top and lists the headings in their
    # order, starting with one of the first: each next one is looked for
    # just after the last (one a heading the table leaves out may be skipped).
    # Of the runs from each possible start, the longest is the table (the
    # page's title, "Net", found first inside a word of the table's would
    # give a run of a few entries).
    top = text[:_TOC_SCAN]
    headings = [heading for section in sections[:_TOC_HEADINGS] if len(section) > 1 and (heading := section[1].strip())]
    best = (0, 0)
    for first, heading in enumerate(headings[:_TOC_STARTS]):
        start = top.find(heading)
        if start >= 0:
            end = _run_end(top, headings[first + 1 :], start + len(heading))
            if end - start > best[1] - best[0]:
                best = (start, end)
    start, end = best
    if not end:
        return text
    # A second copy (Node.js's pages hold their table twice: a list, and a
    # picker for narrow screens) goes too.
    rest = text[:start] + text[end:].lstrip()
    return without_contents(rest, sections, depth + 1) if depth < _TOC_COPIES else rest


def _run_end(top: str, following: list[str], end: int) -> int:
    """Where a run of headings one after another, the first ending at
    ``end``, ends in ``top``; 0 when fewer than ``_TOC_ENTRIES`` are in it."""
    count, skipped = 1, 0
    for heading in following:
        at = top.find(heading, end, end + _TOC_GAP + len(heading))
        if at < 0:
            skipped += 1
            if skipped > _TOC_SKIPS:
                break
            continue
        end, count, skipped = at + len(heading), count + 1, 0
    return end if count >= _TOC_ENTRIES else 0


def section_text(text: str, sections: list[list[str]], anchor: str) -> str:
    """The text of the section ``anchor`` of a page (``sections`` are its
    ``[id, heading, tag]`` in order): from its heading to the next one, as
    far as they are found in ``text``; "" when its heading is not.

    >>> sections = [["a", "Install", "h2"], ["b", "Usage", "h2"]]
    >>> section_text("Intro text. Install Run the installer. Usage Call it.", sections, "a")
    'Install Run the installer. '
    >>> section_text("Intro.", sections, "b")
    ''
    """
    for number, (section_id, heading, *_) in enumerate(sections):
        if section_id != anchor:
            continue
        start = _heading_at(text, heading.strip())
        if start < 0:
            return ""
        end = start + _SECTION_SPAN
        for _, following, *_ in sections[number + 1 :]:
            found = _heading_at(text, following.strip(), start + len(heading))
            if found >= 0:
                end = min(end, found)
                break
        return text[start:end]
    return ""


def _heading_at(text: str, heading: str, start: int = 0) -> int:
    """Where ``heading`` is in ``text`` from ``start`` as a whole, not the
    start of a longer heading ("Class: net.Socket" in "Class:
    net.SocketAddress"); -1 when it is not.

    >>> _heading_at("Class: net.SocketAddress x Class: net.Socket y", "Class: net.Socket")
    27
    """
    if not heading:
        return -1
    at = text.find(heading, start)
    while at >= 0:
        after = at + len(heading)
        if after == len(text) or not (text[after].isalnum() or text[after] == "_") or not heading[-1].isalnum():
            return at
        at = text.find(heading, at + 1)
    return -1


def sentence(text: str, pattern: WordPattern | None, width: int = WIDTH) -> str:
    """The one sentence of ``text`` that holds the most distinct query words
    (the first of equals), matches marked, cut to ``width`` around them; ""
    when no sentence holds one.

    >>> text = "The board met in May. Revenue grew by a third in the north. Margins fell."
    >>> sentence(text, word_pattern(["revenue", "north"]))
    '**Revenue** grew by a third in the **north**.'
    >>> sentence(text, word_pattern(["elephant"]))
    ''
    """
    if pattern is None:
        return ""
    text = text[:_SCAN]
    if not _single_spaced(text):
        text = " ".join(text.split())
    ends = [match.end() for match in _SENTENCE_END.finditer(text)]
    words: dict[int, set[int]] = {}
    for start, _, word in islice(pattern.finditer(text), _MAX_MATCHES):
        words.setdefault(bisect_right(ends, start), set()).add(word)
    if not words:
        return ""
    number = max(words, key=lambda index: (len(words[index]), -index))
    start = ends[number - 1] if number else 0
    end = ends[number] if number < len(ends) else len(text)
    chosen = text[start:end].strip()
    if trim(chosen, width) == chosen:  # it fits: all of it
        return pattern.mark(chosen)
    return passage(chosen, pattern, width)


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

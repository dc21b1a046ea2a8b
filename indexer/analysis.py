"""Text analysis parts: tokens from English, code and Chinese text (Whoosh components).

The same analysis runs at index and query time (the schema in
:mod:`indexer.schema` composes these parts), so what a user types meets
what a page says: code names are indexed whole and split (``os.path.join``
gives ``os.path.join``, ``os``, ``path``, ``join``, the parts on
consecutive positions, so ``"os path join"`` as a phrase finds it), and
runs of Chinese or Japanese characters are cut into overlapping bigrams,
each character indexed alone beside them. :class:`TermPositions` analyses
each distinct word of a page once. Design: ARCHITECTURE.md, "Design notes
by module", ``indexer/analysis.py``.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from functools import cache, lru_cache
from itertools import accumulate
from typing import Any

from whoosh.analysis import Filter, Token, Tokenizer
from whoosh.lang.porter import stem

__all__ = [
    "MixedTokenizer",
    "NormalizeFilter",
    "TermPositions",
    "has_cjk",
    "is_cjk",
    "joined",
    "code_parts",
    "CJK_MODES",
    "word_by_word",
    "GROUPED_PIECES",
    "uncounted_tokens",
    "plain_term",
]

CJK_MODES = ("bigram", "jieba", "both")

_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# A run of CJK characters; or a word of other scripts, digits and
# underscores, with dotted, colon- or hyphen-joined parts (json.dumps,
# std::vector, e-mail).
# The first character of those ranges: text whose characters all come
# before it has no CJK, and is split by the patterns without the class.
_CJK_FIRST = "\u3040"


@cache
def _pattern(name: str) -> re.Pattern[str]:
    """A pattern compiled when first used: each class of CJK ranges takes
    about 2 ms to compile, which a command-line search of English words
    need not pay at all. ``cjk``: a CJK character; ``token``: group 1 a run
    of CJK, else a word; ``latin token``: the same for text without CJK;
    ``words``: the words of ``token``, without a group (findall gives them
    as strings)."""
    if name == "cjk":
        return re.compile(f"[{_CJK_CLASS}]")
    if name == "cjk run":
        return re.compile(f"[{_CJK_CLASS}]{{2,}}")
    if name == "token":
        return re.compile(rf"([{_CJK_CLASS}]+)|[^\W{_CJK_CLASS}]+(?:(?:\.|::?|[-\u00b7])[^\W{_CJK_CLASS}]+)*")
    if name == "latin token":
        return re.compile(r"(\Z\A)?\w+(?:(?:\.|::?|[-\u00b7])\w+)*")
    return re.compile(rf"[{_CJK_CLASS}]+|[^\W{_CJK_CLASS}]+(?:(?:\.|::?|[-\u00b7])[^\W{_CJK_CLASS}]+)*")


# The parts of a code name: split at dots, colons and underscores, and
# before capitals that start a word (JSONEncoder, getElementById).
_SEPARATORS = re.compile(r"[.:_]+")
_CASE_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_A-Za-z]+")


def has_cjk(text: str) -> bool:
    """Whether ``text`` has Chinese or Japanese characters.

    >>> has_cjk("Hello 世界"), has_cjk("Hello")
    (True, False)
    """
    # Not max(text) >= "\u3040": a pass over the text in Python objects, four
    # times the regular expression's on a long text that has no such character.
    return not text.isascii() and _pattern("cjk").search(text) is not None


def is_cjk(char: str) -> bool:
    """Whether the character ``char`` is Chinese or Japanese (no pattern to compile)."""
    return _CJK_FIRST <= char and _pattern("cjk").match(char) is not None


def uncounted_tokens(text: str, cjk: str = "bigram") -> int:
    """How many of the tokens indexed for ``text`` are characters indexed
    beside their bigrams (:func:`_cjk_tokens`): not counted in the field's
    length, or Chinese text would weigh twice its length against English
    in BM25's length normalisation.

    >>> uncounted_tokens("西湖龙井茶 and 茶"), uncounted_tokens("西湖龙井茶", "jieba"), uncounted_tokens("tea")
    (5, 0, 0)
    """
    if cjk != "bigram" or not has_cjk(text):
        return 0
    return sum(map(len, _pattern("cjk run").findall(text)))


@lru_cache(maxsize=65536)
def code_parts(word: str) -> tuple[str, ...]:
    """The parts of a code-like word; one part for a plain word.

    >>> code_parts("os.path.join"), code_parts("read_csv"), code_parts("JSONEncoder")
    (('os', 'path', 'join'), ('read', 'csv'), ('JSON', 'Encoder'))
    >>> code_parts("getElementById"), code_parts("lighthouse"), code_parts("HTTP2")
    (('get', 'Element', 'By', 'Id'), ('lighthouse',), ('HTTP', '2'))
    >>> code_parts("configuració"), code_parts("Größe"), code_parts("Ελληνικά")
    (('configuració',), ('Größe',), ('Ελληνικά',))
    """
    parts: list[str] = []
    for piece in _SEPARATORS.split(word):
        if _one_case(piece):  # "configuració", "Größe", "ПРИМЕР": a word, whatever its letters
            parts.append(piece)
        elif piece:
            parts.extend(_CASE_PARTS.findall(piece) or [piece])
    return tuple(parts) if len(parts) > 1 else (word,)


def _one_case(piece: str) -> bool:
    """Whether a piece is letters in one case, or capitalised: one word in
    any alphabet. (:data:`_CASE_PARTS` knows the cases of ASCII letters
    only, and would cut "lació" into "laci" and "ó".)"""
    return piece.isalpha() and (piece.islower() or piece.isupper() or piece.istitle())


_COMPONENT = re.compile(r"[^.:]+")


def _code_tokens(word: str, start: int, pos: int) -> list[tuple[str, int, int, int]]:
    """``(text, start, end, position)`` of a word, whole and in parts.

    A dotted name is indexed whole, and each of its components, itself
    whole and split (``create_server``: ``create``, ``server``), in
    consecutive positions: a query for a tail of the name (``path.join`` of
    ``os.path.join``) is a phrase of its components (:mod:`search.parsing`),
    so the runs of components need no terms of their own (on Python's
    documentation they were a third of all distinct terms). A piece shares
    the position of the first part it covers; parts advance one position each.

    >>> [(t, p) for t, _, _, p in _code_tokens("socket.create_server", 0, 0)]
    [('socket.create_server', 0), ('socket', 0), ('create_server', 1), ('create', 1), ('server', 2)]
    >>> [(t, p) for t, _, _, p in _code_tokens("os.path.join", 0, 5)]
    [('os.path.join', 5), ('os', 5), ('path', 6), ('join', 7)]
    >>> _code_tokens("lighthouse", 3, 1)
    [('lighthouse', 3, 13, 1)]
    """
    if len(code_parts(word)) == 1:  # a plain word (most are): no dots, no parts
        return [(word, start, start + len(word), pos)]
    components = [(m.group(), m.start()) for m in _COMPONENT.finditer(word)]
    tokens: list[tuple[str, int, int, int]] = [(word, start, start + len(word), pos)]
    for component, offset in components:
        parts = code_parts(component)
        if len(parts) > 1 and len(components) > 1:
            tokens.append((component, start + offset, start + offset + len(component), pos))
        search_from = 0
        for part in parts:
            at = component.find(part, search_from)
            search_from = at + len(part)
            tokens.append((part, start + offset + at, start + offset + search_from, pos))
            pos += 1
    return tokens


# What joins the pieces of a word: a hyphen, and Catalan's middle dot
# ("instal·lació", also found as "installació" and "instal lació").
_JOINERS = re.compile("[-\u00b7]")
# A hyphenated word of at most this many pieces is also indexed joined.
_MAX_JOINED_PIECES = 6
_PLAIN_PIECE = re.compile(r"[^\W_]+\Z")


def joined(word: str) -> str | None:
    """The joined form of a hyphenated word (``e-mail``: ``email``), or None.

    Only for words of plain pieces with a letter among them: ``2024-05-01``
    or ``os.path-like`` are not words anybody writes joined.

    >>> joined("e-mail"), joined("Wi-Fi"), joined("state-of-the-art"), joined("col·lecció")
    ('email', 'WiFi', 'stateoftheart', 'collecció')
    >>> joined("email"), joined("2024-05-01"), joined("os.path-like")
    (None, None, None)
    """
    pieces = _JOINERS.split(word)
    if not 1 < len(pieces) <= _MAX_JOINED_PIECES or not all(_PLAIN_PIECE.match(p) for p in pieces):
        return None
    whole = "".join(pieces)
    return whole if not whole.isdigit() else None


def _word_tokens(word: str, start: int, pos: int) -> list[tuple[str, int, int, int]]:
    """``(text, start, end, position)`` of a word: hyphenated pieces one by
    one (each whole and split, as :func:`_code_tokens`), and the joined form
    at the first piece's position, so that ``e-mail`` is found by ``email``,
    ``"e mail"`` and ``e-mail``.

    >>> [(t, p) for t, _, _, p in _word_tokens("in-memory", 0, 3)]
    [('inmemory', 3), ('in', 3), ('memory', 4)]
    >>> [(t, p) for t, _, _, p in _word_tokens("json.dumps", 0, 0)]
    [('json.dumps', 0), ('json', 0), ('dumps', 1)]
    """
    if "-" not in word and "\u00b7" not in word:
        return _code_tokens(word, start, pos)
    tokens: list[tuple[str, int, int, int]] = []
    whole = joined(word)
    if whole is not None:
        tokens.append((whole, start, start + len(word), pos))
    offset = 0
    for piece in _JOINERS.split(word):
        piece_tokens = _code_tokens(piece, start + offset, pos)
        tokens.extend(piece_tokens)
        pos = max(position for _, _, _, position in piece_tokens) + 1
        offset += len(piece) + 1
    return tokens


@lru_cache(maxsize=1)
def _jieba() -> Any:
    """jieba, loaded on first use only."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def _bigrams(run: str) -> list[tuple[str, int, int]]:
    if len(run) == 1:
        return [(run, 0, 1)]
    return [(run[i : i + 2], i, i + 2) for i in range(len(run) - 1)]


def _cjk_spans(run: str, mode: str) -> list[tuple[str, int, int]]:
    if mode == "bigram":
        return _bigrams(run)
    words = [(w, s, e) for w, s, e in _jieba().tokenize(run, mode="search") if w.strip()]
    if mode == "jieba":
        return words
    seen = {w for w, _, _ in words}
    return words + [span for span in _bigrams(run) if span[0] not in seen]


def _cjk_tokens(run: str, mode: str, index: bool) -> tuple[list[tuple[str, int, int, int]], int]:
    """The tokens of a CJK run (text, start, end, position in the run) and
    how many positions it takes.

    Indexed in bigrams, each character is indexed alone too, at the position
    of the bigram it starts (the last at the last bigram's): a query of one
    character (``茶``, tea) finds it inside any compound, as its bigrams
    alone never would. A query's runs are bigrams only, as before.

    >>> _cjk_tokens("龙井茶", "bigram", index=True)
    ([('龙井', 0, 2, 0), ('龙', 0, 1, 0), ('井茶', 1, 3, 1), ('井', 1, 2, 1), ('茶', 2, 3, 1)], 2)
    >>> _cjk_tokens("龙井茶", "bigram", index=False)
    ([('龙井', 0, 2, 0), ('井茶', 1, 3, 1)], 2)
    """
    spans = _cjk_spans(run, mode)
    if not index or mode != "bigram" or len(run) == 1:
        return [(text, begin, end, offset) for offset, (text, begin, end) in enumerate(spans)], len(spans)
    tokens: list[tuple[str, int, int, int]] = []
    for at, (text, begin, end) in enumerate(spans):
        tokens += ((text, begin, end, at), (run[at], at, at + 1, at))
    tokens.append((run[-1], len(spans), len(spans) + 1, len(spans) - 1))
    return tokens, len(spans)


class MixedTokenizer(Tokenizer):
    """Words and code names by a regular expression, CJK runs by ``cjk`` mode."""

    def __init__(self, cjk: str = "bigram") -> None:
        if cjk not in CJK_MODES:
            raise ValueError(f"cjk must be one of {CJK_MODES}, not {cjk!r}")
        self.cjk = cjk

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.cjk == other.cjk

    def __call__(
        self,
        value: str,
        positions: bool = False,
        chars: bool = False,
        keeporiginal: bool = False,
        removestops: bool = True,
        start_pos: int = 0,
        start_char: int = 0,
        tokenize: bool = True,
        mode: str = "",
        **kwargs: Any,
    ) -> Iterator[Token]:
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        if not tokenize:
            token.original = token.text = value
            token.boost = 1.0
            if positions:
                token.pos = start_pos
            if chars:
                token.startchar, token.endchar = start_char, start_char + len(value)
            yield token
            return
        pos = start_pos
        words = _pattern("token" if has_cjk(value) else "latin token")
        for match in words.finditer(value):
            start = match.start()
            if match.group(1):
                found, span = _cjk_tokens(match.group(1), self.cjk, index=mode == "index")
                for word, begin, end, offset in found:
                    yield self._emit(token, word, pos + offset, start + begin, start + end, start_char, keeporiginal)
                pos += span
                continue
            for text, begin, end, position in _word_tokens(match.group(0), start, pos):
                yield self._emit(token, text, position, begin, end, start_char, keeporiginal)
                pos = max(pos, position + 1)

    @staticmethod
    def _emit(token: Token, text: str, pos: int, begin: int, end: int, start_char: int, keeporiginal: bool) -> Token:
        token.text = text
        token.boost = 1.0
        token.stopped = False
        if keeporiginal:
            token.original = text
        token.pos = pos
        token.startchar, token.endchar = start_char + begin, start_char + end
        return token


@lru_cache(maxsize=100_000)
def _stem(word: str) -> str:
    return stem(word)


def plain_term(word: str) -> str:
    """The term a plain lower-case word is indexed as: stemmed when it is
    longer than three ASCII letters.

    >>> plain_term("encoders"), plain_term("module"), plain_term("mod"), plain_term("西湖")
    ('encod', 'modul', 'mod', '西湖')
    """
    return _stem(word) if len(word) > 3 and word.isascii() else word


def word_by_word(analyzer: Any, text: str) -> bool:
    """Whether ``analyzer``'s tokens of ``text`` are those of its words
    (split at whitespace) in turn, so that a cache of words' tokens can
    stand for analysing the text: for text without CJK and the analyzer of
    :mod:`indexer.schema`, whose word pattern has no look-around and never
    spans whitespace and whose filter takes one token at a time.

    >>> from indexer.schema import text_analyzer
    >>> analyzer, title = text_analyzer(), "The Lighthouses — os.path.join(), e-mail & read_csv"
    >>> word_by_word(analyzer, title), word_by_word(analyzer, "西湖 龙井")
    (True, False)
    >>> tokens = lambda text: [token.text for token in analyzer(text)]
    >>> tokens(title) == [token for word in title.split() for token in tokens(word)]
    True
    """
    items: Sequence[Any] = getattr(analyzer, "items", ())
    return (
        not has_cjk(text)
        and len(items) >= 1
        and type(items[0]) is MixedTokenizer
        and all(type(item) is NormalizeFilter for item in items[1:])
    )


class NormalizeFilter(Filter):
    """Lower-case, drop stop words, stem plain Latin words (Porter's
    stemmer; Chinese words, numbers and code names pass unchanged): in one
    pass, a third of the per-token generator steps of a chain of filters.

    >>> analyzer = MixedTokenizer() | NormalizeFilter(["the", "of", "and"])
    >>> [t.text for t in analyzer("The Lighthouses of os.path.join AND read_csv 灯塔")]
    ['lighthous', 'os.path.join', 'os', 'path', 'join', 'read_csv', 'read', 'csv', '灯塔']
    """

    def __init__(self, stoplist: Iterable[str] = ()) -> None:
        self.stops = frozenset(stoplist)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.stops == other.stops

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        stops = self.stops
        for token in tokens:
            text = token.text.lower()
            if text in stops:
                continue
            if len(text) > 3 and text.isascii() and text.isalpha():
                text = _stem(text)
            token.text = text
            token.stopped = False
            yield token


# Distinct words (and whitespace-separated pieces of text) remembered by
# TermPositions, and the tokens of those pieces; past either the memory
# starts over. The tokens bound the memory (about 250 bytes each): a run of
# Chinese text is one piece of as many tokens as characters, which seldom
# comes again (20,000 synthetic pages: 3% of the pieces, 90% of the tokens).
_MAX_CACHED_WORDS = 300_000
_MAX_CACHED_TOKENS = 500_000
# A word of more tokens than this (a run of CJK text) is not remembered by
# itself, only as the piece of text it is.
_MAX_WORD_TOKENS = 16
# Texts of at least this many pieces are grouped by numpy (below, its
# calls cost more than the Python loop they save).
GROUPED_PIECES = 200


class TermPositions:
    """The terms of a text and their positions, as the analyzer gives them,
    fast: what the index writes for each page.

    ``MixedTokenizer() | NormalizeFilter(stops)`` makes a Token object per
    token through two generators; a page repeats its words, so this keeps,
    for each distinct piece of text between whitespace (``json.dumps(obj),``:
    the analyzer's words never span whitespace), what it turns into (its
    normalized tokens, their positions relative to the piece, and how many
    positions it takes) and then only splits the text and looks pieces up.
    A long text's tokens are then grouped by term with numpy
    (:meth:`grouped`), not one Python step each. Same terms, same positions
    (tests compare them with the analyzer's); several times faster than the
    analyzer on documentation pages.

    >>> terms = TermPositions(["the"])
    >>> terms("The JSON encoder: json.dumps, e-mail")
    {'json': [1, 3], 'encod': [2], 'json.dumps': [3], 'dump': [4], 'email': [5], 'e': [5], 'mail': [6]}
    """

    def __init__(self, stoplist: Iterable[str] = (), cjk: str = "bigram") -> None:
        if cjk not in CJK_MODES:
            raise ValueError(f"cjk must be one of {CJK_MODES}, not {cjk!r}")
        self.stops = frozenset(stoplist)
        self.cjk = cjk
        self._words: dict[str, Any] = {}
        self._findall = _pattern("words").findall
        self._is_cjk = _pattern("cjk").match
        self._table = _PieceTable()

    def __call__(self, text: str) -> dict[str, list[int]]:
        pieces = text.split()
        if len(pieces) >= GROUPED_PIECES:
            terms, counts, positions = self.grouped(text, pieces)
            found = positions.tolist()
            ends = list(accumulate(counts.tolist()))
            return {
                term: found[end - count : end] for term, count, end in zip(terms, counts.tolist(), ends, strict=False)
            }
        return self.of_pieces(pieces)

    def remembered(self) -> tuple[int, int, int]:
        """How many words, pieces of text and their tokens it remembers (bounded)."""
        return len(self._words), len(self._table._ids), self._table._token_count

    def of_pieces(self, pieces: list[str]) -> dict[str, list[int]]:
        """What ``self(text)`` gives, from ``text.split()``, in Python (for a short text)."""
        forms = self._forms(pieces)
        grouped: defaultdict[str, list[int]] = defaultdict(list)
        pos = 0
        for form in forms:
            if form.__class__ is str:  # one word, one term (or "": a stop word)
                grouped[form].append(pos)
                pos += 1
            else:
                tokens, span = form
                for term, offset in tokens:
                    grouped[term].append(pos + offset)
                pos += span
        grouped.pop("", None)  # stop words: a position, no term
        return dict(grouped)

    def grouped(self, text: str, pieces: list[str] | None = None) -> tuple[list[str], Any, Any]:
        """The terms of ``text`` (in no particular order), how many times
        each is found (a numpy array), and their positions (a numpy array:
        the first term's in order, then the second's...).

        >>> terms, counts, positions = TermPositions(["the"]).grouped("The json encoder: json.dumps")
        >>> ends, found = counts.cumsum().tolist(), positions.tolist()
        >>> sorted((term, found[end - count : end]) for term, count, end in zip(terms, counts.tolist(), ends))
        [('dump', [4]), ('encod', [2]), ('json', [1, 3]), ('json.dumps', [3])]
        """
        import numpy as np

        table = self._table
        if table.full():
            table = self._table = _PieceTable()
        ids = table.ids_of(pieces if pieces is not None else text.split(), self._piece_forms)
        first, count, span, token_terms, token_offsets = table.arrays()
        piece = np.array(ids, dtype=np.int64)
        counts = count[piece]
        total = int(counts.sum())
        if not total:
            return [], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        spans = span[piece]
        starts = np.cumsum(spans) - spans  # each piece's first position
        ends = np.cumsum(counts)
        # Each token of the text: where it is in the table, then its term and position.
        token = np.arange(total) + np.repeat(first[piece] - (ends - counts), counts)
        terms = token_terms[token]
        positions = np.repeat(starts, counts) + token_offsets[token]
        order = np.argsort(terms, kind="stable")  # positions ascend within each term
        terms, positions = terms[order], positions[order]
        heads = np.flatnonzero(np.concatenate(([True], terms[1:] != terms[:-1])))
        return table.names(terms[heads].tolist()), np.diff(np.append(heads, total)), positions

    def _forms(self, pieces: list[str]) -> list[Any]:
        table = self._table
        if table.full():
            table = self._table = _PieceTable()
        return table.forms(table.ids_of(pieces, self._piece_forms))

    def _piece_forms(self, pieces: list[str]) -> list[Any]:
        """The terms of pieces of text without whitespace, as :meth:`_form`
        gives a word's: the terms of each piece's words in turn."""
        known = self._words
        if len(known) > _MAX_CACHED_WORDS:
            known.clear()
        found = []
        for words in map(self._findall, pieces):
            if len(words) == 1:  # one word (most pieces): its form, shared
                form = known.get(words[0])
                found.append(form if form is not None else self._word_form(words[0]))
                continue
            tokens: list[tuple[str, int]] = []
            span = 0
            for word in words:
                form = known.get(word)
                if form is None:
                    form = self._word_form(word)
                if form.__class__ is str:
                    if form:
                        tokens.append((form, span))
                    span += 1
                else:
                    tokens.extend((term, span + offset) for term, offset in form[0])
                    span += form[1]
            found.append((tuple(tokens), span))
        return found

    def _word_form(self, word: str) -> Any:
        """:meth:`_form`, remembered unless it is a long run of tokens."""
        form = self._form(word)
        if form.__class__ is str or form[1] <= _MAX_WORD_TOKENS:
            self._words[word] = form
        return form

    def _form(self, word: str) -> Any:
        """A word's terms: one term (a str), "" (a stop word: a position, no
        term), or ``(((term, offset), ...), span)``."""
        if self._is_cjk(word):
            found, span = _cjk_tokens(word, self.cjk, index=True)
            return tuple((text, offset) for text, _, _, offset in found), span
        if word.isdigit() or (word.isalpha() and (word.islower() or word.isupper() or word.istitle())):
            text = word.lower()  # a plain word, one part (most words are)
            if text in self.stops:
                return ""
            return plain_term(text)
        return self._parts_form(word)

    def _parts_form(self, word: str) -> Any:
        """:meth:`_form` of a word of parts (a code name, a hyphenated
        word): its tokens normalized as :class:`NormalizeFilter` does; one
        term, or "", if it takes one position and has one token there, or none."""
        tokens = []
        span = 0
        for text, _, _, position in _word_tokens(word, 0, 0):
            span = max(span, position + 1)
            text = text.lower()
            if text in self.stops:
                continue
            if len(text) > 3 and text.isascii() and text.isalpha():
                text = _stem(text)
            tokens.append((text, position))
        if span == 1 and len(tokens) == 1 and tokens[0][1] == 0:
            return tokens[0][0]
        if span == 1 and not tokens:
            return ""
        return tuple(tokens), span


class _PieceTable:
    """The pieces of text :meth:`TermPositions.grouped` has seen, numbered,
    with their tokens in flat arrays: piece ``i``'s tokens are ``count[i]``
    entries of ``token_terms`` (term numbers) and ``token_offsets`` (their
    positions in the piece) from ``first[i]``; it takes ``span[i]``
    positions. Stop words take a position and have no token. New pieces
    wait in lists until the arrays are asked for, which then grow (to
    twice their size when full, as a list does)."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._forms: list[Any] = []  # each piece's form
        self._term_ids: dict[str, int] = {}
        self._names: list[str] = []
        # Entered since the arrays were last brought up to date.
        self._pieces: list[list[int]] = [[], [], []]  # first, count, span
        self._tokens: list[list[int]] = [[], []]  # terms, offsets
        self._token_count = 0
        self._columns: list[Any] = []  # first, count, span, token_terms, token_offsets (with room to grow)
        self._filled = [0, 0]  # pieces and tokens in the columns

    def full(self) -> bool:
        """Whether the table holds as many pieces or tokens as it may."""
        return len(self._ids) > _MAX_CACHED_WORDS or self._token_count > _MAX_CACHED_TOKENS

    def ids_of(self, pieces: list[str], forms_of: Any) -> list[int]:
        """The numbers of ``pieces`` (those not seen before entered with
        their forms, as :meth:`TermPositions._piece_forms` gives them)."""
        known = self._ids
        # The new pieces entered once each (in a set order: the numbers are
        # the same every time), without a Python step per piece of the text.
        new = sorted(set(pieces).difference(known))
        if new:
            known.update(zip(new, range(len(known), len(known) + len(new)), strict=False))
            self._enter(forms_of(new))
        return list(map(known.__getitem__, pieces))

    def _enter(self, forms: list[Any]) -> None:
        """Enter the forms of new pieces, numbered in turn."""
        self._forms += forms
        firsts, counts, spans = self._pieces
        terms, offsets = self._tokens
        term_ids, names = self._term_ids, self._names
        total = self._token_count
        for form in forms:
            firsts.append(total)
            if form.__class__ is str:  # one term (most pieces), or a stop word
                spans.append(1)
                if not form:
                    counts.append(0)
                    continue
                found = term_ids.get(form)
                if found is None:
                    found = term_ids[form] = len(names)
                    names.append(form)
                terms.append(found)
                offsets.append(0)
                counts.append(1)
                total += 1
                continue
            tokens, span = form
            spans.append(span)
            counts.append(len(tokens))
            total += len(tokens)
            for term, offset in tokens:
                found = term_ids.get(term)
                if found is None:
                    found = term_ids[term] = len(names)
                    names.append(term)
                terms.append(found)
                offsets.append(offset)
        self._token_count = total

    def arrays(self) -> list[Any]:
        """``first``, ``count``, ``span``, ``token_terms``, ``token_offsets``
        as numpy arrays (longer than the table: the entries past its end
        are never read)."""
        if self._pieces[0] or not self._columns:
            import numpy as np

            if not self._columns:
                self._columns = [np.zeros(1024, dtype=np.int32) for _ in range(5)]
            for columns, lists, at in (((0, 1, 2), self._pieces, 0), ((3, 4), self._tokens, 1)):
                start = self._filled[at]
                end = start + len(lists[0])
                for column, values in zip(columns, lists, strict=False):
                    found = self._columns[column]
                    if end > len(found):
                        found = self._columns[column] = np.concatenate(
                            (found[:start], np.zeros(max(end, 2 * len(found)) - start, dtype=np.int32))
                        )
                    found[start:end] = values
                    values.clear()
                self._filled[at] = end
        return self._columns

    def forms(self, numbers: list[int]) -> list[Any]:
        """The forms of pieces (by number), as they were entered."""
        return list(map(self._forms.__getitem__, numbers))

    def names(self, numbers: list[int]) -> list[str]:
        return list(map(self._names.__getitem__, numbers))

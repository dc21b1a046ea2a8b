"""How a document's values become postings, faster than Whoosh's analysis
gives them: a text field through :class:`indexer.analysis.TermPositions`,
an ID or KEYWORD field split in one call."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from whoosh.analysis import CompositeAnalyzer, IDTokenizer, LowercaseFilter, RegexTokenizer
from whoosh.fields import TEXT
from whoosh.formats import Existence, Frequency, Positions
from whoosh.system import pack_uint

from indexer.analysis import GROUPED_PIECES, TermPositions
from indexer.codec.positions import CompactPositions

__all__ = ["FastText", "Postings", "plain_postings"]


class FastText(TEXT):
    """A ``TEXT`` field indexed through :class:`TermPositions`.

    ``stoplist`` and ``cjk`` must be those of ``analyzer`` (the schema builds
    both from the same values)."""

    format: Any  # set by Whoosh's field type

    def __init__(self, analyzer: Any, stoplist: Iterable[str], cjk: str, **kwargs: Any) -> None:
        super().__init__(analyzer=analyzer, **kwargs)
        if isinstance(self.format, Positions):
            self.format = CompactPositions(field_boost=self.format.field_boost)
        self.stoplist = tuple(sorted(stoplist))
        self.cjk = cjk
        self._terms: TermPositions | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_terms"] = None  # a cache, not part of the schema written to the index
        return state

    def index(self, value: Any, **kwargs: Any) -> Iterable[tuple[bytes, int, float, bytes]]:
        if not isinstance(value, str):
            return super().index(value, **kwargs)
        if self._terms is None:
            self._terms = _shared_terms(self.stoplist, self.cjk)
        boost = self.format.field_boost
        # Positions (the fields of phrases), else counts.
        compact = isinstance(self.format, CompactPositions)
        pieces = value.split()
        if len(pieces) >= GROUPED_PIECES:  # a page's body: grouped by numpy
            terms, counts, positions = self._terms.grouped(value, pieces)
            if not terms:
                return []
            found = counts.tolist()
            values = self.format.encode_grouped(counts, positions) if compact else list(map(pack_uint, found))
            return list(
                zip(
                    [term.encode("utf-8") for term in terms],
                    found,
                    [count * boost for count in found],
                    values,
                    strict=False,
                )
            )
        encode = self.format.encode if compact else None
        return [
            (term.encode("utf-8"), len(where), len(where) * boost, encode(where) if encode else pack_uint(len(where)))
            for term, where in self._terms.of_pieces(pieces).items()
        ]


@lru_cache(maxsize=8)
def _shared_terms(stoplist: tuple[str, ...], cjk: str) -> TermPositions:
    """One :class:`TermPositions` (and its memory of words) for every field
    analysed alike: a page's title words are mostly in its body too."""
    return TermPositions(stoplist, cjk)


# What Whoosh's SpaceSeparatedTokenizer (a KEYWORD field's) matches.
_SPACE_SEPARATED = r"[^ \t\r\n]+"

Postings = Callable[[str], Iterable[tuple[bytes, int, float, bytes]]]


def plain_postings(field: Any) -> Postings | None:
    """What ``field.index(text)`` gives, without Whoosh's token objects and
    generators, for an ID or KEYWORD field (its value taken whole or split
    at spaces, maybe lower-cased; presence or frequency recorded); None
    for any other field. An anchor document has six such fields, and
    Whoosh's path took a fifth of its writing time.

    >>> from whoosh.fields import ID, KEYWORD
    >>> keywords = KEYWORD(lowercase=True)
    >>> [(term, count) for term, count, _, _ in sorted(plain_postings(keywords)("zh-cn zh ZH"))]
    [(b'zh', 2), (b'zh-cn', 1)]
    >>> sorted(plain_postings(keywords)("zh-cn zh ZH")) == sorted(keywords.index("zh-cn zh ZH"))
    True
    >>> list(plain_postings(ID())("http://a.test/"))
    [(b'http://a.test/', 1, 1.0, b'')]
    """
    analyzer = field.analyzer
    parts = list(analyzer.items) if isinstance(analyzer, CompositeAnalyzer) else [analyzer]
    lower = parts[1:] == [LowercaseFilter()]
    if len(parts) > 1 and not lower:
        return None
    tokenizer = parts[0]
    split: Callable[[str], list[str]]
    if type(tokenizer) is IDTokenizer:
        split = lambda value: [value]  # noqa: E731
    elif type(tokenizer) is RegexTokenizer and not tokenizer.gaps and tokenizer.expression.pattern == _SPACE_SEPARATED:
        split = tokenizer.expression.findall
    else:
        return None
    boost = field.format.field_boost
    if type(field.format) is Existence:

        def present(value: str) -> Iterable[tuple[bytes, int, float, bytes]]:
            words = split(value.lower() if lower else value)
            return [(word.encode("utf-8"), 1, boost, b"") for word in set(words)]

        return present
    if type(field.format) is Frequency:

        def counted(value: str) -> Iterable[tuple[bytes, int, float, bytes]]:
            counts = Counter(split(value.lower() if lower else value))
            return [(word.encode("utf-8"), count, count * boost, pack_uint(count)) for word, count in counts.items()]

        return counted
    return None

"""The Whoosh schema and its text analysis: the one module that knows fields.

Each field holds one kind of "hit" from the Google paper (SEEDS.md item 26),
so ranking can weigh them apart: the URL's words, the title, headings,
emphasised text, the meta description, the body, and the anchor text of
links pointing at the page (item 27). Stored fields are what a result line
shows; the body is not stored here (the page store keeps it compressed).

Analysis is the same at index and query time: alphabetic words are
lower-cased, stop words dropped and Latin words stemmed (``encoders`` finds
``encoder``); runs of Chinese/Japanese characters are segmented by jieba in
its search mode, which also emits the shorter words inside long ones
(``西湖龙井茶`` gives ``西湖``, ``龙井``, ``龙井茶``...), so a two-character query
word finds a page whose text has it inside a longer compound.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from whoosh.analysis import Filter, LowercaseFilter, StopFilter, Token, Tokenizer
from whoosh.analysis.analyzers import CompositeAnalyzer
from whoosh.fields import BOOLEAN, ID, STORED, TEXT, Schema
from whoosh.lang.porter import stem

__all__ = [
    "schema",
    "text_analyzer",
    "URL", "HOST", "URLWORDS", "TITLE", "HEADINGS", "EMPHASIS", "DESCRIPTION",
    "BODY", "ANCHOR", "CRAWLED", "LANG", "TEXT_FIELDS", "has_cjk",
]

URL = "url"
HOST = "host"
URLWORDS = "urlwords"
TITLE = "title"
HEADINGS = "headings"
EMPHASIS = "emphasis"
DESCRIPTION = "description"
BODY = "body"
ANCHOR = "anchor"
CRAWLED = "crawled"
LANG = "lang"
FETCHED = "fetched"
TEXT_FIELDS = (TITLE, ANCHOR, URLWORDS, HEADINGS, EMPHASIS, DESCRIPTION, BODY)

_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# A run of CJK characters, or a run of other letters and digits.
_TOKEN = re.compile(rf"([{_CJK_CLASS}]+)|[^\W_{_CJK_CLASS}]+")
_HAS_CJK = re.compile(f"[{_CJK_CLASS}]")
_LATIN_WORD = re.compile(r"[a-z]+\Z")

_STOP_WORDS = frozenset(
    """a an and are as at be by for from has have in is it its of on or that the
    this to was were will with""".split()
)


def has_cjk(text: str) -> bool:
    """Whether ``text`` has Chinese or Japanese characters.

    >>> has_cjk("Hello 世界"), has_cjk("Hello")
    (True, False)
    """
    return _HAS_CJK.search(text) is not None


@lru_cache(maxsize=1)
def _jieba() -> Any:
    """jieba, loaded on first use only: a query without Chinese never pays."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


class MixedTokenizer(Tokenizer):
    """Latin-script words by a regular expression, CJK runs by jieba."""

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __call__(  # type: ignore[override]
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
        for match in _TOKEN.finditer(value):
            if match.group(1):
                offset = match.start()
                pieces = _jieba().tokenize(match.group(1), mode="search")
                spans = [(word, offset + start, offset + end) for word, start, end in pieces]
            else:
                spans = [(match.group(0), match.start(), match.end())]
            for word, start, end in spans:
                if not word.strip():
                    continue
                token.text = word
                token.boost = 1.0
                token.stopped = False
                if keeporiginal:
                    token.original = word
                if positions:
                    token.pos = pos
                if chars:
                    token.startchar, token.endchar = start_char + start, start_char + end
                pos += 1
                yield token


@lru_cache(maxsize=50000)
def _stem(word: str) -> str:
    return stem(word)


class LatinStemFilter(Filter):
    """Porter stemming for plain lower-case Latin words only.

    Chinese words, numbers and mixed tokens pass unchanged.
    """

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        for token in tokens:
            text = token.text
            if len(text) > 3 and _LATIN_WORD.match(text):
                token.text = _stem(text)
            yield token


def text_analyzer() -> CompositeAnalyzer:
    """The analyzer of every text field, at index and query time."""
    return (
        MixedTokenizer()
        | LowercaseFilter()
        | StopFilter(stoplist=_STOP_WORDS, minsize=1)
        | LatinStemFilter()
    )


def schema() -> Schema:
    text = text_analyzer()
    return Schema(
        **{
            URL: ID(stored=True, unique=True),
            HOST: ID(stored=True),
            URLWORDS: TEXT(analyzer=text),
            TITLE: TEXT(analyzer=text, stored=True),
            HEADINGS: TEXT(analyzer=text),
            EMPHASIS: TEXT(analyzer=text),
            DESCRIPTION: TEXT(analyzer=text, stored=True),
            BODY: TEXT(analyzer=text),
            ANCHOR: TEXT(analyzer=text, stored=True),
            CRAWLED: BOOLEAN(stored=True),
            LANG: ID(stored=True),
            FETCHED: STORED(),
        }
    )

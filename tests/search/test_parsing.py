"""Plain words are parsed without Whoosh's parser, into the very query its parser makes of them."""

from __future__ import annotations

import random

import pytest
from whoosh.query import Query

from indexer.schema import schema as make_schema
from search import ranking
from search.parsing import LEVELS, QueryParser, unions

# Words of every kind a plain query holds: English (stemmed, stop words,
# capitals), numbers, other scripts, Chinese (bigrams), words the analyzer
# splits, and those the parser must keep to itself (operators, code names).
WORDS = (
    "harbour ferries lighthouse running keeper Timetable STORM the a of and not or Über café naïve 2024 "
    "x1 JSONEncoder İstanbul ß Straße δ ΣΊΣΥΦΟΣ русский 日本語 한국어 ｆｕｌｌ 中文 西湖龙井茶 哈哈哈 "
    "AND OR NOT ANDNOT ANDMAYBE Sørensen I US don"
).split()


def _same(found: Query, expected: Query) -> bool:
    """The same query: kinds, fields, texts and boosts, all the way down."""
    if type(found) is not type(expected) or found != expected or repr(found) != repr(expected):
        return False
    for name in ("boost", "fieldname", "text", "scale", "minmatch"):
        if getattr(found, name, None) != getattr(expected, name, None):
            return False
    children, others = getattr(found, "subqueries", ()), getattr(expected, "subqueries", ())
    return len(children) == len(others) and all(
        _same(child, other) for child, other in zip(children, others, strict=False)
    )


def _as_word(word: str) -> str:
    return word.lower() if word in ("AND", "OR", "NOT", "ANDNOT", "ANDMAYBE") else word


@pytest.mark.parametrize("level", LEVELS)
def test_plain_words_parse_to_the_query_of_whooshs_parser(level: str) -> None:
    parser = QueryParser(make_schema(), dict(ranking.FIELD_WEIGHTS))
    rng = random.Random(level)
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 6))) for _ in range(600)]
    texts += ["tea tea", "the", "the of", "西湖 西湖", "harbour Harbour HARBOUR"]
    direct = 0
    for text in texts:
        try:
            expected = unions(parser._parsers[level].parse(text))
        except (IndexError, AssertionError):  # an operator with nothing after it: Whoosh's parser fails
            lenient = unions(parser._parsers[level].parse(" ".join(_as_word(word) for word in text.split())))
            assert _same(parser.parse(text, level), lenient), text  # ours reads the operator as a word
            continue
        found = parser.parse(text, level)
        assert _same(found, expected), (text, found, expected)
        direct += parser._direct and all(word.isalnum() for word in text.split())
    assert direct > 200  # most took the direct way

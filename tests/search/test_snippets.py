"""Snippets take shortcuts (tokens found by ``str.find``, a long text cut from its start) that change nothing."""

from __future__ import annotations

import random
import unicodedata

import pytest

from indexer.schema import schema
from search.snippets import WordPattern, passage, trim, word_pattern
from search.tokens import Tokens

PIECES = [
    "a",
    "b",
    "e",
    "s",
    "us",
    "Use",
    "USER",
    "json.dumps",
    "JSON",
    "*",
    "**",
    " ",
    "  ",
    "\n",
    "\t",
    "西湖",
    "龙井",
    "é",
    "—",
    ".",
    "-",
    "x1",
    "_",
    "ſ",
    "K",
    "ﬁ",
    "1",
]


def _text(rng: random.Random, size: int) -> str:
    return "".join(rng.choice(PIECES) + (" " if rng.random() < 0.5 else "") for _ in range(rng.randrange(size)))


def _whole_trim(text: str, width: int) -> str:
    """What :func:`trim` is: the single-spaced text, cut at the character
    that overflows ``width`` columns (a mark's ``*`` takes none, a wide
    character two) and back to a word's end, a mark cut in half closed."""
    text = " ".join(text.split())
    used = 0
    for index, char in enumerate(text):
        wide = unicodedata.east_asian_width(char) in ("W", "F")
        used += 0 if char == "*" else 2 if wide else 1
        if used > width:
            cut = text[:index]
            if not wide and " " in cut:
                cut = cut.rsplit(" ", 1)[0]
            if cut.count("**") % 2:
                cut += "**"
            return cut.rstrip() + " ..."
    return text


def test_a_long_text_cut_from_its_start_is_cut_as_a_whole() -> None:
    rng = random.Random(1)
    texts = [_text(rng, 600) for _ in range(3000)]
    texts += [
        "*" * 2000 + " word" * 50,
        " " * 3000 + "a b c " * 200,
        "西湖 " * 1000,
        "a" * 5000,
        "ab*" * 1000 + "龙井" * 100,
        "\n\n".join(["x y"] * 1000),
    ]
    for text in texts:
        for width in (3, 20, 60, 240):
            assert trim(text, width) == _whole_trim(text, width), (text[:60], width)
    assert sum(len(text) > 2 * 240 for text in texts) > 1000  # many take the shortcut


def test_tokens_found_by_find_are_the_expressions_matches() -> None:
    """In ASCII text, a pattern of ASCII tokens is tried only where a token
    stands: the matches are those of its expression over the whole text."""
    rng = random.Random(2)
    checked = 0
    for _ in range(3000):
        text = _text(rng, 200).encode("ascii", "ignore").decode()
        tokens = [
            rng.sample(["us", "use", "json.dumps", "json", "a", "be", "s", "x1", "k", "Use"], rng.randrange(1, 3))
            for _ in range(rng.randrange(1, 4))
        ]
        pattern = word_pattern(tokens)
        assert isinstance(pattern, WordPattern) and pattern._literals is not None
        everywhere = [
            (start, end, word)
            for start, end, word in pattern._matched(text)
            if not (start and text[start - 1].isalnum())
        ]
        assert list(pattern.finditer(text)) == everywhere
        checked += bool(everywhere)
    assert checked > 1000


def test_tokens_without_case_found_by_find_are_the_expressions_matches() -> None:
    """In any text, a pattern of tokens without case (CJK, digits) is tried
    only where a token stands as it is: the matches are its expression's."""
    rng = random.Random(3)
    checked = 0
    for _ in range(3000):
        text = _text(rng, 200)
        tokens = [
            rng.sample(["西湖", "龙井", "龙", "1", "x1", "—"], rng.randrange(1, 3)) for _ in range(rng.randrange(1, 3))
        ]
        pattern = word_pattern(tokens)
        assert isinstance(pattern, WordPattern)
        if not pattern._caseless:
            continue
        everywhere = [
            (m.start(), m.end(), pattern.word_of[m.lastindex - 1])
            for m in pattern.regex.finditer(text)
            if m.lastindex
            and not (m.start() and text[m.start() - 1].isalnum() and not "\u4e00" <= text[m.start()] <= "\u9fff")
        ]
        assert list(pattern.finditer(text)) == everywhere
        checked += bool(everywhere)
    assert checked > 500


@pytest.mark.parametrize("text", ["Stay here. The JSON encoder: json.dumps(x) encodes; use it.", "西湖龙井茶是绿茶"])
def test_a_passage_marks_the_query_words(text: str) -> None:
    found = passage(text, word_pattern([["json"], ["encod"], ["西湖"]]), width=40)
    assert "**" in found and len(found.replace("*", "")) <= 44


@pytest.mark.parametrize(
    ("query", "text", "marked"),
    [
        ("mod", "The module mod_cgi can modify the mod.", "The module **mod**_cgi can modify the **mod**."),
        ("i", "It is what I said.", "It is what **I** said."),
        (
            "encoders",
            "JSON encoder and encoders, not encyclopedias.",
            "JSON **encoder** and **encoders**, not encyclopedias.",
        ),
        ("ferry", "The ferry and the ferries.", "The **ferry** and the **ferries**."),
        ("tests", "Testing tests in a testament.", "**Testing** **tests** in a testament."),
    ],
)
def test_highlighting_marks_whole_terms_as_the_query_matched_them(query: str, text: str, marked: str) -> None:
    tokens = Tokens(schema()["title"].analyzer)
    pattern = word_pattern([tokens.marked(word) for word in query.split()])
    assert pattern is not None
    assert pattern.mark(text) == marked
    assert pattern.mark(text.upper()) == marked.upper()

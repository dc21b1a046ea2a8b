"""The fast indexing path gives exactly the analyzer's terms and positions."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from whoosh.system import pack_uint

from indexer import analysis
from indexer import schema as fields
from indexer.analysis import GROUPED_PIECES, TermPositions
from indexer.codec import CompactPositions
from indexer.schema import _STOP_WORDS, text_analyzer

SAMPLES = [
    "The JSON encoder: json.dumps(obj) and os.path.join, read_csv, JSONEncoder, getElementById.",
    "An in-memory database is thread-safe; send an e-mail over Wi-Fi with --tls-keylog=file.",
    "西湖龙井茶是产于杭州西湖的绿茶。Python编程 and 東京の天気, 서울 2024-05-21 v8-options HTTP2.",
    "std::vector<int> and fs.promises.readFile(); django.db.models.QuerySet.select_related(*fields)",
    "a-b x--y pre- and post- the of and 3.14 1.4.2024 __init__ _private trailing. dots... end",
]


def _analyzed(text: str) -> dict[str, list[int]]:
    terms: dict[str, list[int]] = defaultdict(list)
    for token in text_analyzer()(text, positions=True, mode="index"):
        terms[token.text].append(token.pos)
    return dict(terms)


def test_samples_index_as_the_analyzer_reads_them() -> None:
    fast = TermPositions(_STOP_WORDS)
    for text in SAMPLES + [" ".join(SAMPLES)]:
        assert fast(text) == _analyzed(text)
        assert fast(text) == _analyzed(text)  # words remembered: the same again


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "json",
                "dumps",
                "json.dumps",
                "e-mail",
                "The",
                "of",
                "a",
                "西湖",
                "龙井茶",
                "JSONEncoder",
                "x_y",
                "--v",
                "3.14",
                "std::map",
                "os.path.join",
                "Wi-Fi",
                ".",
                "-",
                " ",
                "\n",
                "東京の",
                "HTTP2",
                "thread-safe",
            ]
        ),
        max_size=40,
    )
)
def test_any_text_indexes_as_the_analyzer_reads_it(pieces: list[str]) -> None:
    text = " ".join(pieces) + "".join(pieces[:5])
    assert TermPositions(_STOP_WORDS)(text) == _analyzed(text)


def _long_text(words: int) -> str:
    """A page's worth of the samples' words, shuffled, some far apart."""
    pieces = " ".join(SAMPLES).split()
    return " ".join(pieces[(k * 7919) % len(pieces)] + ("\n" if k % 13 == 0 else "") for k in range(words))


@pytest.mark.parametrize("words", [GROUPED_PIECES, 3_000, 40_000])
def test_long_text_grouped_indexes_as_the_analyzer_reads_it(words: int) -> None:
    text = _long_text(words) + " lighthouse"  # a word once, at a position past two varint bytes
    fast = TermPositions(_STOP_WORDS)
    assert fast(text) == _analyzed(text)
    terms, counts, positions = fast.grouped(text)
    assert len(terms) == len(set(terms)) == len(counts) and counts.sum() == len(positions)
    assert fast(text) == _analyzed(text)  # pieces remembered: the same again


def _expected_postings(field: Any, text: str) -> list[tuple[bytes, int, float, bytes]]:
    """What Whoosh's TEXT field writes: the analyzer's terms, each encoded by the field's format."""
    found = _analyzed(text)
    if isinstance(field.format, CompactPositions):
        return sorted(
            (term.encode(), len(where), float(len(where)), CompactPositions().encode(where))
            for term, where in found.items()
        )
    return sorted(
        (term.encode(), len(where), float(len(where)), pack_uint(len(where))) for term, where in found.items()
    )


@pytest.mark.parametrize("field_name", [fields.BODY, fields.DESCRIPTION])
@pytest.mark.parametrize("words", [12, GROUPED_PIECES - 1, GROUPED_PIECES, 40_000])
def test_text_fields_write_the_analyzers_postings(field_name: str, words: int) -> None:
    field = fields.schema()[field_name]
    text = _long_text(words)
    assert sorted(field.index(text)) == _expected_postings(field, text)


def test_a_long_text_without_terms_has_no_postings() -> None:
    text = " ".join(["the", "-", "of", "(", "a"] * GROUPED_PIECES)
    assert TermPositions(_STOP_WORDS)(text) == {} == _analyzed(text)
    assert list(fields.schema()[fields.BODY].index(text)) == []


def test_what_the_analysis_remembers_stays_bounded_over_unique_chinese_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run of Chinese text is one piece of as many tokens as characters,
    seldom seen twice: remembering them all grew an indexer by gigabytes."""
    monkeypatch.setattr(analysis, "_MAX_CACHED_TOKENS", 20_000)
    fast = TermPositions(_STOP_WORDS)
    for page in range(60):
        runs = [
            "".join(chr(0x4E00 + (page * 7919 + k * 104729 + i * 31) % 20_000) for i in range(300)) for k in range(5)
        ]
        text = " ".join(run + " json.dumps 西湖" for run in runs)
        assert fast(text) == _analyzed(text)
        words, pieces, tokens = fast.remembered()
        assert tokens <= 20_000 + len(text)  # at most the limit, and the text in hand
        assert words <= 10  # the words of the runs are not remembered one by one
    for text in SAMPLES:
        assert fast(text) == _analyzed(text)  # after starting over, the same terms

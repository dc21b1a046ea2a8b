"""The fast indexing path gives exactly the analyzer's terms and positions."""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings, strategies as st

from indexer.analysis import TermPositions
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
    for token in text_analyzer()(text, positions=True):
        terms[token.text].append(token.pos)
    return dict(terms)


def test_samples_index_as_the_analyzer_reads_them() -> None:
    fast = TermPositions(_STOP_WORDS)
    for text in SAMPLES + [" ".join(SAMPLES)]:
        assert fast(text) == _analyzed(text)
        assert fast(text) == _analyzed(text)  # words remembered: the same again


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(
    ["json", "dumps", "json.dumps", "e-mail", "The", "of", "a", "西湖", "龙井茶", "JSONEncoder", "x_y", "--v",
     "3.14", "std::map", "os.path.join", "Wi-Fi", ".", "-", " ", "\n", "東京の", "HTTP2", "thread-safe"]),
    max_size=40))
def test_any_text_indexes_as_the_analyzer_reads_it(pieces: list[str]) -> None:
    text = " ".join(pieces) + "".join(pieces[:5])
    assert TermPositions(_STOP_WORDS)(text) == _analyzed(text)

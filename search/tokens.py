"""A query's words as the index analyses them, the last texts' tokens kept.

Every part of a search asks the same analyzer the same questions: the
tokens of the query's words (to match and to count them), of every
candidate's title (to tell whether it is the query), of a page's headings,
and of the words its snippet marks. The same titles and words come back
query after query, so one :class:`Tokens` per engine keeps the last
``KEPT_TOKENS`` texts' tokens for all of them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from indexer.analysis import word_by_word

__all__ = ["Tokens", "KEPT_TOKENS"]

# Texts (titles, query words) whose analysed tokens are kept.
KEPT_TOKENS = 20_000


class Tokens:
    """The index's analyzer with its last answers kept; ``tokens(text)`` is
    ``text`` as the index analyses it (lower-cased, stemmed, split)."""

    def __init__(self, analyzer: Any) -> None:
        self.analyzer = analyzer
        self._analysed = lru_cache(maxsize=KEPT_TOKENS)(self._analyse)

    def __call__(self, text: str) -> list[str]:
        return list(self._analysed(text))

    def _analyse(self, text: str) -> tuple[str, ...]:
        return tuple(token.text for token in self.analyzer(text))

    def marked(self, word: str) -> list[str]:
        """What a query word's snippets mark: its tokens, and the word as
        typed when its stem is not its start (``ferry`` is ``ferri``,
        which marks ``ferries`` but would miss ``ferry`` itself)."""
        tokens = self(word)
        typed = word.strip('"').lower()
        if tokens and typed.isascii() and typed.isalpha() and not typed.startswith(tuple(tokens)):
            tokens.append(typed)
        return tokens

    def one_per_position(self, words: list[str]) -> list[str]:
        """The query's tokens one per position (a code name's parts, not its whole)."""
        by_position: dict[int, str] = {}
        for token in self.analyzer(" ".join(words), positions=True):
            by_position[token.pos] = token.text  # the last at a position is the finest part
        return [by_position[pos] for pos in sorted(by_position)]

    def analyses_to(self, text: str, wanted: list[str]) -> bool:
        """Whether ``text``'s tokens are ``wanted``: a word at a time where
        the analyzer allows, from each word's tokens kept, and no further
        than the first word that differs (a title is rarely the query, and
        most differ at their first word)."""
        if not word_by_word(self.analyzer, text):
            return self(text) == wanted
        at = 0
        analysed = self._analysed
        for word in text.split():
            tokens = analysed(word)
            for token in tokens:
                if at == len(wanted) or token != wanted[at]:
                    return False
                at += 1
        return at == len(wanted)

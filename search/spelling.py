""""Did you mean": a respelling from the index's own vocabulary (pure).

The vocabulary is every word the indexed pages use, with the number of
pages using it (kept by the indexer). A query word the vocabulary does not
know is replaced by the known word closest to it in edit distance (letters
inserted, deleted, replaced or swapped), the most common one among equals.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["distance", "closest", "max_distance"]


def distance(a: str, b: str, limit: int = 3) -> int:
    """Optimal string alignment distance (Damerau-Levenshtein without
    repeated edits of one substring), stopping early once over ``limit``.

    >>> distance("lighthose", "lighthouse"), distance("jsno", "json"), distance("tea", "coffee")
    (1, 1, 4)
    """
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return min(previous[-1], limit + 1)


def max_distance(word: str) -> int:
    """Edits allowed for a word of this length: short words allow fewer.

    >>> [max_distance(w) for w in ("tea", "tide", "lighthose")]
    [0, 1, 2]
    """
    return 0 if len(word) < 4 else 1 if len(word) < 7 else 2


def closest(word: str, known: Iterable[tuple[str, int]]) -> str | None:
    """The known word nearest ``word`` (then the most frequent), if near enough.

    >>> closest("lighthose", [("lighthouse", 12), ("lighthouses", 3), ("light", 40)])
    'lighthouse'
    >>> closest("zzzzzz", [("lighthouse", 12)]) is None
    True
    """
    limit = max_distance(word)
    best: tuple[int, int, str] | None = None
    for candidate, frequency in known:
        if candidate == word:
            return None
        d = distance(word, candidate, limit)
        if d <= limit and (best is None or (d, -frequency) < (best[0], best[1])):
            best = (d, -frequency, candidate)
    return best[2] if best else None

""" "Did you mean": a respelling from the index's own vocabulary (pure).

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
    repeated edits of one substring), or ``limit + 1`` for anything farther.

    Only the band of cells within ``limit`` of the diagonal is computed:
    the cells outside it are farther than ``limit`` whatever follows.

    >>> distance("lighthose", "lighthouse"), distance("jsno", "json"), distance("tea", "coffee")
    (1, 1, 4)
    """
    over = limit + 1
    if abs(len(a) - len(b)) > limit or _strangers(a, b) > limit or _strangers(b, a) > limit:
        return over
    previous2: list[int] = []
    previous = [j if j <= limit else over for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        current, best = _band_row(a, b, i, limit, previous, previous2)
        if best >= over:
            return over
        previous2, previous = previous, current
    return min(previous[len(b)], over)


def _band_row(a: str, b: str, i: int, limit: int, previous: list[int], previous2: list[int]) -> tuple[list[int], int]:
    """Row ``i`` of :func:`distance`'s table (the prefix ``a[:i]`` against
    every prefix of ``b``) within ``limit`` of the diagonal, from the two
    rows before it, and the least distance in it (capped at ``limit + 1``)."""
    over = limit + 1
    width = len(b)
    low, high = max(1, i - limit), min(width, i + limit)
    current = [over] * (width + 1)
    if i <= limit:
        current[0] = i
    letter, before = a[i - 1], a[i - 2] if i > 1 else ""
    best = current[low - 1]
    for j in range(low, high + 1):
        value = previous[j - 1] + (letter != b[j - 1])
        if previous[j] + 1 < value:
            value = previous[j] + 1
        if current[j - 1] + 1 < value:
            value = current[j - 1] + 1
        if j > 1 and before and letter == b[j - 2] and before == b[j - 1] and previous2[j - 2] + 1 < value:
            value = previous2[j - 2] + 1
        current[j] = value if value < over else over
        if value < best:
            best = value
    return current, best


def _strangers(a: str, b: str) -> int:
    """Letters of ``a`` that ``b`` never uses: each costs an edit of its own."""
    letters = set(b)
    return sum(letter not in letters for letter in a)


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

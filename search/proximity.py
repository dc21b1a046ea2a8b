"""How close a page's query words stand to each other (pure).

For a query of several words, a page where they form the query's phrase
tells more than one where they lie paragraphs apart (ARCHITECTURE.md, item 29: hits
"from phrase to far apart"). From the positions of each query token in a
field, :func:`phrase_and_near` counts the exact phrases and the windows where
every token falls within ``near`` positions; :func:`bonus` damps those counts
(the tenth phrase adds little) and weighs them by field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["phrase_and_near", "bonus"]


def phrase_and_near(positions: Sequence[Sequence[int]], near: int) -> tuple[int, int]:
    """``(exact phrases, near windows)`` for tokens with these position lists.

    >>> phrase_and_near([[3, 10], [4, 20]], near=5)   # "a b" at 3-4; a@10, b@20 far
    (1, 1)
    >>> phrase_and_near([[1], [5], [3]], near=5)      # all within 5, not in order
    (0, 1)
    >>> phrase_and_near([[1], []], near=5)
    (0, 0)
    """
    if len(positions) < 2 or any(not p for p in positions):
        return 0, 0
    later = [set(p) for p in positions[1:]]
    exact = sum(
        1 for start in positions[0] if all(start + offset in later[offset - 1] for offset in range(1, len(positions)))
    )
    # Windows: walk the merged positions keeping the last one seen of each token.
    events = sorted((pos, token) for token, plist in enumerate(positions) for pos in plist)
    last: dict[int, int] = {}
    windows = 0
    covered_until = -1
    for pos, token in events:
        last[token] = pos
        if len(last) == len(positions):
            start = min(last.values())
            if pos - start <= near and start > covered_until:
                windows += 1
                covered_until = pos
    return exact, windows


def _damp(count: int) -> float:
    return count / (count + 1.0)


def bonus(counts: Mapping[str, tuple[int, int]], weights: Mapping[str, float], exact_weight: float) -> float:
    """Weighted, damped sum of phrase and near counts over fields.

    >>> round(bonus({"title": (1, 1), "body": (0, 3)}, {"title": 3.0, "body": 1.0}, 2.0), 3)
    5.25
    """
    return sum(
        weights.get(field, 1.0) * (exact_weight * _damp(exact) + _damp(near)) for field, (exact, near) in counts.items()
    )

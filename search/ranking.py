"""The ranking formula and its parameters (pure: no Whoosh here).

A result's score combines two things, as in the Google paper (SEEDS.md
item 29): how well its text matches the query, and how important the page
is in the link graph.

- Text: BM25 per field, each field's score multiplied by its weight below
  and summed. ``K1`` damps repeated hits (the 10th occurrence of a word
  adds far less than the 1st: a page repeating a word 100 times does not
  win by it); ``B`` normalises by field length (a long body must say more).
- Importance: PageRank as a prior, ``text * (1 + PAGERANK_WEIGHT * log(1 +
  pagerank * N))``, where ``pagerank * N`` is the paper's PR (1 for an
  average page). Logarithmic, and multiplicative with a small weight: links
  order pages whose text matches about equally, but do not lift a popular
  page above one whose title is the query.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["FIELD_WEIGHTS", "K1", "B", "FIELD_B", "PAGERANK_WEIGHT", "prior", "combine"]

# Where a word is found says how much it is about the page: a title or the
# words other pages link with describe it best; the body least per word.
FIELD_WEIGHTS: Mapping[str, float] = {
    "title": 3.0,
    "anchor": 2.5,
    "urlwords": 1.5,
    "headings": 1.5,
    "description": 1.2,
    "emphasis": 1.0,
    "body": 1.0,
}
K1 = 1.2
B = 0.75
# Titles, URLs and anchors are short: their length says little.
FIELD_B: Mapping[str, float] = {"title": 0.3, "urlwords": 0.3, "anchor": 0.4}
PAGERANK_WEIGHT = 0.15


def prior(pagerank: float, nodes: int) -> float:
    """The multiplier PageRank gives a text score; 1.0 without a graph.

    >>> prior(0.0, 0), round(prior(1 / 100, 100), 3), round(prior(10 / 100, 100), 3)
    (1.0, 1.104, 1.36)
    """
    if nodes <= 0 or pagerank <= 0:
        return 1.0
    return 1.0 + PAGERANK_WEIGHT * math.log(1.0 + pagerank * nodes)


def combine(text_score: float, pagerank: float, nodes: int) -> float:
    """The final score of a result.

    >>> combine(10.0, 0.0, 0)
    10.0
    """
    return text_score * prior(pagerank, nodes)

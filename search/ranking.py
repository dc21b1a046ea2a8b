"""The ranking formula, its parameters and why they are what they are (pure).

A result's place comes from, in order (SEEDS.md items 29-30):

1. whether it matches **every** query word (when too few pages do, pages
   matching some of the words follow, those matching more words first);
2. whether its title **is** the query (an exact title match is what a
   known-item search is after; no link popularity may push it down);
3. its score: ``(text + PROXIMITY_WEIGHT * proximity) * prior``, where

   - ``text`` is BM25 per field, each field's score times its weight,
     summed (Whoosh's BM25F). ``K1`` damps repeated hits: the 10th
     occurrence of a word adds far less than the first, so a page repeating
     a word 100 times cannot outscore one whose title and headings are
     about it; ``B`` normalizes by field length;
   - ``proximity`` is the same BM25F over the query's words as a phrase
     (exact, weighted ``EXACT_PHRASE``) and within a few words of each other
     (``NEAR_WORDS``), so pages where the words stand together rank above
     pages that merely contain them;
   - ``prior = 1 + PAGERANK_WEIGHT * ln(1 + pagerank * N)`` (``pagerank * N``
     is the paper's PR, 1 for an average page): links order pages whose text
     matches about equally, and do little more.

The weights were chosen by measuring MRR@10 of the demo web's two query sets
(``tests/search/queries``, ``python -m search.eval``). English (68 queries),
with the field weights below: proximity weight 0 gives 0.978, 0.25 gives
0.985, 0.5 and 1.0 give 0.983; PageRank weights 0, 0.15 and 0.3 change
nothing on these sets (their answers are not decided by links), so the weight
is kept small, as a tie-breaker. Chinese (44 queries): 1.0 throughout.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

__all__ = [
    "FIELD_WEIGHTS", "K1", "B", "FIELD_B", "PAGERANK_WEIGHT", "PROXIMITY_WEIGHT",
    "EXACT_PHRASE", "NEAR_WORDS", "PROXIMITY_FIELDS", "PER_HOST",
    "Features", "prior", "score", "order_key", "page_by_host",
]

# Where a word is found says how much the page is about it: a title, or the
# words other pages link with, describe a page best; the body least per word.
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
PROXIMITY_WEIGHT = 0.25
EXACT_PHRASE = 2.0  # an exact phrase counts twice a near one
NEAR_WORDS = 5  # words at most this far apart are "near"
PROXIMITY_FIELDS = ("title", "headings", "anchor", "body")
PER_HOST = 2  # results from one host on a page

T = TypeVar("T")


@dataclass(frozen=True)
class Features:
    """Everything the order of one result depends on."""

    text: float
    proximity: float = 0.0
    pagerank: float = 0.0
    nodes: int = 0
    all_words: bool = True
    words_matched: int = 0
    exact_title: bool = False


def prior(pagerank: float, nodes: int) -> float:
    """The multiplier PageRank gives a text score; 1.0 without a graph.

    >>> prior(0.0, 0), round(prior(1 / 100, 100), 3), round(prior(10 / 100, 100), 3)
    (1.0, 1.104, 1.36)
    """
    if nodes <= 0 or pagerank <= 0:
        return 1.0
    return 1.0 + PAGERANK_WEIGHT * math.log(1.0 + pagerank * nodes)


def score(features: Features) -> float:
    """The score within a tier.

    >>> score(Features(text=10.0)), score(Features(text=10.0, proximity=4.0))
    (10.0, 11.0)
    """
    return (features.text + PROXIMITY_WEIGHT * features.proximity) * prior(
        features.pagerank, features.nodes
    )


def order_key(features: Features) -> tuple[bool, bool, int, float]:
    """Sort key, best first: all words, exact title, words matched, score.

    >>> popular = Features(text=9.0, pagerank=0.5, nodes=100)
    >>> titled = Features(text=8.0, exact_title=True)
    >>> sorted([popular, titled], key=order_key)[0] is titled
    True
    """
    return (not features.all_words, not features.exact_title, -features.words_matched, -score(features))


def page_by_host(
    ranked: list[T], host: Callable[[T], Hashable], n: int, page: int, per_host: int = PER_HOST
) -> list[tuple[T, int]]:
    """Page ``page`` of ``n`` results, at most ``per_host`` from one host while
    other hosts have results to show (host crowding; the rest move to later
    pages). Each host's last result on the page carries how many more of its
    results follow on later pages.

    >>> ranked = ["a1", "a2", "a3", "b1", "a4", "c1"]
    >>> page_by_host(ranked, host=lambda r: r[0], n=3, page=1)
    [('a1', 0), ('a2', 2), ('b1', 0)]
    >>> page_by_host(ranked, host=lambda r: r[0], n=3, page=2)
    [('a3', 0), ('a4', 0), ('c1', 0)]
    >>> page_by_host(["a1", "a2", "a3"], host=lambda r: r[0], n=3, page=1)  # one host: all of it
    [('a1', 0), ('a2', 0), ('a3', 0)]
    """
    remaining = list(ranked)
    window: list[T] = []
    for _ in range(page):
        counts: dict[Hashable, int] = {}
        window, rest = [], []
        for item in remaining:
            key = host(item)
            if len(window) < n and counts.get(key, 0) < per_host:
                counts[key] = counts.get(key, 0) + 1
                window.append(item)
            else:
                rest.append(item)
        while len(window) < n and rest:  # only crowded hosts are left: fill up
            window.append(rest.pop(0))
        remaining = rest
    later: dict[Hashable, int] = {}
    for item in remaining:
        later[host(item)] = later.get(host(item), 0) + 1
    shown: list[tuple[T, int]] = []
    last_of: dict[Hashable, int] = {}
    for item in window:
        last_of[host(item)] = len(shown)
        shown.append((item, 0))
    for key, index in last_of.items():
        shown[index] = (shown[index][0], later.get(key, 0))
    return shown

"""The ranking formula, its parameters and why they are what they are (pure).

A result's place comes from, in order (ARCHITECTURE.md, items 29-30):

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

"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import NamedTuple, TypeVar

from indexer.analysis import has_cjk

__all__ = [
    "FIELD_WEIGHTS",
    "QUESTION_FIELD_WEIGHTS",
    "K1",
    "B",
    "FIELD_B",
    "PAGERANK_WEIGHT",
    "HEADING_BOOST",
    "PROXIMITY_WEIGHT",
    "EXACT_PHRASE",
    "NEAR_WORDS",
    "PROXIMITY_FIELDS",
    "PER_HOST",
    "Features",
    "prior",
    "score",
    "order_key",
    "page_by_host",
    "query_script",
    "other_language",
]

# Where a word is found says how much the page is about it: a title, or the
# words other pages link with, describe a page best; the body least per word.
FIELD_WEIGHTS: Mapping[str, float] = {
    "title": 3.0,
    "anchor": 2.5,
    "urlwords": 1.5,
    # The titles of its section and the site's top: words a query adds to
    # name the page within its section ("ref models instances").
    "hierarchy": 1.0,
    "headings": 1.5,
    "description": 0.6,  # a meta description, else the opening sentence: the body says it again
    "emphasis": 1.0,
    "body": 1.0,
}
# A question put as one ("how do I delete the untracked files?") asks what
# a page does, and a page says that in its summary: its meta description or
# opening sentence, weighted 2.5 times as much (a manual page's one-line
# "Remove untracked files from the working tree" over the page whose name
# holds "files"). MRR@10 of the natural-question sets: git 0.194 -> 0.249,
# python3 0.530 -> 0.549, django 0.541 -> 0.548, the others unmoved; 1.2
# gained less, 1.8 the same, 3.0 lost on three sites.
QUESTION_FIELD_WEIGHTS: Mapping[str, float] = {**FIELD_WEIGHTS, "description": 1.5}
K1 = 1.2
B = 0.75
# Titles, URLs and anchors are short: their length says little.
FIELD_B: Mapping[str, float] = {"title": 0.3, "urlwords": 0.3, "hierarchy": 0.3, "anchor": 0.4}
# Links order pages whose text matches about equally, and do little more:
# weights 0, 0.15 and 0.3 changed nothing on the demo web's query sets (their
# answers are not decided by links), so the weight is small, a tie-breaker.
PAGERANK_WEIGHT = 0.15
# A page with a heading that is the query (looked for among the first results).
HEADING_BOOST = 1.5
# MRR@10 of the demo web's English set (68 queries, ``python -m search.eval``
# on ``tests/search/queries``) with the field weights above: proximity weight
# 0 gives 0.978, 0.25 gives 0.985, 0.5 and 1.0 give 0.983; the Chinese set
# (44 queries) is 1.0 throughout.
PROXIMITY_WEIGHT = 0.25
EXACT_PHRASE = 2.0  # an exact phrase counts twice a near one
NEAR_WORDS = 5  # words at most this far apart are "near"
PROXIMITY_FIELDS = ("title", "headings", "anchor", "body")
PER_HOST = 2  # results from one host on a page

T = TypeVar("T")


class Features(NamedTuple):
    """Everything the order of one result depends on (a tuple: one is made
    for every candidate of every query, five times faster than a frozen
    dataclass).

    ``level`` is how far the query was relaxed to match the page (0: every
    word as written; 1: every word's parts; 2: some of the words, see
    :mod:`search.parsing`); ``anchor_only``: the page was never fetched,
    only linked; ``demoted``: such a page without strong anchor evidence;
    ``other_language``: the page is known to be in another script's
    language than the query (a Chinese page for an English query).
    """

    text: float
    proximity: float = 0.0
    pagerank: float = 0.0
    nodes: int = 0
    level: int = 0
    words_matched: int = 0
    exact_title: bool = False
    anchor_only: bool = False
    demoted: bool = False
    other_language: bool = False
    #: A heading of the page is the query (among the first results only).
    exact_heading: bool = False
    #: A question of many words: of those, the share the page holds (None: a
    #: short query, whose every word must be there for the first tier).
    coverage: float | None = None

    @property
    def all_words(self) -> bool:
        return self.level < 2


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
    >>> score(Features(text=10.0, exact_heading=True))
    15.0
    """
    return (
        (features.text + PROXIMITY_WEIGHT * features.proximity)
        * prior(features.pagerank, features.nodes)
        * (HEADING_BOOST if features.exact_heading else 1.0)
    )


def order_key(features: Features) -> tuple[bool, bool, int, bool, int, float]:
    """Sort key, best first: crawled pages (and well-linked anchor-only
    ones) before weakly linked anchor-only pages; pages in the query's
    language; the least relaxed match; an exact title; more words matched;
    the score.

    >>> popular = Features(text=9.0, pagerank=0.5, nodes=100)
    >>> titled = Features(text=8.0, exact_title=True)
    >>> sorted([popular, titled], key=order_key)[0] is titled
    True
    >>> stub = Features(text=20.0, exact_title=True, anchor_only=True, demoted=True)
    >>> relaxed = Features(text=2.0, level=1)
    >>> sorted([stub, relaxed], key=order_key)[0] is relaxed
    True
    """
    if features.coverage is not None:
        # A question in many words: a page that holds most of them where they
        # weigh (a manual page's one-line summary) may beat a long page that
        # holds each of them once; the share it lacks costs it, squared.
        return (
            features.demoted,
            features.other_language,
            0,
            not features.exact_title,
            0,
            -score(features) * features.coverage**2,
        )
    return (
        features.demoted,
        features.other_language,
        features.level,
        not features.exact_title,
        -features.words_matched,
        -score(features),
    )


_CJK_LANGS = frozenset(["zh", "ja", "ko"])


def query_script(text: str) -> str:
    """Which language family a query is in, by its script: "zh", "ja",
    "ko", or "latin" (any other: words in Latin, Cyrillic... letters).

    >>> query_script("apt-get install"), query_script("西湖 龙井"), query_script("東京の天気")
    ('latin', 'zh', 'ja')
    >>> query_script("설치 방법")
    'ko'
    """
    if any("\uac00" <= char <= "\ud7af" or "\u1100" <= char <= "\u11ff" for char in text):  # Hangul
        return "ko"
    if not has_cjk(text):
        return "latin"
    if any("\u3040" <= char <= "\u30ff" for char in text):  # kana
        return "ja"
    return "ko" if any("\uac00" <= char <= "\ud7af" for char in text) else "zh"


def other_language(script: str, page_lang: list[str] | str, contains: Iterable[str] = ()) -> bool:
    """Whether a page's declared or detected language is of another script
    than the query's: a Chinese page for an English query, an English page
    for a Chinese one. A page of unknown language is never "other", nor is
    one that ``contains`` running text in the query's language (a Chinese
    edition's page left half in English, for an English query).

    >>> other_language("latin", "zh-cn"), other_language("latin", "fr"), other_language("zh", "en")
    (True, False, True)
    >>> other_language("zh", "zh-tw"), other_language("latin", ""), other_language("zh", "")
    (False, False, False)
    >>> other_language("latin", "zh-cn", ["en"]), other_language("zh", "en", ["zh"])
    (False, False)
    >>> other_language("zh", "ja"), other_language("ja", "zh-cn")
    (False, True)
    """
    lang = page_lang[0] if isinstance(page_lang, list) and page_lang else page_lang or ""
    primary = str(lang).lower().replace("_", "-").split("-")[0]
    if not primary:
        return False
    if script == "latin":
        return primary in _CJK_LANGS and not any(other not in _CJK_LANGS for other in contains)
    if script == "zh" and primary == "ja":  # Han characters alone are Japanese kanji too ("概要")
        return False
    return primary != script and script not in contains


def page_by_host(
    ranked: list[T],
    host: Callable[[T], Hashable],
    n: int,
    page: int,
    per_host: int = PER_HOST,
    last: Callable[[T], bool] | None = None,
) -> list[tuple[T, int]]:
    """Page ``page`` of ``n`` results, at most ``per_host`` from one host while
    other hosts have results to show (host crowding; the rest move to later
    pages). Each host's last result on the page carries how many more of its
    results follow on later pages. Results that ``last`` says go last (pages
    known only by weak anchor evidence) never take a crowded host's place:
    they follow every other result, crowded or not.

    >>> ranked = ["a1", "a2", "a3", "b1", "a4", "c1"]
    >>> page_by_host(ranked, host=lambda r: r[0], n=3, page=1)
    [('a1', 0), ('a2', 2), ('b1', 0)]
    >>> page_by_host(ranked, host=lambda r: r[0], n=3, page=2)
    [('a3', 0), ('a4', 0), ('c1', 0)]
    >>> page_by_host(["a1", "a2", "a3"], host=lambda r: r[0], n=3, page=1)  # one host: all of it
    [('a1', 0), ('a2', 0), ('a3', 0)]
    >>> page_by_host(["a1", "a2", "a3", "x1", "y1"], host=lambda r: r[0], n=4, page=1,
    ...              last=lambda r: r[0] in "xy")  # stubs of other hosts wait for a1-a3
    [('a1', 0), ('a2', 0), ('a3', 0), ('x1', 0)]
    """
    if last is not None:
        ranked = [item for item in ranked if not last(item)] + [item for item in ranked if last(item)]
    remaining = list(ranked)
    window: list[T] = []
    for _ in range(page):
        window, remaining = _next_page(remaining, host, n, per_host, last)
    return _with_more_from_host(window, remaining, host)


def _next_page(
    ranked: list[T], host: Callable[[T], Hashable], n: int, per_host: int, last: Callable[[T], bool] | None
) -> tuple[list[T], list[T]]:
    """The next page of :func:`page_by_host` from the ``ranked`` results
    not shown yet, and those left for the pages after it."""
    counts: dict[Hashable, int] = {}
    window: list[T] = []
    rest: list[T] = []
    held: list[T] = []
    for item in ranked:
        key = host(item)
        if last is not None and last(item) and held:
            rest.append(item)  # crowded results first
        elif len(window) < n and counts.get(key, 0) < per_host:
            counts[key] = counts.get(key, 0) + 1
            window.append(item)
        else:
            rest.append(item)
            held.append(item)
    while len(window) < n and rest:  # only crowded hosts are left: fill up
        window.append(rest.pop(0))
    return window, rest


def _with_more_from_host(window: list[T], later_pages: list[T], host: Callable[[T], Hashable]) -> list[tuple[T, int]]:
    """Each result of ``window``, its host's last one with how many of the
    host's results ``later_pages`` hold (0 for the others)."""
    later: dict[Hashable, int] = {}
    for item in later_pages:
        later[host(item)] = later.get(host(item), 0) + 1
    shown: list[tuple[T, int]] = []
    last_of: dict[Hashable, int] = {}
    for item in window:
        last_of[host(item)] = len(shown)
        shown.append((item, 0))
    for key, index in last_of.items():
        shown[index] = (shown[index][0], later.get(key, 0))
    return shown

"""One result for one page, whatever the languages it was found in (pure).

A manual translated side by side (``ch02.en.html``, ``ch02.fr.html``;
``/en/install.html``, ``/fr/install.html``) matches a query that names a
command or an option in every language at once, and five copies of one
page would fill the results. Pages are translations of each other when
their markup says so (``hreflang`` alternates) or when their URLs differ
only by a language segment (:func:`crawler.languages.without_language`).
They make one result, shown in the language the searcher wants (asked for
with ``lang:``, told by the browser, or the query's own script), else in
the language that ranked best, with the others as ``also_in``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from crawler.languages import without_language
from indexer.schema import primary_lang

__all__ = ["accepted_languages", "family", "one_per_family", "preferred_languages", "titled_by"]

T = TypeVar("T")

_CJK = frozenset(["zh", "ja", "ko"])
# The edition a manual translated side by side is written in, and how well
# it must score against the best-ranked edition to be shown for a query in
# Latin letters that asks for no language.
_ORIGINAL = frozenset(["en", ""])
_ORIGINAL_SHARE = 1.25


def family(url: str, alternates: Iterable[Sequence[str]] = ()) -> str:
    """What a page and its translations have in common: the first of their
    URLs (its own and its ``hreflang`` alternates), without its language
    segment.

    >>> family("http://a.test/ch02.fr.html"), family("http://a.test/about.html")
    ('http://a.test/ch02.html', 'http://a.test/about.html')
    >>> family("http://a.test/de/start", [["en", "http://a.test/start"], ["fr", "http://a.test/fr/start"]])
    'http://a.test/start'
    """
    first = min([url, *(pair[1] for pair in alternates if len(pair) == 2)])
    return without_language(first) or first


_MOST_ACCEPTED = 5
_WORD = re.compile(r"\w+")


def titled_by(words: Sequence[str]) -> Callable[[Any], bool]:
    """Whether a result's title holds every one of ``words`` as typed (case aside).

    >>> titled = titled_by(["Preliminars"])
    >>> titled({"title": "A.1. Preliminars"}), titled({"title": "A.1. Preliminares"})
    (True, False)
    """
    wanted = {word.lower() for typed in words for word in _WORD.findall(typed)}

    def titled(candidate: Any) -> bool:
        if not wanted:
            return False
        title = candidate.get("title") or ""
        return wanted <= {word.lower() for word in _WORD.findall(title)}

    return titled


def accepted_languages(header: str) -> tuple[str, ...]:
    """The primary languages of an ``Accept-Language`` header, most wanted
    first (by ``q``, then as written), a few at most; ``*`` and ``q=0``
    are no wish.

    >>> accepted_languages("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5")
    ('fr', 'en', 'de')
    >>> accepted_languages("zh-CN,zh;q=0.9,en;q=0"), accepted_languages("")
    (('zh',), ())
    """
    wishes: list[tuple[float, int, str]] = []
    for order, part in enumerate(header.split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                continue
        lang = primary_lang(tag)
        if weight > 0 and lang.isalpha() and 2 <= len(lang) <= 3:
            wishes.append((-weight, order, lang))
    return tuple(dict.fromkeys(lang for _, _, lang in sorted(wishes)))[:_MOST_ACCEPTED]


def preferred_languages(script: str, asked: Sequence[str] = ()) -> list[str]:
    """The primary languages a searcher wants, best first: those asked for
    (``lang:``, the browser's), then the query's script's own (a Chinese
    query wants Chinese pages).

    >>> preferred_languages("zh", ["fr-CA", "en"]), preferred_languages("latin")
    (['fr', 'en', 'zh'], [])
    """
    wanted = [primary_lang(lang) for lang in asked if primary_lang(lang)]
    if script in _CJK:
        wanted.append(script)
    return list(dict.fromkeys(wanted))


def one_per_family(
    ranked: list[T],
    family_of: Callable[[T], str],
    lang_of: Callable[[T], str],
    preferred: Sequence[str],
    script: str = "latin",
    score_of: Callable[[T], float] = lambda _: 0.0,
    titled: Callable[[T], bool] = lambda _: False,
) -> tuple[list[T], dict[int, list[T]]]:
    """``ranked`` with each family's members after its first taken out: the
    family keeps the place of its best-ranked member, shown by the member in
    the most preferred language; else, for a query in Latin letters, by the
    one member whose title holds the query's words as typed
    (``titled``: ``Preliminars`` is the Catalan page's, not the Spanish
    ``Preliminares``), or by the English original when it scores at least
    four fifths as well as the best ranked that is not a Chinese, Japanese or
    Korean page (``score_of``: a page left half translated may outscore its
    original on the original's words), else by that page; else by the best
    ranked. Also, by ``id()`` of each result kept, the members it stands for.

    >>> ranked = ["de:a", "en:b", "en:a", "fr:a"]
    >>> kept, others = one_per_family(ranked, lambda r: r[3:], lambda r: r[:2], ["en"])
    >>> kept, others[id(kept[0])]
    (['en:a', 'en:b'], ['de:a', 'fr:a'])
    >>> one_per_family(["zh:a", "en:a"], lambda r: r[3:], lambda r: r[:2], [])[0]
    ['en:a']
    """
    members: dict[str, list[T]] = {}
    for item in ranked:
        members.setdefault(family_of(item), []).append(item)
    kept: list[T] = []
    others: dict[int, list[T]] = {}
    for item in ranked:
        group = members[family_of(item)]
        if group[0] is not item:
            continue
        if len(group) == 1:
            kept.append(item)
            continue
        shown = _shown(group, lang_of, preferred, script, score_of, titled)
        kept.append(shown)
        others[id(shown)] = [member for member in group if member is not shown]
    return kept, others


def _shown(
    group: list[T],
    lang_of: Callable[[T], str],
    preferred: Sequence[str],
    script: str,
    score_of: Callable[[T], float],
    titled: Callable[[T], bool],
) -> T:
    """The member of a family that a searcher wanting ``preferred`` reads."""
    for lang in preferred:
        for member in group:
            if primary_lang(lang_of(member)) == lang:
                return member
    if script != "latin":
        return group[0]
    named = [member for member in group if titled(member)]
    if len(named) == 1:
        return named[0]
    best = next((member for member in group if primary_lang(lang_of(member)) not in _CJK), group[0])
    for member in group:
        if primary_lang(lang_of(member)) in _ORIGINAL and score_of(member) * _ORIGINAL_SHARE >= score_of(best):
            return member
    return best

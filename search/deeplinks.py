"""Which section of a result page a query names, to link into it (pure).

Documentation search tools link ``QuerySet.select_related`` to
``querysets.html#django.db.models.query.QuerySet.select_related``, not to the
top of a page of a hundred definitions. The extractor keeps each page's
headings and definitions with the ``id`` a link can point at
(:attr:`crawler.extractors.page.Page.sections`); a result links to the
section whose heading (with its id) holds every word of the query, the most
specific one when several do: fewest other words, then the first. The
page's own title section (an ``h1``, the first section, or one that repeats
the title) is never linked: the page itself is the answer then.

Cheap on long pages: a section is analysed only when every query token
(a stem, a code-name part) appears in its lower-cased text or id as a
substring, which a stem of a word always does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

__all__ = ["best_section"]

Analyze = Callable[[str], list[str]]


def best_section(
    sections: Sequence[Sequence[str]],
    query_tokens: Sequence[str],
    analyze: Analyze,
    title: str = "",
    names: Sequence[str] = (),
) -> str | None:
    """The ``id`` of the section ``query_tokens`` name, or None.

    ``names`` are the query's code names: a definition whose id ends with
    more of a name's components wins (``QuerySet.select_related`` finds the
    id ``django.db.models.query.QuerySet.select_related`` before a heading
    ``select_related()``), as generators give definitions their qualified
    name for an id.

    >>> analyze = lambda text: text.lower().replace(".", " ").replace("_", " ").replace("(", " ").split()
    >>> sections = [["top", "QuerySet API reference"], ["select-related", "select_related(*fields)"],
    ...             ["django.db.models.query.QuerySet.select_related", "select_related(*fields)"],
    ...             ["prefetch", "prefetch_related(*lookups)"]]
    >>> best_section(sections, ["select", "related"], analyze)
    'select-related'
    >>> best_section(sections, ["django", "db", "queryset", "select", "related"], analyze)
    'django.db.models.query.QuerySet.select_related'
    >>> best_section(sections, ["queryset", "api", "reference"], analyze) is None  # the page's own title
    True
    >>> best_section(sections, ["nothing"], analyze) is None
    True
    >>> best_section(sections, ["select", "related"], analyze, names=["select_related"])
    'django.db.models.query.QuerySet.select_related'
    """
    wanted = set(query_tokens)
    if not wanted or not sections:
        return None
    title_tokens = set(analyze(title)) if title else set()
    # A stem need not be a prefix of its word (query: queri): look for all but its last letter.
    probes = [token[: max(3, len(token) - 1)] for token in wanted]
    qualified = [_components(name) for name in names]
    best: tuple[int, int, int] | None = None
    best_id = None
    for index, section in enumerate(sections):
        own = _naming(index, section, wanted, probes, analyze, title_tokens)
        if own is None:
            continue
        anchor = str(section[0])
        named = max((_trailing(_components(anchor), name) for name in qualified), default=0)
        rank = (-named, len(own - wanted), index)
        if best is None or rank < best:
            best, best_id = rank, anchor
    return best_id


def _naming(
    index: int,
    section: Sequence[str],
    wanted: set[str],
    probes: list[str],
    analyze: Analyze,
    title_tokens: set[str],
) -> set[str] | None:
    """The tokens of a section's heading when the section names the query
    (its heading and id hold every ``wanted`` token, looked for first as
    ``probes`` in their text) and is not the page's own title section;
    else None."""
    if len(section) < 2:
        return None
    anchor, text = str(section[0]), str(section[1])
    haystack = f"{text} {anchor}".lower()
    if not all(probe in haystack for probe in probes):
        return None
    own = set(analyze(text))
    if not wanted <= own | set(analyze(anchor.replace("-", " "))):
        return None
    tag = str(section[2]) if len(section) > 2 else ""
    if index == 0 or tag == "h1" or (title_tokens and own and own <= title_tokens):
        return None  # the page's own heading: the page is the answer
    return own


def _components(name: str) -> list[str]:
    return [part for part in re.split(r"\.|::?", name.lower()) if part]


def _trailing(anchor: list[str], name: list[str]) -> int:
    """How many of ``name``'s last components ``anchor`` ends with.

    >>> _trailing(["django", "db", "query", "queryset", "select_related"], ["queryset", "select_related"])
    2
    """
    count = 0
    while count < min(len(anchor), len(name)) and anchor[-1 - count] == name[-1 - count]:
        count += 1
    return count

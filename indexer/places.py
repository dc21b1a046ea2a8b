"""A page's place in its site, told by the hub that lists it.

Most manuals say where a page stands with a breadcrumb or ``rel="up"``
(:mod:`crawler.extractors.hierarchy`). Some say it only by listing their
pages: Git's manual pages have no breadcrumb, but ``git(1)`` lists every
command under "High-level commands › Main porcelain commands". For a page
without a hierarchy of its own, the indexer takes its place from its hub:
of the pages of its site already indexed that link to it, the one most
pages link to (the site's contents, not a page that mentions it in "See
also"); the place is that hub's title and the headings the link stands
under in it (:func:`heading_path`). Found when the page is indexed, so a
hub is known when it was indexed before its pages, as a crawl from the
hub finds them.
"""

from __future__ import annotations

import bisect
import re
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from crawler.sites import same_site

__all__ = ["LISTED", "outline", "heading_path", "listings", "Listings", "hubs_of", "hub_place", "HubPlaces"]

# Headings a place goes down to, and the hubs whose text is remembered.
_MAX_LEVELS = 4
_CACHED_HUBS = 32
# At most this many of the pages linking to a page are weighed as its hub.
_MAX_SOURCES = 200
# And the likeliest this many are looked at for the link in their text.
_HUBS_TRIED = 3
#: The links a part of a page lists for it to be a hub's listing.
LISTED = 5
_HEADING_TAG = re.compile(r"h([1-6])\Z")


def outline(text: str, sections: Sequence[Sequence[str]]) -> list[tuple[int, list[str]]]:
    """Where each heading of a page stands in its ``text`` (as a whole
    word, in order), with the path of headings it opens (outermost first):
    ``sections`` are the page's ``[id, heading, tag]``. Looked for from the
    end, each before the next: a table of contents at the top names them
    all first.

    >>> outline("Commands Porcelain Plumbing. Commands Porcelain git-add(1) Plumbing x", [["a", "Commands", "h2"],
    ...         ["b", "Porcelain", "h3"], ["c", "Plumbing", "h3"]])
    [(29, ['Commands']), (38, ['Commands', 'Porcelain']), (59, ['Commands', 'Plumbing'])]
    """
    levelled = [
        (int(tag.group(1)), heading)
        for section in sections
        if len(section) > 2 and (tag := _HEADING_TAG.match(section[2])) and (heading := section[1].strip())
    ]
    at_of: list[int] = []
    before = len(text)
    for _, heading in reversed(levelled):
        at = _last_whole(text, heading, before)
        at_of.append(at)
        if at >= 0:
            before = at
    at_of.reverse()
    found: list[tuple[int, list[str]]] = []
    stack: list[tuple[int, str]] = []
    for (level, heading), at in zip(levelled, at_of, strict=True):
        if at < 0:
            continue
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, heading))
        found.append((at, [name for _, name in stack]))
    return found


def heading_path(
    headings: list[tuple[int, list[str]]], text: str, anchors: Sequence[str], listed: _Counts | None = None
) -> list[str] | None:
    """The headings a link stands under in a page, of its ``outline``
    ``headings``: of the places its texts (``anchors``) are found in
    ``text``, the one most deeply inside the page's sections (a hub names a
    page in its introduction, then lists it under "Main porcelain
    commands"); None when none is found (the link is in the hub's
    navigation, not its text). With ``listed`` (:func:`listings`), only
    a place among at least ``LISTED`` of the page's links counts.

    >>> text = "Intro: see git-add(1). Commands Porcelain git-add(1) Add files."
    >>> headings = outline(text, [["a", "Commands", "h2"], ["b", "Porcelain", "h3"]])
    >>> heading_path(headings, text, ["git-add(1)"]), heading_path(headings, text, ["nowhere"])
    (['Commands', 'Porcelain'], None)
    """
    starts = [at for at, _ in headings]
    best: list[str] | None = None
    for anchor in anchors:
        at = _whole(text, anchor, 0)
        while at >= 0:
            under = bisect.bisect_left(starts, at) - 1
            path = headings[under][1] if under >= 0 else []
            # The listing counted last: only where a place would be chosen.
            if (best is None or len(path) > len(best)) and (listed is None or listed[under + 1] >= LISTED):
                best = path
            at = _whole(text, anchor, at + 1)
    return best


def _whole(text: str, phrase: str, start: int) -> int:
    """Where ``phrase`` stands in ``text`` from ``start`` as whole words
    ("other", not the end of "another"); -1 when it does not."""
    at = text.find(phrase, start) if phrase else -1
    while at >= 0 and not _alone(text, phrase, at):
        at = text.find(phrase, at + 1)
    return at


def _last_whole(text: str, phrase: str, end: int) -> int:
    """Where ``phrase`` last stands in ``text`` before ``end`` as whole words; -1 when it does not."""
    at = text.rfind(phrase, 0, end) if phrase else -1
    while at >= 0 and not _alone(text, phrase, at):
        at = text.rfind(phrase, 0, at)
    return at


def _alone(text: str, phrase: str, at: int) -> bool:
    """Whether ``phrase``, found at ``at``, is no part of a longer word."""
    end = at + len(phrase)
    before = at == 0 or not (text[at - 1].isalnum() and phrase[0].isalnum())
    return before and (end == len(text) or not (text[end].isalnum() and phrase[-1].isalnum()))


def listings(headings: list[tuple[int, list[str]]], text: str, anchors: Iterable[str]) -> list[int]:
    """How many of a page's links (their texts, ``anchors``) its text holds
    under each heading of its ``outline`` (the first count: before the
    first heading): a hub lists its pages, a page mentions one here and
    there.

    >>> text = "Intro. Commands git-add(1) git-mv(1) git-rm(1) Notes see git-add(1)."
    >>> listings(outline(text, [["a", "Commands", "h2"], ["b", "Notes", "h2"]]), text,
    ...          ["git-add(1)", "git-mv(1)", "git-rm(1)"])
    [0, 3, 1]
    """
    starts = [at for at, _ in headings]
    counts = [0] * (len(headings) + 1)
    for anchor in set(anchors):
        parts = set()
        at = _whole(text, anchor, 0)
        while at >= 0:
            parts.add(bisect.bisect_right(starts, at))
            at = _whole(text, anchor, at + len(anchor))
        for part in parts:
            counts[part] += 1
    return counts


class Listings:
    """What :func:`listings` counts, each part of the page counted when it
    is first asked for: a hub's text is searched for each of its links'
    texts, and the parts that a page listed in it asks about are a fourth
    of a hub's text on Python's documentation.

    >>> text = "Intro. Commands git-add(1) git-mv(1) git-rm(1) Notes see git-add(1)."
    >>> listed = Listings(outline(text, [["a", "Commands", "h2"], ["b", "Notes", "h2"]]), text,
    ...                   ["git-add(1)", "git-mv(1)", "git-rm(1)"])
    >>> listed[1], listed[2], listed[0]
    (3, 1, 0)
    """

    def __init__(self, headings: list[tuple[int, list[str]]], text: str, anchors: Iterable[str]) -> None:
        self._text = text
        self._bounds = [0, *(at for at, _ in headings), len(text)]
        self._anchors: list[str] = []
        overlapping: list[str] = []
        for anchor in set(anchors):
            if anchor:
                (overlapping if _overlaps_itself(anchor) else self._anchors).append(anchor)
        # A text that may stand twice overlapping ("a a" in "a a a") is
        # counted where listings' search from the start finds it.
        self._base = listings(headings, text, overlapping) if overlapping else None
        self._counts: dict[int, int] = {}

    def __getitem__(self, part: int) -> int:
        count = self._counts.get(part)
        if count is None:
            start, end = self._bounds[part], self._bounds[part + 1]
            count = sum(1 for anchor in self._anchors if _whole_before(self._text, anchor, start, end) >= 0)
            count += self._base[part] if self._base is not None else 0
            self._counts[part] = count
        return count


class _Counts(Protocol):
    def __getitem__(self, part: int) -> int: ...


def _overlaps_itself(phrase: str) -> bool:
    """Whether two places of ``phrase`` in a text may overlap: it ends as it begins.

    >>> _overlaps_itself("a a"), _overlaps_itself("git-add(1)"), _overlaps_itself("1.1")
    (True, False, True)
    """
    first = phrase[0]
    at = phrase.find(first, 1)
    while at > 0:
        if phrase.startswith(phrase[at:]):
            return True
        at = phrase.find(first, at + 1)
    return False


def _whole_before(text: str, phrase: str, start: int, end: int) -> int:
    """Where ``phrase`` stands in ``text`` as whole words, from ``start``
    and before ``end``; -1 when it does not."""
    stop = end + len(phrase) - 1
    at = text.find(phrase, start, stop)
    while at >= 0 and not _alone(text, phrase, at):
        at = text.find(phrase, at + 1, stop)
    return at


def hub_place(title: str, headings: list[str]) -> list[str]:
    """A linked page's place: its hub's ``title``, then the ``headings``
    the link stands under in the hub, but for one that only names the hub
    again ("git(1) Manual Page" under the title "git(1)").

    >>> hub_place("git(1)", ["git(1) Manual Page", "Commands"])
    ['git(1)', 'Commands']
    """
    title = title.strip()
    kept = [heading for heading in headings if not (title and heading.startswith(title))]
    return ([title] if title else []) + kept[: _MAX_LEVELS - 1]


def hubs_of(url: str, sources: Mapping[str, Sequence[str]], linked: Mapping[str, int]) -> list[str]:
    """The pages of ``sources`` (linking to ``url``, with their links'
    texts) that may be its hub: those of its site, the ones most pages link
    to (``linked``) first, the shorter URL of equals.

    >>> hubs_of("http://a.test/add.html", {"http://a.test/git.html": ["add"], "http://a.test/tag.html": ["add"],
    ...         "http://b.test/": ["add"]}, {"http://a.test/git.html": 9, "http://a.test/tag.html": 2})
    ['http://a.test/git.html', 'http://a.test/tag.html']
    """
    candidates = [source for source, texts in sources.items() if source != url and texts and same_site(source, url)]
    return sorted(candidates, key=lambda source: (-linked.get(source, 0), len(source), source))


class _Graph(Protocol):
    def inbound(self, urls: Sequence[str] | set[str]) -> list[tuple[str, str, str]]: ...

    def inbound_counts(self, urls: Sequence[str]) -> dict[str, int]: ...

    def outbound(self, url: str) -> list[tuple[str, str]]: ...


class _Store(Protocol):
    def get(self, url: str) -> dict[str, object] | None: ...

    def bodies(self, urls: Sequence[str]) -> dict[str, tuple[str, list[list[str]]]]: ...


class HubPlaces:
    """The places of pages being indexed, from the link graph and page
    store written so far; the hubs' text is remembered (a few hubs list
    most pages of a site)."""

    def __init__(self, graph: _Graph, store: _Store) -> None:
        self.graph = graph
        self.store = store
        self._hubs: OrderedDict[str, tuple[str, str, list[tuple[int, list[str]]], Listings]] = OrderedDict()

    def place_of(self, url: str) -> list[str]:
        """The place of ``url`` as its hub tells it; [] without one: of the
        likeliest hubs, linked to by more pages than ``url`` is, the first
        whose text (not its navigation: a menu of every page on every page
        is no hub's) holds the link among others it lists."""
        sources: dict[str, list[str]] = {}
        for source, _, text in self.graph.inbound([url])[:_MAX_SOURCES]:
            text = " ".join(text.split())
            if text:
                sources.setdefault(source, []).append(text)
        linked = self.graph.inbound_counts([*sources, url]) if sources else {}
        for hub in hubs_of(url, sources, linked)[:_HUBS_TRIED]:
            if linked.get(hub, 0) <= linked.get(url, 0):
                break  # a hub stands above its pages: more pages link to it (on Node.js, all link to all)
            known = self._hub(hub)
            path = heading_path(known[2], known[1], sources[hub], known[3]) if known else None
            if known is not None and path is not None:
                return hub_place(known[0], path)
        return []

    def _hub(self, url: str) -> tuple[str, str, list[tuple[int, list[str]]], Listings] | None:
        known = self._hubs.get(url)
        if known is None:
            page = self.store.get(url)
            body = self.store.bodies([url]).get(url)
            if page is None or body is None:
                return None
            headings = outline(*body)
            texts = (" ".join(text.split()) for _, text in self.graph.outbound(url))
            known = (str(page.get("title") or ""), body[0], headings, Listings(headings, body[0], filter(None, texts)))
            self._hubs[url] = known
            if len(self._hubs) > _CACHED_HUBS:
                self._hubs.popitem(last=False)
        else:
            self._hubs.move_to_end(url)
        return known

    def forget(self, url: str) -> None:
        """``url`` was indexed again: its text may list other pages now."""
        self._hubs.pop(url, None)

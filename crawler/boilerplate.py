"""Per-site boilerplate: text blocks repeated on many pages of one site (pure).

Markup names most chrome (``nav``, ``footer``, ARIA roles, class names; see
crawler/extractors/html.py), but many sites build menus, footers and
"subscribe" boxes from plain ``div``s. What gives those away is repetition:
a block of text that appears on a large share of a site's pages says nothing
about any one of them, and left in the body it makes every page of the site
match its words (ARCHITECTURE.md, item 21).  :class:`BoilerplateDetector`
counts each site's blocks by :func:`block_key` and drops the repeated ones.
In the spider: ``detector = BoilerplateDetector()`` once, then
``dropped = detector.strip(page)`` for every HTML page.
Design: ARCHITECTURE.md, "Design notes by module", ``crawler/boilerplate.py``.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Iterable

from crawler.extractors.page import Page
from crawler.sites import site_prefix

__all__ = ["BoilerplateDetector", "block_key"]

_DIGITS = re.compile(r"\d+")


def block_key(block: str) -> int:
    """A stable 64-bit key for a block's normalized text: case folded, digits
    removed, so "Page 3 of 12" and "© 2001-2024" match their siblings; BLAKE2b,
    not Python's salted ``hash``, so a key means the same in every process.

    >>> block_key("Page 3 of 12") == block_key("page 4  of 13")
    True
    >>> block_key("Home") == block_key("About")
    False
    """
    normalized = " ".join(_DIGITS.sub(" ", block).casefold().split())
    digest = hashlib.blake2b(normalized.encode("utf-8", "surrogatepass"), digest_size=8)
    return int.from_bytes(digest.digest(), "big")


class _Site:
    __slots__ = ("pages", "counts")

    def __init__(self) -> None:
        self.pages = 0
        self.counts: dict[int, int] = {}


class BoilerplateDetector:
    """Counts blocks per site and says which are repeated boilerplate.

    A block (one paragraph-level piece of a page's body, ``Page.blocks``) is
    boilerplate for a site once it was seen on at least ``min_pages`` distinct
    pages of that site and on at least ``share`` of the site's pages seen so
    far (defaults 5 and 30%: a footer is on every page; a quotation repeated
    on two pages, or a section's sidebar on a few, is not boilerplate). At
    most ``max_blocks`` counters are kept per site, and ``max_sites`` sites.

    >>> detector = BoilerplateDetector(min_pages=2, share=0.5)
    >>> for story in ("Tea", "Coffee", "Cocoa"):
    ...     detector.observe("http://a.test", ["Menu Home About", f"A story about {story}"])
    >>> detector.filter("http://a.test", ["Menu Home About", "A story about Tea"])
    ['A story about Tea']
    """

    def __init__(self, min_pages: int = 5, share: float = 0.3, max_blocks: int = 1024, max_sites: int = 512) -> None:
        if min_pages < 1 or not 0.0 <= share <= 1.0 or max_blocks < 2 or max_sites < 1:
            raise ValueError("need min_pages >= 1, 0 <= share <= 1, max_blocks >= 2, max_sites >= 1")
        self.min_pages = min_pages
        self.share = share
        self.max_blocks = max_blocks
        self.max_sites = max_sites
        self._sites: OrderedDict[str, _Site] = OrderedDict()

    def observe(self, site: str, blocks: Iterable[str]) -> None:
        """Count one page of ``site`` with these blocks (each once a page)."""
        self._observe(site, {block_key(block) for block in blocks})

    def _observe(self, site: str, keys: set[int]) -> _Site:
        state = self._sites.get(site)
        if state is None:
            state = self._sites[site] = _Site()
            if len(self._sites) > self.max_sites:
                self._sites.popitem(last=False)
        else:
            self._sites.move_to_end(site)
        state.pages += 1
        counts = state.counts
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
        if len(counts) > self.max_blocks:
            self._forget(counts)
        return state

    def _forget(self, counts: dict[int, int]) -> None:
        """Drop the least repeated counters until half the room is free."""
        floor = 1
        while len(counts) > self.max_blocks // 2:
            for key in [key for key, count in counts.items() if count <= floor]:
                del counts[key]
            floor += 1

    def is_boilerplate(self, site: str, block: str) -> bool:
        """Whether ``block`` is repeated on enough of ``site``'s pages seen so far."""
        state = self._sites.get(site)
        return state is not None and self._repeated(state, block_key(block))

    def _repeated(self, state: _Site, key: int) -> bool:
        count = state.counts.get(key, 0)
        return count >= self.min_pages and count >= self.share * state.pages

    def filter(self, site: str, blocks: Iterable[str]) -> list[str]:
        """The blocks of one page of ``site`` that are not boilerplate, in order."""
        return [block for block in blocks if not self.is_boilerplate(site, block)]

    def strip(self, page: Page) -> int:
        """Observe an HTML page, then drop its boilerplate blocks from its body.

        Rewrites ``page.blocks`` and ``page.text``; returns how many blocks
        were dropped (for the crawl stats). Other kinds are left alone: their
        blocks are pages or paragraphs of one document, not a site's layout.
        """
        if page.kind != "html" or not page.blocks:
            return 0
        keys = [block_key(block) for block in page.blocks]
        state = self._observe(site_prefix(page.url), set(keys))
        kept = [block for block, key in zip(page.blocks, keys, strict=False) if not self._repeated(state, key)]
        dropped = len(page.blocks) - len(kept)
        if dropped:
            page.blocks = kept
            page.text = " ".join(kept)
        return dropped

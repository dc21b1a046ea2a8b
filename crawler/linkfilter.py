"""Which of a page's links the crawl follows, and why not the others (pure).

Every link found goes through one :class:`LinkFilter`, in the order of its
costs: a link this process already followed is skipped silently (no stats,
no round trip); then ``rel=nofollow``, the scope, the URL-shape trap rules,
the blacklist, the purged URLs (``python -m indexer purge``) and the
per-pattern budget each may refuse it, and the
verdict names the rule, which the spider counts and logs once per site.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from crawler import settings as defaults
from crawler.datadir import purged_path
from crawler.extractors.doctype import MEDIA_EXTENSIONS, extension
from crawler.scope import Scope
from crawler.traps import Blacklist, PatternBudget
from crawler.urls import TrapRules

__all__ = ["LinkFilter", "FOLLOW", "ALREADY_FOLLOWED", "NOFOLLOW", "OUT_OF_SCOPE", "MEDIA", "PURGED"]

FOLLOW = None
ALREADY_FOLLOWED = "already_followed"
NOFOLLOW = "nofollow"
OUT_OF_SCOPE = "out_of_scope"
MEDIA = "media"
PURGED = "purged"


class LinkFilter:
    """Remembers what it let through; each verdict is ``FOLLOW`` (None) or a reason.

    >>> links = LinkFilter(Scope("host", ["a.test"]), TrapRules(), Blacklist(), PatternBudget(0))
    >>> [links.verdict(url) for url in ("http://a.test/x", "http://a.test/x",
    ...                                 "http://b.test/", "http://a.test/s/s/s")]
    [None, 'already_followed', 'out_of_scope', 'repeated_path']
    """

    def __init__(
        self,
        scope: Scope,
        traps: TrapRules,
        blacklist: Blacklist,
        budget: PatternBudget,
        remember: int = defaults.FRONTIER_LOCAL_SEEN_MAX,
        purged: Blacklist | None = None,
    ) -> None:
        self.scope = scope
        self.blacklist = blacklist
        self.purged = purged or Blacklist()
        self.budget = budget
        self.remember = remember
        self._followed: set[str] = set()
        # Navigation links repeat on every page of a site: check each shape once.
        self.trap_reason = lru_cache(maxsize=65536)(traps.reason)

    @classmethod
    def from_settings(cls, settings: Any, scope: Scope) -> LinkFilter:
        """From the ``TRAPS_*`` settings; ValueError/OSError for a bad blacklist."""
        hosts = settings.getlist("TRAPS_BLACKLIST_HOSTS")
        patterns = settings.getlist("TRAPS_BLACKLIST_URLS")
        listing = settings.get("TRAPS_BLACKLIST_FILE")
        blacklist = Blacklist.from_file(listing, hosts, patterns) if listing else Blacklist(hosts, patterns)
        # Written by `python -m indexer purge`, in the blacklist file's syntax.
        purged = purged_path(settings.get("DATA_DIR"))
        return cls(
            scope,
            TrapRules.from_settings(settings),
            blacklist,
            PatternBudget(settings.getint("TRAPS_MAX_PAGES_PER_PATTERN")),
            settings.getint("FRONTIER_LOCAL_SEEN_MAX"),
            Blacklist.from_file(purged) if purged.exists() else None,
        )

    def add_purged(self, lines: Iterable[str]) -> None:
        """Purged entries learnt while crawling (the crawl's Redis set), in the file syntax."""
        known = {pattern.pattern for pattern in self.purged.patterns}
        more = Blacklist.from_lines(lines)
        fresh = [pattern.pattern for pattern in more.patterns if pattern.pattern not in known]
        if fresh or more.hosts - self.purged.hosts:
            self.purged = Blacklist(self.purged.hosts | more.hosts, [*known, *fresh])

    def verdict(self, url: str, nofollow: bool = False) -> str | None:
        """None to follow ``url`` (it is then remembered), or why not."""
        if url in self._followed:
            return ALREADY_FOLLOWED
        if nofollow:
            return NOFOLLOW
        if url not in self.scope:
            return OUT_OF_SCOPE
        if extension(url) in MEDIA_EXTENSIONS:
            return MEDIA
        reason = self.trap_reason(url)
        if reason is None and self.blacklist:
            listed = self.blacklist.reason(url)
            reason = f"blacklist_{listed}" if listed else None
        if reason is None and self.purged and self.purged.reason(url):
            reason = PURGED
        if reason is None and not self.budget.admit(url):
            reason = "pattern_budget"
        if reason is None:
            if len(self._followed) >= self.remember:
                self._followed.clear()
            self._followed.add(url)
        return reason

    def indexable(self, url: str) -> bool:
        """Whether a link may stand in the link graph: no trap shape, not blacklisted."""
        return (
            self.trap_reason(url) is None
            and not (self.blacklist and self.blacklist.reason(url))
            and not (self.purged and self.purged.reason(url))
        )

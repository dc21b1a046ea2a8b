"""Trap defenses that need memory or configuration: budgets and blacklists (pure).

The URL-shape rules live in :mod:`crawler.urls` (:class:`~crawler.urls.TrapRules`);
these complete them (ARCHITECTURE.md, item 6):

- :class:`PatternBudget`: when one URL pattern (digits and query values
  masked) has produced more than ``limit`` requests, further URLs of that
  pattern are refused. It catches the traps no shape rule foresaw: a page
  counter, a filter combination, a calendar whose pages differ in content.
  Counted per crawl process (with several nodes, each gets the budget), with
  memory bounded by forgetting patterns seen only once. A pattern that
  reaches half its budget is noted in ``growing``, for the crawl monitor to
  raise an alert before URLs are refused.
- :class:`Chains`: a run of pages of one URL pattern, each found only on
  the one before it (a calendar's "previous month", page after page), is
  stopped after ``limit`` pages of its pattern, well before the pattern
  budget, unless its pages look like real pagination (see the class).
- :class:`Blacklist`: hosts (with their subdomains) and URL regular
  expressions that are never fetched, from settings or a file: known trap
  sites, and sites that object to being crawled.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path

from crawler.sites import host_name
from crawler.urls import url_pattern

__all__ = ["Blacklist", "Chains", "PatternBudget"]


class PatternBudget:
    """Counts requests per URL pattern; refuses a pattern past its limit.

    >>> budget = PatternBudget(limit=2)
    >>> [budget.admit(f"http://a.test/cal/2024/{m:02d}/") for m in (1, 2, 3)]
    [True, True, False]
    >>> budget.admit("http://a.test/about.html")
    True
    >>> budget.growing
    [('http://a.test/cal/N/N/', 2)]
    """

    def __init__(self, limit: int, max_patterns: int = 1_000_000) -> None:
        self.limit = limit
        self.max_patterns = max_patterns
        self._counts: dict[str, int] = {}
        # Patterns that reached half the limit, and their count then, in
        # order; whoever reports them may clear the list.
        self.growing: list[tuple[str, int]] = []
        self._half = max(2, limit // 2)

    def admit(self, url: str) -> bool:
        """Count ``url`` against its pattern; False once the pattern is spent."""
        if self.limit <= 0:
            return True
        pattern = url_pattern(url)
        count = self._counts.get(pattern, 0) + 1
        self._counts[pattern] = count
        if count == self._half:
            self.growing.append((pattern, count))
        if len(self._counts) > self.max_patterns:
            # Patterns met once (most URLs of a normal site) are no trap.
            self._counts = {key: n for key, n in self._counts.items() if n > 1}
        return count <= self.limit


def _nothing_known(urls: Sequence[str]) -> list[bool]:
    return [False] * len(urls)


class Chains:
    """How long a chain of same-pattern pages runs, and where it stops.

    A request carries its chain length: how many pages of its URL pattern
    (:func:`~crawler.urls.url_pattern`) led to it one after another, each
    found on the page before. A link of another pattern than its page starts
    at 0. A link of the page's own pattern continues the page's chain (its
    length plus one) when the page is a bare link of a chain: at most two
    other pages of its pattern linked (previous and next), and no page of
    another pattern on it that the crawl has never seen. That is an endless
    calendar whose months differ in text, each month its own new content and
    a way to the next, whatever else it links: the event pages it names
    again and again were found long ago, so they restart nothing.

    Real pagination differs in one of two ways, and either resets the count
    to 0: its pages list things the crawl has not seen (a listing of
    articles: "older posts" page after page, each leading to new articles),
    or its pager links many pages of the pattern (1 2 3 4 5 ... 40), so the
    crawl reaches page N in far fewer steps than N. A chain whose pages list
    only what was found elsewhere is stopped: what it loses is its own pages
    past ``limit``, which nothing else links to.

    The links that continue chains spend one budget per URL pattern, of
    ``limit`` pages in this process: a calendar entered in its middle runs
    both ways, and both together stop after ``limit`` months.

    >>> chains = Chains(limit=2)
    >>> month = "http://a.test/cal/2024/05/"
    >>> near = ["http://a.test/cal/2024/04/", "http://a.test/cal/2024/06/", "http://a.test/about"]
    >>> chains.lengths(month, 1, near, new=near[:2])  # only months new: the chain grows
    {'http://a.test/cal/2024/04/': 2, 'http://a.test/cal/2024/06/': 2}
    >>> chains.lengths(month, 1, near, new=near)  # a page the crawl never saw: not a bare chain
    {'http://a.test/cal/2024/04/': 0, 'http://a.test/cal/2024/06/': 0, 'http://a.test/about': 0}
    >>> seen = {"http://a.test/about"}
    >>> chains.lengths(month, 1, near, new=near, known=lambda urls: [url in seen for url in urls])
    {'http://a.test/cal/2024/04/': 2, 'http://a.test/cal/2024/06/': 2, 'http://a.test/about': 0}
    >>> [chains.admit(url, 2) for url in near[:2]], chains.admit(month, 1)  # one budget for the pattern
    ([True, True], False)
    """

    #: Other pages of its own pattern a bare chain page links at most: previous and next.
    MAX_NEIGHBOURS = 2

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._chained = PatternBudget(limit)

    def lengths(
        self,
        page_url: str,
        page_chain: int,
        links: Iterable[str],
        new: Collection[str],
        known: Callable[[Sequence[str]], list[bool]] = _nothing_known,
    ) -> dict[str, int]:
        """The chain length of each ``new`` link (those this process follows)
        of the page at ``page_url``, whose own chain length is ``page_chain``;
        ``links`` are all its links, followed before or not. ``known`` says
        which URLs the crawl has seen already, on any node (asked only of a
        page that continues a chain unless they are new)."""
        pattern = url_pattern(page_url)
        same = {url for url in links if url != page_url and url_pattern(url) == pattern}
        if len(same) > self.MAX_NEIGHBOURS or not any(url in same for url in new):
            return dict.fromkeys(new, 0)
        elsewhere = [url for url in new if url not in same]
        bare = not elsewhere or all(known(elsewhere))
        return {url: page_chain + 1 if bare and url in same else 0 for url in new}

    def admit(self, url: str, length: int) -> bool:
        """Whether ``url``, of this chain length, is fetched: a length of 0
        always is (``limit`` 0: every one); a longer one while the chain and
        its pattern's budget of chained pages last."""
        if self.limit <= 0 or length == 0:
            return True
        return length <= self.limit and self._chained.admit(url)


class Blacklist:
    """Hosts and URL patterns never to fetch.

    A file has one entry a line: a host name (``example.com`` also blocks
    ``www.example.com``), which a ``#`` comment may follow, or ``re:`` and a
    regular expression searched in the URL, to the end of the line (a regex
    may hold ``#``); blank lines and lines starting with ``#`` are skipped.

    >>> blacklist = Blacklist(hosts=["ads.example"], patterns=[r"/print/"])
    >>> blacklist.reason("http://www.ads.example/x"), blacklist.reason("http://a.test/print/1")
    ('host', 'pattern')
    >>> blacklist.reason("http://a.test/article/1") is None
    True
    """

    def __init__(self, hosts: Iterable[str] = (), patterns: Iterable[str] = ()) -> None:
        self.hosts = {host.strip().lower().rstrip(".") for host in hosts if host.strip()}
        try:
            self.patterns = [re.compile(pattern) for pattern in patterns if pattern]
        except re.error as exc:
            raise ValueError(f"bad blacklist pattern {exc.pattern!r}: {exc}") from None

    @classmethod
    def from_file(cls, path: str | Path, hosts: Iterable[str] = (), patterns: Iterable[str] = ()) -> Blacklist:
        return cls.from_lines(Path(path).read_text(encoding="utf-8").splitlines(), hosts, patterns)

    @classmethod
    def from_lines(cls, lines: Iterable[str], hosts: Iterable[str] = (), patterns: Iterable[str] = ()) -> Blacklist:
        """Entries in the file syntax, one a line.

        >>> lines = ["# trap sites", "calendar.example  # endless", "re:^http://a[.]test/x$"]
        >>> Blacklist.from_lines(lines).reason("http://a.test/x")
        'pattern'
        """
        all_hosts, all_patterns = list(hosts), list(patterns)
        for line in lines:
            entry = line.split("#", 1)[0].strip() if not line.lstrip().startswith("re:") else line.strip()
            if not entry:
                continue
            if entry.startswith("re:"):
                all_patterns.append(entry[3:].strip())
            else:
                all_hosts.append(entry)
        return cls(all_hosts, all_patterns)

    def __bool__(self) -> bool:
        return bool(self.hosts or self.patterns)

    def reason(self, url: str) -> str | None:
        """``"host"`` or ``"pattern"`` when ``url`` is blacklisted, else None."""
        if self.hosts:
            host = host_name(url).rstrip(".")
            while host:
                if host in self.hosts:
                    return "host"
                host = host.partition(".")[2]
        if any(pattern.search(url) for pattern in self.patterns):
            return "pattern"
        return None

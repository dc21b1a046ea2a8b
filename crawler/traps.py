"""Trap defenses that need memory or configuration: budgets and blacklists (pure).

The URL-shape rules live in :mod:`crawler.urls` (:class:`~crawler.urls.TrapRules`);
these complete them (SEEDS.md item 6):

- :class:`PatternBudget`: when one URL pattern (digits and query values
  masked) has produced more than ``limit`` requests, further URLs of that
  pattern are refused. It catches the traps no shape rule foresaw: a page
  counter, a filter combination, a calendar whose pages differ in content.
  Counted per crawl process (with several nodes, each gets the budget), with
  memory bounded by forgetting patterns seen only once. A pattern that
  reaches half its budget is noted in ``growing``, for the crawl monitor to
  raise an alert before URLs are refused.
- :class:`Blacklist`: hosts (with their subdomains) and URL regular
  expressions that are never fetched, from settings or a file: known trap
  sites, and sites that object to being crawled.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from crawler.urls import url_pattern

__all__ = ["PatternBudget", "Blacklist"]


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
            host = (urlsplit(url).hostname or "").rstrip(".")
            while host:
                if host in self.hosts:
                    return "host"
                host = host.partition(".")[2]
        if any(pattern.search(url) for pattern in self.patterns):
            return "pattern"
        return None

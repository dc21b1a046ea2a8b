"""When a crawl looks wrong: the rules that raise alerts (pure).

A person watching a crawl should not have to read every line to notice
trouble. :class:`AlertRules` is fed what the crawl does and answers with
:class:`Alert` s, each raised at most once per crawl for its subject (a site,
a URL pattern), so a log with an alert in it stays readable; its docstring
gives each kind's rule, and :func:`starved` is the one a progress line asks.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterable
from typing import NamedTuple

from crawler import settings as defaults

__all__ = ["Alert", "AlertRules", "SUSTAINED", "starved"]

# Windows of page fetches in a row that one site must dominate. Breadth
# first, one site may well fill a depth for a window: its section of the
# queue comes first (a crawl from one seed starts so). A trap keeps it up.
SUSTAINED = 3


def starved(served: int, with_work: int, share: float) -> bool:
    """Whether fewer than ``share`` of the ``with_work`` sites that had
    requests queued were ``served``; two sites with work at least.

    >>> starved(5, 30, 0.5), starved(15, 30, 0.5), starved(0, 1, 0.5)
    (True, False, False)
    """
    return with_work >= 2 and served < share * with_work


class Alert(NamedTuple):
    kind: str
    subject: str
    message: str


class _Window:
    """The last ``size`` outcomes of one site: how many were errors."""

    def __init__(self, size: int) -> None:
        self.outcomes: deque[bool] = deque(maxlen=size)
        self.errors = 0

    def add(self, error: bool) -> None:
        if len(self.outcomes) == self.outcomes.maxlen and self.outcomes[0]:
            self.errors -= 1
        self.outcomes.append(error)
        self.errors += error


class AlertRules:
    """Alert rules with their thresholds, and what has been alerted already:

    - ``error_rate``: more than ``error_rate`` of a site's last ``window``
      answers were errors (network errors, 5xx, 429), judged once the site has
      given at least ``min_samples`` answers;
    - ``site_dominant``: one site took more than ``site_share`` of each of the
      node's last ``SUSTAINED`` windows of ``window`` page fetches while other
      sites, reached before those windows began, had requests waiting (a trap
      on that site filling the queue, or the others slowed to a crawl);
    - ``sites_starved``: fewer than ``served_share`` of the sites that had
      requests queued during a progress interval were served in it (by any
      node): a frontier or a setting (``CONCURRENT_REQUESTS`` too small for
      the sites' delays) that keeps polite sites waiting;
    - ``trap_pattern``: a URL pattern (:func:`crawler.urls.url_pattern`) has used
      half its budget of ``TRAPS_MAX_PAGES_PER_PATTERN`` requests, a likely trap
      that no URL-shape rule caught;
    - ``robots_unreachable``: a site's robots.txt could not be fetched (a network
      error, 429 or 5xx): its requests wait until it can.

    >>> rules = AlertRules(window=10, error_rate=0.2)
    >>> alerts = [rules.answered("http://a.test:80", error=n % 2 == 1, example="HTTP 500 http://a.test/x")
    ...           for n in range(10)]
    >>> [a.kind for found in alerts for a in found]
    ['error_rate']
    >>> rules.robots_unreachable("http://b.test:80", "503") == rules.robots_unreachable("http://b.test:80", "503")
    False
    """

    def __init__(
        self,
        window: int = defaults.MONITOR_WINDOW,
        error_rate: float = defaults.MONITOR_ERROR_RATE,
        site_share: float = defaults.MONITOR_SITE_SHARE,
        min_samples: int = 10,
        served_share: float = defaults.MONITOR_SITES_SERVED,
    ) -> None:
        self.window = max(1, window)
        self.error_rate = error_rate
        self.site_share = site_share
        self.served_share = served_share
        self.min_samples = max(1, min(min_samples, self.window))
        self._sites: dict[str, _Window] = {}
        self._fetches = 0
        self._block: Counter[str] = Counter()  # page fetches per site in the current window
        self._streak: list[tuple[str, int]] = []  # the windows in a row one site dominated
        self._first_seen: dict[str, int] = {}  # site -> page fetches before its first answer
        self._raised: set[tuple[str, str]] = set()

    def _raise(self, kind: str, subject: str, message: str) -> list[Alert]:
        if (kind, subject) in self._raised:
            return []
        self._raised.add((kind, subject))
        return [Alert(kind, subject, message)]

    def answered(self, site: str, error: bool, example: str = "") -> list[Alert]:
        """A request to ``site`` was answered (or failed: ``error``)."""
        window = self._sites.get(site)
        if window is None:
            window = self._sites[site] = _Window(self.window)
            self._first_seen[site] = self._fetches
        window.add(error)
        seen = len(window.outcomes)
        if not error or seen < self.min_samples or window.errors <= self.error_rate * seen:
            return []
        return self._raise(
            "error_rate",
            site,
            f"{window.errors} of the last {seen} answers from {site} were errors "
            f"({window.errors / seen:.0%}, more than {self.error_rate:.0%})" + (f", e.g. {example}" if example else ""),
        )

    def fetched(self, site: str) -> str | None:
        """A page of ``site`` was fetched. Returns the site when it has taken
        more than its share of each of the last ``SUSTAINED`` windows of page
        fetches: a candidate for :meth:`dominant`, which needs to know what
        else is waiting."""
        self._fetches += 1
        self._block[site] += 1
        if self._fetches % self.window:
            return None
        [(top, count)] = self._block.most_common(1)
        self._block = Counter()
        if count <= self.site_share * self.window:
            self._streak = []
            return None
        if self._streak and self._streak[-1][0] != top:
            self._streak = []
        self._streak = [*self._streak, (top, count)][-SUSTAINED:]
        if len(self._streak) == SUSTAINED and ("site_dominant", top) not in self._raised:
            return top
        return None

    def dominant(self, site: str, waiting: Callable[[], Iterable[str]]) -> list[Alert]:
        """Alert if ``site`` still dominates the recent windows while the sites
        ``waiting()`` names (those with queued requests) include others that
        were known before those windows began."""
        if len(self._streak) < SUSTAINED or self._streak[-1][0] != site:
            return []
        span = SUSTAINED * self.window
        taken = sum(count for _, count in self._streak)
        since = self._fetches - self._fetches % self.window - span
        others = sorted(other for other in set(waiting()) - {site} if self._first_seen.get(other, since + 1) <= since)
        if not others:
            return []  # the others are done, or were found meanwhile
        return self._raise(
            "site_dominant",
            site,
            f"{site} took {taken} of the last {span} page fetches ({taken / span:.0%}) while "
            f"{len(others)} other site{'s' * (len(others) != 1)} had requests waiting "
            f"(e.g. {others[0]}): a trap on it, or the others slowed down?",
        )

    def turns(self, served: int, with_work: int, seconds: float) -> list[Alert]:
        """In the last ``seconds``, ``served`` of the ``with_work`` sites that
        had requests queued were taken from, by any node."""
        if not starved(served, with_work, self.served_share):
            return []
        return self._raise(
            "sites_starved",
            "crawl",
            f"only {served} of the {with_work} sites with requests queued were served in the last "
            f"{seconds:.0f} s: is CONCURRENT_REQUESTS too small for the sites' delays, "
            "or the crawl paused (INDEX_QUEUE_MAX)?",
        )

    def pattern_growing(self, pattern: str, count: int, limit: int) -> list[Alert]:
        """URLs of ``pattern`` have used ``count`` of their budget of ``limit``."""
        return self._raise(
            "trap_pattern",
            pattern,
            f"{count} URLs of the pattern {pattern} queued, half of its budget of {limit} "
            "(TRAPS_MAX_PAGES_PER_PATTERN): a trap? Further ones past the budget are refused",
        )

    def robots_unreachable(self, site: str, answer: str, retried: bool = True) -> list[Alert]:
        """``site``'s robots.txt could not be fetched: ``answer`` is a status or
        a network error; ``retried`` when the site's requests wait for it."""
        return self._raise(
            "robots_unreachable",
            site,
            f"robots.txt of {site} could not be fetched ({answer})"
            + (
                ": the site's requests wait while it is retried (ROBOTS_RETRY_DELAY, ROBOTS_RETRY_TIMES)"
                if retried
                else ""
            ),
        )

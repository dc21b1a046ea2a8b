"""What one crawl node fetched, counted exactly, and the forms it is shown in (pure).

:class:`Tally` counts every HTTP exchange of the node (an answer, or a
network error), the way the sites' own access logs would: each retry, each
redirect hop and each robots.txt fetch is a request of its own. Requests are
sorted by what asked for them: ``page`` (the crawl proper), ``robots_txt``,
``sitemap`` and ``probe`` (the one request per site that finds out how it
answers for a missing page).

What counts as an *error*: a network error, a 5xx or 429 answer, or a page
the spider failed on. A 404 is the site's answer, not the crawl's failure:
it is counted by status, and 4xx answers to pages are listed with examples
apart from the errors (robots.txt, sitemaps and probes are expected to 404).

:func:`report` turns a tally and the crawl's stats into the JSON document
written to ``DATA_DIR/reports/``; :func:`table` renders it for people;
:func:`progress_line` is the line logged while the crawl runs.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Tally",
    "SiteTally",
    "KINDS",
    "ITEM_KINDS",
    "report",
    "table",
    "progress_line",
    "sites_waiting",
    "is_error",
    "items_sent",
]

KINDS = ("page", "robots_txt", "sitemap", "probe")
_CLASSES = ("2xx", "3xx", "4xx", "5xx", "network_error")
#: What each kind of item sent to the indexer is (``items/<kind>`` in the
#: stats; Scrapy's ``item_scraped_count``, their sum, is left out of them).
ITEM_KINDS = {
    "page": "pages to index",
    "unchanged": "unchanged (a 304 or the same text: kept as indexed)",
    "duplicate": "duplicates (recorded as another URL of a page, not indexed)",
    "gone": "gone (404, 410, noindex: removed from the index)",
}
_NOT_ITEMS = ("redis_retries",)  # items/ counters that count no item


def is_error(status: int | None) -> bool:
    """Whether an answer (None: no answer at all) is an error of the crawl.

    >>> [is_error(s) for s in (200, 301, 404, 429, 500, None)]
    [False, False, False, True, True, True]
    """
    return status is None or status >= 500 or status == 429


def _status_class(status: int | None) -> str:
    if status is None:
        return "network_error"
    return f"{min(max(status // 100, 1), 5)}xx" if status >= 200 else "2xx"


@dataclass
class SiteTally:
    requests: Counter[str] = field(default_factory=Counter)  # by kind
    classes: Counter[str] = field(default_factory=Counter)  # by status class
    bytes: int = 0
    errors: int = 0
    robots_refused: int = 0
    first: float | None = None
    last: float | None = None


class _Examples:
    """A count per kind and the first few URLs of each."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.counts: Counter[str] = Counter()
        self.urls: dict[str, list[str]] = {}

    def add(self, kind: str, url: str) -> None:
        self.counts[kind] += 1
        urls = self.urls.setdefault(kind, [])
        if len(urls) < self.keep and url not in urls:
            urls.append(url)

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {kind: {"count": n, "examples": self.urls[kind]} for kind, n in self.counts.most_common()}


class Tally:
    """Counts of one node's HTTP exchanges, per kind, status and site.

    >>> tally = Tally()
    >>> tally.answered("http://a.test/", "http://a.test:80", "page", 200, 512, now=10.0)
    >>> tally.answered("http://a.test/x", "http://a.test:80", "page", 500, 20, now=11.0)
    >>> tally.failed("http://b.test/robots.txt", "http://b.test:80", "robots_txt", "TimeoutError", now=12.0)
    >>> tally.requests, tally.pages, tally.errors, tally.bytes
    (3, 2, 2, 532)
    >>> dict(tally.classes)
    {'2xx': 1, '5xx': 1, 'network_error': 1}
    """

    def __init__(self, examples: int = 3) -> None:
        self.kinds: Counter[str] = Counter()
        self.classes: Counter[str] = Counter()
        self.codes: Counter[int] = Counter()
        self.sites: dict[str, SiteTally] = {}
        self.bytes = 0
        self.error_examples = _Examples(examples)
        self.client_errors = _Examples(examples)

    @property
    def requests(self) -> int:
        return sum(self.kinds.values())

    @property
    def pages(self) -> int:
        return self.kinds["page"]

    @property
    def errors(self) -> int:
        return sum(self.error_examples.counts.values())

    def _site(self, site: str, now: float) -> SiteTally:
        tally = self.sites.get(site)
        if tally is None:
            tally = self.sites[site] = SiteTally(first=now)
        tally.last = now
        return tally

    def answered(self, url: str, site: str, kind: str, status: int, size: int, now: float) -> None:
        """An answer with ``status`` and a body of ``size`` bytes."""
        tally = self._site(site, now)
        status_class = _status_class(status)
        self.kinds[kind] += 1
        self.classes[status_class] += 1
        self.codes[status] += 1
        self.bytes += size
        tally.requests[kind] += 1
        tally.classes[status_class] += 1
        tally.bytes += size
        if is_error(status):
            tally.errors += 1
            self.error_examples.add(f"HTTP {status}", url)
        elif status >= 400 and kind == "page":
            self.client_errors.add(f"HTTP {status}", url)

    def failed(self, url: str, site: str, kind: str, error: str, now: float) -> None:
        """A request that got no answer: ``error`` names the network error."""
        tally = self._site(site, now)
        self.kinds[kind] += 1
        self.classes["network_error"] += 1
        tally.requests[kind] += 1
        tally.classes["network_error"] += 1
        tally.errors += 1
        self.error_examples.add(error, url)

    def spider_failed(self, url: str, site: str, error: str, now: float) -> None:
        """The spider raised ``error`` on a page (its request was counted when answered)."""
        self._site(site, now).errors += 1
        self.error_examples.add(f"spider {error}", url)

    def refused(self, site: str, now: float) -> None:
        """robots.txt forbade a request to ``site`` (it was never sent)."""
        tally = self.sites.get(site) or self._site(site, now)
        tally.robots_refused += 1


def _prefixed(stats: Mapping[str, Any], prefix: str) -> dict[str, int]:
    return {
        key[len(prefix) :]: int(value)
        for key, value in sorted(stats.items())
        if key.startswith(prefix) and isinstance(value, int)
    }


def report(
    tally: Tally,
    stats: Mapping[str, Any],
    *,
    node: str,
    started: str,
    finished: str,
    seconds: float,
    reason: str,
    alerts: Mapping[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The crawl report of one node as JSON-ready data.

    ``stats`` are the crawl's Scrapy stats: traps, duplicates, links, robots
    outcomes and items are read from the keys the components count.
    """
    sites = {}
    for site, counts in sorted(tally.sites.items(), key=lambda item: (-sum(item[1].requests.values()), item[0])):
        span = (counts.last or 0.0) - (counts.first or 0.0)
        sites[site] = {
            "requests": sum(counts.requests.values()),
            "pages": counts.requests["page"],
            "robots_txt": counts.requests["robots_txt"],
            "sitemaps": counts.requests["sitemap"],
            "probes": counts.requests["probe"],
            **{name: counts.classes[name] for name in _CLASSES},
            "bytes": counts.bytes,
            "errors": counts.errors,
            "robots_refused": counts.robots_refused,
            "pages_per_second": round(counts.requests["page"] / max(span, 1.0), 2),
        }
    seen_again = sum(_prefixed(stats, "frontier/duplicate/").values())
    duplicates = _prefixed(stats, "dupes/")
    duplicates.pop("unchecked", None)
    if stats.get("extract/soft404"):
        duplicates["soft404"] = int(stats["extract/soft404"])
    return {
        "node": node,
        "started": started,
        "finished": finished,
        "seconds": round(seconds, 1),
        "finish_reason": reason,
        "requests": {
            "total": tally.requests,
            "pages": tally.kinds["page"],
            "robots_txt": tally.kinds["robots_txt"],
            "sitemaps": tally.kinds["sitemap"],
            "probes": tally.kinds["probe"],
        },
        "pages_per_second": round(tally.pages / max(seconds, 1e-9), 2),
        "status_classes": {name: tally.classes[name] for name in _CLASSES},
        "status_codes": {str(code): n for code, n in sorted(tally.codes.items())},
        "bytes": tally.bytes,
        "sites": sites,
        "robots": {
            "refused": int(stats.get("robots/denied", 0)),
            "refused_by_site": {site: c.robots_refused for site, c in sorted(tally.sites.items()) if c.robots_refused},
            "robots_txt_status": _prefixed(stats, "robots/status/"),
            "outcomes": _prefixed(stats, "robots/outcome/"),
            "requests_parked": int(stats.get("robots/deferred", 0)),
        },
        "traps": _prefixed(stats, "traps/"),
        "duplicates": duplicates,
        "links": {**_prefixed(stats, "links/"), "already_seen": seen_again},
        "limits": _prefixed(stats, "limits/"),
        "errors": tally.error_examples.as_dict(),
        "client_errors": tally.client_errors.as_dict(),
        "items": {kind: n for kind, n in _prefixed(stats, "items/").items() if kind not in _NOT_ITEMS},
        "alerts": {kind: list(messages) for kind, messages in (alerts or {}).items()},
    }


def _n(value: int) -> str:
    return f"{value:,}"


def _pairs(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{key} {_n(value)}" for key, value in counts.items() if value) or "none"


def items_sent(items: Mapping[str, int]) -> str:
    """The items sent to the indexer, each kind named for what it is.

    >>> items_sent({"duplicate": 2, "page": 755})
    '757 sent to the indexer: 755 pages to index, 2 duplicates (recorded as another URL of a page, not indexed)'
    >>> items_sent({})
    'none sent to the indexer'
    """
    total = sum(items.values())
    if not total:
        return "none sent to the indexer"
    known = [kind for kind in ITEM_KINDS if items.get(kind)]
    others = sorted(kind for kind in items if kind not in ITEM_KINDS and items[kind])
    return f"{_n(total)} sent to the indexer: " + ", ".join(
        f"{_n(items[kind])} {ITEM_KINDS.get(kind, kind)}" for kind in [*known, *others]
    )


_COLUMNS = (  # heading, key, width
    ("requests", "requests", 9),
    ("pages", "pages", 7),
    ("robots", "robots_txt", 7),
    ("other", None, 6),
    ("2xx", "2xx", 7),
    ("3xx", "3xx", 6),
    ("4xx", "4xx", 6),
    ("5xx", "5xx", 6),
    ("net", "network_error", 5),
    ("errors", "errors", 7),
    ("refused", "robots_refused", 8),
    ("bytes", "bytes", 12),
    ("pages/s", "pages_per_second", 8),
)


def table(data: Mapping[str, Any]) -> str:
    """The report as fixed-width text, for people (one line per site)."""
    lines = [*_totals(data), "", *_sites(data), "", *_skipped(data), *_examples(data), *_alerts(data)]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _totals(data: Mapping[str, Any]) -> list[str]:
    """The node, its time span, and what it sent and got in all."""
    requests, classes = data["requests"], data["status_classes"]
    return [
        f"Crawl report of node {data['node']}",
        f"{data['started']} to {data['finished']} ({data['seconds']:,.1f} s, {data['finish_reason']})",
        "",
        f"Requests       {_n(requests['total'])} = {_n(requests['pages'])} pages + {_n(requests['robots_txt'])} "
        f"robots.txt + {_n(requests['sitemaps'])} sitemaps + {_n(requests['probes'])} soft-404 probes",
        "               (every HTTP request sent: retries and redirect hops included)",
        f"Pages/s        {data['pages_per_second']:,.2f}",
        f"Bytes          {_n(data['bytes'])}",
        "Status         "
        + "   ".join(f"{name.replace('network_error', 'network errors')} {_n(classes[name])}" for name in _CLASSES),
        "Status codes   " + ("  ".join(f"{code}: {_n(n)}" for code, n in data["status_codes"].items()) or "none"),
        f"Items          {items_sent(data['items'])}",
    ]


def _sites(data: Mapping[str, Any]) -> list[str]:
    """The table of sites, a row each, and what its columns count."""
    width = max([4, *(len(site) for site in data["sites"])])
    lines = ["site".ljust(width) + "".join(heading.rjust(size) for heading, _, size in _COLUMNS)]
    for site, row in data["sites"].items():
        cells = []
        for _, key, size in _COLUMNS:
            value = row["sitemaps"] + row["probes"] if key is None else row[key]
            cells.append((f"{value:,.2f}" if isinstance(value, float) else _n(value)).rjust(size))
        lines.append(site.ljust(width) + "".join(cells))
    return [
        *lines,
        "(requests = pages + robots + other: sitemaps and soft-404 probes; errors: network errors,",
        " 5xx and 429 answers, pages the spider failed on; refused: forbidden by robots.txt, never sent)",
    ]


def _skipped(data: Mapping[str, Any]) -> list[str]:
    """What robots.txt refused, and the traps, duplicates, links and limits the crawl left out."""
    robots = data["robots"]
    lines = [
        f"robots.txt     refused {_n(robots['refused'])} request{'s' * (robots['refused'] != 1)}"
        + (" (" + _pairs(robots["refused_by_site"]) + ")" if robots["refused_by_site"] else "")
        + f"; answers {_pairs(robots['robots_txt_status'])}",
        f"Traps          {_pairs(data['traps'])}",
        f"Duplicates     {_pairs(data['duplicates'])}",
        f"Links skipped  {_pairs(data['links'])}",
    ]
    if any(data["limits"].values()):
        lines.append(f"Limits         {_pairs(data['limits'])}")
    return lines


def _examples(data: Mapping[str, Any]) -> list[str]:
    """The errors, then the 4xx answers to pages: a count of each kind and a few of its URLs."""
    lines = []
    for title, section in (("Errors", data["errors"]), ("4xx on pages", data["client_errors"])):
        if not section:
            lines.append(f"{title:15s}none")
            continue
        lines.append(title)
        for kind, entry in section.items():
            lines.append(f"  {kind:28s} {_n(entry['count']):>7s}  e.g. {', '.join(entry['examples'])}")
    return lines


def _alerts(data: Mapping[str, Any]) -> list[str]:
    """The alerts the crawl raised, one line each."""
    alerts = data["alerts"]
    lines = ["Alerts         " + ("none" if not alerts else "")]
    for kind, messages in alerts.items():
        for message in messages:
            lines.append(f"  {kind}: {message}")
    return lines


def sites_waiting(waits: Mapping[str, float | None], count: int | None = None, now: float | None = None) -> str:
    """The progress line's part on the sites whose robots.txt could not be
    fetched (their requests wait for it, apart from the queue): which, and
    when each is tried again (local time; None: not again in this run);
    ``count`` of them in all, when ``waits`` holds only some.

    >>> at = time.mktime((2026, 12, 2, 9, 12, 30, 0, 0, -1))
    >>> sites_waiting({"http://127.0.0.1:9": at}, now=at - 20)
    '1 site waits for its robots.txt: http://127.0.0.1:9 until 09:12:30'
    >>> sites_waiting({"http://a.test:80": at, "http://b.test:80": None}, now=at + 5)
    '2 sites wait for their robots.txt: http://a.test:80 retried now, http://b.test:80 not retried in this run'
    """
    now = time.time() if now is None else now
    parts = []
    for site, retry_at in sorted(waits.items(), key=lambda item: (item[1] is None, item[1] or 0.0, item[0])):
        if retry_at is None:
            parts.append(f"{site} not retried in this run")
        elif retry_at <= now:
            parts.append(f"{site} retried now")
        else:
            parts.append(f"{site} until {time.strftime('%H:%M:%S', time.localtime(retry_at))}")
    count = len(waits) if count is None else count
    shown = ", ".join(parts[:3]) + (f" and {count - len(parts[:3]):,} more" if count > len(parts[:3]) else "")
    return f"{_n(count)} site{'s wait for their' if count != 1 else ' waits for its'} robots.txt: {shown}"


def progress_line(
    pages: int,
    rate: float,
    queued: int | None,
    sites: int,
    errors: int,
    behind: int | None,
    turns: tuple[int, int] | None = None,
    interval: float = 0.0,
    waiting: str | None = None,
    indexer: str | None = None,
) -> str:
    """One line on how the crawl is doing: plain text, for terminals and log files alike.

    ``queued`` and ``behind`` are None when Redis could not be asked;
    ``turns`` is the sites served (by any node) in the last ``interval``
    seconds and the sites that had requests queued meanwhile; ``sites``
    those this node has fetched from since it started; ``waiting`` the
    sites waiting for their robots.txt (:func:`sites_waiting`); ``indexer``
    what befell the indexer beside the crawl, if anything
    (:meth:`crawler.pipelines.IndexerProcess.condition`).

    >>> progress_line(1204, 38.46, 3410, 34, 2, 120, (28, 30), 10).split(", ")  # doctest: +NORMALIZE_WHITESPACE
    ['Crawled 1,204 pages (38.5/s)', '3,410 queued', '28 of 30 sites with work served in 10 s',
     '34 sites fetched', '2 errors', 'indexer 120 behind']
    >>> progress_line(1, 0.2, None, 1, 0, None)
    'Crawled 1 page (0.2/s), queue unknown (Redis unreachable), 1 site fetched, 0 errors'
    >>> progress_line(0, 0.0, 0, 0, 1, 0, waiting="1 site waits for its robots.txt: http://a.test:80 until 09:12:30")
    'Crawled 0 pages (0.0/s), 0 queued, 1 site waits for its robots.txt: http://a.test:80 until 09:12:30, \
0 sites fetched, 1 error, indexer up to date'
    >>> progress_line(9, 1.0, 0, 1, 0, 7, indexer="down: exited with status 2; restart 1 of 5 in 1 s").split(", ")[-1]
    'indexer 7 behind (down: exited with status 2; restart 1 of 5 in 1 s)'
    >>> progress_line(9, 1.0, None, 1, 0, None, indexer="restarted 1 time").split(", ")[-1]
    'indexer restarted 1 time'
    """
    parts = [
        f"Crawled {_n(pages)} page{'s' * (pages != 1)} ({rate:,.1f}/s)",
        "queue unknown (Redis unreachable)" if queued is None else f"{_n(queued)} queued",
    ]
    if waiting:
        parts.append(waiting)
    if turns is not None:
        served, with_work = turns
        parts.append(
            f"{_n(served)} of {_n(with_work)} site{'s' * (with_work != 1)} with work served "
            f"in {interval:,.{0 if interval >= 10 else 1}f} s"
        )
    parts += [
        f"{_n(sites)} site{'s' * (sites != 1)} fetched",
        f"{_n(errors)} error{'s' * (errors != 1)}",
    ]
    if behind is not None:
        said = f"indexer {_n(behind)} behind" if behind else "indexer up to date"
        parts.append(f"{said} ({indexer})" if indexer else said)
    elif indexer:
        parts.append(f"indexer {indexer}")
    return ", ".join(parts)

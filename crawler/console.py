"""What a crawl says on its console, apart from progress and alerts (pure, and one logging filter).

A crawl's log is read by a person: at INFO it opens with one block of our
own (:func:`start_block`: seeds, scope, data directory, Redis, politeness,
indexer) and ends with the crawl report. Scrapy's start-up dumps (its
version and those of its libraries, the overridden settings, the enabled
add-ons, extensions, middlewares and pipelines: two thirds of the lines of
a short crawl's log) are lowered to DEBUG by :class:`ScrapyDumps`, so
``LOG_LEVEL=DEBUG`` still shows them; no warning or error is touched.

A finished crawl run again with the same seeds fetches nothing: every URL
is already seen. :func:`nothing_new` says so, and what to run instead.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["ScrapyDumps", "quiet_scrapy_dumps", "start_block", "nothing_new", "redacted"]

# Scrapy's own INFO records that dump its configuration: (logger, message template prefix).
_DUMPS = (
    ("scrapy.utils.log", "Scrapy %(version)s started"),
    ("scrapy.utils.log", "Versions:"),
    ("scrapy.addons", "Enabled addons:"),
    ("scrapy.middleware", "Enabled %(componentname)ss:"),
    ("scrapy.crawler", "Overridden settings:"),
    ("scrapy.extensions.telnet", "Telnet console listening"),
)


class ScrapyDumps(logging.Filter):
    """Lowers Scrapy's configuration dumps from INFO to DEBUG (a filter on
    the loggers that write them: the level is changed before any handler
    judges it)."""

    def __init__(self, prefixes: Iterable[str]) -> None:
        super().__init__()
        self.prefixes = tuple(prefixes)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.INFO and isinstance(record.msg, str) and record.msg.startswith(self.prefixes):
            record.levelno, record.levelname = logging.DEBUG, logging.getLevelName(logging.DEBUG)
        return True


def quiet_scrapy_dumps() -> None:
    """Install :class:`ScrapyDumps` on the loggers concerned; before Scrapy
    starts (its first dump comes with the crawler process), once."""
    by_logger: dict[str, list[str]] = {}
    for name, prefix in _DUMPS:
        by_logger.setdefault(name, []).append(prefix)
    for name, prefixes in by_logger.items():
        logger = logging.getLogger(name)
        if not any(isinstance(existing, ScrapyDumps) for existing in logger.filters):
            logger.addFilter(ScrapyDumps(prefixes))


def redacted(url: str) -> str:
    """A URL fit for a log: its password replaced.

    >>> redacted("redis://crawl:s3cret@10.0.0.5:6379/0"), redacted("unix:///d/redis.sock?db=0")
    ('redis://crawl:***@10.0.0.5:6379/0', 'unix:///d/redis.sock?db=0')
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user, _, host = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{user.split(':', 1)[0]}:***@{host}"))


def _listed(items: Sequence[str], shown: int = 3) -> str:
    """The first few of ``items`` and how many more.

    >>> _listed(["a", "b"]), _listed(["a", "b", "c", "d", "e"])
    ('a, b', 'a, b, c and 2 more')
    """
    head = ", ".join(items[:shown])
    return head if len(items) <= shown else f"{head} and {len(items) - shown} more"


def _seconds(value: float) -> str:
    """
    >>> _seconds(1.0), _seconds(0.25), _seconds(1.5)
    ('1 s', '0.25 s', '1.5 s')
    """
    return f"{value:g} s"


def start_block(
    settings: Mapping[str, Any],
    *,
    seeds: Sequence[str],
    recrawl: str | None,
    scope: str,
    hosts: Iterable[str],
    data_dir: str,
    redis: str,
    indexer: str,
) -> str:
    """The block a crawl logs when it starts: what it will do, where, and how politely.

    ``settings`` are the crawl's (a mapping of names to values); ``redis``
    and ``indexer`` say, in words, which Redis the frontier is in and
    whether an indexer runs beside the crawl.

    >>> print(start_block({"DOWNLOAD_DELAY": 1.0, "POLITENESS_JITTER": 0.5, "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
    ...                    "CONCURRENT_REQUESTS": 32, "ROBOTSTXT_OBEY": True, "CRAWLER_PRODUCT": "LanternBot/0.1",
    ...                    "CRAWLER_INFO_URL": "https://example.org/bot", "CRAWLER_CONTACT": "me@example.org"},
    ...                   seeds=["https://docs.example.org/"], recrawl=None, scope="host",
    ...                   hosts=["docs.example.org"], data_dir="/srv/lantern", redis="REDIS_URL redis://r:6379/0",
    ...                   indexer="none here: run python -m indexer --follow"))
    Crawl starting:
      seeds        https://docs.example.org/
      scope        host: links on docs.example.org (any port, either scheme)
      data         /srv/lantern
      Redis        REDIS_URL redis://r:6379/0
      politeness   1 to 1.5 s between two requests to a site, 2 at a time per site, 32 in all; robots.txt obeyed
      identity     LanternBot/0.1 (+https://example.org/bot), From: me@example.org
      indexer      none here: run python -m indexer --follow
    """
    rows = (
        ("seeds", _seeded(seeds, recrawl)),
        ("scope", _scoped(scope, hosts, settings)),
        ("data", data_dir),
        ("Redis", redis),
        ("politeness", _politeness(settings)),
        ("identity", _identity(settings)),
        ("indexer", indexer),
    )
    return "Crawl starting:\n" + "\n".join(f"  {name:12s} {value}" for name, value in rows)


def _seeded(seeds: Sequence[str], recrawl: str | None) -> str:
    """The seeds (or that the crawl resumes), and which known pages a recrawl revisits.

    >>> _seeded([], "all")
    'none: resuming what the frontier holds; revisiting every known page'
    """
    if seeds:
        seeded = _listed(list(seeds)) + (f" ({len(seeds):,} seeds)" if len(seeds) > 3 else "")
    else:
        seeded = "none: resuming what the frontier holds"
    if recrawl:
        seeded += "; revisiting " + ("every known page" if recrawl == "all" else "the known pages that are due")
    return seeded


def _scoped(scope: str, hosts: Iterable[str], settings: Mapping[str, Any]) -> str:
    """Which links the crawl follows, and the limits that bound it.

    >>> _scoped("domain", ["b.test", "a.test"], {"DEPTH_LIMIT": 3, "CLOSESPIDER_PAGECOUNT": 0})
    'domain: links within the registrable domains of a.test, b.test; DEPTH_LIMIT 3'
    """
    if scope == "any":
        scoped = "any: every link (DEPTH_LIMIT and CLOSESPIDER_PAGECOUNT bound it)"
    else:
        where = _listed(sorted(hosts), 5) or "the seeds' hosts"
        scoped = (
            f"host: links on {where} (any port, either scheme)"
            if scope == "host"
            else f"domain: links within the registrable domains of {where}"
        )
    limits = [
        f"{name} {settings.get(name)}"
        for name in ("DEPTH_LIMIT", "CLOSESPIDER_PAGECOUNT")
        if int(settings.get(name) or 0)
    ]
    if limits:
        scoped += "; " + ", ".join(limits)
    return scoped


def _politeness(settings: Mapping[str, Any]) -> str:
    """The delay between two requests to a site, how many at a time, and whether robots.txt is obeyed.

    >>> _politeness({"AUTOTHROTTLE_ENABLED": "true", "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
    ...              "CONCURRENT_REQUESTS": 16, "ROBOTSTXT_OBEY": False})
    'AutoThrottle sets the delays, 1 at a time per site, 16 in all; robots.txt NOT obeyed (ROBOTSTXT_OBEY is off)'
    """
    delay = float(settings.get("DOWNLOAD_DELAY") or 0)
    jitter = float(settings.get("POLITENESS_JITTER") or 0)
    if _is_on(settings.get("AUTOTHROTTLE_ENABLED")):
        gap = "AutoThrottle sets the delays"
    elif delay:
        gap = (
            f"{delay:g} to {_seconds(delay * (1 + jitter))}" if jitter else _seconds(delay)
        ) + " between two requests to a site"
    else:
        gap = "no delay between requests to a site"
    robots = (
        "robots.txt obeyed"
        if _is_on(settings.get("ROBOTSTXT_OBEY"))
        else "robots.txt NOT obeyed (ROBOTSTXT_OBEY is off)"
    )
    return (
        f"{gap}, {settings.get('CONCURRENT_REQUESTS_PER_DOMAIN')} at a time per site, "
        f"{settings.get('CONCURRENT_REQUESTS')} in all; {robots}"
    )


def _is_on(value: Any) -> bool:
    """Whether a boolean setting, as Scrapy's settings or the command line give it, is on."""
    return value in (True, "True", "true", "1", 1)


def _identity(settings: Mapping[str, Any]) -> str:
    """The crawler's name, the page about it, and who to write to."""
    return (
        f"{settings.get('CRAWLER_PRODUCT')} (+{settings.get('CRAWLER_INFO_URL')}), "
        f"From: {settings.get('CRAWLER_CONTACT')}"
    )


def nothing_new(seeds: int, seen: int, data_dir: str, redis_url: str | None = None) -> str:
    """Why a crawl fetched nothing when every URL it was given had been seen
    before (a finished crawl run again), and what to run instead.

    >>> print(nothing_new(1, 1204, "data/docs"))  # doctest: +NORMALIZE_WHITESPACE
    Nothing fetched: the seed was already seen by the crawl in data/docs (1,204 URLs seen, none queued).
    To fetch its pages again: scrapy crawl web -a recrawl=1 -s DATA_DIR=data/docs (the pages due for a
    revisit; recrawl=all: every page); to start over: python -m crawler --data data/docs reset
    """
    given = "the seed was" if seeds == 1 else f"all {seeds:,} seeds were" if seeds else "every URL given was"
    where = f"-s REDIS_URL={redacted(redis_url)} " if redis_url else ""
    reset = f"--redis {redacted(redis_url)}" if redis_url else f"--data {data_dir}"
    return (
        f"Nothing fetched: {given} already seen by the crawl in {redis_url and redacted(redis_url) or data_dir} "
        f"({seen:,} URLs seen, none queued). To fetch its pages again: scrapy crawl web -a recrawl=1 "
        f"{where}-s DATA_DIR={data_dir} (the pages due for a revisit; recrawl=all: every page); "
        f"to start over: python -m crawler {reset} reset"
    )

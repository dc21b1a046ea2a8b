"""Start URLs pushed into Redis by anyone, read by every node as scrapy-redis reads them.

    redis-cli lpush web:start_urls https://docs.example.org/
    redis-cli lpush web:start_urls '{"url": "https://docs.example.org/", "meta": {"job": 7}}'
    redis-cli sadd web:start_urls https://docs.example.org/     (REDIS_START_URLS_AS_SET = True)

:class:`StartUrls` takes a batch off the key with one command, so that every
entry goes to exactly one node; :func:`start_url` reads an entry's URL and
``meta``.  The spider (:mod:`crawler.spiders.web`) makes each URL a seed.

Design: ARCHITECTURE.md, "The crawl", Start URLs.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import redis
from scrapy import FormRequest

from crawler import settings as defaults

logger = logging.getLogger(__name__)

__all__ = ["StartUrls", "already_known", "read_summary", "start_url"]

# Known start URLs named in the line that says what a look read, at most.
_KNOWN_SHOWN = 3


def start_url(data: bytes | str) -> tuple[str, dict[str, Any]]:
    """The URL of one entry of the start-URL key, and its ``meta`` (ValueError: none).

    >>> start_url(b" https://a.test/docs/ ")
    ('https://a.test/docs/', {})
    >>> start_url(b'{"url": "https://a.test/", "meta": {"job": 7}}')
    ('https://a.test/', {'job': 7})
    >>> start_url('{"url": "https://a.test/find", "q": "redis", "page": "2"}')[0]
    'https://a.test/find?q=redis&page=2'
    >>> start_url('{"url": "https://a.test/form", "method": "POST", "q": "x"}')
    Traceback (most recent call last):
    ...
    ValueError: a POST request: the crawl queues GET requests only
    >>> start_url('{"meta": {}}')
    Traceback (most recent call last):
    ...
    ValueError: a JSON object without "url"
    """
    text = data.decode() if isinstance(data, bytes) else data
    text = text.strip()
    if not text.startswith("{"):
        return text, {}
    try:
        fields = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(fields, dict) or not isinstance(fields.get("url"), str):
        raise ValueError('a JSON object without "url"')
    url = fields.pop("url").strip()
    method = str(fields.pop("method", "GET")).upper()
    meta = fields.pop("meta", None) or {}
    if method != "GET":
        raise ValueError(f"a {method} request: the crawl queues GET requests only")
    if not isinstance(meta, dict):
        raise ValueError('"meta" is not a JSON object')
    if fields:  # form fields: scrapy-redis sends them as a FormRequest's, in a GET's query
        url = FormRequest(url, method="GET", formdata={key: str(value) for key, value in fields.items()}).url
    return url, meta


def already_known(urls: list[str], known: list[bool]) -> dict[str, int]:
    """How many of the start URLs read in one look the crawl knew already,
    by URL: known before the look (queued or fetched; ``known``), or read
    earlier in it. The crawl does not fetch them again.

    >>> already_known(["https://a.test/", "https://b.test/", "https://a.test/"], [True, False, True])
    {'https://a.test/': 2}
    >>> already_known(["https://b.test/", "https://b.test/"], [False, False])
    {'https://b.test/': 1}
    """
    counts: dict[str, int] = {}
    for url, seen in zip(urls, known, strict=True):
        if url in counts:
            counts[url] += 1  # read earlier in this look
        else:
            counts[url] = int(seen)
    return {url: count for url, count in counts.items() if count}


def read_summary(key: str, read: int, known: dict[str, int]) -> str:
    """The line that says what one look at ``key`` read, naming the URLs
    known already (:func:`already_known`).

    >>> read_summary("web:start_urls", 2, {})
    'Read 2 start URL(s) from web:start_urls'
    >>> read_summary("web:start_urls", 3, {"https://a.test/": 2})
    'Read 3 start URL(s) from web:start_urls: 1 new, 2 already known (not fetched again): https://a.test/ (twice)'
    >>> read_summary("k", 5, {f"http://a/{n}": 1 for n in range(5)})
    'Read 5 start URL(s) from k: 0 new, 5 already known (not fetched again): http://a/0, http://a/1, http://a/2, ...'
    """
    line = f"Read {read} start URL(s) from {key}"
    if not known:
        return line
    names = [url + _times(count) for url, count in list(known.items())[:_KNOWN_SHOWN]]
    more = ", ..." if len(known) > _KNOWN_SHOWN else ""
    old = sum(known.values())
    return f"{line}: {read - old} new, {old} already known (not fetched again): {', '.join(names)}{more}"


def _times(count: int) -> str:
    return "" if count == 1 else " (twice)" if count == 2 else f" ({count} times)"


class StartUrls:
    """The start-URL key of one spider, read a batch at a time."""

    def __init__(self, client: Any, key: str, kind: str = "list", batch: int = defaults.CONCURRENT_REQUESTS) -> None:
        self.client = client
        self.key = key
        self.kind = kind
        self.batch = max(1, batch)
        self._wrong_type_said = False

    @classmethod
    def from_settings(cls, settings: Any, client: Any, name: str) -> StartUrls:
        if settings.getbool("REDIS_START_URLS_AS_SET"):
            kind = "set"
        elif settings.getbool("REDIS_START_URLS_AS_ZSET"):
            kind = "zset"
        else:
            kind = "list"
        batch = settings.getint("REDIS_START_URLS_BATCH_SIZE") or settings.getint("CONCURRENT_REQUESTS")
        return cls(client, settings.get("REDIS_START_URLS_KEY") % {"name": name}, kind, batch)

    def pop(self) -> list[bytes]:
        """Up to a batch of entries, taken off the key (one command); none,
        said once, while the key is of another type than the settings say.
        Any other refusal is raised: taking entries is a write, which Redis
        refuses while it cannot write its disk (``MISCONF``), and the entries
        stay for a later look."""
        try:
            if self.kind == "set":
                return list(self.client.spop(self.key, self.batch) or [])
            if self.kind == "zset":
                return [member for member, _ in self.client.zpopmax(self.key, self.batch)]
            return list(self.client.lpop(self.key, self.batch) or [])
        except redis.ResponseError as exc:
            if not str(exc).startswith("WRONGTYPE"):
                raise
            if not self._wrong_type_said:
                self._wrong_type_said = True
                logger.error(
                    "Cannot read start URLs from %s as a %s (%s): REDIS_START_URLS_AS_SET and "
                    "REDIS_START_URLS_AS_ZSET say which type it is",
                    self.key,
                    self.kind,
                    exc,
                )
            return []

    def waiting(self) -> int:
        """Entries not read yet."""
        count = {"set": self.client.scard, "zset": self.client.zcard, "list": self.client.llen}[self.kind]
        return int(count(self.key))

    def say_read(self, urls: list[str], known: list[bool], stats: Any) -> None:
        """Log what a look read, naming the URLs the crawl knew already
        (``known``: queued or fetched before), and count those."""
        repeats = already_known(urls, known)
        if repeats:
            stats.inc_value("start_urls/known", sum(repeats.values()))
        logger.info("%s", read_summary(self.key, len(urls), repeats))

    def read(self) -> tuple[list[tuple[str, dict[str, Any]]], bool]:
        """The URLs of a batch with their meta, and whether the batch was full
        (more may wait); an unreadable entry is logged and dropped."""
        batch = self.pop()
        found = []
        for data in batch:
            try:
                found.append(start_url(data))
            except (ValueError, UnicodeDecodeError) as exc:
                logger.warning("Dropped an entry of %s (%s): %r", self.key, exc, data[:200])
        return found, len(batch) >= self.batch

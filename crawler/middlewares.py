"""Downloader middlewares: who we are, which site a request belongs to, and
no password a redirect names."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from crawler.httpdate import parse_http_date
from crawler.sites import site_of
from crawler.urls import has_userinfo, without_userinfo

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.statscollectors import StatsCollector

__all__ = ["IdentityMiddleware", "RedirectUserinfoMiddleware", "SiteSlotMiddleware", "retry_after_seconds"]


def retry_after_seconds(value: bytes | str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value: delta seconds or an HTTP
    date (any of its forms, all UTC: :mod:`crawler.httpdate`).

    >>> retry_after_seconds(b"120"), retry_after_seconds("soon")
    (120.0, None)
    >>> retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0)
    10.0
    """
    if not value:
        return None
    text = (value.decode("latin-1") if isinstance(value, bytes) else value).strip()
    if text.isdigit():
        return float(text)
    when = parse_http_date(text)
    if when is None:
        return None
    return max(0.0, when - (time.time() if now is None else now))


class RedirectUserinfoMiddleware:
    """Drops the ``user:password@`` a redirect's ``Location`` names, counted
    as ``redirect/credentials_in_location``.

    Placed before the archive on the way in: the redirect that follows, the
    frontier, the archive and the log never hold the password (a link on a
    page loses it in canonicalization, :func:`crawler.urls.has_userinfo`).
    """

    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedirectUserinfoMiddleware:
        assert crawler.stats is not None
        return cls(crawler.stats)

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        location = response.headers.get(b"Location")
        if location and 300 <= response.status < 400:
            target = location.decode("latin-1")
            if has_userinfo(target):
                response.headers[b"Location"] = without_userinfo(target).encode("latin-1")
                self.stats.inc_value("redirect/credentials_in_location")
        return response


class IdentityMiddleware:
    """Sends ``User-Agent`` (name and a URL about the bot) and ``From``.

    Every request carries them, robots.txt included (ARCHITECTURE.md, items 8, 13).
    Built from settings at crawl start, so ``-s CRAWLER_CONTACT=...`` works.
    """

    def __init__(self, user_agent: str, contact: str) -> None:
        self.user_agent = user_agent.encode()
        self.contact = contact.encode()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> IdentityMiddleware:
        settings = crawler.settings
        product = settings.get("CRAWLER_PRODUCT")
        info = settings.get("CRAWLER_INFO_URL")
        user_agent = f"{product} (+{info})" if info else product
        return cls(user_agent, settings.get("CRAWLER_CONTACT"))

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        request.headers[b"User-Agent"] = self.user_agent
        if self.contact:
            request.headers.setdefault(b"From", self.contact)


class SiteSlotMiddleware:
    """One download slot per site: Scrapy keys slots by host name only.

    Two sites on one host (different ports, or http and https) get their own
    delay and concurrency limits.
    """

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        request.meta.setdefault("download_slot", site_of(request.url))
        # Long bodies are cut off, not dropped (crawler/limits.py).
        request.meta.setdefault("download_maxsize", 0)

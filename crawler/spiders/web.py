"""The ``web`` spider: fetch, extract, follow links breadth first.

    scrapy crawl web -a seeds=URL[,URL...]      (or -a seeds_file=FILE)
                     [-a scope=host|domain|any] [-a recrawl=1|all]
                     [-s DATA_DIR=DIR] [-s REDIS_URL=...]

The spider is thin: extraction, canonicalization, trap rules and scope are
pure functions elsewhere in this package; the frontier (queue, dedup) is the
scheduler's. What it decides is what a page yields: one item for the indexer
and a request for each new in-scope link.

With ``-a recrawl=1`` it also revisits the known pages that are due (``all``:
every known page), read from the index's page store in ``DATA_DIR``: each
request sends back the validators of the last fetch (``If-None-Match``,
``If-Modified-Since``), and a ``304 Not Modified`` becomes an ``unchanged``
item. The indexer, which keeps each URL's history, decides when it is due
next (:mod:`crawler.revisit`).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import lxml.etree
from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import UsageError
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils._compression import _DecompressionMaxSizeExceeded
from scrapy.utils.gz import gunzip
from scrapy.utils.sitemap import Sitemap
from twisted.python.failure import Failure

from crawler._async import REDIS_DOWN
from crawler.boilerplate import BoilerplateDetector
from crawler.extract import Page, extract
from crawler.fingerprints import content_fingerprint, fingerprints, hamming, simhash
from crawler.frontier import Frontier
from crawler.linkfilter import ALREADY_FOLLOWED, MEDIA, NOFOLLOW, OUT_OF_SCOPE, PURGED, LinkFilter
from crawler.middlewares import site_of
from crawler.revisit import RevisitBounds, conditional_headers
from crawler.robots import page_directives
from crawler.scope import Scope
from crawler.traps import Blacklist, PatternBudget
from crawler.urls import TrapRules, UrlPolicy
from indexer.store import PageStore

logger = logging.getLogger(__name__)

_SCOPE_REFRESH = 30.0
_PURGED_REFRESH = 30.0
_RECRAWL = {"": None, "0": None, "1": "due", "due": "due", "all": "all"}
_MAX_SITEMAPS = 50
_MAX_SITEMAP_URLS = 50_000  # the sitemaps protocol's own limit per file
_MAX_SITEMAP_BYTES = 50 * 1024 * 1024
_SITEMAP_META = {"sitemap": True, "handle_httpstatus_list": [404, 410]}
_SOFT404_BITS = 8  # a page this close to the site's "not found" answer is one


def read_seeds(seeds: str | None, seeds_file: str | None, policy: UrlPolicy) -> list[str]:
    """Seed URLs from ``-a seeds=`` (comma-separated) and ``-a seeds_file=``.

    A file has one URL a line; blank lines and ``#`` comments are skipped.
    Raises UsageError naming the first URL that is not http(s).
    """
    raw: list[str] = []
    if seeds:
        raw.extend(part.strip() for part in seeds.split(","))
    if seeds_file:
        try:
            lines = Path(seeds_file).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise UsageError(f"cannot read seeds_file: {exc}") from exc
        raw.extend(line.split("#", 1)[0].strip() for line in lines)
    urls: list[str] = []
    for url in filter(None, raw):
        try:
            canonical = policy.canonicalize(url)
        except ValueError as exc:
            raise UsageError(f"bad seed URL {url!r}: {exc}") from None
        if not canonical.startswith(("http://", "https://")):
            raise UsageError(f"bad seed URL {url!r}: only http and https can be crawled")
        if canonical not in urls:
            urls.append(canonical)
    return urls


def recrawl_mode(value: str | None) -> str | None:
    """``-a recrawl=``: None (no revisits), ``"due"`` (1) or ``"all"``."""
    try:
        return _RECRAWL[(value or "").strip().lower()]
    except KeyError:
        raise UsageError(f"bad recrawl value {value!r}: use recrawl=1 (pages due) or recrawl=all") from None


def check_arguments(
    settings: Any, seeds: str | None = None, seeds_file: str | None = None,
    scope: str = "host", recrawl: str | None = None, **others: Any,
) -> None:
    """Raise UsageError for spider arguments the crawl cannot run with."""
    unknown = sorted(others)
    if unknown:
        raise UsageError(f"unknown spider argument(s): {', '.join(unknown)}; "
                         "the web spider takes seeds, seeds_file, scope and recrawl")
    try:
        Scope(scope)
        RevisitBounds.from_settings(settings)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    recrawl_mode(recrawl)
    read_seeds(seeds, seeds_file, UrlPolicy.from_settings(settings))


class WebSpider(Spider):
    name = "web"

    def __init__(
        self,
        seeds: str | None = None,
        seeds_file: str | None = None,
        scope: str = "host",
        recrawl: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._seeds_arg = seeds
        self._seeds_file = seeds_file
        self.recrawl = recrawl_mode(recrawl)
        self.revisit_bounds = RevisitBounds(86400, 3600, 30 * 86400)
        self.data_dir = Path("data")
        try:
            self.scope = Scope(scope)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        self.policy = UrlPolicy()
        self.links = LinkFilter(self.scope, TrapRules(), Blacklist(), PatternBudget(0))
        self.agent = "LanternBot"
        self.boilerplate = BoilerplateDetector()
        self._soft404: dict[str, dict[str, Any]] = {}
        self.seeds: list[str] = []
        self.frontier: Frontier | None = None
        self._logged: set[tuple[str, str]] = set()
        self._scope_read = 0.0
        self._purged_read = 0.0

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> WebSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        spider.policy = UrlPolicy.from_settings(settings)
        spider.agent = settings.get("ROBOTSTXT_USER_AGENT") or settings.get("CRAWLER_PRODUCT", "LanternBot")
        try:
            spider.links = LinkFilter.from_settings(settings, spider.scope)
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot use the blacklist: {exc}") from None
        spider.seeds = read_seeds(spider._seeds_arg, spider._seeds_file, spider.policy)
        try:
            spider.revisit_bounds = RevisitBounds.from_settings(settings)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        spider.data_dir = Path(settings.get("DATA_DIR") or "data")
        crawler.signals.connect(spider._opened, signal=signals.spider_opened)
        return spider

    def _opened(self, spider: Spider) -> None:
        self.frontier = Frontier.for_crawler(self.crawler)
        self.frontier.add_scope(urlsplit(url).hostname or "" for url in self.seeds)
        self.scope.add(self.frontier.scope())
        self._scope_read = time.monotonic()
        self._refresh_purged(force=True)
        queued = len(self.frontier)
        if not self.seeds and not queued and not self.recrawl:
            logger.error(
                "Nothing to crawl: give seeds (-a seeds=URL[,URL...] or -a seeds_file=FILE), "
                "or resume a crawl that still has queued requests"
            )

    async def start(self) -> AsyncIterator[Request]:
        for url in self.seeds:
            if self.links.purged.reason(url):
                self._refuse(url, PURGED)
                continue
            yield Request(url, meta={"seed": True}, errback=self.failed)
        if self.recrawl:
            for request in self._revisits():
                yield request

    def _revisits(self) -> Iterator[Request]:
        """Conditional requests for the known pages due by now (or all of them).

        Read from the page store in ``DATA_DIR`` (read-only: the indexer is
        its one writer), so run ``-a recrawl=1`` on the machine that holds the
        index; the requests go into the shared queue, for any node to fetch.
        """
        path = self.data_dir / "pages.sqlite"
        if not path.exists():
            logger.warning("Nothing to revisit: %s has no index yet", self.data_dir)
            return
        stats = self.crawler.stats
        due = 0
        with PageStore(path, readonly=True) as store:
            for url, etag, last_modified, fetched in store.due(None if self.recrawl == "all" else time.time()):
                if self.links.purged.reason(url):
                    continue
                due += 1
                stats.inc_value("recrawl/due")
                yield Request(
                    url, headers=conditional_headers(etag, last_modified), errback=self.failed,
                    meta={"revisit": {"after": fetched}, "handle_httpstatus_list": [304]},
                )
        logger.info("Revisiting %d known pages (%s)", due, "all" if self.recrawl == "all" else "due by now")

    def sitemap_requests(self, site: str, declared: list[str]) -> list[Request]:
        """Requests to make once per site, when its robots.txt is first read:
        its sitemaps (those robots.txt names, else /sitemap.xml), and a probe
        of how it answers for a page that does not exist (soft 404s)."""
        requests = [self._probe(site)]
        for url in declared[:_MAX_SITEMAPS] or [f"{site}/sitemap.xml"]:
            try:
                url = self.policy.canonicalize(url)
            except ValueError:
                continue
            requests.append(Request(url, callback=self.parse_sitemap, meta=_SITEMAP_META))
        return requests

    def parse_sitemap(self, response: Response) -> Iterator[Request]:
        """Queue the in-scope URLs of a sitemap, or the sitemaps of a sitemap index."""
        stats = self.crawler.stats
        if response.status >= 400:
            stats.inc_value("sitemap/missing")  # most sites have none
            return
        body = response.body
        if body[:2] == b"\x1f\x8b":
            try:
                body = gunzip(body, max_size=_MAX_SITEMAP_BYTES)
            except (OSError, ValueError, _DecompressionMaxSizeExceeded):
                stats.inc_value("sitemap/invalid")
                return
        try:
            sitemap = Sitemap(body)
        except (ValueError, SyntaxError, lxml.etree.LxmlError):
            stats.inc_value("sitemap/invalid")
            return
        site = site_of(response.url)
        for count, entry in enumerate(sitemap):
            if count >= _MAX_SITEMAP_URLS:
                break
            try:
                url = self.policy.canonicalize(entry.get("loc", "").strip())
            except ValueError:
                continue
            if sitemap.type == "sitemapindex":
                if site_of(url) == site:
                    yield Request(url, callback=self.parse_sitemap, meta=_SITEMAP_META)
                continue
            stats.inc_value("sitemap/urls")
            if self.links.verdict(url) is None:
                yield Request(url, errback=self.failed)

    def failed(self, failure: Failure) -> Iterator[dict[str, Any]]:
        """404/410: the URL must not live on as an anchor-only result."""
        if failure.check(HttpError) and failure.value.response.status in (404, 410):
            response = failure.value.response
            try:
                url = self.policy.canonicalize(response.url)
            except ValueError:
                return
            yield {"type": "gone", "url": url, "status": response.status}

    def parse(self, response: Response) -> Iterator[dict[str, Any] | Request]:
        stats = self.crawler.stats
        url = self.policy.canonicalize(response.url)
        self._refresh_purged()
        if response.meta.get("revisit") is not None:
            stats.inc_value(f"recrawl/{'unchanged' if response.status == 304 else 'fetched'}")
            if response.status == 304:
                yield {"type": "unchanged", "url": url, **self._fetch_state(response)}
                return
        headers = response.headers.to_unicode_dict()
        extraction = extract(response.body, url, None, headers, self.policy.canonicalize)
        page = extraction.page
        if page is None:
            stats.inc_value(f"extract/skipped/{extraction.skip}")
            return
        stats.inc_value(f"extract/{page.kind}")
        aliases = self._aliases(response, url)
        if page.refresh:  # a Refresh header, or a meta refresh Scrapy left alone
            stats.inc_value("extract/refresh")
            earlier = [*response.meta.get("redirect_urls", []), response.url]
            yield Request(page.refresh, errback=self.failed, meta={"redirect_urls": earlier})
            return
        if page.canonical and page.canonical != url:
            aliases.append(url)
            page.url = url = page.canonical
        if self._soft_not_found(page):
            stats.inc_value("extract/soft404")
            yield {"type": "gone", "url": url, "status": 404, "soft": True}
            return
        directives = page_directives(
            page.meta, [value.decode("latin-1") for value in response.headers.getlist(b"X-Robots-Tag")],
            self.agent,
        )
        follow = "nofollow" not in directives
        if "noindex" in directives:
            stats.inc_value("meta/noindex")
            if response.meta.get("revisit") is not None:
                yield {"type": "gone", "url": url, "status": response.status, "noindex": True}
        else:
            digest, near = fingerprints(page) if page.text else (None, None)
            first = self._first_with_content(page, digest, near, aliases) if digest else None
            if first is not None:
                stats.inc_value("dupes/content")
                yield {"type": "duplicate", "url": url, "of": first, "aliases": aliases}
                return
            stats.inc_value("boilerplate/blocks", self.boilerplate.strip(page))
            item = self._item(response, page, aliases, follow)
            item["digest"] = digest.hex() if digest else None
            yield item
        if not follow:
            stats.inc_value("meta/nofollow")
            return
        yield from self._follow(page, response)

    # --- soft 404s: a site's answer to a page that cannot exist -------------------------

    def _probe(self, site: str) -> Request:
        url = f"{site}/lantern-probe-{uuid.uuid4().hex[:12]}/no-such-page.html"
        return Request(self.policy.canonicalize(url), callback=self.parse_probe,
                       meta={"handle_httpstatus_all": True, "soft404_probe": True}, dont_filter=True)

    def parse_probe(self, response: Response) -> Iterator[Any]:
        """Remember what the site answers for a page that does not exist."""
        assert self.frontier is not None
        site = site_of(response.url)
        signature: dict[str, Any] = {}
        if response.status == 200:
            page = extract(response.body, response.url, None, response.headers.to_unicode_dict()).page
            if page is not None and page.kind == "html":
                page = _without_path(page)
                signature = {"title": page.title, "simhash": simhash(page), "length": len(page.text),
                             "digest": content_fingerprint(page).hex()}
                logger.info("%s answers 200 for missing pages: such pages will not be indexed", site)
        self._soft404[site] = signature
        try:
            self.frontier.set_soft404(site, signature)
        except REDIS_DOWN:
            pass  # other nodes probe again
        return iter(())

    def _soft_not_found(self, page: Page) -> bool:
        """Whether a 200 page looks like the site's answer for a missing page."""
        if page.kind != "html":
            return False
        site = site_of(page.url)
        signature = self._soft404.get(site)
        if signature is None:
            assert self.frontier is not None
            try:
                signature = self.frontier.soft404(site)
            except REDIS_DOWN:
                signature = None
            if signature is None:
                return False  # the probe has not answered yet
            self._soft404[site] = signature
        if not signature or page.title != signature["title"]:
            return False
        page = _without_path(page)
        if content_fingerprint(page).hex() == signature["digest"]:
            return True
        length = max(len(page.text), signature["length"], 1)
        if abs(len(page.text) - signature["length"]) / length > 0.2:
            return False
        mine, theirs = simhash(page), signature["simhash"]
        return mine is not None and theirs is not None and hamming(mine, theirs) <= _SOFT404_BITS

    def _first_with_content(
        self, page: Page, digest: bytes, near: int | None, aliases: list[str]
    ) -> str | None:
        """The URL that first had this page's text (or nearly: SimHash
        ``near``), when not this one, nor one that redirects here (a page
        that moved)."""
        assert self.frontier is not None
        try:
            first = self.frontier.content_seen(digest, page.url, near)
        except REDIS_DOWN:
            self.crawler.stats.inc_value("dupes/unchecked")  # index it rather than lose it
            return None
        return None if first in aliases else first

    def _aliases(self, response: Response, url: str) -> list[str]:
        """URLs that led here through redirects: the index maps them to ``url``."""
        aliases = []
        for earlier in response.request.meta.get("redirect_urls", ()) if response.request else ():
            try:
                alias = self.policy.canonicalize(earlier)
            except ValueError:
                continue
            if alias != url and alias not in aliases:
                aliases.append(alias)
        return aliases

    def _item(
        self, response: Response, page: Page, aliases: list[str], follow: bool
    ) -> dict[str, Any]:
        links = []
        if follow:
            links = [
                [link.url, link.text]
                for link in page.links
                if not link.nofollow and self.links.indexable(link.url)
            ]
        return {
            "type": "page",
            "url": page.url,
            "aliases": aliases,
            "status": response.status,
            "depth": response.meta.get("depth", 0),
            "title": page.title,
            "description": page.description,
            "keywords": page.keywords,
            "headings": page.headings,
            "emphasis": page.emphasis,
            "text": page.text,
            "lang": page.lang,
            "kind": page.kind,
            "media_type": page.media_type,
            "links": links,
            **self._fetch_state(response),
        }

    def _fetch_state(self, response: Response) -> dict[str, Any]:
        """What the indexer needs to schedule the next revisit of a response's
        URL: when it was fetched, its validators, and the site's interval
        bounds ``[first, minimum, maximum]`` (:mod:`crawler.revisit`)."""
        return {
            "fetched": time.time(),
            "etag": _header(response, b"ETag"),
            "last_modified": _header(response, b"Last-Modified"),
            "revisit": list(self.revisit_bounds.for_url(response.url)),
        }

    def _follow(self, page: Page, response: Response) -> Iterator[Request]:
        for link in page.links:
            reason = self.links.verdict(link.url, link.nofollow)
            if reason == OUT_OF_SCOPE and self._refresh_scope():
                reason = self.links.verdict(link.url)
            if reason is None:
                yield Request(link.url, errback=self.failed)
            elif reason in (NOFOLLOW, OUT_OF_SCOPE, MEDIA):
                self.crawler.stats.inc_value(f"links/{reason}")
            elif reason != ALREADY_FOLLOWED:
                self._refuse(link.url, reason)

    def _refresh_scope(self) -> bool:
        """Seeds pushed into a running crawl widen the scope of every node.

        The shared scope is reread at most every ``_SCOPE_REFRESH`` seconds,
        so out-of-scope links cost no round trip each. True if it grew.
        """
        assert self.frontier is not None
        now = time.monotonic()
        if now - self._scope_read < _SCOPE_REFRESH:
            return False
        self._scope_read = now
        before = len(self.scope)
        try:
            self.scope.add(self.frontier.scope())
        except REDIS_DOWN:
            return False
        return len(self.scope) > before

    def _refresh_purged(self, force: bool = False) -> None:
        """Pages purged while the crawl runs (``python -m indexer purge``
        adds them to a Redis set): reread at most every ``_PURGED_REFRESH``
        seconds, so no link costs a round trip."""
        assert self.frontier is not None
        now = time.monotonic()
        if not force and now - self._purged_read < _PURGED_REFRESH:
            return
        self._purged_read = now
        try:
            self.links.add_purged(self.frontier.purged())
        except REDIS_DOWN:
            pass  # the next refresh tries again
        except ValueError as exc:
            logger.error("Ignoring the crawl's purged URLs: %s", exc)

    def _refuse(self, url: str, reason: str) -> None:
        self.crawler.stats.inc_value(f"traps/{reason}")
        site = site_of(url)
        if (site, reason) not in self._logged:
            self._logged.add((site, reason))
            logger.info(
                "Refusing URLs on %s (%s), first one: %s; further ones are counted only",
                site,
                reason,
                url,
            )


def _header(response: Response, name: bytes) -> str | None:
    value = response.headers.get(name)
    return value.decode("latin-1") if value else None


def _without_path(page: Page) -> Page:
    """The page with its own URL's path taken out of its text: a "not found"
    page often names the path it was asked for, the only part that differs."""
    path = unquote(urlsplit(page.url).path)
    text = page.text.replace(path, " ")
    for segment in path.split("/"):
        if len(segment) > 2:
            text = text.replace(segment, " ")
    return Page(url=page.url, title=page.title, text=" ".join(text.split()))

"""The ``web`` spider: fetch, extract, follow links breadth first.

    scrapy crawl web -a seeds=URL[,URL...]      (or -a seeds_file=FILE)
                     [-a scope=host|domain|any] [-a recrawl=1|all]
                     [-s DATA_DIR=DIR] [-s REDIS_URL=...]

The spider is thin: extraction, canonicalization, trap rules and scope are
pure functions elsewhere in this package; what a page yields for the index
is decided by :class:`crawler.pages.PageLogic` (which a rebuild from the
archive runs too); the frontier (queue, dedup) is the scheduler's. What the
spider adds is the crawl: a request for each new in-scope link, the seeds
pushed into Redis while it runs (:mod:`crawler.start_urls`), and with
``-a recrawl`` the known pages that are due.  Design: ARCHITECTURE.md,
"The crawl", Start URLs and Revisits.
"""

from __future__ import annotations

import itertools
import logging
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, cast

import lxml.etree
import redis
from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import CloseSpider, UsageError
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.asyncio import call_later
from scrapy.utils.sitemap import Sitemap
from twisted.python.failure import Failure

from crawler import settings as defaults
from crawler._async import REDIS_DOWN
from crawler.boilerplate import BoilerplateDetector
from crawler.codings import inflate
from crawler.connection import redis_params
from crawler.cores import cores
from crawler.credentials import load as load_credentials
from crawler.datadir import access_mode, pages_path, redis_dir
from crawler.extract import Page
from crawler.extract_pool import ExtractPool
from crawler.frontier import Frontier, drop_silent_hosts
from crawler.items import Item
from crawler.linkfilter import ALREADY_FOLLOWED, MEDIA, NOFOLLOW, OUT_OF_SCOPE, PURGED, LinkFilter
from crawler.pages import Fetched, PageLogic
from crawler.revisit import RevisitBounds, conditional_headers, due_pages
from crawler.robots import robots_agent
from crawler.scope import Scope
from crawler.sites import host_name, site_of
from crawler.start_urls import StartUrls
from crawler.traps import Blacklist, Chains, PatternBudget
from crawler.urls import TrapRules, UrlPolicy, has_userinfo

logger = logging.getLogger(__name__)

_SCOPE_REFRESH = 30.0
_PURGED_REFRESH = 30.0
_PUSHED_PER_LOOK = 1000  # start URLs read from Redis at one look, at most (the rest at the next, at once)
_RECRAWL = {"": None, "0": None, "1": "due", "due": "due", "all": "all"}
_MAX_SITEMAPS = 50
_MAX_SITEMAP_URLS = 50_000  # the sitemaps protocol's own limit per file
_MAX_SITEMAP_BYTES = 50 * 1024 * 1024
_SITEMAP_META = {"sitemap": True, "handle_httpstatus_list": [404, 410]}
#: The reason a crawl with nothing to crawl closes with (a failure: exit status 1).
NOTHING_TO_CRAWL = "nothing_to_crawl"
_CHAINS_REMEMBERED = 100_000  # queued requests whose chain length is known, at most


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
            canonical = seed_url(url, policy)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if canonical not in urls:
            urls.append(canonical)
    return urls


def seed_url(url: str, policy: UrlPolicy) -> str:
    """A seed's canonical URL (from the command line, or pushed into Redis:
    :mod:`crawler.start_urls`); ValueError saying why it cannot be one.

    >>> seed_url("HTTP://Docs.Example.org:80/a/../b", UrlPolicy())
    'http://docs.example.org/b'
    >>> seed_url("ftp://example.org/", UrlPolicy())
    Traceback (most recent call last):
    ...
    ValueError: bad seed URL 'ftp://example.org/': only http and https can be crawled
    """
    if has_userinfo(url):  # before canonicalization, which drops it
        raise ValueError(
            "a seed URL holds credentials: a site owner's credentials go in the file "
            "CRAWLER_CREDENTIALS_FILE names, never on the command line"
        )
    try:
        canonical = policy.canonicalize(url)
    except ValueError as exc:
        raise ValueError(f"bad seed URL {url!r}: {exc}") from None
    if not canonical.startswith(("http://", "https://")):
        raise ValueError(f"bad seed URL {url!r}: only http and https can be crawled")
    return canonical


def _looks_like_xml(body: bytes) -> bool:
    r"""Whether a sitemap's body can be XML: it starts, after a BOM and
    white space, with an XML declaration or an element that is not an HTML
    page's (a soft 404 answers ``<!DOCTYPE html>`` or ``<html>``).

    >>> _looks_like_xml(b'<?xml version="1.0"?><urlset/>'), _looks_like_xml(b"\n<urlset>")
    (True, True)
    >>> _looks_like_xml(b"<!DOCTYPE html><html>"), _looks_like_xml(b"  <HTML><body>"), _looks_like_xml(b"User-agent")
    (False, False, False)
    """
    head = body[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if not head.startswith(b"<"):
        return False
    return not head.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))


def read_sitemap(body: bytes) -> Sitemap | str:
    """The sitemap or sitemap index in a sitemap's body, gzipped or not; else
    the stat that says why there is none: ``sitemap/invalid`` (not gzip, or
    more than ``_MAX_SITEMAP_BYTES`` once inflated, or XML that does not
    parse) or ``sitemaps/not_xml`` (an HTML page or no XML at all).

    >>> read_sitemap(b"<!DOCTYPE html><html><title>Not found</title>")
    'sitemaps/not_xml'
    >>> read_sitemap(b"\\x1f\\x8b not gzip")
    'sitemap/invalid'
    """
    if body[:2] == b"\x1f\x8b":
        try:
            body, cut = inflate(body, "gzip", _MAX_SITEMAP_BYTES)
        except ValueError:
            return "sitemap/invalid"
        if cut:
            return "sitemap/invalid"  # a decompression bomb, or a sitemap past the protocol's size
    if not _looks_like_xml(body):
        return "sitemaps/not_xml"  # a site that answers everything with its HTML "not found" page
    try:
        sitemap = Sitemap(body)
    except StopIteration:  # not one element: HTML that lxml's XML parser reads as nothing
        return "sitemaps/not_xml"
    except (ValueError, SyntaxError, lxml.etree.LxmlError):
        return "sitemap/invalid"
    if sitemap.type not in ("urlset", "sitemapindex"):
        return "sitemaps/not_xml"  # a page, not a sitemap
    return sitemap


def extract_processes(settings: Any) -> int:
    """``CRAWLER_EXTRACT_PROCESSES``, or when unset: one worker when the
    machine has a core the crawl can have to itself, that is a second core
    and no indexer beside the crawl (which would take that core)."""
    value = settings.get("CRAWLER_EXTRACT_PROCESSES")
    if value is not None:
        return max(0, int(value))
    inline = settings.get("INDEX_WITH_CRAWL")
    indexing = settings.getbool("INDEX_WITH_CRAWL") if inline is not None else not settings.get("REDIS_URL")
    return 1 if cores() >= 2 and not indexing else 0


def recrawl_mode(value: str | None) -> str | None:
    """``-a recrawl=``: None (no revisits), ``"due"`` (1) or ``"all"``."""
    try:
        return _RECRAWL[(value or "").strip().lower()]
    except KeyError:
        raise UsageError(f"bad recrawl value {value!r}: use recrawl=1 (pages due) or recrawl=all") from None


def check_arguments(
    settings: Any,
    seeds: str | None = None,
    seeds_file: str | None = None,
    scope: str = "host",
    recrawl: str | None = None,
    **others: Any,
) -> None:
    """Raise UsageError for spider arguments the crawl cannot run with."""
    unknown = sorted(others)
    if unknown:
        raise UsageError(
            f"unknown spider argument(s): {', '.join(unknown)}; "
            "the web spider takes seeds, seeds_file, scope and recrawl"
        )
    for name in ("REDIS_HOST", "REDIS_PORT"):
        if settings.get(name):
            # scrapy-redis' settings: read as they are not, they would leave a
            # node crawling alone on its embedded server.
            raise UsageError(
                f"{name} is not read: a shared Redis is named by REDIS_URL "
                "(redis://HOST:PORT/DB); without it the crawl runs on its own embedded server"
            )
    try:
        Scope(scope)
        RevisitBounds.from_settings(settings)
        load_credentials(settings.get("CRAWLER_CREDENTIALS_FILE"))
        redis_params(settings)
        access_mode(settings.get("DATA_DIR_MODE"))
    except ValueError as exc:  # CredentialsError too: one line, never a value of the file
        raise UsageError(str(exc)) from None
    revisiting = recrawl_mode(recrawl)
    urls = read_seeds(seeds, seeds_file, UrlPolicy.from_settings(settings))
    frontier = redis_dir(settings.get("DATA_DIR"))
    if not urls and not revisiting and not settings.get("REDIS_URL") and not frontier.exists():
        # Nothing queued either: no crawl ever ran here (with REDIS_URL, or a
        # data directory that has one, the spider finds out when it opens).
        raise UsageError(
            f"nothing to crawl: give seeds (-a seeds=URL[,URL...] or -a seeds_file=FILE); "
            f"{frontier.parent} holds no crawl to resume"
        )


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
        # Set from the crawl's settings (from_crawler).
        self.revisit_bounds: RevisitBounds
        self.data_dir: Path
        self.agent: str
        try:
            self.scope = Scope(scope)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        self.policy = UrlPolicy()
        self.links = LinkFilter(self.scope, TrapRules(), Blacklist(), PatternBudget(0))
        self.chains = Chains(0)
        # The chain length of each request this process queued, by URL, until
        # it is parsed: the frontier's queue keeps only the meta keys it
        # knows, and "chain" is not yet one of them.
        self._chain_of: dict[str, int] = {}
        self.boilerplate = BoilerplateDetector()
        self.pages: PageLogic
        self.seeds: list[str] = []
        self.frontier: Frontier | None = None
        self._logged: set[tuple[str, str]] = set()
        self._scope_read = 0.0
        self._purged_read = 0.0
        self.extractor: ExtractPool | None = None
        self._extract_processes = 0
        self._pushed: StartUrls | None = None
        self._look: Any = None
        self._look_every = defaults.FRONTIER_HEARTBEAT
        self._pushed_meta_logged = False
        self._pushed_refused: str | None = None  # what Redis said when it last refused the start URLs

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> WebSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        spider.policy = UrlPolicy.from_settings(settings)
        spider.agent = robots_agent(settings)
        try:
            spider.links = LinkFilter.from_settings(settings, spider.scope)
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot use the blacklist: {exc}") from None
        spider.chains = Chains(settings.getint("TRAPS_CHAIN_MAX"))
        spider.seeds = read_seeds(spider._seeds_arg, spider._seeds_file, spider.policy)
        try:
            spider.revisit_bounds = RevisitBounds.from_settings(settings)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        spider.data_dir = Path(settings.get("DATA_DIR"))
        spider._extract_processes = extract_processes(settings)
        crawler.signals.connect(spider._opened, signal=signals.spider_opened)
        crawler.signals.connect(spider._closed, signal=signals.spider_closed)
        crawler.signals.connect(spider._idle, signal=signals.spider_idle)
        spider._look_every = settings.getfloat("FRONTIER_HEARTBEAT")
        return spider

    def _closed(self, spider: Spider) -> None:
        if self._look is not None:
            self._look.cancel()
            self._look = None
        if self.extractor is not None:
            self.extractor.close()

    def _opened(self, spider: Spider) -> None:
        self.frontier = Frontier.for_crawler(self.crawler)
        self.pages = PageLogic(
            self.policy,
            self.links,
            self.agent,
            _SharedMemory(self.frontier, self.crawler.stats),
            self.crawler.stats.inc_value,
            self.boilerplate,
            self.revisit_bounds,
            max_links=self.crawler.settings.getint("LINKS_MAX_PER_PAGE"),
            max_offsite_links=self.crawler.settings.getint("LINKS_MAX_OFFSITE_PER_PAGE"),
        )
        if self._extract_processes:
            self.extractor = ExtractPool(self._extract_processes, self.policy)
        drop_silent_hosts(self.frontier, [host_name(url) for url in self.seeds])
        self.frontier.add_scope(host_name(url) for url in self.seeds)
        self.scope.add(self.frontier.scope())
        self._scope_read = time.monotonic()
        self._refresh_purged(force=True)
        self._pushed = pushed = StartUrls.from_settings(self.crawler.settings, self.frontier.client, self.name)
        nothing = (
            not self.seeds
            and not len(self.frontier)
            and not self.recrawl
            and not pushed.waiting()
            and not self._others_at_work()
        )
        if nothing and self.frontier.embedded is not None:
            logger.error(
                "Nothing to crawl: give seeds (-a seeds=URL[,URL...] or -a seeds_file=FILE), "
                "or resume a crawl that still has queued requests"
            )
            raise CloseSpider(NOTHING_TO_CRAWL)  # the crawl command exits with status 1
        self._look = call_later(self._look_every, self._look_for_pushed)
        if self.frontier.embedded is None:
            logger.info("Reading start URLs pushed to %s (a %s, %d at a time)", pushed.key, pushed.kind, pushed.batch)
        if nothing:
            # A shared frontier: a node started beside the first one may
            # look before that one has queued its seeds. It waits for
            # work as long as an idle node does (FRONTIER_IDLE_GRACE).
            logger.info("No seeds and nothing queued yet: this node waits for the other nodes' work and for start URLs")

    def _others_at_work(self) -> bool:
        """Whether other nodes of a shared crawl hold requests (they may yet find links)."""
        assert self.frontier is not None
        frontier = self.frontier
        return frontier.leases(node="check").held() > 0

    async def start(self) -> AsyncIterator[Request]:
        for url in self.seeds:
            if self.links.purged.reason(url):
                self._refuse(url, PURGED)
                continue
            yield Request(url, meta={"seed": True}, errback=self.failed)
        for request in self.next_requests():  # pushed before this node started
            yield request
        if self.recrawl:
            for request in self._revisits():
                yield request

    def next_requests(self, limit: int = _PUSHED_PER_LOOK) -> list[Request]:
        """Requests for the start URLs pushed into Redis since the last look
        (scrapy-redis' name for it), at most about ``limit``: seeds, as those
        of the command line; a URL that cannot be one is logged and dropped."""
        assert self._pushed is not None
        stats = self.crawler.stats
        requests: list[Request] = []
        hosts: list[str] = []
        while len(requests) < limit:
            entries, more = self._pushed.read()
            for raw, meta in entries:
                stats.inc_value("start_urls/read")
                try:
                    url = seed_url(raw, self.policy)
                except ValueError as exc:
                    stats.inc_value("start_urls/refused")
                    logger.warning("Refused a start URL of %s: %s", self._pushed.key, exc)
                    continue
                if meta and not self._pushed_meta_logged:
                    self._pushed_meta_logged = True
                    logger.info("The meta of start URLs is not used (crawler/start_urls.py); first: %s", meta)
                if self.links.purged.reason(url):
                    self._refuse(url, PURGED)
                    continue
                hosts.append(host_name(url))
                requests.append(Request(url, meta={"seed": True}, errback=self.failed))
            if not more:
                break
        if hosts:
            assert self.frontier is not None
            self.frontier.add_scope(hosts)
            self.scope.add(hosts)
            urls = [request.url for request in requests]
            self._pushed.say_read(urls, self._known(urls), stats)
        return requests

    def _feed_pushed(self) -> bool:
        """Queue the start URLs pushed since the last look; whether more may wait."""
        assert self._pushed is not None
        try:
            requests = self.next_requests()
        except REDIS_DOWN:
            return False  # the next look tries again
        except redis.ResponseError as exc:
            # Redis refuses to let the entries be taken: MISCONF, its disk is
            # full (crawler/halt.py stops the crawl on this record), or a
            # refusal of its settings (NOREPLICAS, OOM); they stay queued.
            if str(exc) != self._pushed_refused:
                self._pushed_refused = str(exc)
                logger.warning(
                    "Redis refuses the start URLs of %s (%s): they stay there, and are read once it takes writes again",
                    self._pushed.key,
                    exc,
                )
            return False
        self._pushed_refused = None
        for request in requests:
            self.crawler.engine.crawl(request)
        return len(requests) >= _PUSHED_PER_LOOK

    def _look_for_pushed(self) -> None:
        more = self._feed_pushed()
        self._look = call_later(0 if more else self._look_every, self._look_for_pushed)

    def _idle(self, spider: Spider) -> None:
        """Out of work: start URLs pushed since the last look keep the node
        open (the engine finds them queued), as in scrapy-redis."""
        if self._pushed is not None:
            self._feed_pushed()

    def _revisits(self) -> Iterator[Request]:
        """Conditional requests for the known pages due by now (or all of them).

        Read from the page store in ``DATA_DIR`` (read-only: the indexer is
        its one writer), so run ``-a recrawl=1`` on the machine that holds the
        index; the requests go into the shared queue, for any node to fetch.
        """
        path = pages_path(self.data_dir)
        if not path.exists():
            logger.warning("Nothing to revisit: %s has no index yet", self.data_dir)
            return
        stats = self.crawler.stats
        due = 0
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as store:
            for url, etag, last_modified, fetched in due_pages(store, None if self.recrawl == "all" else time.time()):
                if self.links.purged.reason(url):
                    continue
                due += 1
                stats.inc_value("recrawl/due")
                yield Request(
                    url,
                    headers=conditional_headers(etag, last_modified),
                    errback=self.failed,
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
        sitemap = read_sitemap(response.body)
        if isinstance(sitemap, str):
            stats.inc_value(sitemap)
            return
        site = site_of(response.url)
        for entry in itertools.islice(sitemap, _MAX_SITEMAP_URLS):
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

    def failed(self, failure: Failure) -> Iterator[Item]:
        """404/410: the URL must not live on as an anchor-only result."""
        error = failure.value
        if isinstance(error, HttpError):
            response = error.response
            item = self.pages.gone(response.url, response.status)
            if item is not None:
                yield item

    async def parse(self, response: Response) -> AsyncIterator[Item | Request]:
        self._refresh_purged()
        page = fetched(response)
        extraction = None
        if self.extractor is not None and page.status != 304:
            url = self.policy.canonicalize(page.url)
            extraction = await self.extractor.extract(page.body, url, page.headers)
        outcome = self.pages.page(page, extraction)
        for item in outcome.items:
            yield item
        if outcome.refresh:
            earlier = [*response.meta.get("redirect_urls", []), response.url]
            yield Request(outcome.refresh, errback=self.failed, meta={"redirect_urls": earlier})
        elif outcome.follow is not None:
            for request in self._follow(outcome.follow, response):
                yield request

    # --- soft 404s: a site's answer to a page that cannot exist -------------------------

    def _probe(self, site: str) -> Request:
        url = f"{site}/lantern-probe-{uuid.uuid4().hex[:12]}/no-such-page.html"
        return Request(
            self.policy.canonicalize(url),
            callback=self.parse_probe,
            meta={"handle_httpstatus_all": True, "soft404_probe": True},
            dont_filter=True,
        )

    def parse_probe(self, response: Response) -> Iterator[Any]:
        """Remember what the site answers for a page that does not exist."""
        self.pages.probe(fetched(response))
        return iter(())

    def _follow(self, page: Page, response: Response) -> Iterator[Request]:
        new = []
        for link in page.links:
            reason = self.links.verdict(link.url, link.nofollow)
            if reason == OUT_OF_SCOPE and self._refresh_scope():
                reason = self.links.verdict(link.url)
            if reason is None:
                new.append(link.url)
            elif reason in (NOFOLLOW, OUT_OF_SCOPE, MEDIA):
                self.crawler.stats.inc_value(f"links/{reason}")
            elif reason != ALREADY_FOLLOWED:
                self._refuse(link.url, reason)
        first = (response.meta.get("redirect_urls") or [response.url])[0]
        chain = response.meta.get("chain", self._chain_of.pop(first, 0))
        if response.meta.get("revisit") is not None:
            # Where a revisited page stood in its chain is not kept: taken as
            # the chain's end, so a recrawl walks no calendar further than
            # the crawl before it did.
            chain = self.chains.limit
        lengths = self.chains.lengths(page.url, chain, (link.url for link in page.links), new, self._known)
        for url in new:
            length = lengths[url]
            if not self.chains.admit(url, length):
                self._refuse(url, "chain")
            elif length:
                if len(self._chain_of) >= _CHAINS_REMEMBERED:
                    self._chain_of.clear()  # requests the frontier dropped; chains start again
                self._chain_of[url] = length
                yield Request(url, errback=self.failed, meta={"chain": length})
            else:
                yield Request(url, errback=self.failed)

    def _known(self, urls: Sequence[str]) -> list[bool]:
        """Which of these links the crawl has queued before, on any node
        (Redis down: none, so a chain starts again rather than an archive
        stopping early)."""
        assert self.frontier is not None
        try:
            return self.frontier.known([(self.policy.fingerprint(url), site_of(url)) for url in urls])
        except REDIS_DOWN:
            return [False] * len(urls)

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


def fetched(response: Response) -> Fetched:
    """What the page logic reads of a response."""
    return Fetched(
        url=response.url,
        status=response.status,
        # Names and values are str (Scrapy types them loosely), looked up whatever their case.
        headers=cast("Mapping[str, str]", response.headers.to_unicode_dict()),
        body=response.body,
        robots_tags=[value.decode("latin-1") for value in response.headers.getlist(b"X-Robots-Tag")],
        depth=response.meta.get("depth", 0),
        redirects=list(response.request.meta.get("redirect_urls", ())) if response.request else [],
        revisit=response.meta.get("revisit") is not None,
        fetched=time.time(),
        members_only=bool(response.meta.get("members_only")),  # crawler/auth_middleware.py
    )


class _SharedMemory:
    """The page logic's memory in the frontier: shared by every node, each
    site's soft-404 signature kept here once known. Redis down: a page is
    indexed rather than lost, and another node probes the site again."""

    def __init__(self, frontier: Frontier, stats: Any) -> None:
        self.frontier = frontier
        self.stats = stats
        self._soft404: dict[str, dict[str, Any]] = {}

    def content_seen(self, digest: bytes, url: str, near: int | None = None) -> str | None:
        try:
            return self.frontier.content_seen(digest, url, near)
        except REDIS_DOWN:
            self.stats.inc_value("dupes/unchecked")
            return None

    def take_over_content(self, digest: bytes, first: str, url: str, near: int | None = None) -> str | None:
        try:
            return self.frontier.take_over_content(digest, first, url, near)
        except REDIS_DOWN:
            return None  # the copy stays a duplicate of the first URL

    def soft404(self, site: str) -> dict[str, Any] | None:
        signature = self._soft404.get(site)
        if signature is None:
            try:
                signature = self.frontier.soft404(site)
            except REDIS_DOWN:
                return None
            if signature is not None:
                self._soft404[site] = signature
        return signature

    def set_soft404(self, site: str, signature: dict[str, Any]) -> None:
        self._soft404[site] = signature
        try:
            self.frontier.set_soft404(site, signature)
        except REDIS_DOWN:
            pass  # other nodes probe again

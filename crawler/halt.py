"""When a crawl ends before its work is done: at once, in one line, with an exit status.

:class:`Halt`, an extension, ends a crawl for three reasons besides having
nothing to crawl (the spider's own check): :data:`DISK_FULL`, the first error
that says the disk is full, wherever it is logged (:func:`said_disk_full`),
or the indexer beside the crawl stopping for it; :data:`CRAWLED_NOTHING`,
every site of a crawl that fetched nothing waiting for a robots.txt that
could not be fetched, after one retry round, or at once when no such host
or nothing listening is why (:func:`gave_up`);
:data:`INDEXER_FAILED`, the indexer beside the crawl dying again each time
it is started again (it looks at that indexer every second, and has it
started again when it died: :meth:`crawler.pipelines.IndexerProcess.revive`);
:data:`REDIS_LOST`, the embedded Redis server dying again each time it is
started again from its append-only file (also looked at every second).
A crawl asked to stop (SIGTERM, Ctrl-C, a halt) whose Redis cannot be
reached ends within ``DOWNLOAD_TIMEOUT`` and a few seconds, waiting for
Redis no longer (:meth:`Halt._check_stopping`).  The crawl
command turns each reason into its exit status (crawler/commands/crawl.py).
Design: ARCHITECTURE.md, "Design notes by module", ``crawler/halt.py``.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import redis
from scrapy import signals
from scrapy.utils.asyncio import create_looping_call
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.threads import deferToThread
from twisted.python.failure import Failure

from crawler._async import REDIS_DOWN
from crawler.connection import client_for
from crawler.console import redacted
from crawler.disk import FULL_DISK_STATUS, disk_full
from crawler.frontier import Frontier
from crawler.monitor import CrawlMonitor, RobotsWait
from crawler.pipelines import IndexerProcess, ItemQueuePipeline
from crawler.restarts import Restarts
from crawler.robots_middleware import RobotsMiddleware
from crawler.seeds import NO_SUCH_HOST, REFUSED, unreachable

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from crawler.embedded import EmbeddedRedis

logger = logging.getLogger(__name__)

__all__ = ["Halt", "DISK_FULL", "CRAWLED_NOTHING", "INDEXER_FAILED", "REDIS_LOST", "gave_up", "said_disk_full"]

DISK_FULL = "disk_full"
CRAWLED_NOTHING = "crawled_nothing"
INDEXER_FAILED = "indexer_failed"
REDIS_LOST = "redis_lost"

_ANSWERS_PER_SITE = 2  # robots.txt tries of one site in this run: the first, and one retry
_INDEXER_CHECK = 1.0  # seconds between two looks at the indexer beside the crawl (and the embedded Redis)
_NOTHING_THERE = (NO_SUCH_HOST, REFUSED)  # answers that a first try settles
# The embedded Redis server, should it die, is started again after 1 s, 2 s,
# 4 s; a fourth death in a row (none lasting 30 s) stops the crawl.
_REDIS_RESTARTS = (3, 1.0, 30.0)
# A crawl asked to stop waits this long past DOWNLOAD_TIMEOUT (its last
# downloads) for a Redis it cannot reach, then ends without it.
_STOP_GRACE = 5.0


def gave_up(pages: int, waiting: Mapping[str, RobotsWait], given_up: set[str], queued: int, held: int) -> bool:
    """Whether a crawl that is idle should end as having crawled nothing:
    it fetched no ``pages``, nothing is ``queued`` or ``held`` by any node,
    and every site it has waits for its robots.txt, each asked once more
    since the first failure (or given up for this run, from earlier runs),
    or once when its host does not resolve or refuses the connection: a
    seed's typo, or a server not started, which no retry mends.

    >>> gave_up(0, {"http://a:80": RobotsWait(2, "HTTP 503")}, set(), 0, 0)
    True
    >>> gave_up(0, {"http://a:80": RobotsWait(1, "HTTP 503")}, set(), 0, 0)  # its first retry is to come
    False
    >>> gave_up(0, {"http://a:80": RobotsWait(1, "no such host"), "http://b:80": RobotsWait(1, "connection refused")},
    ...         set(), 0, 0)
    True
    >>> gave_up(0, {"http://a:80": RobotsWait(1, "HTTP 503")}, {"http://a:80"}, 0, 0)
    True
    >>> gave_up(3, {"http://a:80": RobotsWait(2, "HTTP 503")}, set(), 0, 0)  # other sites were crawled
    False
    """
    if pages or queued or held or not waiting:
        return False
    return all(
        wait.tries >= _ANSWERS_PER_SITE or site in given_up or wait.answer in _NOTHING_THERE
        for site, wait in waiting.items()
    )


def said_disk_full(record: logging.LogRecord) -> str | None:
    """What a log record says of a full disk (:func:`crawler.disk.disk_full`):
    by its error (its traceback's, else one it quotes among its arguments,
    as in ``logger.warning("... (%s)", exc)``), else by its text; None when
    it says nothing of the kind."""
    error = record.exc_info[1] if record.exc_info else None
    if error is None:
        args = record.args.values() if isinstance(record.args, Mapping) else record.args or ()
        error = next((value for value in args if isinstance(value, BaseException)), None)
    try:
        text = record.getMessage()
    except (TypeError, ValueError):
        text = str(record.msg)
    return disk_full(error, text)


class _FullDiskFilter(logging.Filter):
    """On the log handlers: the first record that says the disk is full
    halts the crawl; it and every later one that says so are dropped."""

    def __init__(self, halt: Halt) -> None:
        super().__init__()
        self.halt = halt

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or record.name == __name__:
            return True
        found = said_disk_full(record)
        if found is None:
            return True
        self.halt.on_disk_full(found, f"an error logged by {record.name}")
        return False


class Halt:
    """Extension: ends the crawl for the reasons of the module docstring."""

    def __init__(self, crawler: Crawler, data_dir: str, redis_url: str | None, download_timeout: float) -> None:
        self.crawler = crawler
        self.data_dir = data_dir
        self.redis_url = redis_url
        self.download_timeout = download_timeout
        self.reason: str | None = None
        self._redis_restarts = Restarts(*_REDIS_RESTARTS)
        self._redis_restarting = False
        self._redis_error: str | None = None  # why the last restart of the embedded server failed
        self._stop_by: float | None = None  # when a crawl asked to stop ends, Redis or not
        self._filter = _FullDiskFilter(self)
        self._handlers: list[logging.Handler] = []
        self._watch: Any = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Halt:
        settings = crawler.settings
        halt = cls(
            crawler,
            str(Path(settings.get("DATA_DIR")).resolve()),
            settings.get("REDIS_URL"),
            settings.getfloat("DOWNLOAD_TIMEOUT"),
        )
        crawler.signals.connect(halt._opened, signal=signals.spider_opened)
        crawler.signals.connect(halt._idle, signal=signals.spider_idle)
        crawler.signals.connect(halt._closed, signal=signals.spider_closed)
        crawler.signals.connect(halt._stopped, signal=signals.engine_stopped)
        return halt

    def _opened(self, spider: Any = None) -> None:
        # Scrapy installs its log handler again once the crawler's settings are
        # final: the filter goes on the handlers in place when the spider opens.
        self._handlers = list(logging.root.handlers)
        for handler in self._handlers:
            handler.addFilter(self._filter)
        self._watch = create_looping_call(self._check)
        self._watch.start(_INDEXER_CHECK, now=False)

    def _closed(self, spider: Any = None, reason: str = "") -> None:
        if self._watch is not None and self._watch.running:
            self._watch.stop()

    def _stopped(self) -> None:
        for handler in self._handlers:
            handler.removeFilter(self._filter)

    def _halt(self, reason: str) -> bool:
        """Claim the halt for ``reason``: False if the crawl is halting already."""
        if self.reason is not None:
            return False
        self.reason = reason
        self.crawler.stats.set_value("halt/reason", reason)
        return True

    def _close(self) -> None:
        engine = self.crawler.engine
        if engine is not None and engine.spider is not None and self.reason is not None:
            deferred_from_coro(engine.close_spider_async(reason=self.reason))

    def _check(self) -> None:
        """Every second while the spider is open (closing included): the
        helpers the crawl cannot do without, and a stop that takes too long."""
        self._check_redis()
        self._check_indexer()
        self._check_stopping()

    # --- the embedded Redis server dies ---------------------------------------------------

    def _embedded(self) -> EmbeddedRedis | None:
        return Frontier.for_crawler(self.crawler).embedded

    def _check_redis(self) -> None:
        """The embedded Redis server died (killed, out of memory): start it
        again from its append-only file after its backoff, or, when that
        keeps failing, stop the crawl in one line. Only the crawl can: it
        owns the server's directory."""
        server = self._embedded()
        if server is None or self._redis_restarting or self.reason == REDIS_LOST:
            return
        status = server.exit_status
        if status is None:
            return
        now, restarts = time.monotonic(), self._redis_restarts
        if restarts.down_since is None:
            if not restarts.died(now):
                self._halt_redis_lost(server, status)
                return
            logger.warning(
                "The embedded Redis server died (%s): starting it again from its append-only file in %.0f s",
                _ended(status),
                restarts.wait(now),
            )
        if restarts.due(now):
            restarts.started(now)
            self._redis_restarting = True
            # Loading a large append-only file takes seconds: not in the event loop.
            deferToThread(server.restart).addBoth(self._redis_restarted)

    def _redis_down(self) -> bool:
        """Whether the embedded Redis server is dead or being started again."""
        server = self._embedded()
        return server is not None and (self._redis_restarting or server.exit_status is not None)

    def _redis_restarted(self, result: Any) -> None:
        self._redis_restarting = False
        if isinstance(result, Failure):
            self._redis_error = str(result.value)
            return  # the next look finds it dead again
        self.crawler.stats.inc_value("halt/redis_restarts")
        logger.warning("The embedded Redis server is back, from its append-only file: the crawl goes on")

    def _halt_redis_lost(self, server: EmbeddedRedis, status: int) -> None:
        if not self._halt(REDIS_LOST):
            return
        logger.error(
            "The crawl stops: the embedded Redis server died (%s) and could not be started again%s. "
            "The crawl's state is in %s: run the same command again to resume once that is mended.",
            _ended(status),
            f" ({self._redis_error})" if self._redis_error else "",
            server.directory,
        )
        indexer = self._indexer()
        if indexer is not None:
            indexer.abandon()  # it cannot reach the queue any more
        self._close()

    # --- a stop that waits for Redis ------------------------------------------------------

    def _check_stopping(self) -> None:
        """A crawl asked to stop (SIGTERM, Ctrl-C, a halt) waits for its last
        downloads, then for what it has to say to Redis. With Redis gone that
        would be for ever: past ``DOWNLOAD_TIMEOUT`` and ``_STOP_GRACE``, a
        crawl whose Redis cannot be reached ends at once, in one line, with
        exit status 1 (what it had taken goes back to the queue when its
        leases expire; its indexer and Redis server get SIGTERM from the
        kernel as their parent ends, and save what they have)."""
        if self.crawler.crawling and self.reason is None:
            return
        now = time.monotonic()
        if self._stop_by is None:
            self._stop_by = now + self.download_timeout + _STOP_GRACE
        if now < self._stop_by or self._redis_reachable():
            return
        if self.reason != REDIS_LOST:  # (which said so already)
            logger.error(
                "The crawl stops now: it was asked to stop %.0f s ago and Redis cannot be reached; "
                "what it had taken goes back to the queue when its leases expire",
                self.download_timeout + _STOP_GRACE,
            )
        logging.shutdown()
        os._exit(1)

    def _redis_reachable(self) -> bool:
        server = self._embedded()
        if server is not None and server.exit_status is not None:
            return False
        url = self.redis_url or (server.url if server is not None else None)
        if url is None:
            return False
        client = client_for(url, timeout=2, socket_connect_timeout=2)
        try:
            return bool(client.ping())
        except (*REDIS_DOWN, redis.RedisError):
            return False
        finally:
            client.close()

    # --- a full disk ---------------------------------------------------------------------

    def on_disk_full(self, detail: str, source: str) -> None:
        """Called by the log filter, from any thread: halt once, in the event loop."""
        if not self._halt(DISK_FULL):
            self.crawler.stats.inc_value("halt/suppressed")
            return
        from twisted.internet import reactor

        reactor.callFromThread(self._halt_disk_full, detail, source)

    def _check_indexer(self) -> None:
        """The indexer beside the crawl stops on a full disk with a status of
        its own (it leaves the saying to the crawl): the crawl stops too,
        rather than fetch until the item queue is full and wait forever.
        Dead of anything else, it is started again; when that keeps failing,
        the crawl stops as well."""
        indexer = self._indexer()
        if indexer is None:
            return
        if indexer.exit_status() == FULL_DISK_STATUS:
            if self._halt(DISK_FULL):
                self._halt_disk_full("no space left on device", "the indexer could not write")
            return
        if self._redis_down():
            return  # the indexer cannot work without it: it is started again once Redis is back
        if self.reason is None and not indexer.revive(time.monotonic()) and self._halt(INDEXER_FAILED):
            logger.error(
                "The crawl stops: %s. What was fetched stays queued for the index: run the same command "
                "again once that is mended, and it is indexed.",
                indexer.failure(),
            )
            indexer.abandon()
            self._close()

    def _indexer(self) -> IndexerProcess | None:
        pipeline = self.crawler.get_item_pipeline(ItemQueuePipeline)
        return pipeline.indexer if pipeline is not None else None

    def _halt_disk_full(self, detail: str, source: str) -> None:
        if detail.startswith("MISCONF"):
            what = (
                f"Redis at {redacted(self.redis_url)} cannot write to its disk ({detail})"
                if self.redis_url
                else f"no space left on the disk of {self.data_dir}: Redis cannot write its data ({detail})"
            )
        else:
            what = f"no space left on the disk of {self.data_dir}: {source} ({detail})"
        logger.error(
            "The crawl stops: %s. The index is as at its last commit, and what was queued stays "
            "queued; free some space, then run the same command to resume.",
            what,
        )
        indexer = self._indexer()
        if indexer is not None:
            indexer.abandon()  # it writes nothing more
        self._close()

    # --- every site unreachable ----------------------------------------------------------

    def _idle(self, spider: Any = None) -> None:
        """An idle crawl that fetched nothing, with nothing queued, whose
        sites all wait for a robots.txt that does not come: it ends."""
        if self.reason is not None:
            return
        monitor = self.crawler.get_extension(CrawlMonitor)
        if monitor is None or not monitor.robots_waiting or monitor.tally.pages:
            return
        waiting = dict(monitor.robots_waiting)
        frontier = Frontier.for_crawler(self.crawler)
        try:
            given_up = {site for site in waiting if monitor.robots_retry_at(site) is None}
            queued = len(frontier)
            held = frontier.leases(node="halt").held()
            parked = sum(monitor.robots_parked(site) for site in waiting)
        except REDIS_DOWN:
            return
        if not gave_up(monitor.tally.pages, waiting, given_up, queued, held) or not self._halt(CRAWLED_NOTHING):
            return
        robots = self.crawler.get_downloader_middleware(RobotsMiddleware)
        if robots is not None:
            robots.withdraw_notices()  # the retries they announce will not come
        if all(wait.answer in _NOTHING_THERE for wait in waiting.values()):
            logger.error("%s", unreachable({site: wait.answer for site, wait in waiting.items()}, parked))
        else:
            _say_crawled_nothing(waiting, parked)
        self._close()


def _ended(status: int) -> str:
    """How a process ended, from its exit status.

    >>> _ended(-9), _ended(1)
    ('killed by SIGKILL', 'exit status 1')
    """
    if status < 0:
        return f"killed by {signal.Signals(-status).name}"
    return f"exit status {status}"


def _say_crawled_nothing(waiting: Mapping[str, RobotsWait], parked: int) -> None:
    """The one line a crawl that fetched nothing ends with: each site, the
    answer to its robots.txt and how often it was asked; and that the
    ``parked`` requests stay queued for the next run."""
    why = ", ".join(
        f"{site} ({wait.answer}, {wait.tries} tr{'y' if wait.tries == 1 else 'ies'})"
        for site, wait in sorted(waiting.items())
    )
    logger.error(
        "Crawled nothing: no site answered for its robots.txt: %s. %s queued: run the same command "
        "again once the site%s answer%s.",
        why,
        f"{parked:,} request{'s stay' if parked != 1 else ' stays'}" if parked else "Their requests stay",
        "s" if len(waiting) > 1 else "",
        "" if len(waiting) > 1 else "s",
    )

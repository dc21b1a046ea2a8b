"""Hand pages to the indexer: through the Redis item queue, never directly.

The crawler never writes the index (one writer per Whoosh index, and the
event loop must not wait for it). Each item is pushed as JSON onto
``web:items``; ``python -m indexer --follow`` drains that list. In a
single-node crawl (the embedded Redis, or ``INDEX_WITH_CRAWL = True``) this
pipeline runs that indexer itself, in a separate process, and when the crawl
ends runs ``python -m indexer finalize`` (merge anchors, compute PageRank), so
``scrapy crawl`` leaves a complete, searchable index. Should that indexer
die while the crawl runs, it is started again (:meth:`IndexerProcess.revive`,
with the backoff of :class:`crawler.restarts.Restarts`).
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from crawler._async import REDIS_DOWN, sleep
from crawler.connection import URL_VARIABLE
from crawler.cores import free_cores
from crawler.datadir import access_mode, index_dir
from crawler.disk import FULL_DISK_STATUS
from crawler.frontier import Frontier
from crawler.items import Item, encode_item
from crawler.personalization import personalization_argument
from crawler.processes import die_with_parent
from crawler.restarts import Restarts

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)

__all__ = ["ItemQueuePipeline", "IndexerProcess", "INDEX_FAILED"]

#: The stat a crawl whose index could not be written sets (to the indexer's
#: exit status): the crawl then exits non-zero (crawler/commands/crawl.py).
INDEX_FAILED = "index/failed"

# An indexer that ran this long before it died was not failing to start:
# its death starts a new row of restarts.
_INDEXER_STABLE = 30.0


class IndexerProcess:
    """``python -m indexer --follow`` beside the crawl, then ``finalize``."""

    def __init__(
        self,
        data_dir: str,
        redis_url: str,
        items_key: str,
        niceness: int = 0,
        processes: int = 1,
        personalization: str | None = None,
        data_mode: int | None = None,
        restarts: Restarts | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.data_mode = data_mode
        self.redis_url = redis_url
        self.items_key = items_key
        self.niceness = niceness
        self.processes = processes
        self.personalization = personalization
        self.restarts = restarts  # None: never started again
        self._process: subprocess.Popen[bytes] | None = None
        self._abandoned = False
        self._died_with: int | None = None  # the exit status of its last death

    def _command(self, *args: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            "indexer",
            "--data",
            self.data_dir,
            "--queue",
            self.items_key,
            "--processes",
            str(self.processes),
            *(["--personalization", self.personalization] if self.personalization else []),
            *(["--data-mode", oct(self.data_mode)] if self.data_mode is not None else []),
            *args,
        ]

    def _environment(self) -> dict[str, str]:
        """The indexer's environment: the Redis URL, which may carry a
        password, goes here rather than on its command line, which any
        local user can read."""
        return {**os.environ, URL_VARIABLE: self.redis_url}

    def start(self) -> None:
        self._process = subprocess.Popen(
            self._command("--follow", "--beside-crawl"),  # the crawl says what stops it (crawler/halt.py)
            env=self._environment(),
            stdin=subprocess.DEVNULL,
            # Its own session: Ctrl-C reaches the crawl, which stops this
            # process in order. It dies with the crawl, even by kill -9.
            start_new_session=True,
            preexec_fn=self._prepare,
        )
        atexit.register(self.stop)
        logger.info("Indexer started (pid %d), writing %s", self._process.pid, index_dir(self.data_dir))

    def _prepare(self) -> None:
        """In the indexer's process, before it runs: it dies with the crawl,
        and yields the CPU to it (the crawl is what sites and users wait for;
        the indexer catches up, bounded by INDEX_QUEUE_MAX)."""
        die_with_parent()
        if self.niceness:
            os.nice(self.niceness)

    def stop(self) -> int | None:
        """Stop following: the indexer commits what it took, then exits."""
        process, self._process = self._process, None
        if process is None:
            return None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        return process.wait()

    def exit_status(self) -> int | None:
        """Its exit status if it has exited, else None (also once finished or stopped)."""
        return self._process.poll() if self._process is not None else None

    def revive(self, now: float) -> bool:
        """Called every second or so while the crawl runs: if the indexer has
        died (of anything but a full disk, which stops the crawl), start it
        again once its backoff is over. False when its restarts have failed:
        the crawl is to stop."""
        process, restarts = self._process, self.restarts
        if process is None or restarts is None:
            return True
        status = process.poll()
        if status is None or status == FULL_DISK_STATUS:
            return True
        if restarts.down_since is None:
            self._died_with = status
            if not restarts.died(now):
                return False
            logger.warning(
                "The indexer exited with status %s while the crawl runs: starting it again in %.1f s",
                status,
                restarts.wait(now),
            )
        if restarts.due(now):
            restarts.started(now)
            atexit.unregister(self.stop)  # start() registers it again
            self.start()
        return True

    def condition(self, now: float) -> str | None:
        """What the progress line says of the indexer besides the items it
        has to index: down, and when it starts again; or how often it was."""
        restarts = self.restarts
        if restarts is None or self._abandoned:
            return None
        if restarts.down_since is not None:
            return (
                f"down: exited with status {self._died_with}; restart {restarts.in_a_row + 1} of "
                f"{restarts.limit} in {restarts.wait(now):.0f} s"
            )
        if restarts.total:
            return f"restarted {restarts.total} time{'s' * (restarts.total != 1)}"
        return None

    def failure(self) -> str:
        """Why the crawl stops when :meth:`revive` gave up, for its one line."""
        row = self.restarts.in_a_row if self.restarts is not None else 0
        return (
            f"the indexer beside it died {row + 1} times in a row (last with exit status "
            f"{self._died_with}; its own line above says why)"
        )

    def abandon(self) -> None:
        """Stop at once, writing nothing more (the disk is full: crawler/halt.py):
        what it had taken stays queued, the index is as at its last commit."""
        process, self._process, self._abandoned = self._process, None, True
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def finish(self) -> int:
        """Tell the indexer the crawl is over: it indexes what is left and
        finalizes the index, warm (anchors flushed as it went, nothing to
        import or open again). Should it fail, a ``finalize`` of its own."""
        if self._abandoned:
            return 0
        process = self._process
        if process is not None and process.poll() is None:
            logger.info("Crawl over: the indexer indexes what is left and finalizes the index (anchors, PageRank)...")
            process.send_signal(signal.SIGUSR1)
            if process.wait() == 0:
                self._process = None
                return 0
        code = self.stop()
        # -SIGTERM, -SIGUSR1: stopped before it could install its handlers
        # (nothing was taken from the queue yet, so nothing is lost).
        if code not in (None, 0, -signal.SIGTERM, -signal.SIGUSR1):
            logger.error("The indexer exited with status %s; finalizing anyway", code)
        logger.info("Crawl over: finalizing the index (anchors, PageRank)...")
        done = subprocess.run(self._command("finalize"), env=self._environment(), stdin=subprocess.DEVNULL, check=False)
        if done.returncode:
            logger.error(
                "Finalizing the index failed (status %d): the index could not be written; "
                "run python -m indexer --data %s finalize once the cause above is mended",
                done.returncode,
                self.data_dir,
            )
        return done.returncode


def _index_processes(settings: Any) -> int:
    """INDEX_PROCESSES, or the cores the crawl leaves free: its own process
    and its parsing processes take one each."""
    configured = settings.get("INDEX_PROCESSES")
    if configured is not None:
        return max(1, int(configured))
    parsing = settings.get("CRAWLER_EXTRACT_PROCESSES")
    return free_cores(busy=1 + int(parsing or 0))


class ItemQueuePipeline:
    """Pushes each item onto the Redis item queue, as JSON (:func:`crawler.items.encode_item`)."""

    def __init__(
        self,
        frontier: Frontier,
        stats: StatsCollector,
        indexer: IndexerProcess | None = None,
    ) -> None:
        self.frontier = frontier
        self.stats = stats
        self.indexer = indexer

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ItemQueuePipeline:
        settings = crawler.settings
        frontier = Frontier.for_crawler(crawler)
        with_crawl = settings.get("INDEX_WITH_CRAWL")
        if with_crawl is None:
            inline = frontier.embedded is not None
        else:
            inline = settings.getbool("INDEX_WITH_CRAWL")
        indexer = None
        if inline:
            indexer = IndexerProcess(
                str(Path(settings.get("DATA_DIR")).resolve()),
                frontier.url,
                frontier.items_key,
                settings.getint("INDEX_NICENESS"),
                _index_processes(settings),
                personalization_argument(settings.get("PAGERANK_PERSONALIZATION")),
                access_mode(settings.get("DATA_DIR_MODE")),
                Restarts(settings.getint("INDEX_RESTARTS"), settings.getfloat("INDEX_RESTART_DELAY"), _INDEXER_STABLE),
            )
        return cls(frontier, crawler.stats, indexer)

    def open_spider(self) -> None:
        if self.indexer is not None:
            self.indexer.start()

    async def process_item(self, item: Item) -> Item:
        data = encode_item(item)
        delay = 0.5
        while True:
            try:
                self.frontier.client.rpush(self.frontier.items_key_for(item["url"]), data)
                if delay > 0.5:
                    logger.warning("Redis is reachable again: items flow again")
                break
            except REDIS_DOWN as exc:
                # Never lose a page: wait for Redis (the reactor runs on).
                if delay == 0.5:
                    logger.warning("Redis is unreachable (%s): items wait for it", exc)
                self.stats.inc_value("items/redis_retries")
                await sleep(delay)
                delay = min(delay * 2, 30.0)
        self.stats.inc_value(f"items/{item['type']}")
        return item

    async def close_spider(self) -> None:
        if self.indexer is not None:
            status = await maybe_deferred_to_future(deferToThread(self.indexer.finish))
            if status:
                self.stats.set_value(INDEX_FAILED, status)

"""``scrapy crawl``, with the ``web`` spider's arguments checked before the crawl starts.

A bad seed or scope is the user's to fix: it deserves one line naming what
is wrong (and exit status 2), not a traceback from inside the reactor. So
does a crawl that cannot start for a reason the user can fix (another crawl
owns the data directory; the data directory, or the crawl's state in Redis,
is of another version's format; Redis does not answer, or refuses the
password), and one with nothing to crawl: one line, exit status 1; and one
that had to stop (a full disk: status 1) or crawled nothing (every site
unreachable, no seed that gave a page, no page for the index: status 3,
crawler/seeds.py): :data:`EXIT_STATUS`. A crawl whose indexer could
not write the index exits with status 1 too.

Scrapy's start-up dumps (versions, settings, components) are lowered to
DEBUG before Scrapy starts (:mod:`crawler.console`).
"""

from __future__ import annotations

import argparse
import logging
from typing import Any

from scrapy.commands.crawl import Command as ScrapyCrawl
from scrapy.exceptions import UsageError

from crawler.connection import RedisUnreachable
from crawler.console import quiet_scrapy_dumps
from crawler.datadir import OtherFormat, access_mode, create_with
from crawler.embedded import DataDirBusy
from crawler.frontier import OtherFrontier
from crawler.halt import CRAWLED_NOTHING, DISK_FULL, INDEXER_FAILED, REDIS_LOST
from crawler.pipelines import INDEX_FAILED
from crawler.seeds import INDEXED_NOTHING, NO_SEED_PAGE
from crawler.spiders.web import NOTHING_TO_CRAWL, WebSpider, check_arguments

logger = logging.getLogger(__name__)

#: The exit status of a crawl that closed for these reasons; any other is 0.
EXIT_STATUS = {
    NOTHING_TO_CRAWL: 1,
    DISK_FULL: 1,
    INDEXER_FAILED: 1,
    REDIS_LOST: 1,
    CRAWLED_NOTHING: 3,
    NO_SEED_PAGE: 3,
    INDEXED_NOTHING: 3,
}

#: Scrapy's finish reason for a crawl stopped by Ctrl-C (or SIGTERM).
INTERRUPTED = "shutdown"

#: Why a crawl may fail to start that the user can fix: said in one line, no traceback.
_EXPECTED = (DataDirBusy, OtherFormat, OtherFrontier, RedisUnreachable)


class Command(ScrapyCrawl):
    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        quiet_scrapy_dumps()  # before the crawler process logs its first dump

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1 or args[0] != WebSpider.name:
            super().run(args, opts)
            return
        assert self.settings is not None and self.crawler_process is not None
        check_arguments(self.settings, **opts.spargs)  # raises UsageError
        create_with(access_mode(self.settings.get("DATA_DIR_MODE")))  # before anything is written
        crawler = self._create_crawler(args[0])
        _one_line_on_failure(self.crawler_process.crawl(crawler, **opts.spargs))
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1
        elif crawler.stats is not None:
            # A halt that came while the crawl was closing already keeps its own reason;
            # a crawl that ran to its end and got nothing has one too (crawler/monitor.py).
            stats = crawler.stats
            reason = (
                stats.get_value("halt/reason") or stats.get_value("crawl/fruitless") or stats.get_value("finish_reason")
            )
            self.exitcode = EXIT_STATUS.get(reason, 0) or int(bool(crawler.stats.get_value(INDEX_FAILED)))
            if reason == INTERRUPTED:
                logger.info("%s", stopped(stats.get_value("frontier/queued_at_stop")))


def stopped(queued: int | None) -> str:
    """The last line of a crawl stopped by Ctrl-C: what is left, and how to go on.

    >>> stopped(1461), stopped(1), stopped(None)  # doctest: +NORMALIZE_WHITESPACE
    ('Stopped: 1,461 requests queued. Run the same command to resume.',
     'Stopped: 1 request queued. Run the same command to resume.',
     'Stopped. Run the same command to resume.')
    """
    left = "" if queued is None else f": {queued:,} request{'s' * (queued != 1)} queued"
    return f"Stopped{left}. Run the same command to resume."


def _one_line_on_failure(started: Any) -> None:
    """Say an expected start-up failure in one line (the crawl process still
    records it as failed: exit status 1); anything else keeps its traceback."""

    def said(error: BaseException) -> bool:
        if isinstance(error, _EXPECTED):
            logger.error("%s", error)
            return True
        return False

    if hasattr(started, "add_done_callback"):  # an asyncio task (Scrapy's asyncio crawler process)

        def retrieve(task: Any) -> None:
            if task.cancelled():
                return
            error = task.exception()  # retrieved here: asyncio no longer logs it with a traceback
            if error is not None and not said(error):
                logger.error("The crawl failed to start", exc_info=error)

        started.add_done_callback(retrieve)
    else:  # a Twisted Deferred
        started.addErrback(lambda failure: None if said(failure.value) else failure)


__all__ = ["Command", "UsageError", "EXIT_STATUS"]

"""The indexer's loop: the crawl's item queue into the index, batch by batch.

:func:`drain` takes items from the queue (:class:`indexer.queue.ItemQueue`)
and indexes them (:class:`indexer.builder.IndexBuilder`). Items leave the
queue only once the index has committed them, so stopping the indexer at
any moment loses nothing. Each turn of the loop is four steps:

1. take a batch and index it (:meth:`_Drain.index_batch`);
2. commit what is in hand when it is a full batch, or old, or the indexer
   is stopping, or the queue ran dry and there is nothing to wait for
   (:meth:`_Drain.commit_due`); with nothing in hand, spare time goes to
   checking the page writers, renewing the claim on the queue and the
   anchor documents (:meth:`_Drain.tend`), which a busy indexer beside a
   crawl also brings up to date with a commit every few seconds;
3. report progress (:meth:`_Drain.report`);
4. stop or go on (:meth:`_Drain.done`): on SIGINT or SIGTERM; without
   ``follow``, when the queue is dry; with it, when the crawl that started
   this indexer says it is over (SIGUSR1) and all is indexed, or when every
   node of the crawl this indexer saw running has stopped and nothing is
   queued. Then :attr:`Stop.crawl_over` tells the caller to finalize.

Redis may go away for a moment (a restart, a failover, a network blip):
a turn that finds it unreachable is tried again with a growing pause
(:meth:`_Drain.wait_for_redis`), for up to ``_REDIS_PATIENCE`` seconds of
outage, and only then is the error raised. Nothing is lost meanwhile: what
was committed stays committed, and what was taken but not acknowledged
stays queued.
"""

from __future__ import annotations

import logging
import signal
import time
from types import FrameType

from crawler._async import REDIS_DOWN
from crawler.connection import partitions_of
from indexer.builder import IndexBuilder
from indexer.progress import Progress
from indexer.queue import ItemQueue

logger = logging.getLogger("indexer")

__all__ = ["Stop", "drain"]

# A batch is committed when it holds this many items, or is this old.
_BATCH = 500
_COMMIT_SECONDS = 5.0
_POLL_SECONDS = 0.2
_REPORT_SECONDS = 10.0
_CHECK_SECONDS = 2.0
# Anchor documents are brought up to date at most this often: when the
# queue is empty, or, beside a crawl that goes on, with a commit; and at
# most a fifth of the time (a rewrite that took 2 s waits 8 s for the next:
# a page linked from every page has more links to read each time).
_ANCHOR_SECONDS = 5.0
_ANCHOR_SHARE = 0.2
# A queue longer than this at the start is drained under a progress bar.
_PROGRESS_MIN = 1000
# Redis unreachable: the turn is tried again after a pause that doubles
# from the first to the longest, for this long at most, then the error is
# raised (the crawl that started this indexer starts it again, or stops).
_REDIS_PAUSES = (0.2, 2.0)
_REDIS_PATIENCE = 60.0


class Stop:
    """Set by SIGINT/SIGTERM: finish the batch in hand, commit, exit. By
    SIGUSR1 (the crawl that started this indexer has ended): index what is
    queued, finalize, exit."""

    def __init__(self) -> None:
        self.requested = False
        self.crawl_over = False
        self.finish = False
        signal.signal(signal.SIGTERM, self._handle)
        signal.signal(signal.SIGINT, self._handle)
        signal.signal(signal.SIGUSR1, self._finish)

    def _handle(self, _signum: int, _frame: FrameType | None) -> None:
        self.requested = True

    def _finish(self, _signum: int, _frame: FrameType | None) -> None:
        self.finish = True


def drain(builder: IndexBuilder, queue: ItemQueue, follow: bool, stop: Stop) -> int:
    """Index queued items; with ``follow``, wait for more until stopped, or
    until the crawl being followed is over. How many items were indexed."""
    return _Drain(builder, queue, follow, stop).run()


class _Drain:
    """One run of :func:`drain`: what it has indexed, and its clocks."""

    def __init__(self, builder: IndexBuilder, queue: ItemQueue, follow: bool, stop: Stop) -> None:
        self.builder = builder
        self.queue = queue
        self.follow = follow
        self.stop = stop
        self.total = 0
        self.since_report = self.started = time.monotonic()
        self.reported = 0
        self.last_commit = self.last_check = time.monotonic()
        self.anchors_due = self.last_commit + _ANCHOR_SECONDS
        self.seen_nodes = False  # whether a node of the crawl was ever seen running
        self.redis_down_since: float | None = None
        self.redis_pause = _REDIS_PAUSES[0]
        backlog = len(queue)
        self.progress: Progress | None = None
        if backlog > _PROGRESS_MIN:
            self.progress = Progress(backlog, "items", label="Indexing the queue", logger=logger)

    def run(self) -> int:
        while True:
            try:
                over = self.turn()
            except REDIS_DOWN as exc:
                over = self.wait_for_redis(exc)
            if over:
                break
        self.close()
        return self.total

    def turn(self) -> bool:
        """One turn of the loop (the module docstring's four steps); whether it was the last."""
        idle = not self.index_batch()
        now = time.monotonic()
        if self.commit_due(idle, now):
            self.commit(now)
        elif idle and not self.queue.pending:
            self.tend(now)
        self.report(now)
        over = self.done(idle, now)
        if self.redis_down_since is not None:
            logger.info("Redis is reachable again after %.1f s: indexing goes on", now - self.redis_down_since)
            self.redis_down_since, self.redis_pause = None, _REDIS_PAUSES[0]
        if idle and not over:
            time.sleep(_POLL_SECONDS)
        return over

    def wait_for_redis(self, error: Exception) -> bool:
        """Redis could not be reached in a turn: pause before the next,
        said once per outage; whether to stop instead (a stop was asked:
        the index keeps its last commit, the rest stays queued). Raises
        ``error`` once the outage has lasted ``_REDIS_PATIENCE`` seconds."""
        now = time.monotonic()
        if self.redis_down_since is None:
            self.redis_down_since = now
            logger.warning(
                "Redis is unreachable (%s: %s): the indexer waits for it, up to %.0f s",
                type(error).__name__,
                error,
                _REDIS_PATIENCE,
            )
        if self.stop.requested:
            return True
        if now - self.redis_down_since >= _REDIS_PATIENCE:
            raise error
        time.sleep(self.redis_pause)
        self.redis_pause = min(self.redis_pause * 2, _REDIS_PAUSES[1])
        return False

    def index_batch(self) -> bool:
        """Take the next batch (nothing once stopped) and index it,
        uncommitted; whether there was anything to take."""
        items = [] if self.stop.requested else self.queue.take(_BATCH - self.queue.pending)
        if not items:
            return False
        self.builder.add(items)
        self.total += len(items)
        if self.progress is not None:
            self.progress.advance(len(items))
            if self.progress.done >= self.progress.total:  # the backlog is done: log lines from now on
                self.progress.close()
                self.progress = None
                self.since_report, self.reported = time.monotonic(), self.total
        return True

    def commit_due(self, idle: bool, now: float) -> bool:
        """Whether the items in hand are committed now: a full batch, one
        ``_COMMIT_SECONDS`` old, a stop, or a dry queue with no crawl to
        follow, or none any more (the crawl said it is over: nothing more
        will come, and the last batch waited up to ``_COMMIT_SECONDS`` for
        its commit, with the crawl waiting for the index)."""
        pending = self.queue.pending
        due = pending >= _BATCH or now - self.last_commit >= _COMMIT_SECONDS
        over = not self.follow or self.stop.finish
        return bool(pending) and (due or self.stop.requested or (idle and over))

    def commit(self, now: float) -> None:
        """Commit the index, then take the committed items off the queue.

        Beside a crawl that goes on, the anchor documents whose links
        changed are rewritten into the same commit every few seconds:
        an indexer that is never idle would otherwise leave them all to
        ``finalize`` (python3-doc: 3,662 of its 4,189 documents, most of
        finalize's time), and a search during the crawl would not find a page
        by the words of the links to it.
        """
        if self.follow and not self.stop.finish and not self.stop.requested and now >= self.anchors_due:
            self.flush_anchors(now, commit=False)
        self.builder.commit()
        self.queue.ack()
        self.last_commit = now

    def tend(self, now: float) -> None:
        """Nothing in hand, nothing queued: check the page writer processes,
        keep the claim on the queue, and bring the anchor documents up to
        date (the links' words to their pages) every few seconds."""
        self.builder.check()
        self.queue.renew()
        if now >= self.anchors_due:
            self.flush_anchors(now)

    def flush_anchors(self, now: float, commit: bool = True) -> None:
        """Bring the anchor documents up to date; the next time is due in
        ``_ANCHOR_SECONDS``, or later if this took more than ``_ANCHOR_SHARE`` of that."""
        started = time.monotonic()
        self.builder.flush_anchors(commit=commit)
        self.anchors_due = now + max(_ANCHOR_SECONDS, (time.monotonic() - started) / _ANCHOR_SHARE)

    def report(self, now: float) -> None:
        """A log line every ``_REPORT_SECONDS`` while items come (the
        progress bar speaks instead while the backlog lasts)."""
        if self.progress is None and now - self.since_report >= _REPORT_SECONDS and self.total > self.reported:
            rate = (self.total - self.reported) / (now - self.since_report)
            logger.info("Indexed %d items (%.0f/s), %d queued", self.total, rate, len(self.queue))
            self.since_report, self.reported = now, self.total

    def done(self, idle: bool, now: float) -> bool:
        """Whether the loop ends: on a stop; while items come, or some are
        in hand, never; without ``follow``, now; with it, when the crawl is over."""
        if self.stop.requested:
            return True
        ended = False
        if self.follow and now - self.last_check >= _CHECK_SECONDS:
            # Busy or idle: a crawl that starts and ends while the indexer
            # is busy with its items must still be seen running.
            self.last_check = now
            ended = self.crawl_ended()
        if not idle or self.queue.pending:
            return False
        if not self.follow:
            return True
        if self.stop.finish and len(self.queue) == 0:
            logger.info("The crawl is over: everything queued is indexed")
            self.stop.crawl_over = True
            return True
        if ended and len(self.queue) == 0:
            logger.info("The crawl is over: every node has stopped and nothing is queued")
            self.stop.crawl_over = True
            return True
        return False

    def crawl_ended(self) -> bool:
        """Whether a crawl this indexer has seen running has ended: no node
        is left and no request is queued in any partition."""
        client = self.queue.client
        prefix = self.queue.key.rsplit(":", 1)[0]
        if int(client.scard(f"{prefix}:nodes")):
            self.seen_nodes = True
            return False
        partitions = partitions_of(client, prefix)
        return self.seen_nodes and all(
            int(client.zcard(partitions.key(f"{prefix}:requests", partition))) == 0 for partition in partitions
        )

    def close(self) -> None:
        """Close the progress bar, if the backlog outlived the run, and say what was done."""
        if self.progress is not None:
            self.progress.close()
        if self.total:
            elapsed = time.monotonic() - self.started
            logger.info("Indexed %d items in %.1f s (%.0f/s)", self.total, elapsed, self.total / max(elapsed, 1e-9))

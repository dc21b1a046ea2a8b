"""Extraction in worker processes, so that a crawl uses more than one core.

Parsing a page (lxml, then a walk over its tree in Python) is most of what
a crawl node spends its CPU on, and Python runs it on one core at a time.
With ``CRAWLER_EXTRACT_PROCESSES = N`` (by default 1 on a machine with a
second core and no indexer running beside the crawl) the spider hands each
response body to a pool of N processes and goes on fetching while they
parse; what comes back is the same :class:`~crawler.extract.Extraction`
the spider would have computed itself (the same pure function, with the
same canonicalization settings). 0 extracts in the crawl's own process.

A worker that dies (killed, out of memory) is not fatal: the pool is
dropped, the error logged once, and pages are extracted in the crawl's own
process from then on.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict

from crawler.extract import Extraction, extract
from crawler.processes import die_with_parent
from crawler.urls import UrlPolicy

logger = logging.getLogger(__name__)

__all__ = ["ExtractPool"]

_policy: UrlPolicy | None = None


def _start(policy: dict[str, bool]) -> None:
    global _policy
    die_with_parent()  # even when the crawl is killed with -9
    _policy = UrlPolicy(**policy)


def _ready() -> None:
    """Nothing: submitted at once, so that the workers start (and import
    lxml) while the crawl fetches its first robots.txt."""


def _extract(body: bytes, url: str, headers: Mapping[str, str]) -> Extraction:
    assert _policy is not None
    return extract(body, url, None, headers, _policy.canonicalize)


class ExtractPool:
    """``await pool.extract(body, url, headers)``: :func:`crawler.extract.extract` in a worker."""

    def __init__(self, processes: int, policy: UrlPolicy) -> None:
        self.policy = policy
        # Spawned, not forked: the crawl's process has threads and a reactor.
        self._pool: ProcessPoolExecutor | None = ProcessPoolExecutor(
            max_workers=processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start,
            initargs=(asdict(policy),),
        )
        for _ in range(processes):
            self._pool.submit(_ready)

    async def extract(self, body: bytes, url: str, headers: Mapping[str, str]) -> Extraction:
        if self._pool is not None:
            try:
                return await asyncio.get_running_loop().run_in_executor(self._pool, _extract, body, url, dict(headers))
            except BrokenProcessPool as exc:
                logger.error("The extraction process died (%s): extracting in the crawl's process", exc)
                self.close()
        return extract(body, url, None, headers, self.policy.canonicalize)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

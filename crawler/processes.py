"""Child processes tied to their parent, and waiting for any process to end (pure; Linux).

Every program starts helpers (the crawl its parsing processes, the indexer
beside it and the embedded Redis server; the indexer its shard writers;
search its workers) that must not outlive it, even when it is killed with
``kill -9``: :func:`die_with_parent`. Kept apart from :mod:`crawler.embedded`
(glue: it starts Redis) so that the indexer and search use it without
importing Redis.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal

__all__ = ["die_with_parent", "wait_for_exit"]

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In a child process: SIGTERM when the parent dies, even by ``kill -9``.

    For ``subprocess.Popen(preexec_fn=...)``; Linux only.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def wait_for_exit(pid: int, timeout: float) -> bool:
    """Wait until process ``pid`` (not necessarily a child) has exited.

    Waits on a pidfd, which the kernel makes readable when the process
    ends: no polling. Returns False if it is still running after ``timeout``.
    """
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        return bool(poller.poll(timeout * 1000))
    finally:
        os.close(pidfd)

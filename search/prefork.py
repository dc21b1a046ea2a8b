"""Several processes answering from one listening socket (``python -m search.web --workers N``).

Whoosh is pure Python: however many threads one process runs, it searches
on one core at a time (the GIL), so 200 searches sent at once waited for
each other (p95 3.5-4.5 s on 10,000 pages with one process). The parent
binds the socket, then forks the workers; each opens its own engine (an
open SQLite connection must not cross a fork) and accepts connections from
the shared socket, which the kernel hands to one of them each. The socket
is non-blocking, so a worker that wakes for a connection another took goes
back to waiting.

The parent only supervises: it returns once every worker says it is ready
(or the first says why it cannot be), replaces a worker that dies while
serving, and stops them all on SIGTERM or SIGINT (Ctrl-C reaches the whole
process group: workers ignore it and wait for the parent's SIGTERM). A
worker also gets SIGTERM when the parent dies, even by ``kill -9``, so none
is left behind.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
from collections.abc import Callable

__all__ = ["Workers", "WorkerFailed"]

logger = logging.getLogger(__name__)

# Seconds the workers have to stop after SIGTERM before they are killed.
_STOP_TIMEOUT = 10.0


class WorkerFailed(Exception):
    """A worker could not start: its reason (an index that does not open...)."""


class _Stop(Exception):
    """SIGTERM in a process that must stop."""


def _stop(signum: int, frame: object) -> None:
    raise _Stop


# What a worker runs: given the listening socket and a function to call once
# it can answer, it serves until SIGTERM raises in it; its exit status.
Serve = Callable[[socket.socket, Callable[[], None]], int]


class Workers:
    """``count`` forked processes running ``serve`` on ``listener``."""

    def __init__(self, listener: socket.socket, count: int, serve: Serve) -> None:
        self.listener = listener
        self.count = count
        self.serve = serve
        self.pids: set[int] = set()

    def run(self, ready: Callable[[], None]) -> None:
        """Start the workers, call ``ready`` once all of them are, and
        supervise until SIGTERM or SIGINT; every worker stopped on return.
        :class:`WorkerFailed` when one cannot start."""
        self.listener.setblocking(False)
        previous = signal.signal(signal.SIGTERM, _stop)
        try:
            for _ in range(self.count):
                self._start()
            ready()
            self._supervise()
        except (_Stop, KeyboardInterrupt):
            pass
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not leave workers behind
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            self._stop_all()
            signal.signal(signal.SIGTERM, previous)
            signal.signal(signal.SIGINT, signal.default_int_handler)

    def _supervise(self) -> None:
        while self.pids:
            pid, status = os.wait()
            if pid not in self.pids:
                continue
            self.pids.discard(pid)
            logger.warning("Search worker %d %s: worker %d answers in its place", pid, _outcome(status), self._start())

    def _start(self) -> int:
        """Fork a worker and wait for its word: ready, or why it cannot be; its pid."""
        reading, writing = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: it never returns into the parent's code
            os.close(reading)
            os._exit(self._worker(writing))
        os.close(writing)
        self.pids.add(pid)
        with os.fdopen(reading, "rb") as pipe:
            word = pipe.readline().decode("utf-8", "replace").strip()
        if word != "ready":
            self.pids.discard(pid)
            os.waitpid(pid, 0)
            raise WorkerFailed(word or "a search worker exited before it was ready")
        return pid

    def _worker(self, writing: int) -> int:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, _stop)
        from crawler.processes import die_with_parent

        die_with_parent()
        if os.getppid() == 1:  # the parent died before we asked to follow it
            return 1
        told = False

        def ready() -> None:
            nonlocal told
            os.write(writing, b"ready\n")
            os.close(writing)
            told = True

        try:
            return self.serve(self.listener, ready)
        except _Stop:
            return 0
        except BaseException as exc:  # told to the parent, which prints it once
            if not told:
                os.write(writing, (" ".join(str(exc).split()) or type(exc).__name__).encode() + b"\n")
                return 2
            logger.exception("Search worker %d failed", os.getpid())
            return 1

    def _stop_all(self) -> None:
        from crawler.processes import wait_for_exit

        for pid in self.pids:
            _signal(pid, signal.SIGTERM)
        for pid in self.pids:
            if not wait_for_exit(pid, _STOP_TIMEOUT):
                logger.warning("Search worker %d did not stop: killing it", pid)
                _signal(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        self.pids.clear()


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _outcome(status: int) -> str:
    """How a worker ended, in words.

    >>> _outcome(9), _outcome(256)
    ('was killed by SIGKILL', 'exited with status 1')
    """
    if os.WIFSIGNALED(status):
        return f"was killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exited with status {os.WEXITSTATUS(status)}"

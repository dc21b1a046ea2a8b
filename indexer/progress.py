"""A progress bar for long indexer runs, that also reads well in a log file.

    progress = Progress(10_000, "items", stream=sys.stderr)
    for batch in batches:
        ...
        progress.advance(len(batch))
    progress.close()

:class:`Progress` redraws one line in place on a terminal in the foreground,
and writes a plain line now and then anywhere else; :func:`bar` and
:func:`line` are the pure renderings.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Progress", "bar", "line", "duration"]

_WIDTH = 20


def duration(seconds: float) -> str:
    """``M:SS``, or ``H:MM:SS`` from an hour on.

    >>> duration(19.4), duration(754), duration(3 * 3600 + 62)
    ('0:19', '12:34', '3:01:02')
    """
    seconds = int(round(max(seconds, 0)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _figures(done: int, total: int, rate: float) -> tuple[str, str]:
    percent = f"{min(done / total, 1.0):.0%}" if total > 0 else "?%"
    eta = duration((total - done) / rate) if rate > 0 and total > done else ("0:00" if done >= total else "?")
    return percent, eta


def bar(done: int, total: int, unit: str, rate: float, width: int = _WIDTH) -> str:
    """The bar drawn on a terminal.

    >>> bar(4210, 10000, "items", 310.0)
    '[########............] 4,210/10,000 items  42%  310/s  ETA 0:19'
    >>> bar(0, 500, "items", 0.0)
    '[....................] 0/500 items  0%  0/s  ETA ?'
    """
    filled = int(width * min(done / total, 1.0)) if total > 0 else 0
    percent, eta = _figures(done, total, rate)
    return f"[{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} {unit}  {percent}  {rate:,.0f}/s  ETA {eta}"


def line(done: int, total: int, unit: str, rate: float) -> str:
    """The plain line written where there is no terminal.

    >>> line(4210, 10000, "items", 310.0)
    '4,210/10,000 items (42%), 310/s, ETA 0:19'
    """
    percent, eta = _figures(done, total, rate)
    return f"{done:,}/{total:,} {unit} ({percent}), {rate:,.0f}/s, ETA {eta}"


def _foreground_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal whose foreground job is this process.

    A process in a session of its own (the indexer a crawl runs beside
    itself) shares the crawl's terminal but must not draw over its log.
    """
    try:
        fd = stream.fileno()
        return stream.isatty() and os.tcgetpgrp(fd) == os.getpgrp()
    except (AttributeError, OSError, ValueError):
        return False


class Progress:
    """Progress of ``total`` units of work.

    When ``stream`` is a terminal in the foreground, one line is redrawn in
    place (``\\r``) at most every ``redraw`` seconds::

        [########............] 4,210/10,000 items  42%  310/s  ETA 0:19

    Otherwise (a file, a pipe, a process in the background or in a session of
    its own, like the indexer a crawl starts) a plain line is written every
    ``every`` seconds, through ``logger`` when one is given, so that it carries
    the log's timestamps::

        4,210/10,000 items (42%), 310/s, ETA 0:19

    ``label`` starts the plain lines (``"Indexing: 4,210/10,000 items..."``);
    ``tty`` forces (True) or forbids (False) the redrawn bar; ``clock`` is
    for tests.
    """

    def __init__(
        self,
        total: int,
        unit: str = "items",
        stream: TextIO | None = None,
        *,
        label: str = "",
        logger: logging.Logger | None = None,
        every: float = 5.0,
        redraw: float = 0.2,
        tty: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.logger = logger
        self.every = every
        self.redraw = redraw
        self.tty = _foreground_terminal(self.stream) if tty is None else tty
        self.clock = clock
        self.done = 0
        self.closed = False
        self._shown_done = 0
        self._drawn = 0
        self._started = self._shown = clock()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def rate(self) -> float:
        """Units per second since the start."""
        return self.done / max(self.clock() - self._started, 1e-9)

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = self.clock()
        if now - self._shown >= (self.redraw if self.tty else self.every):
            self._shown = now
            self._show()

    def _show(self, final: bool = False) -> None:
        self._shown_done = self.done
        if self.tty:
            drawn = bar(self.done, self.total, self.unit, self.rate)
            padding = " " * max(0, self._drawn - len(drawn))  # a shorter line covers the longer one
            self._drawn = len(drawn)
            self.stream.write("\r" + drawn + padding + ("\n" if final else ""))
            self.stream.flush()
            return
        text = (f"{self.label}: " if self.label else "") + line(self.done, self.total, self.unit, self.rate)
        if self.logger is not None:
            self.logger.info("%s", text)
        else:
            self.stream.write(text + "\n")
            self.stream.flush()

    def close(self) -> None:
        """Show the final state (on a terminal, end the bar's line); idempotent."""
        if self.closed:
            return
        self.closed = True
        if self.tty or self.done != self._shown_done:
            self._show(final=True)

"""When a helper process that died is started again, and when to stop trying (pure).

The crawl keeps two helpers it cannot do without: the indexer beside it and
the embedded Redis server. Either may die (a Redis blip the indexer could
not wait out, the kernel's out-of-memory killer, a stray ``kill``). Started
again at once, a helper that dies for a lasting reason (a full disk, a lock
another process holds) would be restarted in a tight loop for ever; never
started again, it leaves the crawl fetching pages nobody indexes. So: start
it again after a delay that doubles with each restart in a row, and give up
after ``limit`` of them, when the crawl stops and says why. A run that lasts
``stable`` seconds ends the row: the next death is a new incident.
"""

from __future__ import annotations

__all__ = ["Restarts"]


class Restarts:
    """The restarts of one helper: call :meth:`died` when it is found dead,
    :meth:`started` when it is started again, :meth:`due` to know when.

    >>> restarts = Restarts(limit=2, delay=1.0, stable=30.0)
    >>> restarts.died(100.0), restarts.due(100.5), restarts.due(101.0)
    (True, False, True)
    >>> restarts.started(101.0); restarts.died(102.0), restarts.wait(102.0)  # the second in a row waits twice as long
    (True, 2.0)
    >>> restarts.started(104.0); restarts.died(105.0)  # a third in a row: given up
    False
    >>> restarts = Restarts(limit=2, delay=1.0, stable=30.0)
    >>> restarts.died(0.0); restarts.started(1.0); restarts.died(40.0), restarts.wait(40.0)  # it ran 39 s: a new row
    True
    (True, 1.0)
    """

    def __init__(self, limit: int, delay: float, stable: float) -> None:
        self.limit = limit
        self.delay = delay
        self.stable = stable
        self.total = 0  # restarts since the crawl started
        self.in_a_row = 0  # restarts with no stable run between them, this one included once due
        self.down_since: float | None = None  # when it was found dead, until started again
        self._started_at: float | None = None
        self._due = 0.0

    def died(self, now: float) -> bool:
        """It was found dead at ``now``: whether it is to be started again
        (False once ``limit`` restarts in a row have not lasted)."""
        if self.down_since is not None:
            return True
        if self._started_at is not None and now - self._started_at >= self.stable:
            self.in_a_row = 0
        if self.in_a_row >= self.limit:
            return False
        self.down_since = now
        self._due = now + self.delay * 2**self.in_a_row
        return True

    def due(self, now: float) -> bool:
        """Whether the restart of a dead helper is due at ``now``."""
        return self.down_since is not None and now >= self._due

    def wait(self, now: float) -> float:
        """Seconds until the restart of a dead helper (0 when due or not dead)."""
        return max(0.0, self._due - now) if self.down_since is not None else 0.0

    def started(self, now: float) -> None:
        """It was started again at ``now``."""
        self.down_since = None
        self._started_at = now
        self.in_a_row += 1
        self.total += 1

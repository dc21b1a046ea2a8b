"""How many cores this process may use, and how many are left for more processes."""

from __future__ import annotations

import os

__all__ = ["cores", "free_cores"]


def cores() -> int:
    """The cores this process may run on (its CPU affinity, as a container sets it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def free_cores(busy: int = 1) -> int:
    """The cores left when ``busy`` of them are taken by other work: at least one.

    >>> free_cores(busy=10**6)
    1
    """
    return max(1, cores() - busy)

"""A data directory's share of the crawl: the frontier partitions its indexer drains.

The item queue is one Redis list per frontier partition
(:mod:`crawler.partitions`); ``python -m indexer --partitions 0-1`` drains
only those, so indexers on several machines drain disjoint partitions at
once, each into its own data directory. The directory records its share
(the page store's ``partitions`` fact: which partitions, of how many), so a
restarted indexer keeps it, another share is refused, and a finalize over
several directories knows which holds a URL: the one whose share holds the
URL's site (:func:`owner_of`). Design: ARCHITECTURE.md, "The index", and
docs/several-machines.md, "Several indexers, one index".

>>> parse_share("0-1", 4), parse_share("0,2", 4), parse_share("2/2", 4), parse_share("all", 2)
(Share(partitions=(0, 1), count=4), Share(partitions=(0, 2), count=4), Share(partitions=(2, 3), count=4), \
Share(partitions=(0, 1), count=2))
>>> str(Share((0, 1, 2, 5), 8))
'0-2,5 of 8'
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from crawler.partitions import Partitions
from crawler.sites import site_of

__all__ = ["Share", "OtherShare", "parse_share", "owner_of", "recorded_share", "record_share"]

# Page store key: the directory's share, as JSON {"partitions": [...], "count": N}.
_SHARE = "partitions"


class OtherShare(RuntimeError):
    """A share that cannot be drained into a data directory: not one of the
    frontier's partitions, or not the share the directory holds."""


@dataclass(frozen=True)
class Share:
    """``partitions`` (ascending, distinct) of a frontier of ``count``."""

    partitions: tuple[int, ...]
    count: int

    def holds(self, url: str) -> bool:
        """Whether the URL's site is in one of these partitions.

        >>> Share((0, 1), 4).holds("http://a.test/x") != Share((2, 3), 4).holds("http://a.test/y")
        True
        """
        return Partitions(self.count).of(site_of(url)) in self.partitions

    @property
    def whole(self) -> bool:
        return len(self.partitions) == self.count

    def __str__(self) -> str:
        runs: list[list[int]] = []
        for partition in self.partitions:
            if runs and runs[-1][-1] == partition - 1:
                runs[-1].append(partition)
            else:
                runs.append([partition])
        spans = ",".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)
        return f"{spans} of {self.count}"

    def to_json(self) -> str:
        return json.dumps({"partitions": list(self.partitions), "count": self.count})


def parse_share(text: str, count: int) -> Share:
    """The partitions ``text`` names, of a frontier of ``count``: numbers and
    ranges (``0-1``, ``0,2``, ``0-3,6``), ``K/N`` (the ``K``-th of ``N``
    equal runs, from 1: ``1/2`` the first half, ``2/2`` the second; ``N``
    indexers given ``1/N`` to ``N/N`` drain every partition once), or
    ``all``. ValueError, in words a user reads, for anything else.

    >>> parse_share("3", 2)
    Traceback (most recent call last):
    ...
    ValueError: --partitions 3: the crawl's frontier has partitions 0 to 1
    """
    text = text.strip()
    if text == "all":
        return Share(tuple(range(count)), count)
    try:
        found = _share_of_n(text, count) if "/" in text else _numbered(text)
    except ValueError:
        raise ValueError(
            f"--partitions {text!r}: expected numbers and ranges (0-1, 0,2), K/N (2/2: the second half) or all"
        ) from None
    if not found:
        raise ValueError(f"--partitions {text}: names no partition of the {count}")
    outside = [partition for partition in found if not 0 <= partition < count]
    if outside:
        raise ValueError(f"--partitions {text}: the crawl's frontier has partitions 0 to {count - 1}")
    return Share(tuple(sorted(found)), count)


def _numbered(text: str) -> set[int]:
    found: set[int] = set()
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        first, last = int(low), int(high) if dash else int(low)
        if last < first:
            raise ValueError(part)
        found.update(range(first, last + 1))
    return found


def _share_of_n(text: str, count: int) -> set[int]:
    which, shares = (int(number) for number in text.split("/"))
    if not 1 <= which <= shares:
        raise ValueError(text)
    return {partition for partition in range(count) if partition * shares // count == which - 1}


def owner_of(url: str, shares: Sequence[Share | None]) -> int | None:
    """Which of several directories' ``shares`` holds ``url``'s site (its
    position), None if none does (a directory that records no share
    holds none: it was filled by an indexer that drained every partition).

    >>> owner_of("http://a.test/x", [Share((0, 1), 4), Share((2, 3), 4)]) in (0, 1), owner_of("http://a.test/", [None])
    (True, None)
    """
    for position, share in enumerate(shares):
        if share is not None and share.holds(url):
            return position
    return None


def recorded_share(store: Any) -> Share | None:
    """The share a data directory's page store records (None: none; the
    directory holds whatever its indexer drained)."""
    text = store.meta(_SHARE)
    if not text:
        return None
    found = json.loads(text)
    return Share(tuple(int(partition) for partition in found["partitions"]), int(found["count"]))


def record_share(store: Any, share: Share | None, count: int, where: str) -> Share | None:
    """Keep ``share`` in the page store (uncommitted), or, given None, the
    share already recorded; :class:`OtherShare` if another one is, if the
    directory already holds pages of every partition, or if its share is
    of a frontier of another ``count`` of partitions."""
    held = recorded_share(store)
    if held is not None and held != (share or held):
        raise OtherShare(
            f"{where} holds partitions {held}, not {share}: give it --partitions as before, or another --data"
        )
    if held is not None and held.count != count:
        raise OtherShare(f"{where} holds partitions {held}, but the crawl's frontier has {count} partitions")
    if share is None or held is not None:
        return held
    if len(store):
        raise OtherShare(f"{where} already holds pages of every partition: give --partitions another --data")
    store.set_meta(_SHARE, share.to_json())
    return share

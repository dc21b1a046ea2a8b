"""The link graph as a sparse matrix: compact on disk, and PageRank over it.

PageRank is a power iteration, ``x = d * (A @ x + dangling share) + (1 - d) / N``,
where ``A[target, source] = 1 / out-degree(source)``. Built as a NetworkX
``DiGraph``, a graph of a million pages and ten million links takes about
half a minute and 4 GiB before the iteration starts; here it is two integer
arrays (a CSR matrix by target: ``indptr``, and the ``indices`` of each
target's sources), which load in a fraction of a second and take 4 bytes a
link. The iteration is the one NetworkX runs (``networkx.pagerank`` on the
same graph gives the same scores, to 1e-9), with its own stopping rule.

Nodes are integer ids (the link database's); positions in the arrays follow
the sorted ids.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike

logger = logging.getLogger(__name__)

__all__ = ["LinkMatrix", "DAMPING", "TOLERANCE", "MAX_ITERATIONS"]

# The paper's damping factor: the random surfer follows a link 85% of the
# time and jumps to a random page otherwise.
DAMPING = 0.85

# The iteration stops when the scores (summing to 1) moved less than this in
# all, whatever the graph's size. NetworkX's rule (N * tol) loosens as the
# graph grows, the wrong way: scores shrink as 1/N, and so do the gaps
# between them. Stopping at a change below 1e-12 leaves every score within
# 6e-12 of the fixed point (the change times d / (1 - d)); on a web-like
# graph of a million pages (python -m bench.pagerank) that takes about 100
# iterations, the largest error is 4e-13 while the smallest gap between two
# of the top 1,000 scores is 4e-11, and their order is the one reached by
# iterating on to 1e-15.
TOLERANCE = 1e-12
# The error shrinks at least by the damping factor each iteration: 0.85^250
# is 1e-18, so this cap is never the reason to stop on a sound graph.
MAX_ITERATIONS = 250


@dataclass(frozen=True)
class LinkMatrix:
    """Links between ``nodes`` (sorted integer ids), by target.

    The sources linking to ``nodes[t]`` are at positions
    ``indices[indptr[t]:indptr[t + 1]]``, sorted, each once, never ``t``.
    """

    nodes: np.ndarray  # int64, sorted, distinct
    indptr: np.ndarray  # int64, len(nodes) + 1
    indices: np.ndarray  # int32 positions of the sources

    @classmethod
    def from_edges(cls, sources: np.ndarray, targets: np.ndarray, nodes: np.ndarray | None = None) -> LinkMatrix:
        """The matrix of ``(sources[i], targets[i])`` links between node ids.

        Self-links are dropped (a page does not vote for itself) and repeated
        links count once, as in a NetworkX ``DiGraph``. The nodes are those
        of the links and ``nodes``, if given (pages without links).

        >>> m = LinkMatrix.from_edges(np.array([7, 7, 3, 5]), np.array([3, 3, 3, 9]))
        >>> m.nodes.tolist(), m.link_count()
        ([3, 5, 7, 9], 2)
        """
        sources = np.asarray(sources, dtype=np.int64)
        targets = np.asarray(targets, dtype=np.int64)
        every = [sources, targets]
        if nodes is not None:
            every.append(np.asarray(nodes, dtype=np.int64))
        keep = sources != targets
        low = min((int(part.min()) for part in every if len(part)), default=0)
        high = max((int(part.max()) for part in every if len(part)), default=-1)
        if high - low < 4 * sum(map(len, every)) + 1024:
            # Ids from a database are dense: a table of positions beats
            # sorting and searching (binary searches into 4 MB, ten million
            # times, take seconds).
            position = np.zeros(high - low + 1, dtype=np.int64)
            for part in every:
                position[part - low] = 1
            ids = np.flatnonzero(position) + low
            position[ids - low] = np.arange(len(ids))
            src = position[sources[keep] - low]
            dst = position[targets[keep] - low]
            del position
        else:
            ids = _distinct(np.concatenate(every))
            src = np.searchsorted(ids, sources[keep])
            dst = np.searchsorted(ids, targets[keep])
        del keep, every
        # One sort of target * N + source orders by target, then source, and
        # brings repeated links together.
        keys = _distinct(dst * len(ids) + src)
        del src, dst
        dst, src = np.divmod(keys, len(ids)) if len(ids) else (keys, keys)
        del keys
        indptr = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum(np.bincount(dst, minlength=len(ids)), out=indptr[1:])
        return cls(ids, indptr, src.astype(np.int32))

    def link_count(self) -> int:
        return len(self.indices)

    def __len__(self) -> int:
        return len(self.nodes)

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """``(sources, targets)`` as node ids, one pair per link."""
        targets = np.repeat(self.nodes, np.diff(self.indptr))
        return self.nodes[self.indices], targets

    def save(self, path: str | Path) -> None:
        """Write to ``path`` (a compressed ``.npz``: the sorted node ids of
        each row compress to a fifth, and load in a tenth of a second at
        millions of links), replacing it atomically.

        Readers of the old file keep it open; a crash mid-write leaves it whole.
        """
        path = Path(path)
        partial = path.with_name(path.name + ".partial")
        with open(partial, "wb") as out:
            np.savez_compressed(out, nodes=self.nodes, indptr=self.indptr, indices=self.indices)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, path)

    @classmethod
    def load(cls, path: str | Path) -> LinkMatrix:
        with np.load(path) as stored:
            return cls(stored["nodes"], stored["indptr"], stored["indices"])

    def pagerank(
        self,
        damping: float = DAMPING,
        tolerance: float = TOLERANCE,
        max_iterations: int = MAX_ITERATIONS,
        personalization: ArrayLike | None = None,
    ) -> np.ndarray:
        """PageRank of each node (in the order of ``nodes``), summing to 1.

        A page without out-links spreads its rank evenly over all pages, as
        NetworkX does with dangling nodes. ``personalization``: a weight per
        node (not all zero) for where the random surfer jumps, and where a
        page without out-links sends its rank, as ``networkx.pagerank(...,
        personalization=...)``; None: every page alike.

        >>> m = LinkMatrix.from_edges(np.array([1, 2, 3, 4]), np.array([2, 3, 1, 1]))
        >>> [round(float(score), 4) for score in m.pagerank()]
        [0.3326, 0.3202, 0.3097, 0.0375]
        """
        n = len(self.nodes)
        if n == 0:
            return np.zeros(0)
        out_degree = np.bincount(self.indices, minlength=n)
        dangling = np.flatnonzero(out_degree == 0)
        with np.errstate(divide="ignore"):
            share = np.where(out_degree == 0, 0.0, 1.0 / out_degree)
        del out_degree
        matrix = scipy.sparse.csr_array((share[self.indices], self.indices, self.indptr), shape=(n, n))
        del share
        x = np.full(n, 1.0 / n)
        if personalization is None:
            teleport: np.ndarray | float = 1.0 / n
        else:
            weights = np.asarray(personalization, dtype=np.float64)
            if weights.shape != (n,) or (weights < 0).any() or not weights.sum() > 0:
                raise ValueError("personalization needs a weight per node, none negative, not all zero")
            teleport = weights / weights.sum()
        jump = (1.0 - damping) * teleport
        for iteration in range(1, max_iterations + 1):  # noqa: B007 (the count is read after the loop)
            last = x
            x = matrix @ last
            x += last[dangling].sum() * teleport
            x *= damping
            x += jump
            change = float(np.abs(x - last).sum())
            if change < tolerance:
                break
        else:
            logger.warning(
                "PageRank stopped after %d iterations with a change of %.3g (tolerance %.3g)",
                max_iterations,
                change,
                tolerance,
            )
        logger.debug("PageRank of %d nodes: %d iterations, last change %.3g", n, iteration, change)
        x /= x.sum()
        return x


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted, as ``np.unique`` gives them, which takes
    eight seconds for ten million integers that ``np.sort`` sorts in 0.1."""
    values = np.sort(values)
    if len(values) > 1:
        first = np.empty(len(values), dtype=bool)
        first[0] = True
        np.not_equal(values[1:], values[:-1], out=first[1:])
        values = values[first]
    return values

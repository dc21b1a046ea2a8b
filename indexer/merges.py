"""Segment merges: which segments of an index to merge, merged beside its writer.

Each commit adds a segment to an index, and a search reads every segment,
so segments are merged. Whoosh's writer merges at its commit
(``MERGE_SMALL``), in the commit's time, and as an index grows a merge
takes in most of it: at 10,000 pages a commit of the crawl's indexer took
two minutes, the item queue filled and the crawl stopped meanwhile. Here:

- **Which** (:func:`merge_due`): segments in tiers by size, as Lucene's
  tiered merge policy has them. A segment's tier is the power of
  :data:`PER_TIER` its live documents are of :data:`SMALLEST`;
  :data:`PER_TIER` segments of one tier are merged into one of the next,
  the smallest tier's first. An index of N documents holds fewer than
  :data:`PER_TIER` segments a tier, and a document is merged about
  log(N / SMALLEST) / log(PER_TIER) times. A segment more of whose
  documents are deleted than live (anchor documents rewritten, pages
  fetched again) is rewritten without them; one whose documents are all
  deleted is dropped at the next commit.
- **Beside the writer** (:class:`Merges`): a merge runs in a process of
  its own (``python -m indexer.merges``), and writes its segment into a
  directory of its own in the index's (a name Whoosh leaves alone); the
  writer's next commit puts it in place of the segments it merged, the
  documents deleted from them meanwhile deleted from it. A commit takes
  no longer for a merge. One merge a tier runs at a time in an index.
  Nothing waits for them, finalize included (:meth:`Merges.settle` does,
  on request): those running when the writer closes are ended, their
  segments left as they were, to be merged by the next writer. A merge
  that fails leaves its segments as they were, and that index unmerged
  until its writer starts again.
"""

from __future__ import annotations

import logging
import math
import os
import pickle
import shutil
import subprocess
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whoosh import index as whoosh_index
from whoosh.filedb.filestore import FileStorage

from crawler.processes import die_with_parent
from indexer.codec import Codec, Writer

logger = logging.getLogger(__name__)

__all__ = ["PER_TIER", "SMALLEST", "Merges", "merge_due", "tier_of"]

# Segments of a tier merged at once (Lucene's segmentsPerTier and
# maxMergeAtOnce are 10 by default).
PER_TIER = 10
# Live documents of the smallest tier's largest segment, divided by
# PER_TIER: tier 0 holds segments of fewer than PER_TIER * SMALLEST
# documents (a commit of the crawl's indexer writes a few hundred).
SMALLEST = 100
# The directory a merge writes its segment into, in the index's (not a
# name of Whoosh's files, which it would delete).
_SCRATCH_PREFIX = "merging-"
# The file in that directory that says what to merge.
_ORDER = "order.pickle"


def tier_of(size: int, per_tier: int = PER_TIER, smallest: int = SMALLEST) -> int:
    """The tier of a segment of ``size`` live documents.

    >>> [tier_of(n) for n in (0, 999, 1000, 9999, 10_000, 250_000)]
    [0, 0, 1, 1, 2, 3]
    """
    if size < smallest * per_tier:
        return 0
    return int(math.log(size / smallest, per_tier) + 1e-9)


def merge_due(
    sizes: Sequence[int],
    deleted: Sequence[int] | None = None,
    busy_tiers: Collection[int] = (),
    per_tier: int = PER_TIER,
    smallest: int = SMALLEST,
) -> tuple[int, list[int]] | None:
    """The merge to start: its tier and the places in ``sizes`` (live
    documents of each segment free to merge) of its segments, the
    ``per_tier`` smallest of the smallest tier that has as many and no
    merge running (``busy_tiers``); else a segment more of whose documents
    are ``deleted`` than live (at least ``smallest``), alone, rewritten
    without them; None when there is neither.

    >>> merge_due([5000, 300, 250, 400])
    >>> merge_due([5000] + [300] * 10 + [120], per_tier=10)
    (0, [1, 2, 3, 4, 5, 6, 7, 8, 9, 11])
    >>> merge_due([300] * 10, busy_tiers={0})
    >>> merge_due([5000, 13, 300], deleted=[0, 9987, 0])
    (0, [1])
    """
    tiers: dict[int, list[int]] = {}
    for place, size in enumerate(sizes):
        tiers.setdefault(tier_of(size, per_tier, smallest), []).append(place)
    for tier in sorted(tiers):
        places = tiers[tier]
        if tier not in busy_tiers and len(places) >= per_tier:
            return tier, sorted(sorted(places, key=lambda place: sizes[place])[:per_tier])
    for place, gone in enumerate(deleted or ()):
        tier = tier_of(sizes[place], per_tier, smallest)
        if gone >= smallest and gone > sizes[place] and tier not in busy_tiers:
            return tier, [place]
    return None


@dataclass
class _Merge:
    """A merge running in a process of its own: the segments it merges (by
    id, in order), how many documents each had and which were deleted when
    it started."""

    process: subprocess.Popen[bytes]
    tier: int
    scratch: Path
    segments: list[tuple[str, int, frozenset[int]]]

    @property
    def status(self) -> int | None:
        """The process's exit status (negative: the signal that ended it); None while it runs."""
        return self.process.returncode

    def ids(self) -> set[str]:
        return {segment_id for segment_id, _, _ in self.segments}

    def finished(self, block: bool = False) -> bool:
        if block:
            self.process.wait()
        return self.process.poll() is not None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait()
        shutil.rmtree(self.scratch, ignore_errors=True)


class Merges:
    """The merges of one index, run beside its writer (the module docstring)."""

    def __init__(self, ix: Any) -> None:
        self.ix = ix
        self.directory = Path(ix.storage.folder)
        self.running: list[_Merge] = []
        self.failed = False
        self.settling = False
        for left in self.directory.glob(f"{_SCRATCH_PREFIX}*"):  # of a writer that was killed
            shutil.rmtree(left, ignore_errors=True)

    def policy(self, writer: Any, segments: list[Any]) -> list[Any]:
        """The commit's merge policy (Whoosh's ``mergetype``): the merges
        that have finished put in place of their segments; the segments
        whose documents are all deleted dropped (unless being merged)."""
        segments = list(segments)
        for merge in [merge for merge in self.running if merge.finished()]:
            self.running.remove(merge)
            segments = self._swapped(merge, segments)
            shutil.rmtree(merge.scratch, ignore_errors=True)
        busy = {segment_id for merge in self.running for segment_id in merge.ids()}
        return [segment for segment in segments if segment.doc_count() or segment.segment_id() in busy]

    def _swapped(self, merge: _Merge, segments: list[Any]) -> list[Any]:
        """``segments`` with the merged segment in place of those it merged,
        if the merge worked (and they are all still there)."""
        present = {segment.segment_id(): segment for segment in segments}
        if merge.status == 0 and not merge.ids() <= present.keys():
            return segments
        try:
            if merge.status != 0:
                raise ChildProcessError(f"exit status {merge.status}")
            merged = _moved_in(merge.scratch, self.ix.storage, self.ix.indexname)
        except Exception as exc:  # the merge's segment unreadable, unmovable: as a merge that failed
            self.failed = True
            logger.warning(
                "A merge of %d segments of %s failed (%s): they stay as they are, "
                "and the index is not merged again until the indexer starts again",
                len(merge.segments),
                self.directory,
                exc,
            )
            return segments
        first = 0
        for segment_id, count, deleted in merge.segments:
            now = present[segment_id]
            since = set(now.deleted_docs()) - deleted
            if since:  # deleted while it was being merged
                live = {docnum: place for place, docnum in enumerate(d for d in range(count) if d not in deleted)}
                for docnum in since:
                    merged.delete_document(first + live[docnum])
            first += count - len(deleted)
        kept = [segment for segment in segments if segment.segment_id() not in merge.ids()]
        return [*kept, merged]

    def start(self) -> None:
        """After a commit: start the merge due in the committed segments, if any."""
        if self.failed or self.settling:
            return
        busy = {segment_id for merge in self.running for segment_id in merge.ids()}
        committed = whoosh_index.TOC.read(self.ix.storage, self.ix.indexname).segments
        free = [segment for segment in committed if segment.segment_id() not in busy]
        due = merge_due(
            [segment.doc_count() for segment in free],
            [segment.deleted_count() for segment in free],
            {merge.tier for merge in self.running},
        )
        if due is None:
            return
        tier, places = due
        chosen = [free[place] for place in places]
        scratch = self.directory / f"{_SCRATCH_PREFIX}{os.urandom(6).hex()}"
        process = _spawn_merge(self.directory, scratch, self.ix.schema, chosen)
        self.running.append(
            _Merge(
                process,
                tier,
                scratch,
                [
                    (segment.segment_id(), segment.doc_count_all(), frozenset(segment.deleted_docs()))
                    for segment in chosen
                ],
            )
        )
        logger.debug("Merging %d segments of %s (tier %d), pid %d", len(chosen), self.directory, tier, process.pid)

    def settle(self) -> bool:
        """Wait for the merges running (no new one starts until
        :meth:`resume`); whether any did, to be put in place by a commit."""
        self.settling = True
        for merge in self.running:
            merge.finished(block=True)
        return bool(self.running)

    def resume(self) -> None:
        self.settling = False

    def stop(self) -> None:
        """End the merges running, their work lost (the writer is closing)."""
        for merge in self.running:
            merge.stop()
        self.running = []


def _moved_in(scratch: Path, storage: Any, indexname: str) -> Any:
    """The segment a merge wrote in ``scratch``, its files moved into the index's ``storage``."""
    (segment,) = whoosh_index.TOC.read(FileStorage(str(scratch)), indexname).segments
    prefix = f"{segment.segment_id()}."
    for path in scratch.iterdir():
        if path.name.startswith(prefix):
            os.replace(path, Path(storage.folder) / path.name)
    return segment


def _spawn_merge(directory: Path, scratch: Path, schema: Any, segments: list[Any]) -> subprocess.Popen[bytes]:
    """Merge ``segments`` of the index in ``directory`` into a new index in
    ``scratch``, in a process of its own (:func:`main`). Started afresh,
    not forked: it holds Whoosh and the segments it reads, not a copy of
    the writer's memory (the indexer's page store, its link graph), and
    touches nothing of the writer's. Its own process group: Ctrl-C is the
    indexer's to act on."""
    scratch.mkdir()
    with (scratch / _ORDER).open("wb") as order:
        pickle.dump((str(directory), schema, segments), order)
    root = str(Path(__file__).resolve().parents[1])  # where ``indexer`` is, wherever the writer runs
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": root if not path else os.pathsep.join([root, path])}
    return subprocess.Popen(
        [sys.executable, "-m", "indexer.merges", str(scratch), str(os.getpid())],
        stdin=subprocess.DEVNULL,
        env=env,
        process_group=0,
    )


def _merge_into(directory: Path, scratch: Path, schema: Any, segments: list[Any]) -> None:
    storage = FileStorage(str(directory))
    writer = Writer(whoosh_index.create_in(str(scratch), schema), codec=Codec())
    for segment in segments:
        writer.add_segment(storage, segment)
    writer.commit(merge=False)


def main(argv: Sequence[str]) -> int:
    """A merge's process: ``SCRATCH PARENT_PID``, the order in ``SCRATCH``;
    its exit status 0 once the merged index is committed there."""
    scratch, parent = Path(argv[0]), int(argv[1])
    die_with_parent()  # SIGTERM when the writer is gone, however it ended
    if os.getppid() != parent:  # gone already
        return 1
    with (scratch / _ORDER).open("rb") as order:
        directory, schema, segments = pickle.load(order)
    try:
        _merge_into(Path(directory), scratch, schema, segments)
    except Exception as exc:  # said in one line; the writer leaves the segments as they were
        print(f"Merging segments of {directory} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

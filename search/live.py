"""One search engine shared by every request of a server process, reopened when the index changes.

Whoosh opens a new searcher (reading the latest commit) for each query
anyway; :class:`LiveEngine` also reopens the engine when the index's
generation changes, so a page store or link graph that appeared after the
server started (the indexer committing while we serve) is picked up too.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from indexer import stats
from indexer.layout import CORRUPTION, IndexDamaged, IndexMissing, is_corruption
from indexer.stats import IndexStats
from search.engine import DamagedIndex, Results, SearchEngine, SearchError

__all__ = ["LiveEngine"]

logger = logging.getLogger(__name__)


class LiveEngine:
    """A :class:`SearchEngine` shared by all requests, reopened when the index changes.

    Searches take turns under a lock. Measured with 60 queries on the demo
    index: one at a time 0.58-0.70 s; eight threads sharing the engine
    without a lock gave the same results but took 0.69-0.87 s, with the lock
    0.60-0.66 s (Whoosh is pure Python, so threads only contend for the GIL).
    The lock costs nothing and makes swapping in a reopened engine and closing
    the old one safe. Checking the generation costs about 10 us a request.
    """

    CACHED = 256

    def __init__(self, data_dir: str | Path | Sequence[str | Path], **options: Any) -> None:
        """``data_dir``: one directory, or several read as one index;
        ``options`` go to every :class:`SearchEngine` opened (``anchor_only``, ``members_snippet``)."""
        self.data_dirs = [Path(each) for each in ([data_dir] if isinstance(data_dir, (str, Path)) else data_dir)]
        self.data_dir = self.data_dirs[0]
        self.options = options
        self._lock = threading.Lock()
        self._answers: OrderedDict[tuple[str, int, int, tuple[str, ...], bool], Results] = OrderedDict()
        self._about: IndexStats | None = None
        self.engine = SearchEngine(self.data_dirs, **options)
        self.generation = self.engine.generation()
        self.reopened = 0

    def search(self, text: str, n: int, page: int, languages: tuple[str, ...] = (), respell: bool = True) -> Results:
        """The engine's answer (a page in several languages shown in the
        first of ``languages`` it is in; a query that finds nothing
        answered by its respelling unless not ``respell``); the same question asked again
        while the index has not changed is answered from memory (the last
        ``CACHED``)."""
        key = (text, n, page, languages, respell)
        with self._lock:
            self._refresh()
            found = self._answers.get(key)
            if found is None:
                found = self._answers[key] = self.engine.search(
                    text, n=n, page=page, languages=languages, respell=respell
                )
                if len(self._answers) > self.CACHED:
                    self._answers.popitem(last=False)
            else:
                self._answers.move_to_end(key)
            return found

    def crawled(self, url: str) -> bool:
        """Whether ``url`` is a crawled page of the index (the page store has it)."""
        return self.stored(url) is not None

    def stored(self, url: str) -> dict[str, Any] | None:
        """The page store's record of ``url`` (None: not a crawled page;
        :class:`DamagedIndex` if the store cannot be read)."""
        with self._lock:
            self._refresh()
            store = self.engine.store
            try:
                return None if store is None else store.get(url)
            except CORRUPTION as exc:
                if not is_corruption(exc):
                    raise
                raise DamagedIndex(str(IndexDamaged(self.data_dir, f"the page store ({exc})"))) from None

    def about(self) -> IndexStats | None:
        """What the index holds (:mod:`indexer.stats`), read again when the index changes."""
        with self._lock:
            self._refresh()
            if self._about is None:
                try:
                    self._about = stats.collect(self.data_dirs)
                except (IndexMissing, OSError) + CORRUPTION as exc:
                    logger.warning("Cannot read what the index holds: %s", exc)
                    return None
            return self._about

    def warm(self) -> None:
        """:meth:`SearchEngine.warm`: before the first search, not in it.
        What it read stays as long as the engine: the cyclic garbage
        collector is told to leave it be (``gc.freeze``) until the engine is
        closed or reopened, instead of going through it at every full
        collection (a third of a millisecond a search, over 200 different
        ones on 10,000 pages)."""
        with self._lock:
            self.engine.warm()
            gc.freeze()

    def _refresh(self) -> None:
        try:
            generation = self.engine.generation()
            if generation == self.generation:
                return
            fresh = SearchEngine(self.data_dirs, **self.options)
        except (SearchError, OSError) as exc:  # mid-commit, or the index moved away
            logger.warning("Keeping the open index: %s", exc)
            return
        self.engine.close()
        gc.unfreeze()  # what the old engine read may now be collected
        self.engine, self.generation = fresh, generation
        self._answers.clear()
        self._about = None
        self.reopened += 1
        logger.debug("Reopened the index at generation %d", generation)

    def close(self) -> None:
        with self._lock:
            self.engine.close()
            gc.unfreeze()

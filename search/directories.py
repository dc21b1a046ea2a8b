"""Several data directories' page stores and link graphs, read as one.

Indexers that drained disjoint partitions of one crawl (:mod:`indexer.share`)
leave one data directory each; ``python -m search --data A --data B``
searches them as one index. The index parts are read through one corpus
(:mod:`search.corpus`); what search reads beside them comes from here: a
page's text, sections and record from the store of the directory that
holds it, the spelling vocabulary and the crawled sites of all of them,
and every URL's PageRank with the whole graph's node count (after
``python -m indexer finalize --data A --data B`` each directory holds the
ranks of its own URLs: :mod:`indexer.federation`).

With one directory, search uses its store and graph as they are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["Stores", "Graphs", "joined"]


class Stores:
    """Page stores, each holding its directory's pages (read-only)."""

    def __init__(self, stores: Sequence[Any]) -> None:
        self.stores = list(stores)

    def get(self, url: str) -> dict[str, Any] | None:
        """The record of ``url`` from the store holding it (None: no store has it)."""
        for store in self.stores:
            found = store.get(url)
            if found is not None:
                return found
        return None

    def bodies(self, urls: Iterable[str]) -> dict[str, Any]:
        return self._gathered("bodies", urls)

    def sections(self, urls: Iterable[str]) -> dict[str, Any]:
        return self._gathered("sections", urls)

    def _gathered(self, method: str, urls: Iterable[str]) -> dict[str, Any]:
        """``method``'s answers for ``urls``, each from the first store that has it."""
        wanted = list(urls)
        found: dict[str, Any] = {}
        for store in self.stores:
            missing = [url for url in wanted if url not in found]
            if not missing:
                break
            for url, value in getattr(store, method)(missing).items():
                found.setdefault(url, value)
        return found

    def hosts(self) -> set[str]:
        return set().union(*(store.hosts() for store in self.stores))

    def word_pages(self, word: str) -> int:
        """Pages that have ``word``, in all the stores (each page is in one)."""
        return sum(store.word_pages(word) for store in self.stores)

    def similar_words(self, word: str, spread: int = 2) -> list[tuple[str, int]]:
        """The stores' similar words with their pages summed, in word order as one store gives them."""
        counts: Counter[str] = Counter()
        for store in self.stores:
            counts.update(dict(store.similar_words(word, spread)))
        return sorted(counts.items())

    def meta(self, key: str) -> str | None:
        """A fact of the first store that records it (a finalize over all
        of them records the same in each)."""
        return next((found for found in (store.meta(key) for store in self.stores) if found is not None), None)

    def close(self) -> None:
        for store in self.stores:
            store.close()


class Graphs:
    """Link graphs, each with the PageRank of its directory's URLs (read-only)."""

    def __init__(self, graphs: Sequence[Any]) -> None:
        self.graphs = list(graphs)

    def version(self) -> tuple[int, ...]:
        """Changes when any graph is committed to."""
        return tuple(graph.version() for graph in self.graphs)

    def pageranks(self) -> dict[str, float]:
        found: dict[str, float] = {}
        for graph in self.graphs:
            for url, score in graph.pageranks().items():
                found.setdefault(url, score)
        return found

    def pagerank_of(self, urls: Iterable[str]) -> dict[str, float]:
        wanted = list(urls)
        found: dict[str, float] = {}
        for graph in self.graphs:
            for url, score in graph.pagerank_of(wanted).items():
                found.setdefault(url, score)
        return found

    def node_count(self) -> int:
        """The nodes of the whole graph: each directory ranks its own."""
        return sum(graph.node_count() for graph in self.graphs)

    def close(self) -> None:
        for graph in self.graphs:
            graph.close()


def joined(parts: Sequence[Any], kind: type[Stores] | type[Graphs]) -> Any:
    """The one part there is as it is, several as ``kind`` (None: none)."""
    found = [part for part in parts if part is not None]
    if len(found) <= 1:
        return found[0] if found else None
    return kind(found)

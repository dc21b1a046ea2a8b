"""The link graph (with anchor texts) and PageRank.

Links are stored as integer node pairs in SQLite (``DATA_DIR/graph/links.sqlite``)
with the anchor text of each link, so the indexer can give every page the
words others use for it (SEEDS.md item 27) and compute PageRank over the
whole crawl (item 28) when it ends. The graph is built in NetworkX for the
computation; :func:`pagerank` itself is a pure function of an edge list.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import networkx as nx

from indexer._sqlite import connect

__all__ = ["LinkGraph", "pagerank", "DAMPING"]

# The paper's damping factor: the random surfer follows a link 85% of the
# time and jumps to a random page otherwise.
DAMPING = 0.85
# NetworkX stops when the summed change is below N * tol; its default
# (1e-6) lets large graphs stop after one iteration with the order unsettled.
_TOLERANCE = 1e-10

_SCHEMA = """
CREATE TABLE IF NOT EXISTS nodes (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS links (src INTEGER NOT NULL, dst INTEGER NOT NULL, anchor TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS links_src ON links (src);
CREATE INDEX IF NOT EXISTS links_dst ON links (dst);
CREATE TABLE IF NOT EXISTS pagerank (id INTEGER PRIMARY KEY, score REAL NOT NULL);
"""


def pagerank(
    edges: Iterable[tuple[str, str]],
    nodes: Iterable[str] = (),
    damping: float = DAMPING,
) -> dict[str, float]:
    """PageRank of every node, summing to 1 (the paper's PR divided by N).

    Self-links and repeated links count once; a page without out-links
    spreads its rank evenly (NetworkX's handling of dangling nodes).

    >>> ranks = pagerank([("a", "b"), ("c", "b")], nodes=["a", "b", "c"])
    >>> max(ranks, key=ranks.get), round(sum(ranks.values()), 6)
    ('b', 1.0)
    """
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from((src, dst) for src, dst in edges if src != dst)
    if graph.number_of_nodes() == 0:
        return {}
    return nx.pagerank(graph, alpha=damping, tol=_TOLERANCE, max_iter=1000)


class LinkGraph:
    """Links between URLs with their anchor texts, and the computed PageRank."""

    def __init__(self, directory: str | Path, readonly: bool = False) -> None:
        self.path = Path(directory) / "links.sqlite"
        self.db = connect(self.path, _SCHEMA, readonly)
        self._ids: dict[str, int] = {}

    def close(self) -> None:
        self.db.close()

    def commit(self) -> None:
        self.db.commit()

    def _id(self, url: str) -> int:
        node = self._ids.get(url)
        if node is None:
            row = self.db.execute("SELECT id FROM nodes WHERE url = ?", (url,)).fetchone()
            if row is None:
                node = self.db.execute("INSERT INTO nodes (url) VALUES (?)", (url,)).lastrowid
            else:
                node = row[0]
            if len(self._ids) > 500_000:
                self._ids.clear()
            self._ids[url] = node
        return int(node)  # type: ignore[arg-type]

    def set_links(self, src: str, links: Iterable[tuple[str, str]]) -> None:
        """Replace the out-links of ``src`` with ``(target, anchor text)`` pairs."""
        source = self._id(src)
        self.db.execute("DELETE FROM links WHERE src = ?", (source,))
        self.db.executemany(
            "INSERT INTO links (src, dst, anchor) VALUES (?, ?, ?)",
            ((source, self._id(dst), anchor or "") for dst, anchor in links),
        )

    def remove(self, urls: Iterable[str], inbound: bool = False) -> None:
        """Drop the out-links of ``urls`` (a page gone or moved), and with
        ``inbound`` the links into them too (a purged page leaves no trace)."""
        for url in urls:
            row = self.db.execute("SELECT id FROM nodes WHERE url = ?", (url,)).fetchone()
            if row is None:
                continue
            self.db.execute("DELETE FROM links WHERE src = ?", row)
            if inbound:
                self.db.execute("DELETE FROM links WHERE dst = ?", row)
                self.db.execute("DELETE FROM pagerank WHERE id = ?", row)

    def anchors_to(self, urls: Iterable[str]) -> list[tuple[str, str]]:
        """``(source, anchor text)`` of every link into any of ``urls``."""
        urls = list(urls)
        marks = ",".join("?" * len(urls))
        return list(
            self.db.execute(
                "SELECT s.url, l.anchor FROM links l JOIN nodes d ON d.id = l.dst"
                f" JOIN nodes s ON s.id = l.src WHERE d.url IN ({marks})",
                urls,
            )
        )

    def links(self) -> Iterator[tuple[str, str, str]]:
        """Every ``(source, target, anchor text)``."""
        yield from self.db.execute(
            "SELECT s.url, d.url, l.anchor FROM links l"
            " JOIN nodes s ON s.id = l.src JOIN nodes d ON d.id = l.dst"
        )

    def __len__(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM links").fetchone()[0])

    def set_pagerank(self, scores: Mapping[str, float]) -> None:
        self.db.execute("DELETE FROM pagerank")
        self.db.executemany(
            "INSERT INTO pagerank (id, score) VALUES (?, ?)",
            ((self._id(url), score) for url, score in scores.items()),
        )

    def pagerank_of(self, urls: Iterable[str]) -> dict[str, float]:
        urls = list(urls)
        found: dict[str, float] = {}
        for start in range(0, len(urls), 500):
            chunk = urls[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(
                self.db.execute(
                    "SELECT n.url, p.score FROM pagerank p JOIN nodes n ON n.id = p.id"
                    f" WHERE n.url IN ({marks})",
                    chunk,
                )
            )
        return found

    def node_count(self) -> int:
        """Nodes with a PageRank (the size of the last computed graph)."""
        return int(self.db.execute("SELECT count(*) FROM pagerank").fetchone()[0])

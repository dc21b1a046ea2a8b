"""The link graph (with anchor texts) and PageRank.

Links are stored as integer node pairs in SQLite (``DATA_DIR/graph/links.sqlite``)
with the anchor text of each link, so the indexer can give every page the
words others use for it (ARCHITECTURE.md, item 27) and compute PageRank over the
whole crawl (item 28) when it ends.

A link is kept once per source, target and anchor text, with how many
times the source has it (navigation links the same page twice: a third of
a documentation page's links), keyed by target first, which is how the
indexer reads them (the anchor text into a page), in a table without row
ids. URLs and anchor texts are stored once each and named by number (a
site's "Home" and "read more" are a few texts among thousands of links).
Each source's targets are kept beside, as one short list of numbers, for
replacing its links when it is fetched again. About 15 bytes a link, where
a row of source, target and text with an index on each end took 67.

PageRank runs on a compact copy of the graph, a sparse matrix of node ids
(:class:`indexer.linkmatrix.LinkMatrix`), which ``finalize`` derives from the
stored links in one pass and keeps in ``DATA_DIR/graph/links.npz``: the graph
PageRank saw, loaded in a fraction of a second even at millions of links.
NetworkX remains the way to look at it (:meth:`LinkGraph.to_networkx`) and
the reference its scores are tested against. At a million pages and ten
million links, NetworkX takes two minutes and 4 GiB for PageRank (half a
minute to build its graph); the saved matrix loads in a third of a second and PageRank
over it takes a few seconds in 300 MiB (``python -m bench.pagerank``).

numpy and scipy are imported when PageRank or the matrix is needed: search
opens the graph only for the stored scores, and starts faster without them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from crawler.personalization import parse_personalization
from indexer._sqlite import connect, rows_in
from indexer.codec.varint import encode, read

if TYPE_CHECKING:
    import networkx as nx
    import numpy as np

    from indexer.linkmatrix import LinkMatrix

__all__ = ["LinkGraph", "links_matrix", "pagerank", "LINKS_FILE", "MATRIX_FILE"]

# In the graph directory (DATA_DIR/graph): the links and PageRank, and the
# matrix PageRank last ran on.
LINKS_FILE = "links.sqlite"
MATRIX_FILE = "links.npz"
# Targets (node ids) whose links are read from SQLite at a time when they
# are turned into arrays: some 300,000 links at a documentation site's 70 a page.
_CHUNK = 1 << 12
# URLs and anchor texts whose numbers a writer keeps in memory.
_KEPT_IDS = 500_000

# links: one row per source, target and anchor text, ``count`` the times
# the source has that link. targets: each source's targets, as the gaps
# between their ascending ids (variable-length integers).
_SCHEMA = """
CREATE TABLE IF NOT EXISTS nodes (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS anchors (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS links (
    dst INTEGER NOT NULL,
    src INTEGER NOT NULL,
    anchor INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (dst, src, anchor)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS targets (src INTEGER PRIMARY KEY, dst BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS pagerank (id INTEGER PRIMARY KEY, score REAL NOT NULL);
"""
# A link as it is read: its source's and target's URLs, its anchor text, and its count.
_LINK_ROWS = (
    "SELECT s.url, d.url, a.text, l.count FROM links l JOIN nodes s ON s.id = l.src"
    " JOIN nodes d ON d.id = l.dst JOIN anchors a ON a.id = l.anchor"
)


def encode_targets(targets: Iterable[int]) -> bytes:
    """A source's distinct target ids as stored: the gaps between them, ascending.

    >>> decode_targets(encode_targets([300, 7, 7, 12]))
    [7, 12, 300]
    """
    gaps, last = bytearray(), 0
    for target in sorted(set(targets)):
        gaps += encode(target - last)
        last = target
    return bytes(gaps)


def decode_targets(data: bytes) -> list[int]:
    """The target ids :func:`encode_targets` stored."""
    targets, last = [], 0
    for gap in read(data, 0)[0]:
        last += gap
        targets.append(last)
    return targets


def _each_time(rows: Iterable[tuple[str, str, str, int]]) -> Iterator[tuple[str, str, str]]:
    """Each ``(source, target, anchor text)`` as many times as the source has it."""
    for source, target, text, count in rows:
        link = (source, target, text)
        yield link
        for _ in range(count - 1):
            yield link


def personalization_weights(urls: Iterable[str], weights: Mapping[str, float]) -> list[float]:
    """The teleport weight of each URL: that of the longest site or URL
    prefix of ``weights`` it starts with, else 1 (PageRank personalization:
    the operator's trusted sites weigh more).

    >>> personalization_weights(["https://docs.example.org/a", "https://x.test/"],
    ...                         {"https://docs.example.org": 3, "https://docs.example.org/a": 5})
    [5.0, 1.0]
    """
    rules = sorted(weights.items(), key=lambda rule: -len(rule[0]))
    return [next((float(weight) for prefix, weight in rules if url.startswith(prefix)), 1.0) for url in urls]


# Page store key: the PageRank personalization finalize uses, as JSON.
PERSONALIZATION = "pagerank_personalization"


def stored_personalization(store: Any) -> dict[str, float]:
    """The PageRank personalization of a data directory ({}: none), from its
    page store (:meth:`indexer.store.PageStore.meta`)."""
    text = store.meta(PERSONALIZATION)
    return parse_personalization(text) if text else {}


def pagerank(
    edges: Iterable[tuple[str, str]],
    nodes: Iterable[str] = (),
    damping: float | None = None,
    personalization: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """PageRank of every node, summing to 1 (the paper's PR divided by N);
    ``damping`` None: the paper's (:data:`indexer.linkmatrix.DAMPING`).

    Self-links are ignored and repeated links count once; a page without
    out-links spreads its rank evenly (NetworkX's handling of dangling
    nodes). The scores are those of ``networkx.pagerank`` on the same
    ``DiGraph`` (to 1e-9), iterated until the order of the top pages is settled.

    >>> ranks = pagerank([("a", "b"), ("c", "b")], nodes=["a", "b", "c"])
    >>> max(ranks, key=ranks.get), round(sum(ranks.values()), 6)
    ('b', 1.0)
    """
    import numpy as np

    from indexer.linkmatrix import DAMPING, LinkMatrix

    ids: dict[str, int] = {}
    for node in nodes:
        ids.setdefault(node, len(ids))
    pairs = [(ids.setdefault(src, len(ids)), ids.setdefault(dst, len(ids))) for src, dst in edges]
    if not ids:
        return {}
    links = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    matrix = LinkMatrix.from_edges(links[:, 0], links[:, 1], nodes=np.arange(len(ids)))
    weights = None if personalization is None else personalization_weights(ids, personalization)
    scores = matrix.pagerank(DAMPING if damping is None else damping, personalization=weights)
    return dict(zip(ids, scores.tolist(), strict=False))


def links_matrix(
    sources: np.ndarray,
    targets: np.ndarray,
    ids: Mapping[str, int],
    pages: Collection[str],
    aliases: Mapping[str, str],
    gone: Collection[str],
) -> LinkMatrix:
    """The graph PageRank runs on, from links between node ids (``ids``
    names the URLs of ``pages``, ``gone`` and ``aliases``, both sides):
    aliases merged into the page they stand for, only links out of crawled
    ``pages``, none into ``gone`` pages; the nodes are the crawled pages and
    the pages they link to. One data directory's graph
    (:meth:`LinkGraph.derive_matrix`), or several read as one
    (:mod:`indexer.federation`)."""
    import numpy as np

    from indexer.linkmatrix import LinkMatrix

    size = 1 + max(int(sources.max(initial=0)), int(targets.max(initial=0)), max(ids.values(), default=0))
    canonical = np.arange(size)
    canonical[[ids[alias] for alias in aliases]] = [ids[page] for page in aliases.values()]
    sources, targets = canonical[sources], canonical[targets]
    del canonical
    page_ids = np.array([ids[url] for url in pages], dtype=np.int64)
    crawled = np.zeros(size, dtype=bool)
    crawled[page_ids] = True
    missing = np.zeros(size, dtype=bool)
    missing[[ids[url] for url in gone]] = True
    keep = crawled[sources] & ~missing[targets]
    return LinkMatrix.from_edges(sources[keep], targets[keep], nodes=page_ids)


class LinkGraph:
    """Links between URLs with their anchor texts, and the computed PageRank."""

    def __init__(self, directory: str | Path, readonly: bool = False) -> None:
        self.path = Path(directory) / LINKS_FILE
        self.matrix_path = Path(directory) / MATRIX_FILE
        self.db = connect(self.path, _SCHEMA, readonly)
        self._ids: dict[str, int] = {}
        self._anchor_ids: dict[str, int] = {}
        # Whether links were replaced or removed since the unused anchor
        # texts were last forgotten (:meth:`forget_unused_anchors`).
        self._replaced = False

    def close(self) -> None:
        self.db.close()

    def commit(self) -> None:
        self.db.commit()

    def rollback(self) -> None:
        """Drop what was written since the last commit, and the numbers
        given meanwhile: SQLite gives a rolled-back row's number to the
        next row, which may be another URL or text."""
        self.db.rollback()
        self._ids.clear()
        self._anchor_ids.clear()

    def _id(self, url: str) -> int:
        """The node number of a URL, given it when it is new."""
        return self._number(self._ids, "nodes", "url", url)

    def _anchor_id(self, text: str) -> int:
        """The number of an anchor text, given it when it is new."""
        return self._number(self._anchor_ids, "anchors", "text", text)

    def _number(self, kept: dict[str, int], table: str, column: str, value: str) -> int:
        """The row number of ``value`` in ``table``, inserted if it is new,
        and kept in ``kept`` (up to :data:`_KEPT_IDS` values)."""
        found = kept.get(value)
        if found is None:
            row = self.db.execute(f"SELECT id FROM {table} WHERE {column} = ?", (value,)).fetchone()
            if row is None:
                # The cursor of an INSERT always has the new row's id.
                found = cast(int, self.db.execute(f"INSERT INTO {table} ({column}) VALUES (?)", (value,)).lastrowid)
            else:
                found = row[0]
            if len(kept) > _KEPT_IDS:
                kept.clear()
            kept[value] = found
        return int(found)

    def set_links(self, src: str, links: Iterable[tuple[str, str]]) -> None:
        """Replace the out-links of ``src`` with ``(target, anchor text)``
        pairs: the same pair twice is one row counted twice."""
        source = self._id(src)
        self._drop_out_links(source)
        # Counted by text, then each distinct pair numbered (in the order
        # they first come, as link by link): a page repeats links (a menu,
        # "see also"), and most numbers are known, read without a call.
        ids, anchor_ids = self._ids, self._anchor_ids
        counts: dict[tuple[int, int], int] = {}
        for (dst, anchor), count in Counter((dst, anchor or "") for dst, anchor in links).items():
            target = ids.get(dst)
            if target is None:
                target = self._id(dst)
            text = anchor_ids.get(anchor)
            if text is None:
                text = self._anchor_id(anchor)
            counts[target, text] = count
        self.db.executemany(
            "INSERT INTO links (dst, src, anchor, count) VALUES (?, ?, ?, ?)",
            ((dst, source, anchor, count) for (dst, anchor), count in counts.items()),
        )
        if counts:
            self.db.execute(
                "INSERT INTO targets (src, dst) VALUES (?, ?)", (source, encode_targets(dst for dst, _ in counts))
            )

    def _targets(self, source: int) -> list[int]:
        row = self.db.execute("SELECT dst FROM targets WHERE src = ?", (source,)).fetchone()
        return [] if row is None else decode_targets(row[0])

    def _drop_out_links(self, source: int) -> None:
        targets = self._targets(source)
        if targets:
            self.db.executemany("DELETE FROM links WHERE dst = ? AND src = ?", ((dst, source) for dst in targets))
            self.db.execute("DELETE FROM targets WHERE src = ?", (source,))
            self._replaced = True

    def remove(self, urls: Iterable[str], inbound: bool = False) -> None:
        """Drop the out-links of ``urls`` (a page gone or moved), and with
        ``inbound`` the links into them too (a purged page leaves no trace)."""
        for url in urls:
            row = self.db.execute("SELECT id FROM nodes WHERE url = ?", (url,)).fetchone()
            if row is None:
                continue
            node = int(row[0])
            self._drop_out_links(node)
            if inbound:
                self._drop_in_links(node)
                self.db.execute("DELETE FROM pagerank WHERE id = ?", (node,))

    def _drop_in_links(self, node: int) -> None:
        """Drop every link into ``node``, and ``node`` from its sources' targets."""
        sources = [src for (src,) in self.db.execute("SELECT DISTINCT src FROM links WHERE dst = ?", (node,))]
        self.db.execute("DELETE FROM links WHERE dst = ?", (node,))
        for source in sources:
            targets = [dst for dst in self._targets(source) if dst != node]
            if targets:
                self.db.execute("UPDATE targets SET dst = ? WHERE src = ?", (encode_targets(targets), source))
            else:
                self.db.execute("DELETE FROM targets WHERE src = ?", (source,))
        self._replaced = self._replaced or bool(sources)

    def forget_unused_anchors(self) -> None:
        """Forget the anchor texts no stored link has any more (links replaced
        or removed since this writer opened the graph): finalize's
        housekeeping, one pass over the links when some were replaced."""
        if self._replaced:
            self.db.execute("DELETE FROM anchors WHERE id NOT IN (SELECT anchor FROM links)")
            self._anchor_ids.clear()
            self._replaced = False

    def inbound(self, urls: Iterable[str]) -> list[tuple[str, str, str]]:
        """``(source, target, anchor text)`` of every link into any of ``urls``.

        Asked URL by URL (an index lookup each) when they are few; read in
        one pass over every link when they are a good part of the graph
        (finalize after a batch of new pages), which is faster then.
        """
        urls = set(urls)
        nodes = self.db.execute("SELECT max(id) FROM nodes").fetchone()[0] or 0
        if len(urls) * 2 > nodes:
            return [row for row in self.links() if row[1] in urls]
        return list(_each_time(rows_in(self.db, f"{_LINK_ROWS} WHERE d.url IN", urls)))

    def inbound_counts(self, urls: Iterable[str]) -> dict[str, int]:
        """How many pages link to each of ``urls`` (those none links to left
        out): a page that names another in every paragraph counts once."""
        return dict(
            rows_in(
                self.db,
                "SELECT d.url, count(DISTINCT l.src) FROM nodes d JOIN links l ON l.dst = d.id WHERE d.url IN",
                set(urls),
                " GROUP BY d.url",
            )
        )

    def outbound(self, url: str) -> list[tuple[str, str]]:
        """``(target, anchor text)`` of the stored links of ``url``, each once."""
        targets = self.targets_of(url)
        if not targets:
            return []
        source = self.db.execute("SELECT id FROM nodes WHERE url = ?", (url,)).fetchone()[0]
        return [
            (target, text)
            for target, text in rows_in(
                self.db,
                "SELECT d.url, a.text FROM links l JOIN nodes d ON d.id = l.dst JOIN anchors a ON a.id = l.anchor"
                f" WHERE l.src = {int(source)} AND d.url IN",
                targets,
            )
        ]

    def targets_of(self, url: str) -> list[str]:
        """Where the stored links of ``url`` lead (each target once)."""
        row = self.db.execute("SELECT id FROM nodes WHERE url = ?", (url,)).fetchone()
        return [] if row is None else self.urls_of(self._targets(row[0]))

    def links(self) -> Iterator[tuple[str, str, str]]:
        """Every ``(source, target, anchor text)``, a link a page has twice twice."""
        yield from _each_time(self.db.execute(_LINK_ROWS))

    def __len__(self) -> int:
        """How many links are stored, a link a page has twice counted twice."""
        return int(self.db.execute("SELECT coalesce(sum(count), 0) FROM links").fetchone()[0])

    def set_ranks(self, nodes: np.ndarray, scores: np.ndarray) -> None:
        """Replace the stored PageRank with ``scores[i]`` for node id ``nodes[i]``."""
        self.db.execute("DELETE FROM pagerank")
        self.db.executemany(
            "INSERT INTO pagerank (id, score) VALUES (?, ?)", zip(nodes.tolist(), scores.tolist(), strict=False)
        )

    def link_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(sources, targets)``: the node ids of every stored link, as arrays.

        SQLite joins a chunk of rows into text and numpy parses it, both in
        C: four times faster than fetching ten million rows as Python tuples
        (10 s). Both aggregates of a query step through the same rows, so
        the i-th source and the i-th target are one link. A link with
        several anchor texts comes once for each (PageRank counts it once).
        """
        import numpy as np

        low, high = self.db.execute("SELECT min(dst), max(dst) FROM links").fetchone()
        sources, targets = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
        for start in range(low or 0, (high or -1) + 1, _CHUNK):
            src, dst = self.db.execute(
                "SELECT group_concat(src), group_concat(dst) FROM links WHERE dst >= ? AND dst < ?",
                (start, start + _CHUNK),
            ).fetchone()
            if src:
                sources.append(np.fromstring(src, dtype=np.int64, sep=","))
                targets.append(np.fromstring(dst, dtype=np.int64, sep=","))
        return np.concatenate(sources), np.concatenate(targets)

    def node_ids(self, urls: Collection[str]) -> dict[str, int]:
        """The node id of each of ``urls``, new nodes added for those without one."""
        found: dict[str, int] = {}
        if len(urls) > 1000:  # one pass over the nodes beats a query per URL
            for node, url in self.db.execute("SELECT id, url FROM nodes"):
                if url in urls:
                    found[url] = node
        for url in urls:
            if url not in found:
                found[url] = self._id(url)
        return found

    def derive_matrix(self, pages: Collection[str], aliases: Mapping[str, str], gone: Collection[str]) -> LinkMatrix:
        """The graph PageRank runs on, from the stored links, saved as ``links.npz``.

        Aliases (redirects, duplicates) merge into the page they stand for;
        only links out of crawled ``pages`` count, and none into ``gone``
        pages. The nodes are the crawled pages and the pages they link to.
        Derived afresh at every ``finalize``, so it always agrees with the
        stored links, whatever replaced them since.
        """
        sources, targets = self.link_arrays()
        ids = self.node_ids({*pages, *gone, *aliases, *aliases.values()})
        matrix = links_matrix(sources, targets, ids, pages, aliases, gone)
        matrix.save(self.matrix_path)
        return matrix

    def nodes(self) -> Iterator[tuple[int, str]]:
        """Every node's id and URL."""
        yield from self.db.execute("SELECT id, url FROM nodes")

    def matrix(self) -> LinkMatrix:
        """The graph PageRank last ran on (saved by ``finalize``).

        A data directory that was never finalized, or was written before the
        matrix was kept, has none: then every stored link, as it is.
        """
        from indexer.linkmatrix import LinkMatrix

        if self.matrix_path.exists():
            return LinkMatrix.load(self.matrix_path)
        return LinkMatrix.from_edges(*self.link_arrays())

    def to_networkx(self) -> nx.DiGraph:
        """:meth:`matrix` as a NetworkX ``DiGraph`` with URLs for nodes.

        ``networkx.pagerank`` of it gives the stored scores (to 1e-9).
        """
        import networkx as nx

        matrix = self.matrix()
        urls = self._urls(matrix.nodes.tolist())
        graph = nx.DiGraph()
        graph.add_nodes_from(urls[node] for node in matrix.nodes.tolist())
        sources, targets = matrix.edges()
        graph.add_edges_from(
            (urls[src], urls[dst]) for src, dst in zip(sources.tolist(), targets.tolist(), strict=False)
        )
        return graph

    def _urls(self, nodes: list[int]) -> dict[int, str]:
        return dict(rows_in(self.db, "SELECT id, url FROM nodes WHERE id IN", nodes))

    def urls_of(self, nodes: Iterable[int]) -> list[str]:
        """The URL of each node id, in order."""
        nodes = [int(node) for node in nodes]
        found = self._urls(nodes)
        return [found.get(node, "") for node in nodes]

    def pagerank_of(self, urls: Iterable[str]) -> dict[str, float]:
        return dict(
            rows_in(
                self.db,
                "SELECT n.url, p.score FROM pagerank p JOIN nodes n ON n.id = p.id WHERE n.url IN",
                urls,
            )
        )

    def highest_ranked(self, count: int) -> list[tuple[str, float]]:
        """The ``count`` URLs of highest PageRank, highest first."""
        return [
            (url, float(score))
            for url, score in self.db.execute(
                "SELECT n.url, p.score FROM pagerank p JOIN nodes n ON n.id = p.id "
                "ORDER BY p.score DESC, n.url LIMIT ?",
                (count,),
            )
        ]

    def node_count(self) -> int:
        """Nodes with a PageRank (the size of the last computed graph)."""
        return int(self.db.execute("SELECT count(*) FROM pagerank").fetchone()[0])

    def pageranks(self) -> dict[str, float]:
        """Every URL's PageRank: what :meth:`pagerank_of` answers for any URL."""
        return dict(self.db.execute("SELECT n.url, p.score FROM pagerank p JOIN nodes n ON n.id = p.id"))

    def version(self) -> int:
        """A number that changes when another connection (the indexer) commits to the graph."""
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

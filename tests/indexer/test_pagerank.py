"""PageRank against networkx.pagerank, its convergence, and the graph finalize keeps."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from crawler.datadir import graph_dir
from indexer.builder import IndexBuilder
from indexer.graph import LinkGraph, pagerank
from indexer.linkmatrix import LinkMatrix
from search.engine import SearchEngine
from tests.commands import run
from tests.items import gone, page


def reference(edges: list[tuple[str, str]], nodes: list[str] = ()) -> dict[str, float]:
    """networkx.pagerank of the DiGraph of the links, self-links left out, tightly converged."""
    graph = nx.DiGraph(edges)
    graph.add_nodes_from(nodes)
    graph.remove_edges_from(list(nx.selfloop_edges(graph)))
    if not graph:
        return {}
    return nx.pagerank(graph, alpha=0.85, tol=1e-15, max_iter=2000)


def random_web(pages: int, seed: int) -> tuple[list[tuple[str, str]], list[str]]:
    """About 8 links a page, a skewed in-degree, one page in ten without out-links."""
    rng = np.random.default_rng(seed)
    out_degree = rng.geometric(1 / 9, pages) - 1
    out_degree[rng.random(pages) < 0.1] = 0
    sources = np.repeat(np.arange(pages), out_degree)
    targets = (pages * rng.random(len(sources)) ** 3).astype(int)
    names = [f"http://site{k % 7}.test/{k}" for k in range(pages)]
    return [(names[s], names[t]) for s, t in zip(sources.tolist(), targets.tolist(), strict=False)], names


def assert_same(ours: dict[str, float], theirs: dict[str, float]) -> None:
    assert ours.keys() == theirs.keys()
    assert max((abs(ours[node] - theirs[node]) for node in ours), default=0.0) <= 1e-9


@pytest.mark.parametrize("pages, seed", [(50, 1), (2_000, 2), pytest.param(20_000, 3, marks=pytest.mark.slow)])
def test_scores_equal_networkx_on_random_webs(pages: int, seed: int) -> None:
    edges, nodes = random_web(pages, seed)
    assert_same(pagerank(edges, nodes), reference(edges, nodes))


SMALL_GRAPHS = {
    "empty": ([], []),
    "single page": ([], ["a"]),
    "single page linking to itself": ([("a", "a")], []),
    "two pages, one link": ([("a", "b")], []),
    "dangling pages": ([("a", "b"), ("a", "c"), ("b", "c")], []),
    "isolated pages": ([("a", "b"), ("b", "a")], ["c", "d", "e"]),
    "self-links": ([("a", "a"), ("a", "b"), ("b", "b"), ("b", "c"), ("c", "a")], []),
    "repeated links": ([("a", "b")] * 5 + [("a", "c"), ("c", "a"), ("c", "a")], []),
    "every page dangling but one": ([("a", "b")], ["c", "d"]),
    "cycle with a tail": ([("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")], []),
}


@pytest.mark.parametrize("edges, nodes", SMALL_GRAPHS.values(), ids=SMALL_GRAPHS.keys())
def test_scores_equal_networkx_on_small_graphs(edges: list[tuple[str, str]], nodes: list[str]) -> None:
    ranks = pagerank(edges, nodes)
    assert_same(ranks, reference(edges, nodes))
    if ranks:
        assert sum(ranks.values()) == pytest.approx(1.0, abs=1e-12)


def test_a_self_link_or_a_repeated_link_does_not_raise_a_page() -> None:
    plain = pagerank([("a", "b"), ("b", "c"), ("c", "a")])
    padded = pagerank([("a", "b"), ("a", "b"), ("b", "c"), ("c", "a"), ("c", "c")])
    assert plain == pytest.approx(padded, abs=1e-12)


def test_the_top_pages_are_in_their_final_order() -> None:
    # Iterated much further, the top 1,000 of a skewed 20,000-page web keep their order.
    edges, nodes = random_web(20_000, 4)
    ids = {name: k for k, name in enumerate(nodes)}
    matrix = LinkMatrix.from_edges(
        np.array([ids[s] for s, _ in edges]), np.array([ids[t] for _, t in edges]), np.arange(len(nodes))
    )
    ours = matrix.pagerank()
    settled = matrix.pagerank(tolerance=1e-15, max_iterations=1000)
    order = lambda scores: np.lexsort((np.arange(len(scores)), -scores))[:1000]  # noqa: E731
    assert (order(ours) == order(settled)).all()
    assert np.abs(ours - settled).max() < 1e-11


@pytest.mark.slow
def test_networkx_default_tolerance_is_not_what_we_stop_at() -> None:
    # NetworkX stops when the change is below N * 1e-6: with 5,000 pages it
    # stops far sooner, and its scores are further from the fixed point.
    edges, nodes = random_web(5_000, 5)
    ours, tight = pagerank(edges, nodes), reference(edges, nodes)
    graph = nx.DiGraph(edges)
    graph.add_nodes_from(nodes)
    graph.remove_edges_from(list(nx.selfloop_edges(graph)))
    loose = nx.pagerank(graph)
    error = lambda ranks: max(abs(ranks[n] - tight[n]) for n in nodes)  # noqa: E731
    assert error(ours) < 1e-11 < error(loose)


@pytest.mark.parametrize("scale", [1, 10**12], ids=["dense ids", "sparse ids"])
def test_a_matrix_survives_saving_and_loading(tmp_path: Path, scale: int) -> None:
    sources, targets = np.array([5, 5, 9, 2, 2]) * scale, np.array([9, 9, 2, 2, 40]) * scale
    matrix = LinkMatrix.from_edges(sources, targets, np.array([77]))
    matrix.save(tmp_path / "links.npz")
    loaded = LinkMatrix.load(tmp_path / "links.npz")
    assert loaded.nodes.tolist() == sorted([2 * scale, 5 * scale, 9 * scale, 40 * scale, 77])
    links = sorted(zip(*(side.tolist() for side in loaded.edges()), strict=False))
    assert links == [(2 * scale, 40 * scale), (5 * scale, 9 * scale), (9 * scale, 2 * scale)]
    assert np.array_equal(loaded.pagerank(), matrix.pagerank())
    assert not list(tmp_path.glob("*.partial"))


def crawl(data: Path, *items: dict) -> None:
    with IndexBuilder(data) as builder:
        builder.add(list(items))
        builder.finalize()


def stored_ranks(data: Path) -> dict[str, float]:
    graph = LinkGraph(graph_dir(data), readonly=True)
    try:
        urls = [url for (url,) in graph.db.execute("SELECT url FROM nodes")]
        return graph.pagerank_of(urls)
    finally:
        graph.close()


WEB = [
    page(
        "http://a.test/",
        "Home",
        links=[
            ("http://a.test/x", "x"),
            ("http://a.test/old", "old x"),
            ("http://a.test/gone", "gone"),
            ("http://a.test/", "home"),
            ("http://b.test/", "b"),
        ],
    ),
    page("http://a.test/x", "X", aliases=["http://a.test/old"], links=[("http://a.test/", "home")]),
    page("http://a.test/y", "Y", links=[("http://a.test/x", "x"), ("http://a.test/x", "x again")]),
    gone("http://a.test/gone"),
]


def test_the_kept_graph_is_the_crawl_with_aliases_merged(tmp_path: Path) -> None:
    crawl(tmp_path, *WEB)
    graph = LinkGraph(graph_dir(tmp_path), readonly=True)
    networkx_graph = graph.to_networkx()
    assert sorted(networkx_graph.edges) == [
        ("http://a.test/", "http://a.test/x"),
        ("http://a.test/", "http://b.test/"),
        ("http://a.test/x", "http://a.test/"),
        ("http://a.test/y", "http://a.test/x"),
    ]
    assert set(networkx_graph) == {"http://a.test/", "http://a.test/x", "http://a.test/y", "http://b.test/"}
    assert graph.node_count() == 4
    graph.close()
    assert_same(stored_ranks(tmp_path), reference(list(networkx_graph.edges), list(networkx_graph)))


def test_recrawled_links_replace_the_old_ones_in_pagerank(tmp_path: Path) -> None:
    crawl(
        tmp_path,
        page("http://a.test/", "Home", links=[("http://a.test/b", "b")]),
        page("http://a.test/b", "B"),
        page("http://a.test/c", "C"),
    )
    first = stored_ranks(tmp_path)
    assert first["http://a.test/b"] > first["http://a.test/c"]
    crawl(tmp_path, page("http://a.test/", "Home", links=[("http://a.test/c", "c")]))
    again = stored_ranks(tmp_path)
    assert again["http://a.test/c"] > again["http://a.test/b"]
    graph = LinkGraph(graph_dir(tmp_path), readonly=True)
    assert list(graph.to_networkx().edges) == [("http://a.test/", "http://a.test/c")]
    graph.close()


def test_a_data_directory_without_the_kept_graph_still_works(tmp_path: Path) -> None:
    # As written before the graph was kept as a matrix: SQLite alone.
    crawl(tmp_path, *WEB)
    before = stored_ranks(tmp_path)
    (graph_dir(tmp_path) / "links.npz").unlink()
    with SearchEngine(tmp_path) as engine:
        result = engine.search("home", n=5).results[0]
    assert result.url == "http://a.test/" and result.pagerank == before["http://a.test/"]
    with IndexBuilder(tmp_path) as builder:
        builder.finalize()
    assert (graph_dir(tmp_path) / "links.npz").exists()
    assert stored_ranks(tmp_path) == pytest.approx(before, abs=1e-15)


def test_personalization_weights_chosen_sites_as_networkx_does(tmp_path: Path) -> None:
    edges, names = random_web(300, 5)
    weights = {"http://site3.test/": 4.0, "http://site5.test/1": 9.0}
    ours = pagerank(edges, names, personalization=weights)
    graph = nx.DiGraph(edges)
    graph.add_nodes_from(names)
    graph.remove_edges_from(list(nx.selfloop_edges(graph)))
    teleport = {
        node: max(
            (w for prefix, w in sorted(weights.items(), key=lambda r: -len(r[0])) if node.startswith(prefix)),
            default=1.0,
        )
        for node in graph
    }
    theirs = nx.pagerank(graph, alpha=0.85, tol=1e-15, max_iter=2000, personalization=teleport)
    assert_same(ours, theirs)
    assert sum(ours[n] for n in names if n.startswith("http://site3.test/")) > sum(
        score for n, score in pagerank(edges, names).items() if n.startswith("http://site3.test/")
    )


def test_finalize_keeps_the_personalization_for_the_next_finalize(tmp_path: Path) -> None:
    crawl(tmp_path, *WEB)
    plain = stored_ranks(tmp_path)
    with IndexBuilder(tmp_path) as builder:
        builder.finalize(personalization={"http://a.test/y": 5})
    first = stored_ranks(tmp_path)
    with IndexBuilder(tmp_path) as builder:
        builder.finalize()  # the one kept
    assert stored_ranks(tmp_path) == first and first["http://a.test/y"] > plain["http://a.test/y"]
    graph = LinkGraph(graph_dir(tmp_path), readonly=True)
    edges, nodes = list(graph.to_networkx().edges), list(graph.to_networkx())
    graph.close()
    assert_same(first, pagerank(edges, nodes, personalization={"http://a.test/y": 5}))
    with IndexBuilder(tmp_path) as builder:
        builder.finalize(personalization={})
    assert_same(stored_ranks(tmp_path), plain)


def test_explain_names_the_personalization(tmp_path: Path) -> None:
    crawl(tmp_path, *WEB)
    done = run("indexer", "finalize", "--data", str(tmp_path), "--personalization", '{"http://a.test/y": 5}')
    assert done.returncode == 0, done.stderr
    with SearchEngine(tmp_path) as engine:
        rules = {r.url: r.explain["rules"] for r in engine.search("y", explain=True).results}
    assert any(
        "PageRank personalized (http://a.test/y x5; other pages x1): this page weighs x5" in rule
        for rule in rules["http://a.test/y"]
    )
    bad = run("indexer", "finalize", "--data", str(tmp_path), "--personalization", '{"a.test": "much"}')
    assert bad.returncode == 2 and "PageRank personalization must map sites or URL prefixes" in bad.stderr

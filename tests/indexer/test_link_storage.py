"""How the link graph and the page store keep links on disk: each link once
per source, target and text with its count, URLs and texts by number, and
a page's links in the graph alone; read back as written, on real SQLite
files, and searched as before."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from crawler.datadir import DATA_FORMAT, format_path, graph_dir
from indexer.builder import IndexBuilder
from indexer.graph import LINKS_FILE, LinkGraph
from search.engine import SearchEngine
from tests.commands import run
from tests.items import page


def _graph_rows(data: Path, query: str) -> list[tuple]:
    db = sqlite3.connect(graph_dir(data) / LINKS_FILE)
    try:
        return db.execute(query).fetchall()
    finally:
        db.close()


def _anchor_score(data: Path, url: str, query: str) -> float:
    with SearchEngine(data) as engine:
        result = next(r for r in engine.search(query, n=50, explain=True).results if r.page == url)
        return float(result.explain["fields"].get("anchor", 0.0))


def _site(twice: bool) -> list:
    """A home page linking to the tide tables once or twice with the same
    text (in its navigation and in its text), and to the quay, which links back."""
    links = [("http://a.test/tides", "tide tables")] * (2 if twice else 1)
    return [
        page("http://a.test/", "Harbour", "The harbour office.", [*links, ("http://a.test/quay", "the quay")]),
        page("http://a.test/tides", "Tides", "High water twice a day."),
        page("http://a.test/quay", "Quay", "Boats moor here.", [("http://a.test/", "harbour office")]),
    ]


def test_a_link_a_page_has_twice_is_one_row_and_its_text_still_counts_twice(tmp_path: Path) -> None:
    twice, once = tmp_path / "twice", tmp_path / "once"
    for data, links_twice in ((twice, True), (once, False)):
        with IndexBuilder(data) as builder:
            builder.add(_site(links_twice))
            builder.finalize()
    assert _graph_rows(twice, "SELECT count(*) FROM links") == [(3,)]
    assert _graph_rows(twice, "SELECT count(*) FROM anchors") == [(3,)]  # each text once
    graph = LinkGraph(graph_dir(twice), readonly=True)
    try:
        assert len(graph) == 4
        assert graph.inbound(["http://a.test/tides"]) == [("http://a.test/", "http://a.test/tides", "tide tables")] * 2
    finally:
        graph.close()
    # The text a page gives twice weighs as it did when it was two rows: more than once.
    assert _anchor_score(twice, "http://a.test/tides", "tide tables") > _anchor_score(
        once, "http://a.test/tides", "tide tables"
    )


def test_a_reopened_graph_reads_back_what_was_written(tmp_path: Path) -> None:
    written = [
        ("http://b.test/", "Lighthouse"),
        ("http://a.test/tides", "tide tables"),
        ("http://a.test/tides", "tide tables"),
        ("http://a.test/tides", "Tide Tables"),
        ("http://a.test/quay", ""),
        ("http://a.test/lamp", "灯塔"),
    ]
    graph = LinkGraph(graph_dir(tmp_path))
    graph.set_links("http://a.test/", written)
    graph.set_links("http://a.test/quay", [("http://a.test/", "home")])
    graph.commit()
    graph.close()
    graph = LinkGraph(graph_dir(tmp_path), readonly=True)
    try:
        assert sorted(graph.links()) == sorted(
            [("http://a.test/", target, text) for target, text in written]
            + [("http://a.test/quay", "http://a.test/", "home")]
        )
        assert sorted(graph.targets_of("http://a.test/")) == sorted({target for target, _ in written})
        assert graph.targets_of("http://nowhere.test/") == []
        assert len(graph) == 7
    finally:
        graph.close()


def test_recrawled_and_purged_links_leave_no_trace(tmp_path: Path) -> None:
    with IndexBuilder(tmp_path) as builder:
        builder.add(_site(True))
        builder.finalize()
        builder.add(
            [page("http://a.test/", "Harbour", "The harbour office.", [("http://a.test/tides", "tidal charts")])]
        )
        builder.finalize()
        builder.remove(["http://a.test/tides"])
        builder.finalize()
    graph = LinkGraph(graph_dir(tmp_path), readonly=True)
    try:
        assert list(graph.links()) == [("http://a.test/quay", "http://a.test/", "harbour office")]
        assert graph.targets_of("http://a.test/") == []
    finally:
        graph.close()
    # No text is kept for links that are gone.
    assert _graph_rows(tmp_path, "SELECT text FROM anchors") == [("harbour office",)]


def test_a_cancelled_batch_leaves_no_link_pointing_at_the_wrong_page(tmp_path: Path) -> None:
    """SQLite gives a rolled-back row's number to the next row: a number
    kept from the cancelled batch must not name another URL or text."""
    with IndexBuilder(tmp_path) as builder:
        builder.add([page("http://a.test/", "Harbour", "", [("http://a.test/tides", "tide tables")])])
        builder.cancel()
        builder.add([page("http://a.test/quay", "Quay", "", [("http://a.test/lamp", "the lamp")])])
        builder.add([page("http://a.test/", "Harbour", "", [("http://a.test/tides", "tide tables")])])
        builder.finalize()
    graph = LinkGraph(graph_dir(tmp_path), readonly=True)
    try:
        assert sorted(graph.links()) == [
            ("http://a.test/", "http://a.test/tides", "tide tables"),
            ("http://a.test/quay", "http://a.test/lamp", "the lamp"),
        ]
    finally:
        graph.close()


def test_links_take_a_fraction_of_a_row_each(tmp_path: Path) -> None:
    """A documentation site: 1,000 pages, each with the same navigation (five
    links, two of them twice) and 40 links in its text."""
    navigation = [("/", "Home"), ("/", "Home"), ("/toc", "Contents"), ("/toc", "Contents"), ("/up", "Top")]
    pages = [
        page(
            f"http://docs.test/{k}",
            f"Page {k}",
            "",
            [(f"http://docs.test{path}", text) for path, text in navigation]
            + [(f"http://docs.test/{(k * 7 + j) % 1000}", f"section {(k * 7 + j) % 1000} words") for j in range(40)],
        )
        for k in range(1000)
    ]
    with IndexBuilder(tmp_path) as builder:
        builder.add(pages)
        builder.finalize()
    links = 1000 * 45
    graph_bytes = sum(path.stat().st_size for path in graph_dir(tmp_path).glob(LINKS_FILE + "*"))
    assert graph_bytes / links < 25  # 67 bytes a link when each was a row of its own with two indexes


def test_a_directory_of_format_2_is_refused_with_the_rebuild_named(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with IndexBuilder(data) as builder:
        builder.add(_site(True))
        builder.finalize()
    format_path(data).write_text("2\n")  # each link a row of its own, and in the page store too
    done = run("search", "--data", str(data), "tides")
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"search: {data} was written by an older version of Lantern (data format 2; this version "
        f"reads format {DATA_FORMAT}): run `python -m indexer rebuild --data {data}` to rebuild it from its archive"
    ]


def test_links_numbered_in_the_order_they_come_and_a_missing_text_is_an_empty_one(tmp_path: Path) -> None:
    graph = LinkGraph(tmp_path / "graph")
    try:
        graph.set_links(
            "http://a.test/",
            [
                ("http://a.test/c", "sea"),
                ("http://a.test/b", None),
                ("http://a.test/c", "sea"),
                ("http://a.test/b", ""),
            ],  # type: ignore[list-item]
        )
        graph.set_links("http://a.test/b", [("http://a.test/d", "quay"), ("http://a.test/c", "sea")])
        graph.commit()
        nodes = graph.db.execute("SELECT url FROM nodes ORDER BY id").fetchall()
        texts = graph.db.execute("SELECT text FROM anchors ORDER BY id").fetchall()
        counts = sorted(graph.links())
    finally:
        graph.close()
    assert [url for (url,) in nodes] == [f"http://a.test/{name}" for name in ("", "c", "b", "d")]
    assert [text for (text,) in texts] == ["sea", "", "quay"]
    assert counts == sorted(
        [("http://a.test/", "http://a.test/c", "sea")] * 2
        + [("http://a.test/", "http://a.test/b", "")] * 2
        + [("http://a.test/b", "http://a.test/d", "quay"), ("http://a.test/b", "http://a.test/c", "sea")]
    )

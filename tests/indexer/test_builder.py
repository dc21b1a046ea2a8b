"""The indexer on a real Whoosh index and SQLite stores in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawler.datadir import graph_dir, index_dir, pages_path
from indexer.builder import IndexBuilder, IndexBusy
from indexer.graph import LinkGraph, pagerank
from indexer.layout import stored_documents
from indexer.store import PageStore
from search.engine import SearchEngine
from tests.items import duplicate, gone, page


def docs(data: Path) -> dict[str, dict]:
    return stored_documents(data)


def anchor_score(data: Path, url: str, query: str) -> float:
    """The part of ``url``'s score for ``query`` that its anchor text gives."""
    with SearchEngine(data) as engine:
        result = next(r for r in engine.search(query, n=50, explain=True).results if r.page == url)
        return float(result.explain["fields"].get("anchor", 0.0))


def test_pages_anchors_and_anchor_only_documents(tmp_path: Path) -> None:
    with IndexBuilder(tmp_path) as builder:
        builder.add(
            [
                page(
                    "http://a.test/",
                    "Home",
                    "Welcome",
                    [
                        ("http://a.test/json.html", "JSON encoder"),
                        ("http://a.test/private/ledger.html", "quarterly lighthouse ledger"),
                    ],
                ),
                page("http://a.test/json.html", "json", "Encode objects.", [("http://a.test/", "Home")]),
            ]
        )
        builder.commit()
        report = builder.finalize()
    assert (report.pages, report.anchor_only, report.documents) == (2, 1, 3)
    stored = docs(tmp_path)
    assert anchor_score(tmp_path, "http://a.test/json.html", "encoder") > 0
    assert stored["http://a.test/json.html"]["sources"] == 1
    ledger = stored["http://a.test/private/ledger.html"]
    assert ledger["label"] == "quarterly lighthouse ledger" and ledger["crawled"] is False
    assert stored["http://a.test/"]["crawled"] is True


def test_finalize_reindexes_only_documents_whose_anchors_changed(tmp_path: Path) -> None:
    with IndexBuilder(tmp_path) as builder:
        builder.add([page("http://a.test/b", "B")])  # indexed before anyone links to it
        builder.add([page("http://a.test/a", "A", links=[("http://a.test/b", "bee page")])])
        builder.commit()
        first = builder.finalize()
        second = builder.finalize()
    assert first.reindexed == 1  # b got its anchor text
    assert second.reindexed == 0
    assert anchor_score(tmp_path, "http://a.test/b", "bee") > 0


def test_aliases_lend_their_anchors_and_are_not_documents(tmp_path: Path) -> None:
    with IndexBuilder(tmp_path) as builder:
        builder.add(
            [
                page(
                    "http://a.test/",
                    "Home",
                    links=[
                        ("http://a.test/print/x.html", "printable article"),
                        ("http://a.test/old", "old address"),
                        ("http://a.test/missing", "broken link"),
                    ],
                ),
                page("http://a.test/x.html", "Article", "Body", aliases=["http://a.test/old"]),
                duplicate("http://a.test/print/x.html", "http://a.test/x.html"),
                gone("http://a.test/missing"),
            ]
        )
        builder.finalize()
    stored = docs(tmp_path)
    assert set(stored) == {"http://a.test/", "http://a.test/x.html"}
    assert stored["http://a.test/x.html"]["sources"] == 1  # the home page, through both aliases
    assert anchor_score(tmp_path, "http://a.test/x.html", "printable") > 0
    assert anchor_score(tmp_path, "http://a.test/x.html", "address") > 0


def test_pagerank_is_stored_and_favours_linked_pages(tmp_path: Path) -> None:
    hub = "http://a.test/hub"
    items = [page(f"http://a.test/{n}", f"P{n}", links=[(hub, "hub")]) for n in range(5)]
    items.append(page(hub, "Hub", links=[("http://a.test/0", "zero")]))
    with IndexBuilder(tmp_path) as builder:
        builder.add(items)
        builder.finalize()
    graph = LinkGraph(graph_dir(tmp_path), readonly=True)
    ranks = graph.pagerank_of([hub, "http://a.test/0", "http://a.test/4"])
    assert ranks[hub] > ranks["http://a.test/0"] > ranks["http://a.test/4"]
    assert graph.node_count() == 6


def test_pagerank_matches_the_paper_formula() -> None:
    # A three-page cycle plus a page pointing in: solved by hand.
    ranks = pagerank([("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")])
    n, d = 4, 0.85
    pr = {k: v * n for k, v in ranks.items()}  # the paper's scale: mean 1
    assert pr["d"] == pytest.approx(1 - d, rel=1e-6)
    assert pr["a"] == pytest.approx((1 - d) + d * (pr["c"] + pr["d"]), rel=1e-6)
    assert pr["b"] == pytest.approx((1 - d) + d * pr["a"], rel=1e-6)


def test_a_page_store_keeps_the_full_page_compressed(tmp_path: Path) -> None:
    text = "lighthouse " * 2000
    with IndexBuilder(tmp_path) as builder:
        builder.add([page("http://a.test/", "Home", text, headings=["H"])])
        builder.commit()
    with PageStore(pages_path(tmp_path), readonly=True) as store:
        stored = store.get("http://a.test/")
        assert stored["text"] == text and stored["headings"] == ["H"]
        assert stored["host"] == "a.test"
        (blob_size,) = store.db.execute("SELECT length(data) + length(text) FROM pages").fetchone()
    assert blob_size < len(text) / 20


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    with IndexBuilder(tmp_path) as first:
        first.add([page("http://a.test/", "Home")])
        with pytest.raises(IndexBusy, match="only one indexer"):
            IndexBuilder(tmp_path)
        first.commit()
    with IndexBuilder(tmp_path) as again:  # free once the first is closed
        again.add([page("http://a.test/x", "X")])


def test_the_same_url_twice_in_one_batch_is_one_document(tmp_path: Path) -> None:
    with IndexBuilder(tmp_path) as builder:
        builder.add([page("http://a.test/", "First"), page("http://a.test/", "Second")])
        builder.commit()
    stored = docs(tmp_path)
    assert len(stored) == 1 and stored["http://a.test/"]["title"] == "Second"


def test_segments_merged_answer_as_before_in_the_compact_format(tmp_path: Path) -> None:
    """Postings inlined in their term's entry survive Whoosh's merge of
    segments, and phrases, words and code names read them back."""
    items = [
        page(
            f"http://a.test/{n}",
            f"Harbour report {n}",
            f"The ferry timetable json.dumps number {n} and harbour{n % 7} notes. " * (1 + n % 3),
            links=[(f"http://a.test/{n + 1}", f"next {n}")],
        )
        for n in range(60)
    ]
    with IndexBuilder(tmp_path) as builder:
        for start in range(0, 60, 10):  # six segments, the small ones merged as they come
            builder.add(items[start : start + 10])
            builder.commit()
        builder.finalize()
    queries = ['"ferry timetable"', "harbour3", "json.dumps 17", "harbour", "report 42", "next 5"]

    def answers() -> list:
        with SearchEngine(tmp_path) as engine:
            # The set of pages found (a merge drops deleted documents, which
            # shifts the collection statistics and so the scores a little).
            return [sorted(r.url for r in engine.search(query, n=100).results) for query in queries]

    before = answers()
    assert all(before), before
    from whoosh import index

    for part in [*index_dir(tmp_path).glob("pages-*"), *index_dir(tmp_path).glob("anchors-*")]:
        ix = index.open_dir(str(part))
        ix.optimize()  # one segment: every posting read and written again
        ix.close()
    assert answers() == before


def test_a_finalize_of_the_changes_leaves_nothing_for_a_full_one(tmp_path: Path) -> None:
    """Anchor text tracked as pages arrive (links, pages crawled after their
    links, redirects, pages gone, a purge): the anchor documents finalize
    rewrites are exactly those a pass over every link would."""
    with IndexBuilder(tmp_path) as builder:
        builder.add([page("http://a.test/", "Home", "home", [("http://a.test/1", "first"), ("http://x.test/", "x")])])
        builder.commit()
        builder.flush_anchors()
        builder.add(
            [
                page("http://a.test/1", "One", "one", [("http://a.test/2", "second"), ("http://a.test/", "home")]),
                page("http://a.test/2", "Two", "two", [("http://a.test/1", "one again")]),
            ]
        )
        builder.finalize()
    with IndexBuilder(tmp_path) as builder:  # a later writer: the documents it found were complete
        builder.add([page("http://a.test/3", "Three", "three", [("http://a.test/2", "deux"), ("http://y.test/", "y")])])
        builder.commit()
        incremental = builder.finalize()
        assert incremental.reindexed >= 2 and incremental.anchor_only == 2
        assert builder.finalize(full=True).reindexed == 0


def test_with_writer_processes_anchor_documents_go_to_the_anchor_shard_of_their_url(tmp_path: Path) -> None:
    """The writer processes analyse the anchor documents too, each into the
    anchor shard of its URL's number: searchable once flushed (the
    indexer's idle moment), and finalize finds nothing left to rewrite."""
    from indexer.layout import shard_of

    linked = [f"http://a.test/{n}" for n in range(12)]
    with IndexBuilder(tmp_path, shards=2, processes=2) as builder:
        builder.add(
            [
                page(
                    "http://a.test/",
                    "Home",
                    "welcome",
                    [(url, f"lighthouse keeper {n}") for n, url in enumerate(linked)]
                    + [("http://x.test/", "harbour chart")],
                ),
                page("http://a.test/b", "B", "a page", [("http://a.test/", "home")]),
            ]
        )
        builder.commit()
        assert builder.flush_anchors() == 14
        with SearchEngine(tmp_path) as engine:
            assert [r.url for r in engine.search("harbour").results] == ["http://x.test/"]
        report = builder.finalize()
    assert report.reindexed == 0
    assert (report.pages, report.anchor_only) == (2, 13)
    from whoosh import index

    for number in range(2):
        with index.open_dir(str(index_dir(tmp_path) / f"anchors-{number}")).searcher() as searcher:
            urls = [stored["url"] for stored in searcher.all_stored_fields()]
        assert urls and all(shard_of(url, 2) == number for url in urls)


def test_anchor_text_only_members_pages_carry_is_marked_and_shown_as_theirs(tmp_path: Path) -> None:
    with IndexBuilder(tmp_path) as builder:
        builder.add(
            [
                page(
                    "http://a.test/members/",
                    "Members",
                    "For members.",
                    [("http://a.test/board.html", "board merger talks"), ("http://a.test/port.html", "harbour merger")],
                    members_only=True,
                ),
                page("http://a.test/", "Home", "Welcome", [("http://a.test/port.html", "port timetable")]),
            ]
        )
        builder.commit()
        builder.finalize()
    stored = docs(tmp_path)
    board, port = stored["http://a.test/board.html"], stored["http://a.test/port.html"]
    assert board["members_only"] is True and board["label"] == "board merger talks"
    assert not port.get("members_only") and port["linked"] == "port timetable"  # the public link's text only
    with SearchEngine(tmp_path, members_snippet="none") as engine:
        found = {r.page: r for r in engine.search("merger").results}
    assert found["http://a.test/board.html"].members_only and found["http://a.test/board.html"].snippet == ""
    assert "merger" not in found["http://a.test/port.html"].snippet  # found by it, never showing it
    with SearchEngine(tmp_path, members_snippet="short") as engine:
        board_result = next(r for r in engine.search("board merger").results if r.page == "http://a.test/board.html")
    assert board_result.snippet == "Not fetched; linked as: **board** **merger** talks"

"""Revisit state kept by the indexer, on a real page store and index in tmp_path."""

from __future__ import annotations

from pathlib import Path

from crawler.datadir import pages_path
from crawler.revisit import due_pages
from indexer.builder import IndexBuilder
from indexer.store import PageStore
from tests.items import gone as gone_item
from tests.items import page, unchanged

BOUNDS = [1000.0, 100.0, 100000.0]  # first interval, minimum, maximum


def _page(url: str, text: str, fetched: float, **extra) -> dict:
    return page(url, "T", text, fetched=fetched, digest=str(hash(text)), revisit=BOUNDS, **extra)


def test_intervals_follow_what_each_fetch_found_and_due_pages_are_listed(tmp_path: Path) -> None:
    a, b, c = "http://a.test/a", "http://a.test/b", "http://a.test/c"
    with IndexBuilder(tmp_path) as builder:
        builder.add([_page(a, "one", 0, etag='"a1"'), _page(b, "two", 0), _page(c, "three", 500)])
        builder.commit()
        builder.add(
            [
                unchanged(a, 1000, BOUNDS),  # a 304
                _page(b, "two", 1000),  # a 200 with the same text: unchanged too
                _page(c, "three, edited", 1500),
                unchanged("http://a.test/unknown", 1000, BOUNDS),
            ]
        )
        builder.commit()
    with PageStore(pages_path(tmp_path), readonly=True) as store:
        assert store.revisit(a) == {
            "etag": '"a1"',
            "last_modified": None,
            "digest": str(hash("one")),
            "fetched": 1000,
            "interval": 2000,
            "due": 3000,
        }
        assert store.revisit(b)["interval"] == 2000
        assert store.revisit(c)["interval"] == 500
        assert store.revisit("http://a.test/unknown") is None
        assert [row[0] for row in due_pages(store.db, 2500)] == [c]
        assert [row[0] for row in due_pages(store.db, None)] == [c, a, b]


def test_gone_and_moved_pages_are_not_revisited(tmp_path: Path) -> None:
    old, new, gone = "http://a.test/old", "http://a.test/new", "http://a.test/gone"
    with IndexBuilder(tmp_path) as builder:
        builder.add([_page(old, "moved", 0, links=[("http://a.test/x", "x")]), _page(gone, "bye", 0)])
        builder.commit()
        builder.add([_page(new, "moved", 10, aliases=[old]), gone_item(gone)])
        builder.commit()
        assert [link[:2] for link in builder.graph.links()] == []  # neither left links behind
    with PageStore(pages_path(tmp_path), readonly=True) as store:
        assert [row[0] for row in due_pages(store.db, None)] == [new]
        assert store.urls() == {new}

"""A data directory written before pages could be members-only, or had a
type and size: search reads it, the indexer extends it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from crawler.datadir import pages_path
from indexer import schema as fields
from indexer import store as store_module
from indexer.builder import IndexBuilder
from indexer.layout import Layout, stored_documents
from indexer.store import PageStore
from search.engine import SearchEngine
from tests.items import page


def _old_data_dir(data: Path) -> None:
    """An index and page store as the version before the members-only mark wrote them."""
    old_schema = fields.schema()
    for name in (fields.MEMBERS_ONLY, fields.TYPE, fields.SIZE, fields.ACCESS):
        old_schema.remove(name)
    pages, anchors = Layout(data).create(old_schema, 1)
    writer = pages[0].writer()
    writer.add_document(url="http://old.test/", host="old.test", title="Old harbour page", crawled=True)
    writer.commit()
    for index in (*pages, *anchors):
        index.close()
    layout = Layout(data)  # and one anchor index, as that version kept them
    layout.anchor_dir(0).rename(layout.old_anchors)
    db = sqlite3.connect(pages_path(data))
    old_tables = store_module._SCHEMA
    for name, definition in store_module._ADDED_COLUMNS:
        old_tables = old_tables.replace(f",\n    {name} {definition}", "")
    assert "members_only" not in old_tables and "size" not in old_tables
    db.executescript(old_tables)
    db.execute(
        "INSERT INTO pages VALUES ('http://old.test/', 'old.test', 'Old harbour page', '', 200, 0, 0, ?)",
        (b"x\x9c\xab\xae\x05\x00\x01u\x00\xf9",),
    )  # zlib of "{}"
    db.commit()
    db.close()


def test_an_older_store_and_index_are_read_and_then_extended(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _old_data_dir(data)
    layout = Layout(data)
    with PageStore(pages_path(data), readonly=True) as store:  # search, before any indexer ran
        assert store.get("http://old.test/") == {
            "url": "http://old.test/",
            "host": "old.test",
            "title": "Old harbour page",
            "lang": "",
            "status": 200,
            "depth": 0,
            "fetched": 0,
        }
    with SearchEngine(data) as engine:
        old = engine.search("harbour")
        assert old.results[0].members_only is False
        assert (old.results[0].type, old.results[0].size) == ("", None)  # shown without them
        assert "type" not in old.facets or old.facets["type"] == []
        assert engine.search("harbour type:pdf").total == 0
        assert engine.search("harbour -type:pdf").total == 1
    with IndexBuilder(data) as builder:
        assert not layout.old_anchors.exists() and layout.anchor_dirs() == [layout.anchor_dir(0)]
        builder.add(
            [
                page(
                    "http://new.test/members/q3.html",
                    "Members harbour report",
                    "Revenue grew.",
                    members_only=True,
                    kind="pdf",
                    size=2048,
                )
            ]
        )
        builder.finalize()
    documents = stored_documents(data)
    assert documents["http://new.test/members/q3.html"]["members_only"] is True
    assert "members_only" not in documents["http://old.test/"]
    with PageStore(pages_path(data), readonly=True) as store:
        assert store.get("http://new.test/members/q3.html")["members_only"] is True
        assert "members_only" not in store.get("http://old.test/")
    with SearchEngine(data) as engine:
        marks = {result.url: result.members_only for result in engine.search("harbour").results}
    assert marks == {"http://new.test/members/q3.html": True, "http://old.test/": False}
    with SearchEngine(data) as engine:
        both = engine.search("harbour")
        assert both.facets["type"] == [{"value": "pdf", "count": 1}]
        assert both.facets["access"] == [{"value": "members", "count": 1}]
        assert [r.url for r in engine.search("harbour type:pdf").results] == ["http://new.test/members/q3.html"]
        assert [r.url for r in engine.search("harbour -access:members").results] == ["http://old.test/"]
        assert {r.url: (r.type, r.size) for r in both.results} == {
            "http://new.test/members/q3.html": ("pdf", 2048),
            "http://old.test/": ("", None),
        }

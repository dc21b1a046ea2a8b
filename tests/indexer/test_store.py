"""The page store's text column: written by the indexer, read by search,
and stores from before it read as they were, then extended by the writer."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import zlib
from pathlib import Path

from crawler.datadir import pages_path
from indexer.builder import IndexBuilder
from indexer.store import PageStore
from search.engine import SearchEngine
from tests.items import page

_PAGES = [
    page(
        "http://a.test/",
        "Harbour guide",
        "The harbour opens at dawn. Boats leave the harbour at noon, and the lighthouse keeper logs every boat.",
        headings=["Opening hours"],
        sections=[["hours", "Opening hours"]],
        links=[("http://a.test/tides", "tide tables")],
    ),
    page(
        "http://a.test/tides",
        "Tide tables",
        "High water at the harbour wall comes twice a day; the tide tables list both.",
        links=[("http://a.test/", "harbour guide")],
    ),
    page("http://b.test/", "Lighthouse 灯塔", "灯塔 lighthouse keeper notes: the lamp is lit at dusk."),
]
_QUERIES = ["harbour", "lighthouse keeper", '"tide tables"', "灯塔", "harbour -boats"]


def _answers(data: Path) -> str:
    with SearchEngine(data) as engine:
        return json.dumps([engine.search(query, explain=True).to_json(explain=True) for query in _QUERIES])


def _written(data: Path) -> None:
    with IndexBuilder(data) as builder:
        builder.add(_PAGES)
        builder.finalize()


def _as_before_the_text_column(data: Path) -> None:
    """Each page's text back in its data, and the text column gone, as stores were before it."""
    db = sqlite3.connect(pages_path(data))
    for url, blob, text in db.execute("SELECT url, data, text FROM pages").fetchall():
        fields = json.loads(zlib.decompress(blob))
        fields["text"] = zlib.decompress(text).decode()
        db.execute(
            "UPDATE pages SET data = ? WHERE url = ?",
            (zlib.compress(json.dumps(fields, ensure_ascii=False).encode(), 3), url),
        )
    db.execute("ALTER TABLE pages DROP COLUMN text")
    db.commit()
    db.close()


def test_the_text_is_kept_in_its_own_column_and_read_back(tmp_path: Path) -> None:
    _written(tmp_path)
    with PageStore(pages_path(tmp_path), readonly=True) as store:
        blob, text = store.db.execute("SELECT data, text FROM pages WHERE url = 'http://a.test/'").fetchone()
        assert "text" not in json.loads(zlib.decompress(blob))
        assert zlib.decompress(text).decode() == _PAGES[0]["text"]
        assert store.get("http://a.test/")["text"] == _PAGES[0]["text"]
        assert store.bodies(["http://a.test/", "http://b.test/", "http://c.test/"]) == {
            "http://a.test/": (_PAGES[0]["text"], [["hours", "Opening hours"]]),
            "http://b.test/": (_PAGES[2]["text"], []),
        }
        assert [stored["text"] for stored in store.pages()] == [item["text"] for item in _PAGES]
    db = sqlite3.connect(pages_path(tmp_path))  # sections stored before their column (in the data), the text after its
    (blob,) = db.execute("SELECT data FROM pages WHERE url = 'http://a.test/'").fetchone()
    fields = {**json.loads(zlib.decompress(blob)), "sections": [["hours", "Opening hours"]]}
    db.execute(
        "UPDATE pages SET sections = NULL, data = ? WHERE url = 'http://a.test/'",
        (zlib.compress(json.dumps(fields).encode()),),
    )
    db.commit()
    db.close()
    with PageStore(pages_path(tmp_path), readonly=True) as store:
        assert store.bodies(["http://a.test/"]) == {"http://a.test/": (_PAGES[0]["text"], [["hours", "Opening hours"]])}
        assert store.sections(["http://a.test/", "http://b.test/"]) == {
            "http://a.test/": [["hours", "Opening hours"]],
            "http://b.test/": [],
        }


def test_a_page_without_text_keeps_saying_so(tmp_path: Path) -> None:
    with PageStore(pages_path(tmp_path)) as store:
        store.put({"url": "http://a.test/", "title": "No text", "text": None}, "a.test")
        store.commit()
        assert store.get("http://a.test/")["text"] is None
        assert store.bodies(["http://a.test/"]) == {"http://a.test/": ("", [])}


def test_a_store_from_before_the_text_column_answers_the_same_then_is_extended(tmp_path: Path) -> None:
    new, old = tmp_path / "new", tmp_path / "old"
    _written(new)
    shutil.copytree(new, old)
    _as_before_the_text_column(old)
    with PageStore(pages_path(old), readonly=True) as store:  # search, before any indexer ran
        assert "text" not in {row[1] for row in store.db.execute("PRAGMA table_info(pages)")}
        assert store.get("http://a.test/")["text"] == _PAGES[0]["text"]
        assert store.bodies(["http://a.test/"]) == {"http://a.test/": (_PAGES[0]["text"], [["hours", "Opening hours"]])}
    assert "harbour" in _answers(new)
    assert _answers(old) == _answers(new)
    with IndexBuilder(old) as builder:  # the writer adds the column; older rows keep their text in their data
        builder.add([page("http://c.test/", "Harbour cafe", "Tea by the harbour.")])
        builder.commit()
    with PageStore(pages_path(old), readonly=True) as store:
        rows = dict(store.db.execute("SELECT url, text IS NOT NULL FROM pages").fetchall())
        assert rows == {"http://a.test/": 0, "http://a.test/tides": 0, "http://b.test/": 0, "http://c.test/": 1}
        assert store.bodies(["http://a.test/", "http://c.test/"]) == {
            "http://a.test/": (_PAGES[0]["text"], [["hours", "Opening hours"]]),
            "http://c.test/": ("Tea by the harbour.", []),
        }
        assert store.get("http://b.test/")["text"] == _PAGES[2]["text"]


def test_the_page_store_keeps_a_page_without_its_links_and_reads_it_back(tmp_path: Path) -> None:
    item = page(
        "http://a.test/",
        "Harbour",
        "The harbour office opens at dawn.",
        [("http://a.test/tides", "tide tables")],
        headings=["Hours"],
        sections=[["hours", "Hours"]],
        description="Notices",
    )
    with IndexBuilder(tmp_path) as builder:
        builder.add([item])
        builder.commit()
    with PageStore(pages_path(tmp_path), readonly=True) as store:
        stored = store.get("http://a.test/")
    assert stored is not None and "links" not in stored
    assert (stored["title"], stored["text"], stored["headings"], stored["sections"], stored["description"]) == (
        "Harbour",
        "The harbour office opens at dawn.",
        ["Hours"],
        [["hours", "Hours"]],
        "Notices",
    )


def test_pages_of_a_few_kilobytes_share_the_stores_pages(tmp_path: Path) -> None:
    """A page's text compressed to some 3 KB: one row filled a 4 KiB page of
    SQLite and left the rest of it empty."""
    rng = random.Random(7)
    pages = [
        page(f"http://a.test/{k}", f"Page {k}", "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(4700)))
        for k in range(100)
    ]
    with IndexBuilder(tmp_path) as builder:
        builder.add(pages)
        builder.commit()
    with PageStore(pages_path(tmp_path), readonly=True) as store:
        (text_bytes,) = store.db.execute("SELECT sum(length(text)) FROM pages").fetchone()
        (table_bytes,) = store.db.execute("SELECT sum(pgsize) FROM dbstat WHERE name = 'pages'").fetchone()
        assert [stored["text"] for stored in store.pages()] == [
            p["text"] for p in sorted(pages, key=lambda p: p["url"])
        ]
    assert 2500 < text_bytes / 100 < 3000
    assert table_bytes / 100 < 3600  # 4,096 a page when each took a page of SQLite's of its own

"""What the indexer holds in memory stays bounded as the crawl grows."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer import builder as builder_module
from indexer.builder import IndexBuilder
from search.engine import SearchEngine
from tests.items import duplicate, gone, page

SOURCES = 30
TARGETS = 200
CHUNK = 20


def _crawl(builder: IndexBuilder) -> None:
    """``SOURCES`` pages, each linking to the same ``TARGETS`` pages never
    fetched (and to each other), then a redirect and a page gone among them."""
    targets = [(f"http://x.test/{n}", f"target {n}") for n in range(TARGETS)]
    builder.add(
        page(f"http://a.test/{n}", f"Page {n}", "text", [*targets, (f"http://a.test/{n + 1}", "next")])
        for n in range(SOURCES)
    )
    builder.add([duplicate("http://x.test/1", of="http://x.test/0"), gone("http://x.test/2")])
    builder.commit()


def test_anchor_documents_are_rewritten_from_a_bounded_share_of_the_links_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beside a crawl, the URLs whose anchor documents are due are most of
    the web: their inbound links are read a chunk of URLs at a time (not all
    of them at once; the store's pages once, not for each chunk), and the
    documents are those a pass over every link writes."""
    monkeypatch.setattr(builder_module, "_ANCHOR_CHUNK", CHUNK, raising=False)
    with IndexBuilder(tmp_path) as builder:
        _crawl(builder)
        read: list[int] = []
        inbound = builder.graph.inbound
        monkeypatch.setattr(builder.graph, "inbound", lambda urls: read.append(len(rows := inbound(urls))) or rows)
        every_page = builder.store.urls
        listed: list[int] = []
        monkeypatch.setattr(builder.store, "urls", lambda: listed.append(1) or every_page())

        assert builder.flush_anchors() == TARGETS + SOURCES - 2  # an alias and a gone page have none
        assert sum(read) >= SOURCES * TARGETS
        assert max(read) <= CHUNK * (SOURCES + 1)
        assert len(listed) == 1
        assert builder.finalize(full=True).reindexed == 0  # nothing left that a full pass would write
    with SearchEngine(tmp_path) as engine:
        assert [r.url for r in engine.search('"target 7"').results] == ["http://x.test/7"]
        assert [r.url for r in engine.search('"target 1"').results] == ["http://x.test/0"]  # its alias's text
        assert engine.search('"target 2"').results == []

"""A page's document deleted in the batch that wrote it leaves the index.

A shard's writer deletes only committed documents: a page that becomes a
copy (or gone) in the batch that indexed it is deleted again once the batch
is committed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.builder import IndexBuilder
from indexer.layout import stored_documents
from search.engine import SearchEngine
from tests.items import duplicate, gone, page

D = "http://d.test"


@pytest.mark.parametrize("batches", [1, 2], ids=["one batch", "two batches"])
def test_the_indexer_makes_the_first_url_an_alias_and_keeps_the_new_page(tmp_path: Path, batches: int) -> None:
    # In one batch, the first URL's document is not yet committed when it becomes a copy.
    with IndexBuilder(tmp_path) as builder:
        builder.add([page(f"{D}/da/faq/", "The FAQ", "quokka answers", lang="en")])
        if batches == 2:
            builder.commit()
        builder.add([page(f"{D}/faq/", "The FAQ", "quokka answers", lang="en"), duplicate(f"{D}/da/faq/", f"{D}/faq/")])
        builder.add([page(f"{D}/x", "X", "gone at once"), gone(f"{D}/x")])
        builder.add([page(f"{D}/y", "Y", "y"), duplicate(f"{D}/y", f"{D}/faq/"), page(f"{D}/y", "Y", "changed")])
        builder.commit()
        builder.finalize()
    indexed = {url for url, fields in stored_documents(tmp_path).items() if fields.get("crawled")}
    assert indexed == {f"{D}/faq/", f"{D}/y"}
    with SearchEngine(tmp_path) as engine:
        assert [result.url for result in engine.search("quokka").results] == [f"{D}/faq/"]

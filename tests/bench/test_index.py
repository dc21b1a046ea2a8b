"""The indexing benchmark compares like with like: the plain Whoosh writer
commits as often as ours does, and indexes the same pages."""

from __future__ import annotations

from pathlib import Path

from whoosh import index

from bench.index import ours, plain
from crawler.datadir import index_dir
from indexer.layout import Layout
from tests.items import page


def _pages(count: int) -> list[dict[str, object]]:
    return [
        dict(
            page(
                f"http://docs.test/{n}.html", f"Page {n}", f"Text of page number {n}.", [("http://docs.test/", "Home")]
            )
        )
        for n in range(count)
    ]


def test_plain_whoosh_commits_a_segment_per_batch_as_ours_does(tmp_path: Path) -> None:
    items = _pages(5)
    plain(items, tmp_path / "plain", batch_size=2)
    ours(items, tmp_path / "ours", batch_size=2)
    plain_segments = index.open_dir(str(tmp_path / "plain")).reader().leaf_readers()
    ours_index = Layout(tmp_path / "ours").shard_dir(0)
    ours_segments = index.open_dir(str(ours_index)).reader().leaf_readers()
    assert [reader.doc_count() for reader, _ in plain_segments] == [2, 2, 1]
    assert [reader.doc_count() for reader, _ in ours_segments] == [2, 2, 1]
    assert index_dir(tmp_path / "ours").is_dir()

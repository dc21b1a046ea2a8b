"""A damaged index or page store: one line saying what and how to repair it, and the repair works."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from whoosh import index as whoosh_index
from whoosh.codec.whoosh3 import WHOOSH3_HEADER_MAGIC

from crawler.datadir import index_dir, pages_path
from tests.commands import run


def _cut_a_segment(data: Path) -> None:
    segment = max((index_dir(data) / "pages-0").glob("*.seg"), key=lambda path: path.stat().st_size)
    os.truncate(segment, segment.stat().st_size // 2)  # as a full disk or a killed copy leaves it


def _overwrite_the_page_store(data: Path) -> None:
    with open(pages_path(data), "r+b") as store:
        store.write(b"not a database " * 100)


def _lose_a_table_of_contents(data: Path) -> None:
    for toc in (index_dir(data) / "pages-0").glob("*.toc"):
        toc.unlink()


def _overwrite_a_table_of_contents(data: Path) -> None:
    for toc in (index_dir(data) / "pages-0").glob("*.toc"):
        toc.write_bytes(b"\x00garbage" * 20)


@pytest.mark.parametrize(
    "damage", [_cut_a_segment, _overwrite_the_page_store, _lose_a_table_of_contents, _overwrite_a_table_of_contents]
)
def test_a_damaged_file_is_one_line_naming_the_repair(
    demo_crawl, tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    web, data, _ = demo_crawl
    copy = tmp_path / "data"
    shutil.copytree(data, copy, ignore=shutil.ignore_patterns("redis"))
    damage(copy)
    done = run("search", "--data", str(copy), web.facts["chinese_title"]["title"])
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert (
        f"is damaged; rebuild the index from the crawl's archive: python -m indexer rebuild --data {copy}"
        in done.stderr
    )
    assert "being built" not in done.stderr and "architecture" not in done.stderr.split("damaged")[1]
    rebuilt = run("indexer", "rebuild", "--data", str(copy), timeout=300)
    assert rebuilt.returncode == 0, rebuilt.stderr[-2000:]
    again = run("search", "--data", str(copy), "--json", web.facts["chinese_title"]["title"])
    assert again.returncode == 0 and web.facts["chinese_title"]["url"] in again.stdout


def test_an_overwritten_posting_list_is_one_line_naming_the_repair(demo_crawl, tmp_path: Path) -> None:
    """Bytes overwritten where a posting list starts (Whoosh's own reader
    raises a bare Exception there): the search of a word whose postings are
    there says the index is damaged, in one line."""
    _, data, _ = demo_crawl
    copy = tmp_path / "data"
    shutil.copytree(data, copy, ignore=shutil.ignore_patterns("redis"))
    with whoosh_index.open_dir(str(index_dir(copy) / "pages-0")).reader() as reader:
        word = next(
            term.decode() for _, term in reader.most_frequent_terms("body", 20) if term.isalpha() and len(term) > 4
        )
    for segment in (index_dir(copy) / "pages-0").glob("*.seg"):
        segment.write_bytes(segment.read_bytes().replace(WHOOSH3_HEADER_MAGIC, b"W3Xx"))
    done = run("search", "--data", str(copy), word)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert (
        f"is damaged; rebuild the index from the crawl's archive: python -m indexer rebuild --data {copy}"
        in done.stderr
    )

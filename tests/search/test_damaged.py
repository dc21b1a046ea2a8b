"""A damaged index or page store: one line saying what and how to repair it, and the repair works."""

from __future__ import annotations

import html
import json
import os
import random
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from whoosh import index as whoosh_index
from whoosh.codec.whoosh3 import WHOOSH3_HEADER_MAGIC

from crawler.datadir import index_dir, pages_path
from search.engine import SearchEngine, SearchError
from tests.commands import run
from tests.search.test_web import _get, serving

REPAIR = "is damaged; rebuild the index from the crawl's archive: python -m indexer rebuild --data"


def _copy(data: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(data, copy, ignore=shutil.ignore_patterns("redis"))
    with sqlite3.connect(pages_path(copy)) as db:  # every commit in the file itself, none in a log beside it
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return copy


def _one_line(done, copy: Path, logged: bool = False) -> str:
    """The one line a damaged file gets (the last, after the log of a
    command that logs its work): no traceback, the repair named."""
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr and lines and (logged or len(lines) == 1), done.stderr[-3000:]
    assert f"{REPAIR} {copy}" in lines[-1] and all(line.isprintable() for line in lines)
    return lines[-1]


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


def _spoil(path: Path, old: bytes, new: bytes) -> None:
    """Bytes changed in place, as a bad sector or a stray write leaves a file: same length."""
    data = path.read_bytes()
    assert len(old) == len(new) and old in data
    path.write_bytes(data.replace(old, new))


def test_damage_inside_a_segments_stored_fields_is_one_line_in_search_and_when_a_server_starts(
    demo_crawl, tmp_path: Path
) -> None:
    """A title's first byte overwritten inside a document's stored fields
    (they are pickled): they no longer unpickle, and a server reads every
    document's before it serves."""
    web, data, _ = demo_crawl
    copy = _copy(data, tmp_path)
    title = web.facts["chinese_title"]["title"].encode()
    segments = [path for path in index_dir(copy).glob("pages-*/*.seg") if title in path.read_bytes()]
    assert segments
    for segment in segments:
        _spoil(segment, title, b"\xff" + title[1:])
    done = run("search", "--data", str(copy), web.facts["chinese_title"]["title"])
    assert done.returncode == 2
    assert "stored fields" in _one_line(done, copy)
    server = run("search.web", "--data", str(copy), "--port", "0", timeout=60)
    assert server.returncode == 2
    _one_line(server, copy)


def _spoil_the_page_store(copy: Path) -> tuple[str, str]:
    """The docs site's sections (JSON) no longer parse, and one page's title is
    no longer UTF-8. Returns that page's URL and a query that finds it."""
    with sqlite3.connect(pages_path(copy)) as db:
        url, title, sections = db.execute(
            "SELECT url, title, sections FROM pages WHERE url LIKE '%/library/json.html'"
        ).fetchone()
    if isinstance(sections, bytes):  # compressed: a byte of it changed
        middle = len(sections) // 2
        _spoil(
            pages_path(copy), sections, sections[:middle] + bytes([sections[middle] ^ 0x5A]) + sections[middle + 1 :]
        )
    else:
        _spoil(pages_path(copy), sections.encode(), b"{" + sections.encode()[1:])
    _spoil(pages_path(copy), title.encode(), b"\xff" + title.encode()[1:])
    return url, "json encoder"


def test_damage_inside_the_page_store_is_one_line_in_search_and_503_on_the_web(
    demo_crawl, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _, data, _ = demo_crawl
    copy = _copy(data, tmp_path)
    url, query = _spoil_the_page_store(copy)
    done = run("search", "--data", str(copy), query)
    assert done.returncode == 2
    _one_line(done, copy)
    server = serving(copy, tmp_path_factory)
    base = next(server)
    try:
        status, headers, body = _get(f"{base}api/search?q={query.replace(' ', '+')}")
        assert status == 503 and headers["Content-Type"].startswith("application/json")
        assert f"{REPAIR} {copy}" in json.loads(body)["error"]
        status, _, body = _get(f"{base}?q={query.replace(' ', '+')}")
        assert status == 503 and html.escape(REPAIR) in body.decode()
        status, _, body = _get(f"{base}cached?url={url}")
        assert status == 503 and html.escape(REPAIR) in body.decode()
        status, _, _ = _get(f"{base}api/search?q=harbour")  # what the damage does not touch is still served
        assert status == 200
    finally:
        server.close()


def test_damage_inside_the_page_store_is_one_line_from_the_indexer(demo_crawl, tmp_path: Path) -> None:
    """The page store cut in half (its header intact): finalize and purge read
    what is gone; they say so in one line, not a traceback."""
    web, data, _ = demo_crawl
    copy = _copy(data, tmp_path)
    os.truncate(pages_path(copy), pages_path(copy).stat().st_size // 2)
    for command in (["finalize"], ["purge", web.facts["chinese_title"]["url"]], ["stats"]):
        done = run("indexer", "--data", str(copy), *command, timeout=120)
        assert done.returncode == 2, command
        assert "the page store" in _one_line(done, copy, logged=True), command


def test_bytes_changed_anywhere_in_a_segment_or_the_page_store_answer_or_name_the_repair(
    demo_crawl, tmp_path: Path
) -> None:
    """16 bytes overwritten at 40 places of the page shard and 20 of the page
    store, each searched three ways: each search answers, or raises the one
    error naming the repair; none raises anything else."""
    _, data, _ = demo_crawl
    source = _copy(data, tmp_path / "source")
    rng = random.Random(34)
    outcomes: dict[str, int] = {"answered": 0, "damaged": 0}
    for number in range(60):
        copy = tmp_path / str(number)
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("archive"))
        target = next((index_dir(copy) / "pages-0").glob("*.seg")) if number < 40 else pages_path(copy)
        with open(target, "r+b") as stream:
            stream.seek(rng.randrange(target.stat().st_size - 16))
            stream.write(rng.randbytes(16))
        try:
            with SearchEngine(copy) as engine:
                engine.warm()
                for query in ("harbour", "json encoder", "西湖龙井"):
                    engine.search(query)
            outcomes["answered"] += 1
        except SearchError as exc:
            assert f"{REPAIR} {copy}" in str(exc)
            outcomes["damaged"] += 1
        shutil.rmtree(copy)
    assert outcomes["damaged"] > 0, outcomes

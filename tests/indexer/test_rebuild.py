"""`python -m indexer rebuild`: the index made again from the crawl's archive alone.

The demo web is crawled once for the session (tests/conftest.py) and its
servers are stopped before any rebuild runs, so a rebuild that fetched
anything would fail. The data directory is copied with its archive only:
no index, no page store, no Redis.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator
from whoosh import index as whoosh_index

from crawler.archive import scan
from crawler.datadir import archive_dir, index_dir, pages_path, redis_dir
from indexer.layout import shard_of
from indexer.store import PageStore
from search.engine import SearchEngine
from tests.commands import run
from tests.demoweb import DemoWeb


def queries(web: DemoWeb) -> list[str]:
    """Twenty varied queries: English, Chinese, code names, anchor-only pages, syntax."""
    return [
        "json encoder",
        "read_csv",
        "JSONEncoder",
        "json.dumps",
        "Kestrel",
        web.facts["chinese_title"]["title"],
        "龙井",
        "端午节 粽子",
        "春节",
        web.facts["anchor_only"]["anchor"],
        "lighthouse inspection",
        "tidal energy trial",
        "site:127.0.0.1 json",
        "harbour site:127.0.0.1",
        '"json module"',
        "lighthouse OR harbour",
        "lighthouse -storm",
        "title:json",
        "village market",
        "harbor",
    ]


def answers(data: Path, texts: list[str]) -> list[tuple[int, list[str], list[str]]]:
    """Per query: the total, the result URLs in order (first two pages), their titles."""
    found = []
    with SearchEngine(data) as engine:
        for query in texts:
            first, second = engine.search(query, n=10), engine.search(query, n=10, page=2)
            results = [*first.results, *second.results]
            found.append((first.total, [r.url for r in results], [r.title for r in results]))
    return found


def archive_only(source: Path, target: Path) -> Path:
    target.mkdir()
    shutil.copytree(archive_dir(source), archive_dir(target))
    return target


@pytest.fixture(scope="module")
def rebuilt(demo_crawl, tmp_path_factory: pytest.TempPathFactory):
    web, data, _ = demo_crawl
    copy = archive_only(data, tmp_path_factory.mktemp("rebuild") / "data")
    requests_before = len(web.requests)
    done = run("indexer", "rebuild", "--data", str(copy), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(web.requests) == requests_before
    return web, data, copy, done.stderr


def test_a_rebuild_from_the_archive_answers_20_queries_exactly_like_the_original_index(rebuilt) -> None:
    web, data, copy, _ = rebuilt
    texts = queries(web)
    assert len(texts) == 20
    original, again = answers(data, texts), answers(copy, texts)
    for text, before, after in zip(texts, original, again, strict=False):
        assert after == before, text
    assert [text for text, (total, _, _) in zip(texts, original, strict=False) if not total] == []


def test_the_rebuild_reports_what_it_read(rebuilt) -> None:
    _, _, copy, log = rebuilt
    assert "Index rebuilt from" in log and "0 skipped" in log
    assert not redis_dir(copy).exists()  # no Redis was started
    assert not list(copy.glob(".rebuild*"))  # the work directory is gone


def test_a_cut_off_last_record_and_a_corrupt_file_are_skipped_and_counted(demo_crawl, tmp_path: Path) -> None:
    web, data, _ = demo_crawl
    copy = archive_only(data, tmp_path / "data")
    (warc,) = sorted(archive_dir(copy).glob("*.warc.gz"))
    with open(warc, "rb") as stream:
        iterator = ArchiveIterator(stream)
        last = None
        for record in iterator:
            if record.rec_type == "response":
                last = (iterator.get_record_offset(), record.rec_headers.get_header("WARC-Target-URI"))
    assert last is not None
    offset, _ = last
    with open(warc, "r+b") as stream:  # as a crawl killed while writing its last record leaves it
        stream.truncate(offset + 200)
    (archive_dir(copy) / "lantern-20000101000000000000-elsewhere-1-00000.warc.gz").write_bytes(
        b"\x1f\x8b\x08\x00 not really a WARC file" * 10
    )
    done = run("indexer", "rebuild", "--data", str(copy), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 skipped" in done.stderr
    # Each file named in its warning; what warcio makes of the cut (a record
    # cut short, unreadable bytes, a request without its response) depends
    # on where in the last record the cut falls.
    skips = [line for line in done.stderr.splitlines() if "WARNING" in line and "Skipping" in line]
    assert any(warc.name in line for line in skips), skips
    assert any("elsewhere" in line for line in skips), skips
    with SearchEngine(copy) as engine:
        assert engine.search(web.facts["chinese_title"]["title"]).results[0].url == web.facts["chinese_title"]["url"]


def test_a_rebuild_replaces_an_existing_index_and_nothing_to_rebuild_is_an_error(rebuilt, tmp_path: Path) -> None:
    web, _, copy, _ = rebuilt
    before = answers(copy, queries(web)[:3])
    done = run("indexer", "rebuild", "--data", str(copy), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert answers(copy, queries(web)[:3]) == before
    empty = run("indexer", "rebuild", "--data", str(tmp_path))
    assert empty.returncode == 2
    assert "nothing to rebuild" in empty.stderr


def test_three_shards_written_by_two_processes_answer_exactly_like_one_index(rebuilt, tmp_path: Path) -> None:
    web, data, _, _ = rebuilt
    copy = archive_only(data, tmp_path / "data")
    done = run("indexer", "rebuild", "--data", str(copy), "--shards", "3", "--processes", "2", timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "written by 2 processes" in done.stderr
    assert len(list(index_dir(copy).glob("pages-*"))) == 3
    for number in range(3):  # anchor documents in shards too, each in its URL's
        with whoosh_index.open_dir(str(index_dir(copy) / f"anchors-{number}")).searcher() as searcher:
            urls = [stored["url"] for stored in searcher.all_stored_fields()]
        assert urls and all(shard_of(url, 3) == number for url in urls)
    texts = queries(web)
    for text, before, after in zip(texts, answers(data, texts), answers(copy, texts), strict=False):
        assert after == before, text
    with SearchEngine(data) as one, SearchEngine(copy) as three:  # the same scores, not only the order
        for text in texts[:5]:
            assert [round(r.score, 6) for r in three.search(text).results] == [
                round(r.score, 6) for r in one.search(text).results
            ], text


def test_a_damaged_record_costs_its_page_alone_and_a_smaller_index_replaces_the_old_only_when_forced(
    demo_crawl, tmp_path: Path
) -> None:
    """64 bytes overwritten inside one page's response record, as a bad disk
    sector would: the rebuild reads every other record, names the damage
    (its bytes escaped), keeps the old index and says how to force it."""
    _, data, _ = demo_crawl
    copy = tmp_path / "data"
    shutil.copytree(data, copy, ignore=shutil.ignore_patterns("redis"))
    with PageStore(pages_path(copy), readonly=True) as store:
        pages = store.urls()
        alone = pages - set(store.aliases().values())  # no duplicate to stand for it once it is lost
    (warc,) = sorted(archive_dir(copy).glob("*.warc.gz"))
    responses = [
        (start, end, record.rec_headers.get_header("WARC-Target-URI"))
        for start, end, record in scan(warc)
        if record.rec_type == "response"
    ]
    start, end, url = next(found for found in responses[len(responses) // 2 :] if found[2] in alone)
    with open(warc, "r+b") as stream:
        stream.seek((start + end) // 2)
        stream.write(b"\x1b[2J\x07\x00" * 16)  # a terminal's escape codes among them

    kept = run("indexer", "rebuild", "--data", str(copy), timeout=300)
    assert kept.returncode != 0
    assert kept.stderr.strip().splitlines()[-1] == (
        f"indexer: the rebuilt index would hold {len(pages) - 1:,} pages, the one in {copy} holds {len(pages):,}; "
        "1 damaged stretch of the archive "
        f"({end - start:,} bytes) skipped, each named above: the old index is kept; "
        f"to replace it anyway: python -m indexer rebuild --data {copy} --force"
    )
    assert f"damaged bytes at offset {start:,} (response record for {url};" in kept.stderr
    assert all(line.isprintable() for line in kept.stderr.splitlines())  # what is shown of the bytes, escaped
    with PageStore(pages_path(copy), readonly=True) as store:
        assert store.urls() == pages

    forced = run("indexer", "rebuild", "--data", str(copy), "--force", timeout=300)
    assert forced.returncode == 0, forced.stderr[-3000:]
    with PageStore(pages_path(copy), readonly=True) as store:
        assert store.urls() == pages - {url}

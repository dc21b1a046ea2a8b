"""The index beside each WARC file: written as the crawl writes, read by
search before the file, which is then read only where the index ends; an
index cut short, missing or behind its file never costs a cached copy nor
gives a wrong one."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import crawler.archive_index
from crawler.archive import ArchiveReader, ArchiveWriter, Damage, Fetch, index_of
from crawler.datadir import archive_dir
from search.cached import ArchiveIndex, read_copy


class Scanned:
    """The records :func:`crawler.archive.scan` yields to search's readings: what search read of the files."""

    def __init__(self) -> None:
        self.records = 0

    def wrap(self, scan):  # type: ignore[no-untyped-def]
        def counted(path: Path, start: int = 0) -> Iterator[object]:
            for entry in scan(path, start):
                self.records += not isinstance(entry, Damage)
                yield entry

        return counted


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> Scanned:
    counter = Scanned()
    monkeypatch.setattr(crawler.archive_index, "scan", counter.wrap(crawler.archive_index.scan))
    return counter


def _latest(directory: Path) -> dict[str, bytes]:
    """Each URL's latest archived body, as the rebuild's reader reads them."""
    return {fetch.url: fetch.body for _, fetch in ArchiveReader(directory)}


def _located(directory: Path, urls: list[str]) -> dict[str, tuple[str, int] | None]:
    index = ArchiveIndex(directory)
    return {url: (where[0].name, where[1]) if (where := index.locate(url)) else None for url in urls}


def _fetch(url: str, body: bytes = b"<p>Ferry</p>", members_only: bool = False) -> Fetch:
    return Fetch(url, 200, [("Content-Type", "text/html")], body, members_only=members_only)


@pytest.fixture(scope="module")
def crawled(demo_crawl) -> tuple[Path, Path, dict[str, bytes]]:
    """The demo crawl's WARC file, its index, and each URL's latest body."""
    _, data, _ = demo_crawl
    (warc,) = sorted(archive_dir(data).glob("*.warc.gz"))
    return warc, index_of(warc), _latest(archive_dir(data))


def _copy(directory: Path, warc: Path, index: bytes | None = None) -> Path:
    """``warc`` copied to ``directory``, with ``index`` as its index (None: none)."""
    directory.mkdir(parents=True)
    shutil.copyfile(warc, directory / warc.name)
    if index is not None:
        index_of(directory / warc.name).write_bytes(index)
    return directory


def test_a_crawls_archive_has_its_index_and_search_finds_every_copy_through_it(
    crawled, tmp_path: Path, scanned: Scanned
) -> None:
    warc, index, latest = crawled
    lines = index.read_bytes().splitlines()
    assert len(lines) >= len(latest) > 400  # a line a fetch; a URL fetched twice has two
    located = _located(warc.parent, list(latest))
    assert scanned.records == 0  # the index covers the whole file: nothing of it was read
    for url, where in located.items():
        assert where is not None, url
        copy = read_copy(warc.parent / where[0], where[1])
        assert copy is not None and copy.url == url and copy.body == latest[url]
    # The same offsets as reading the whole file finds, without its index.
    assert _located(_copy(tmp_path / "without", warc), list(latest)) == located
    assert scanned.records > 3 * len(latest)


def test_an_index_cut_short_behind_or_missing_gives_every_copy_at_its_offset(
    crawled, tmp_path: Path, scanned: Scanned
) -> None:
    warc, index, latest = crawled
    whole = index.read_bytes()
    lines = whole.splitlines(keepends=True)
    truth = _located(_copy(tmp_path / "truth", warc), list(latest))
    read_whole = scanned.records
    half = len(b"".join(lines[: len(lines) // 2]))
    cases = {
        "cut inside a line": whole[: half + 40],  # a killed crawl, or a full disk
        "a fetch behind": b"".join(lines[:-1]),  # killed between the file's write and its index's
        "half the fetches": whole[:half],
        "a broken line": whole[:half] + b"not a line of an index\n" + whole[half:],
        "of another file": whole.replace(warc.name.encode(), b"another.warc.gz"),
        "empty": b"",
        "missing": None,
    }
    for case, text in cases.items():
        scanned.records = 0
        assert _located(_copy(tmp_path / case, warc, text), list(latest)) == truth, case
        if case in ("cut inside a line", "half the fetches", "a broken line"):
            assert 0 < scanned.records < read_whole * 0.6, case  # only the half after what it covers
        elif case == "a fetch behind":
            assert scanned.records == 3, case  # request, metadata, response


def test_an_index_of_more_than_its_file_holds_names_nothing_past_its_end(crawled, tmp_path: Path) -> None:
    """The file cut short (bytes lost, not its index): the index's lines past its end are not trusted."""
    warc, index, latest = crawled
    directory = _copy(tmp_path / "cut", warc, index.read_bytes())
    cut = directory / warc.name
    with open(cut, "r+b") as stream:
        stream.truncate(warc.stat().st_size * 2 // 3)
    truth = _located(_copy(tmp_path / "truth", cut), list(latest))
    assert _located(directory, list(latest)) == truth
    assert sum(where is None for where in truth.values()) > len(latest) // 5


def test_a_members_only_page_stays_hidden_through_the_index(tmp_path: Path, scanned: Scanned) -> None:
    members, public = "http://a.test/members/q3.html", "http://a.test/q3.html"
    with ArchiveWriter(tmp_path / "archive", max_bytes=10**9) as writer:
        writer.write(_fetch(public))
        writer.write(_fetch(members, members_only=True))
        writer.write(_fetch(public + "?later"))
    index = ArchiveIndex(tmp_path / "archive")
    assert index.locate(members) is None and index.locate(public) is not None
    assert scanned.records == 0  # the mark came from the index
    (warc,) = (tmp_path / "archive").glob("*.warc.gz")
    lines = index_of(warc).read_bytes().splitlines(keepends=True)
    index_of(warc).write_bytes(lines[0])  # the members-only fetch now read from the file
    index = ArchiveIndex(tmp_path / "archive")
    assert index.locate(members) is None and index.locate(public + "?later") is not None
    assert scanned.records == 6


def test_a_growing_file_is_read_on_from_where_its_last_reading_ended(tmp_path: Path, scanned: Scanned) -> None:
    directory = tmp_path / "archive"
    with ArchiveWriter(directory, max_bytes=10**9) as writer:
        for number in range(3):
            writer.write(_fetch(f"http://a.test/{number}.html"))
        (warc,) = directory.glob("*.warc.gz")
        index_of(warc).unlink()  # an older crawl's archive, still written to
        index = ArchiveIndex(directory)
        assert index.locate("http://a.test/2.html") is not None
        assert scanned.records == 1 + 3 * 3  # its warcinfo, then three records a fetch
        writer.write(_fetch("http://a.test/3.html"))
        writer.write(_fetch("http://a.test/4.html"))
        scanned.records = 0
        assert index.locate("http://a.test/4.html") is not None
        assert scanned.records == 2 * 3
        assert index.locate("http://a.test/0.html") is not None and scanned.records == 2 * 3


def test_a_fetch_half_written_when_read_is_found_once_whole(tmp_path: Path, scanned: Scanned) -> None:
    """The running crawl's file read while a fetch is being written: the
    part read is read again once the rest is there."""
    with ArchiveWriter(tmp_path / "other", max_bytes=10**9) as writer:
        writer.write(_fetch("http://a.test/late.html", b"<p>Late ferry</p>" * 100))
    (other,) = (tmp_path / "other").glob("*.warc.gz")
    fetch = other.read_bytes()[next(iter(_offsets(other))) :]  # its request, metadata, response
    with ArchiveWriter(tmp_path / "archive", max_bytes=10**9) as writer:
        writer.write(_fetch("http://a.test/early.html"))
    (warc,) = (tmp_path / "archive").glob("*.warc.gz")
    index = ArchiveIndex(tmp_path / "archive")
    with open(warc, "ab") as stream:
        stream.write(fetch[: len(fetch) - 50])
    assert index.locate("http://a.test/late.html") is None
    assert index.locate("http://a.test/early.html") is not None
    with open(warc, "ab") as stream:
        stream.write(fetch[len(fetch) - 50 :])
    scanned.records = 0
    where = index.locate("http://a.test/late.html")
    assert where is not None and scanned.records == 1  # the response, read again whole
    copy = read_copy(*where)
    assert copy is not None and copy.body == b"<p>Late ferry</p>" * 100


def _offsets(warc: Path) -> list[int]:
    """Where each fetch's request record starts."""
    return [
        entry[0]
        for entry in crawler.archive_index.scan(warc)
        if not isinstance(entry, Damage) and entry[2].rec_type == "request"
    ]


def test_archive_index_writes_the_missing_indexes_of_an_older_archive(crawled, tmp_path: Path) -> None:
    warc, index, latest = crawled
    data = tmp_path / "data"
    _copy(archive_dir(data), warc)
    assert _located(archive_dir(data), list(latest)) == _located(warc.parent, list(latest))  # found without it

    command = [sys.executable, "-m", "crawler", "archive-index", "--data", str(data)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Indexed 1 WARC file(s)" in done.stdout and "0 already had" in done.stdout
    assert index_of(archive_dir(data) / warc.name).read_bytes() == index.read_bytes()  # as the crawl wrote it
    assert not [path.name for path in archive_dir(data).iterdir() if ".partial" in path.name]
    (archive_dir(data) / warc.name).chmod(0o600)
    index_of(archive_dir(data) / warc.name).unlink()  # lost: written again, as private as its file
    assert subprocess.run(command, capture_output=True, timeout=120).returncode == 0
    assert index_of(archive_dir(data) / warc.name).stat().st_mode & 0o777 == 0o600

    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "Indexed 0 WARC file(s)" in again.stdout and "1 already had" in again.stdout
    rebuilt = ArchiveReader(archive_dir(data))  # the archive's other reader passes the index by
    assert {fetch.url: fetch.body for _, fetch in rebuilt} == latest and rebuilt.skipped == 0

    missing = subprocess.run([*command[:-1], str(tmp_path / "nowhere")], capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "no archive" in missing.stderr


def test_an_uncompressed_file_is_read_once_and_whole_again_when_it_changes(tmp_path: Path, scanned: Scanned) -> None:
    """Its records' ends are not known, so it cannot be read on: read whole, but only when it changed."""
    with ArchiveWriter(tmp_path / "written", max_bytes=10**9) as writer:
        writer.write(_fetch("http://a.test/0.html"))
        writer.write(_fetch("http://a.test/1.html"))
    (warc,) = (tmp_path / "written").glob("*.warc.gz")
    plain = tmp_path / "archive" / "older.warc"
    plain.parent.mkdir()
    plain.write_bytes(gzip.decompress(warc.read_bytes()))
    index = ArchiveIndex(plain.parent)
    assert index.locate("http://a.test/1.html") is not None and scanned.records == 7
    assert index.locate("http://a.test/0.html") is not None and scanned.records == 7  # not read again
    with open(plain, "ab") as stream:
        stream.write(b"\r\n")
    assert index.locate("http://a.test/0.html") is not None and scanned.records == 14

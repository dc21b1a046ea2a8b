"""Damage inside an archive file costs the damaged record's fetch and no more:
a byte flipped at 16 places of the demo crawl's real archive, each read back
by the rebuild's reader and by the cached copies' index of the archive."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from crawler.archive import ArchiveReader, Damage, scan
from crawler.datadir import archive_dir
from search.cached import ArchiveIndex, read_copy

SWEEP = 16


def _fetches(directory: Path) -> tuple[dict[tuple[str, str], bytes], ArchiveReader]:
    reader = ArchiveReader(directory)
    return {(fetch.url, fetch.date): fetch.body for _, fetch in reader}, reader


def _members(warc: Path) -> list[tuple[int, int, str, str]]:
    """Each record's gzip member: where it starts and ends, its type and target URL."""
    found = []
    for entry in scan(warc):
        assert not isinstance(entry, Damage), entry
        start, end, record = entry
        found.append((start, end, record.rec_type, record.rec_headers.get_header("WARC-Target-URI") or ""))
    return found


@pytest.fixture(scope="module")
def archive(demo_crawl) -> tuple[Path, dict[tuple[str, str], bytes], list[tuple[int, int, str, str]]]:
    _, data, _ = demo_crawl
    (warc,) = sorted(archive_dir(data).glob("*.warc.gz"))
    intact, reader = _fetches(archive_dir(data))
    assert reader.skipped == 0 and len(intact) > 400
    return warc, intact, _members(warc)


def _positions(members: list[tuple[int, int, str, str]], size: int) -> list[int]:
    """Spread over the file, and two on a member's edges: its gzip magic, its CRC."""
    middle = members[len(members) // 2]
    return [size * (2 * n + 1) // (2 * (SWEEP - 2)) for n in range(SWEEP - 2)] + [middle[0], middle[1] - 6]


def _damaged(warc: Path, position: int, directory: Path, written: bytes = b"") -> Path:
    """A copy of ``warc`` in ``directory``, the byte at ``position`` flipped (or ``written`` there)."""
    directory.mkdir()
    copy = directory / warc.name
    shutil.copyfile(warc, copy)
    with open(copy, "r+b") as stream:
        stream.seek(position)
        byte = stream.read(1)
        stream.seek(position)
        stream.write(written or bytes([byte[0] ^ 0xFF]))
    return copy


def test_a_flipped_byte_costs_at_most_the_fetch_of_its_record(archive, tmp_path: Path) -> None:
    warc, intact, members = archive
    positions = _positions(members, warc.stat().st_size)
    assert len(positions) == SWEEP
    for number, position in enumerate(positions):
        _damaged(warc, position, tmp_path / str(number))
        found, reader = _fetches(tmp_path / str(number))
        lost = set(intact) - set(found)
        hit = next(member for member in members if member[0] <= position < member[1])
        assert len(lost) <= 1, (position, hit, len(lost))
        assert all(url == hit[3] for url, _ in lost), (position, hit, lost)
        assert all(intact[key] == body for key, body in found.items())  # nothing read wrong
        assert len(reader.damaged) <= 1 and len(found) >= len(intact) - 1


def test_the_damage_is_named_with_its_bytes_escaped(archive, tmp_path: Path, caplog) -> None:
    warc, _, members = archive
    start, end, _, url = next(member for member in members[len(members) // 2 :] if member[2] == "response")
    _damaged(warc, (start + end) // 2, tmp_path / "middle")
    _, reader = _fetches(tmp_path / "middle")
    (damage,) = reader.damaged
    assert (damage.start, damage.end) == (start, end)
    assert f"response record for {url}" in str(damage)  # its headers came through

    _damaged(warc, start, tmp_path / "start", b"\x1b[2J\x07\x00" * 16)  # a terminal's escape codes
    _, reader = _fetches(tmp_path / "start")
    (damage,) = reader.damaged
    assert (damage.start, damage.at, damage.end) == (start, start, end)
    said = [record.getMessage() for record in caplog.records if "damaged bytes" in record.getMessage()]
    assert len(said) == 2 and all(line.isprintable() for line in said), said
    assert said[1].endswith(f"at offset {start:,}: " + "\\x1b[2J\\x07\\x00" * 5 + "\\x1b[) in " + warc.name)


def test_cached_copies_after_a_damaged_record_are_still_found(archive, tmp_path: Path) -> None:
    warc, intact, members = archive
    urls = {url for url, _ in intact}
    for number, position in enumerate(_positions(members, warc.stat().st_size)[::3]):
        _damaged(warc, position, tmp_path / str(number))
        index = ArchiveIndex(tmp_path / str(number))
        located = {url: index.locate(url) for url in urls}
        missing = [url for url, where in located.items() if where is None]
        assert len(missing) <= 1, (position, missing[:5])
        last = max(urls, key=lambda url: located[url][1] if located[url] else -1)
        where = located[last]
        assert where is not None and read_copy(*where) is not None

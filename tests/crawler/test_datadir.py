"""The data directory's format: recorded by the program that makes it, checked by every one that opens it."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawler.datadir import (
    DATA_FORMAT,
    OtherFormat,
    check_format,
    claim_format,
    format_path,
    index_dir,
    pages_path,
    stamp_format,
)


def test_a_new_directory_is_claimed_with_this_format(tmp_path: Path) -> None:
    data = tmp_path / "data"
    check_format(data)  # not there yet: nothing to refuse, nothing made
    assert not data.exists()
    claim_format(data)
    assert format_path(data).read_text() == f"{DATA_FORMAT}\n"
    assert [path.name for path in data.iterdir()] == ["format"]
    claim_format(data)  # again: as it was
    check_format(data)


def test_a_directory_with_only_a_crawl_in_it_is_new(tmp_path: Path) -> None:
    (tmp_path / "redis").mkdir()
    (tmp_path / "archive").mkdir()
    claim_format(tmp_path)
    assert format_path(tmp_path).read_text() == f"{DATA_FORMAT}\n"


@pytest.mark.parametrize("part", ["index", "page store"])
def test_an_index_or_a_page_store_without_a_format_is_older(tmp_path: Path, part: str) -> None:
    if part == "index":
        index_dir(tmp_path).mkdir()
    else:
        pages_path(tmp_path).write_bytes(b"")
    for opening in (check_format, claim_format):
        with pytest.raises(OtherFormat) as refused:
            opening(tmp_path)
        assert str(refused.value) == (
            f"{tmp_path} was written by an older version of Lantern (no data format recorded; this "
            f"version reads format {DATA_FORMAT}): run `python -m indexer rebuild --data {tmp_path}` "
            "to rebuild it from its archive"
        )
    assert not format_path(tmp_path).exists()


@pytest.mark.parametrize(
    ("recorded", "said"),
    [
        (str(DATA_FORMAT - 1), f"an older version of Lantern (data format {DATA_FORMAT - 1};"),
        (str(DATA_FORMAT + 1), f"a newer version of Lantern (data format {DATA_FORMAT + 1};"),
        ("lantern", "another program (data format 'lantern';"),
    ],
)
def test_another_format_is_refused_and_left_as_it_was(tmp_path: Path, recorded: str, said: str) -> None:
    format_path(tmp_path).write_text(f"{recorded}\n")
    with pytest.raises(OtherFormat, match=r"python -m indexer rebuild --data ") as refused:
        claim_format(tmp_path)
    assert said in str(refused.value)
    assert format_path(tmp_path).read_text() == f"{recorded}\n"


def test_a_rebuilt_directory_is_stamped_whatever_it_said(tmp_path: Path) -> None:
    index_dir(tmp_path).mkdir()
    format_path(tmp_path).write_text("0\n")
    stamp_format(tmp_path)
    check_format(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["format", "index"]

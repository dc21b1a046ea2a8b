"""What the programs write in the data directory (members' pages among it) is
the owner's only, unless ``DATA_DIR_MODE`` lets the group read.

A real `scrapy crawl` (embedded Redis, the indexer beside it) of a literal
site on 127.0.0.1, and a real rebuild, run with the permissive umask most
users have (0o022): every directory and file they leave is then looked at.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from crawler.datadir import archive_dir, index_dir, pages_path, redis_dir
from tests.commands import crawl, run
from tests.webserver import page, serve_site

_SITE = {
    "/": page('<title>Home</title><a href="/a">the article</a>'),
    "/a": page("<title>Article</title><p>What the article says.</p>"),
}


@contextmanager
def _umask(mask: int) -> Iterator[None]:
    """The programs started in the block inherit ``mask``, as from a user's shell."""
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def _modes(data: Path) -> dict[Path, int]:
    return {path: stat.S_IMODE(path.lstat().st_mode) for path in [data, *data.rglob("*")] if not path.is_symlink()}


def _crawled(data: Path, *settings: str) -> dict[Path, int]:
    with _umask(0o022), serve_site(_SITE) as site:
        done = crawl([site.url("/")], data, "DOWNLOAD_DELAY=0", *settings)
    assert done.returncode == 0, done.stderr[-3000:]
    modes = _modes(data)
    for part in (archive_dir(data), index_dir(data), pages_path(data), redis_dir(data)):
        assert part in modes, part
    return modes


def test_a_crawl_and_a_rebuild_write_for_the_owner_only(tmp_path: Path) -> None:
    data = tmp_path / "data"
    modes = _crawled(data)
    assert {path: oct(mode) for path, mode in modes.items() if mode & 0o077} == {}
    assert modes[data] == 0o700 and modes[pages_path(data)] == 0o600
    with _umask(0o022):
        done = run("indexer", "rebuild", "--data", str(data), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert {path: oct(mode) for path, mode in _modes(data).items() if mode & 0o077} == {}


def test_data_dir_mode_lets_the_group_read(tmp_path: Path) -> None:
    data = tmp_path / "data"
    modes = _crawled(data, "DATA_DIR_MODE=0o750")
    assert {path: oct(mode) for path, mode in modes.items() if mode & 0o027} == {}
    assert modes[data] == 0o750 and modes[pages_path(data)] == 0o640
    assert modes[index_dir(data)] == 0o750  # the indexer beside the crawl too


def test_a_mode_that_locks_the_owner_out_is_refused_in_one_line(tmp_path: Path) -> None:
    done = crawl(["http://127.0.0.1:9/"], tmp_path / "data", "DATA_DIR_MODE=640")
    assert done.returncode == 2 and "DATA_DIR_MODE must give the owner" in done.stderr, done.stderr[-2000:]
    assert not (tmp_path / "data").exists()

"""A data directory of an older version's format, against every command that opens one.

A small site is crawled once by this version; each test copies its data
directory and takes its format away, which leaves it as an older version
left it (an index, a page store, a graph, an archive and a frontier, and
nothing that says their format). Every command refuses it in one line that
names the rebuild, with a non-zero status, and writes nothing in it; the
rebuild makes it current, and it searches again. A frontier in Redis that
an older version wrote is refused by the crawl, with the reset that empties it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from crawler.datadir import DATA_FORMAT, format_path
from tests.commands import crawl, run
from tests.webserver import page, serve_site

_SITE = {
    "/robots.txt": page("", status=404),
    "/": page('<title>Harbour office</title><p>Notices from the harbour office.</p><a href="/tides.html">tides</a>'),
    "/tides.html": page("<title>Tide tables</title><p>Spring tides flood the slipway at the heliotrope quay.</p>"),
}
_DEAD_SEED = "http://127.0.0.1:9/"


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    data = tmp_path_factory.mktemp("format") / "data"
    with serve_site(_SITE) as site:
        done = crawl([site.url("/")], data, "DOWNLOAD_DELAY=0")
    assert done.returncode == 0, done.stderr[-3000:]
    yield data


def _older(crawled: Path, tmp_path: Path) -> Path:
    """A copy of the crawl's data directory as an older version left it: without its format."""
    older = tmp_path / "older"
    shutil.copytree(crawled, older, ignore=shutil.ignore_patterns("*.sock"))
    format_path(older).unlink()
    return older


def _files(data: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``data``: its size and when it was last written."""
    return {
        str(path.relative_to(data)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in data.rglob("*")
        if path.is_file()
    }


def _refusal(older: Path) -> str:
    return (
        f"{older} was written by an older version of Lantern (no data format recorded; this version reads "
        f"format {DATA_FORMAT}): run `python -m indexer rebuild --data {older}` to rebuild it from its archive"
    )


def test_a_crawl_records_the_current_format(crawled: Path) -> None:
    assert format_path(crawled).read_text() == f"{DATA_FORMAT}\n"


@pytest.mark.parametrize(
    ("module", "arguments"),
    [
        ("indexer", ["--data", "{data}"]),
        ("indexer", ["--data", "{data}", "finalize"]),
        ("indexer", ["--data", "{data}", "stats"]),
        ("indexer", ["purge", "--data", "{data}", "http://127.0.0.1:1/"]),
        ("crawler", ["--data", "{data}", "status"]),
        ("crawler", ["--data", "{data}", "seed", _DEAD_SEED]),
        ("crawler", ["--data", "{data}", "reset"]),
        ("search", ["--data", "{data}", "tides"]),
        ("search.web", ["--data", "{data}", "--port", "0", "--workers", "1"]),
        ("search.web", ["--data", "{data}", "--port", "0", "--workers", "2"]),
    ],
)
def test_every_command_refuses_an_older_directory_in_one_line(
    crawled: Path, tmp_path: Path, module: str, arguments: list[str]
) -> None:
    older = _older(crawled, tmp_path)
    before = _files(older)
    done = run(module, *(argument.format(data=older) for argument in arguments), timeout=60)
    assert done.returncode != 0
    program = module.split(".")[0]
    assert done.stderr.splitlines() == [f"{program}: {_refusal(older)}"]
    assert done.stdout == ""
    assert _files(older) == before


def test_the_crawl_refuses_an_older_directory_in_one_line(crawled: Path, tmp_path: Path) -> None:
    older = _older(crawled, tmp_path)
    before = _files(older)
    done = crawl([_DEAD_SEED], older, timeout=120)
    assert done.returncode == 1, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if re.search(r"\b(ERROR|CRITICAL)\b|error:", line)]
    assert len(errors) == 1 and errors[0].endswith(f"ERROR: {_refusal(older)}")
    assert "Traceback" not in done.stderr
    assert _files(older) == before


def test_a_rebuild_makes_an_older_directory_current_and_it_searches(crawled: Path, tmp_path: Path) -> None:
    older = _older(crawled, tmp_path)
    done = run("indexer", "rebuild", "--data", str(older), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert format_path(older).read_text() == f"{DATA_FORMAT}\n"
    found = run("search", "--data", str(older), "--json", "heliotrope")
    assert found.returncode == 0, found.stderr
    assert [result["title"] for result in json.loads(found.stdout)["results"]] == ["Tide tables"]
    stats = run("indexer", "--data", str(older), "stats")
    assert stats.returncode == 0, stats.stderr


def test_a_crawl_refuses_an_older_frontier_and_names_its_reset(redis_client: redis.Redis, tmp_path: Path) -> None:
    url = "unix://{}?db=0".format(redis_client.connection_pool.connection_kwargs["path"])
    redis_client.set("web:partitions", 1)  # what every earlier version wrote first, and no format
    redis_client.hset("web:dupefilter:encoding", "mode", "exact")
    before = sorted(redis_client.keys("*"))
    data = tmp_path / "crawl"
    done = crawl([_DEAD_SEED], data, f"REDIS_URL={url}", "INDEX_WITH_CRAWL=0", timeout=120)
    assert done.returncode == 1, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if re.search(r"\b(ERROR|CRITICAL)\b|error:", line)]
    assert len(errors) == 1 and errors[0].endswith(
        "ERROR: the crawl's state in Redis was written by an older version of Lantern (no frontier format "
        f"recorded; this version reads format 1): run `python -m crawler reset --redis {url}` to forget it "
        "and crawl afresh (the index is kept)"
    )
    assert sorted(redis_client.keys("*")) == before
    status = run("crawler", "--redis", url, "status")
    assert status.returncode == 2 and status.stderr.startswith("crawler: the crawl's state in Redis")
    reset = run("crawler", "--redis", url, "reset")
    assert reset.returncode == 0, reset.stderr
    status = run("crawler", "--redis", url, "status")
    assert status.returncode == 0, status.stderr
    assert redis_client.get("web:format") == b"1"
    assert os.listdir(data) == ["format"]  # the data directory the crawl opened: new, and of this format

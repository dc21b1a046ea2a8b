"""A crawl whose disk fills up: it stops at once, says so in one line, exits
non-zero, and leaves the index as it was at its last commit.

The data directory lives on a real small file system (a tmpfs, else a loop
device with ext4; both need root: the tests are skipped without it), mounted
for the test and unmounted after it, whatever happened."""

from __future__ import annotations

import errno
import json
import logging
import random
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from crawler.datadir import redis_dir
from crawler.halt import said_disk_full
from crawler.start_urls import StartUrls
from indexer.store import PageStore
from tests.commands import crawl, run
from tests.redis_server import RedisServer
from tests.test_multinode import wait_for
from tests.webserver import page, serve_site, text

WORDS = [
    f"{stem}{suffix}"
    for stem in (
        "harbour",
        "ferry",
        "market",
        "storm",
        "tide",
        "quay",
        "gull",
        "sail",
        "anchor",
        "island",
        "keeper",
        "lantern",
        "rope",
        "net",
        "dawn",
    )
    for suffix in ("", "s", "ing", "ed", "er", "ward", "side", "light", "fall", "man")
]


def _mount(directory: Path, megabytes: int) -> bool:
    """A file system of ``megabytes`` at ``directory``: a tmpfs, else ext4 on a loop device."""
    directory.mkdir()
    tmpfs = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(directory)], capture_output=True
    )
    if tmpfs.returncode == 0:
        return True
    image = directory.with_suffix(".img")
    made = (
        subprocess.run(["truncate", "-s", f"{megabytes}M", str(image)], capture_output=True).returncode == 0
        and subprocess.run(["mkfs.ext4", "-q", "-m", "0", str(image)], capture_output=True).returncode == 0
    )
    return (
        made
        and subprocess.run(["mount", "-o", "loop", str(image), str(directory)], capture_output=True).returncode == 0
    )


@contextmanager
def small_disk(directory: Path, megabytes: int) -> Iterator[Path]:
    if shutil.which("mount") is None or not _mount(directory, megabytes):
        pytest.skip("mounting a small file system needs root (tmpfs or a loop device)")
    try:
        yield directory
    finally:
        if subprocess.run(["umount", str(directory)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(directory)], capture_output=True)  # lazily, once nothing holds it
        directory.with_suffix(".img").unlink(missing_ok=True)


def _endless(path: str):
    """A site without end: every page 20 kB of its own words, linking five more."""
    number = path.strip("/").split(".")[0] or "0"
    if not number.isdigit():
        return None
    rng = random.Random(int(number))
    words = " ".join(rng.choice(WORDS) for _ in range(2500))
    links = " ".join(f'<a href="/{n}.html">{n}</a>' for n in range(int(number) * 5 + 1, int(number) * 5 + 6))
    return page(f"<title>Chart {number}</title><p>{words}</p>{links}")


def _harbour() -> dict:
    return {
        "/robots.txt": text("User-agent: *\n"),
        "/": page(
            "<title>Harbour office</title><p>The harbour master keeps the tide tables.</p><a href='/ferry'>ferry</a>"
        ),
        "/ferry": page("<title>Ferry timetable</title><p>The ferry leaves at dawn for the lighthouse.</p>"),
    }


def _errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if re.search(r"\] (ERROR|CRITICAL): |^indexer: ", line)]


def _documents(data: Path) -> int:
    done = run("indexer", "stats", "--data", str(data), "--json")
    assert done.returncode == 0, done.stderr  # the index reads, undamaged
    return int(json.loads(done.stdout)["documents"])


def _crawled_then_filled(data: Path, *settings: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """Crawl a small site (it fits), then an endless one on the same data
    directory (it does not): the second crawl, and the documents the first left."""
    with serve_site(_harbour()) as harbour:
        first = crawl([harbour.url("/")], data, "DOWNLOAD_DELAY=0", *settings)
    assert first.returncode == 0, first.stderr[-3000:]
    before = _documents(data)
    assert before >= 2
    with serve_site({"/robots.txt": text("User-agent: *\n")}, default=_endless) as endless:
        second = crawl(
            [endless.url("/")], data, "DOWNLOAD_DELAY=0", "CONCURRENT_REQUESTS_PER_DOMAIN=8", *settings, timeout=240
        )
    return second, before


def _stopped_in_one_line(done: subprocess.CompletedProcess[str], data: Path) -> str:
    log = done.stderr
    assert done.returncode == 1, log[-3000:]
    assert "Traceback" not in log, log[-5000:]
    errors = _errors(log)
    assert len(errors) == 1, "\n".join(errors) + "\n\n" + log[-4000:]  # one line, whatever else was logged
    (line,) = errors
    assert re.search(
        rf"\[crawler\.halt\] ERROR: The crawl stops: no space left on the disk of "
        rf"{re.escape(str(data.resolve()))}: .*\. The index is as at its last commit, and what was "
        r"queued stays queued; free some space, then run the same command to resume\.$",
        line,
    ), line
    assert "Spider closed (disk_full)" in log
    assert len(log.splitlines()) < 150, log[-3000:]
    return line


def test_a_full_disk_stops_the_crawl_at_once_in_one_line(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", 8) as disk:
        data = disk / "data"  # the embedded Redis, the archive and the index all fill it
        done, before = _crawled_then_filled(data)
        _stopped_in_one_line(done, data)
        assert _documents(data) >= before  # as at its last commit: nothing lost, nothing damaged
        found = run("search", "--data", str(data), "--json", "ferry", "dawn")
        assert found.returncode == 0, found.stderr
        assert any(result["title"] == "Ferry timetable" for result in json.loads(found.stdout)["results"])


def test_the_indexer_beside_the_crawl_on_a_full_disk_stops_the_crawl(tmp_path: Path) -> None:
    roomy = tmp_path / "redis"
    roomy.mkdir()
    with small_disk(tmp_path / "disk", 4) as disk:
        data = disk / "data"
        data.mkdir()
        redis_dir(data).symlink_to(roomy)  # Redis has room: only the indexer runs out
        done, before = _crawled_then_filled(data, "ARCHIVE_ENABLED=False")
        line = _stopped_in_one_line(done, data)
        assert "the indexer could not write" in line
        assert _documents(data) >= before


def _fill(directory: Path) -> None:
    """Write ``directory``'s file system full."""
    with open(directory / "filler", "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc


def test_the_page_store_reads_on_a_full_disk(tmp_path: Path) -> None:
    """A reader of a WAL database makes a shared-memory file beside it, which
    a full disk refuses: search and ``stats`` must still read the pages."""
    with small_disk(tmp_path / "disk", 2) as disk:
        path = disk / "pages.sqlite"
        with PageStore(path) as store:
            store.put(
                {"url": "http://harbour.test/ferry", "title": "Ferry timetable", "text": "at dawn"}, "harbour.test"
            )
            store.commit()
        _fill(disk)
        with PageStore(path, readonly=True) as store:
            found = store.get("http://harbour.test/ferry")
        assert found is not None and found["title"] == "Ferry timetable"


def _refused(client: redis.Redis) -> redis.ResponseError:
    """Write until Redis refuses: the first writes may fit in its append-only file's last page."""
    for number in range(200):
        try:
            client.set(f"filler:{number}", "x" * 4096)
        except redis.ResponseError as exc:
            return exc
    raise AssertionError("Redis took 200 writes on a full disk")


def test_pushed_start_urls_stay_queued_while_redis_cannot_write_its_disk(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Taking start URLs is a write, which Redis refuses while its disk is
    full: a refusal that stops the crawl (not a key of the wrong type, said
    besides), and the URLs stay, read once the disk has room again."""
    with small_disk(tmp_path / "disk", 2) as disk, RedisServer(disk / "redis") as server:
        client = redis.Redis.from_url(server.url)
        client.rpush("web:start_urls", "http://harbour.test/", "http://harbour.test/ferry")
        _fill(disk)
        assert "MISCONF" in str(_refused(client))
        reading = StartUrls(client, "web:start_urls")
        with pytest.raises(redis.ResponseError, match="MISCONF") as refused:
            reading.read()
        assert "Cannot read start URLs" not in caplog.text
        logged = logging.LogRecord(
            "crawler.spiders.web",
            logging.WARNING,
            __file__,
            0,
            "Redis refuses the start URLs of %s (%s)",
            ("web:start_urls", refused.value),
            None,
        )
        assert said_disk_full(logged) == "MISCONF Errors writing to the AOF file: No space left on device"
        (disk / "filler").unlink()
        taken: list[str] = []

        def read() -> bool:
            try:
                taken.extend(url for url, _ in reading.read()[0])
            except redis.ResponseError:
                return False  # Redis writes its file again within a second of the room it finds
            return True

        wait_for(read, 15)
        assert taken == ["http://harbour.test/", "http://harbour.test/ferry"]

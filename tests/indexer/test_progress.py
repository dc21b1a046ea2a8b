"""The indexer's progress: a bar on a terminal, plain lines elsewhere."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from crawler.items import PageItem, encode_item
from indexer.progress import Progress, bar, line

ROOT = Path(__file__).parents[2]


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("done", "total", "rate", "expected"),
    [
        (0, 10_000, 0.0, "[....................] 0/10,000 items  0%  0/s  ETA ?"),
        (4_210, 10_000, 310.0, "[########............] 4,210/10,000 items  42%  310/s  ETA 0:19"),
        (10_000, 10_000, 512.4, "[####################] 10,000/10,000 items  100%  512/s  ETA 0:00"),
        (12, 1_000_000, 2.0, "[....................] 12/1,000,000 items  0%  2/s  ETA 138:53:14"),
    ],
)
def test_the_bar(done: int, total: int, rate: float, expected: str) -> None:
    assert bar(done, total, "items", rate) == expected


def test_the_plain_line() -> None:
    assert line(4_210, 10_000, "items", 310.0) == "4,210/10,000 items (42%), 310/s, ETA 0:19"


def test_on_a_terminal_the_bar_is_redrawn_in_place() -> None:
    stream, clock = io.StringIO(), _Clock()
    progress = Progress(1_000, "items", stream, tty=True, clock=clock)
    for _ in range(4):
        clock.now += 0.5
        progress.advance(250)
    progress.close()
    drawn = stream.getvalue()
    assert drawn.startswith("\r[#####...............] 250/1,000 items  25%  500/s  ETA 0:02")
    assert drawn.count("\r") == 5 and drawn.endswith("1,000/1,000 items  100%  500/s  ETA 0:00\n")
    assert "\n" not in drawn[:-1]  # one line, rewritten


def test_a_shorter_bar_covers_the_longer_one() -> None:
    stream, clock = io.StringIO(), _Clock()
    progress = Progress(100_000, "items", stream, tty=True, clock=clock)
    clock.now += 1.0
    progress.advance(50_000)  # 50,000/s, ETA 0:01
    clock.now += 99.0
    progress.advance(1)  # 500/s
    first, second = stream.getvalue().split("\r")[1:]
    assert len(second) == len(first) and second.endswith("  ")


def test_elsewhere_a_plain_line_every_few_seconds() -> None:
    stream, clock = io.StringIO(), _Clock()
    with Progress(1_000, "items", stream, label="Indexing", every=5.0, tty=False, clock=clock) as progress:
        for _ in range(10):
            clock.now += 1.0
            progress.advance(100)
    assert stream.getvalue().splitlines() == [
        "Indexing: 500/1,000 items (50%), 100/s, ETA 0:05",
        "Indexing: 1,000/1,000 items (100%), 100/s, ETA 0:00",
    ]
    assert "\r" not in stream.getvalue()


def test_a_pipe_is_no_terminal() -> None:
    read, write = os.pipe()
    with os.fdopen(read), os.fdopen(write, "w") as writer:
        assert Progress(10, "items", writer).tty is False


def test_the_indexer_shows_progress_when_draining_a_long_queue(redis_client: redis.Redis, tmp_path: Path) -> None:
    url = "unix://{}?db=0".format(redis_client.connection_pool.connection_kwargs["path"])
    items = [PageItem(type="page", url=f"http://a.test/{n}", title=f"Page {n}", text=f"word{n}") for n in range(1_200)]
    redis_client.rpush("web:items", *(encode_item(item) for item in items))
    done = subprocess.run(
        [sys.executable, "-m", "indexer", "--data", str(tmp_path / "out"), "--redis", url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "[indexer] INFO: Indexing the queue: 1,200/1,200 items (100%)" in done.stderr
    assert "\r" not in done.stderr  # not a terminal: log lines only
    assert redis_client.llen("web:items") == 0

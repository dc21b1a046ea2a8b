"""``python -m search.web --workers N``: several processes answering from one socket.

Each test starts a real server on a free port over a small real index and
follows its processes by PID (psutil): the answers are those of one
process, a worker killed with SIGKILL is replaced, and SIGTERM, Ctrl-C or
the parent's own death leave no process behind.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from crawler.processes import wait_for_exit
from indexer.builder import IndexBuilder
from tests.items import page

ROOT = Path(__file__).parents[2]
TOPICS = ["python", "lesson", "modules", "classes", "functions", "notes", "garden", "river", "tea", "music"]
# 50 searches: every topic alone, two together, as a phrase, on a second page.
QUERIES = (
    TOPICS
    + [f"{a} {b}" for a, b in zip(TOPICS, TOPICS[1:] + TOPICS[:1], strict=False)]
    + [f'"{a} {b}"' for a, b in zip(TOPICS, TOPICS[1:] + TOPICS[:1], strict=False)]
    + [f"{topic} notes" for topic in TOPICS]
    + [f"{topic}&page=2" for topic in TOPICS]
)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("workers")
    pages = []
    for k in range(60):
        a, b = TOPICS[k % len(TOPICS)], TOPICS[(k * 7 + 3) % len(TOPICS)]
        pages.append(
            page(
                f"http://site{k % 4}.test/p{k}.html",
                f"{a.title()} notes {k}",
                f"Page {k} is about {a} {b}, then {b} and more {a}.",
                [(f"http://site{(k + 1) % 4}.test/p{(k + 1) % 60}.html", f"{b} {a}")],
            )
        )
    with IndexBuilder(directory) as builder:
        builder.add(pages)
        builder.finalize()
    return directory


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str

    def workers(self) -> list[int]:
        return sorted(child.pid for child in psutil.Process(self.process.pid).children())

    def line(self, timeout: float = 30) -> str:
        """The next line the server logs (stderr)."""
        assert self.process.stderr is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stderr, selectors.EVENT_READ)
            ready = selector.select(timeout)
        return self.process.stderr.readline() if ready else ""


@contextmanager
def serving(data: Path, workers: int) -> Iterator[Server]:
    """``python -m search.web --workers N --port 0`` in a session of its own
    (so a Ctrl-C can be sent to its process group); stopped and every process
    it started checked gone after the test."""
    process = subprocess.Popen(
        [sys.executable, "-m", "search.web", "--data", str(data), "--port", "0", "--quiet", "--workers", str(workers)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    started: set[int] = set()
    try:
        assert process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            ready = selector.select(timeout=60)
        line = process.stdout.readline() if ready else ""
        assert line.startswith("Serving search for "), (line, process.stderr.read() if process.poll() else "")
        server = Server(process, line.split()[-1])
        started.update(server.workers())
        yield server
        started.update(server.workers() if process.poll() is None else [])
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
        for pid in started:
            assert wait_for_exit(pid, 30), f"worker {pid} outlived the server"
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _search(base: str, query: str) -> tuple[int, bytes]:
    text, _, extra = query.partition("&")
    url = base + "api/search?" + urllib.parse.urlencode({"q": text}) + (f"&{extra}" if extra else "")
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.status, response.read()


def _all_at_once(base: str, queries: list[str]) -> list[tuple[int, bytes]]:
    with ThreadPoolExecutor(len(queries)) as pool:
        return list(pool.map(lambda q: _search(base, q), queries))


def test_two_workers_answer_fifty_searches_at_once_as_one_process_does(data: Path) -> None:
    with serving(data, 1) as one:
        assert one.workers() == []  # --workers 1: the one process serves
        alone = [_search(one.url, query) for query in QUERIES]
    with serving(data, 2) as two:
        assert len(two.workers()) == 2
        together = _all_at_once(two.url, QUERIES)
    assert [status for status, _ in together] == [200] * len(QUERIES)
    assert together == alone
    assert sum(1 for _, body in alone if json.loads(body)["results"]) >= 40


def test_a_killed_worker_is_replaced_and_searches_go_on(data: Path) -> None:
    with serving(data, 2) as server:
        first = server.workers()
        for victim in first:
            os.kill(victim, signal.SIGKILL)
            line = server.line()
            assert f"Search worker {victim} was killed by SIGKILL: worker " in line, line
            replacement = int(line.split("worker ")[2].split()[0])
            assert replacement in server.workers() and victim not in server.workers()
        assert set(server.workers()).isdisjoint(first) and len(server.workers()) == 2
        answers = _all_at_once(server.url, QUERIES[:20])
        assert [status for status, _ in answers] == [200] * 20
        assert server.process.poll() is None


def test_every_worker_finds_what_the_indexer_adds_while_it_serves(tmp_path: Path) -> None:
    with IndexBuilder(tmp_path) as builder:
        builder.add([page("http://a.test/", "First", "the first lantern page")])
        builder.commit()
        with serving(tmp_path, 2) as server:
            before = _all_at_once(server.url, ["lantern"] * 20)  # 20 at once: each worker takes some
            builder.add([page("http://b.test/", "Second", "the second lantern page")])
            builder.finalize()
            after = _all_at_once(server.url, ["lantern"] * 20)
    assert {json.loads(body)["total"] for _, body in before} == {1}
    assert {json.loads(body)["total"] for _, body in after} == {2}


@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl-C", "SIGKILL of the parent"])
def test_stopping_the_server_leaves_no_process_behind(data: Path, how: str) -> None:
    with serving(data, 2) as server:
        workers = server.workers()
        assert len(workers) == 2 and _search(server.url, "python")[0] == 200
        if how == "SIGTERM":
            server.process.send_signal(signal.SIGTERM)
        elif how == "Ctrl-C":  # the terminal signals the whole process group
            os.killpg(server.process.pid, signal.SIGINT)
        else:
            server.process.kill()
        status = server.process.wait(timeout=30)
        assert status == (-signal.SIGKILL if how == "SIGKILL of the parent" else 0)
        for pid in workers:
            assert wait_for_exit(pid, 30), f"worker {pid} still runs after {how}"

"""Ctrl-C, once and twice, while fetching and while the index is finalized:
nothing lost, no process left behind, and the crawl resumes."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from crawler.datadir import index_dir
from tests.commands import log_until
from tests.demoweb import DemoWeb, serve
from tests.test_end_to_end import FAST, ROOT, crawl, fetched, search

# A node stopped by a second Ctrl-C does not give its leased requests back: the
# next run takes them once its announcement lapses. Short-lived here, so the
# resumed crawl waits seconds for them rather than the default 30.
LEASES = ["-s", "FRONTIER_LEASE_SECONDS=3", "-s", "FRONTIER_HEARTBEAT=1"]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][:1] != "Z"  # a zombie has exited
    except FileNotFoundError:
        return False


def _interrupted(
    web: DemoWeb, data: Path, when: Callable[[str], bool] | None, times: int
) -> tuple[int, str, list[int]]:
    """A crawl sent SIGINT ``times`` times once its log says ``when`` (None: once it fetches pages):
    its exit status, its log, and the pids of the processes it started."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "scrapy",
            "crawl",
            "web",
            "-a",
            f"seeds={web.seeds[0]}",
            "-s",
            f"DATA_DIR={data}",
            *FAST,
            *LEASES,
            "-s",
            "INDEX_NICENESS=0",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: list[str] = []
    try:
        if callable(when):
            assert log_until(process, seen, when, 120), "".join(seen)[-3000:]
        else:  # some pages in, on more than one site: well under way
            assert web.wait_for_request(lambda r: r.site == "news" and r.path != "/robots.txt", 60)
        for press in range(times):
            process.send_signal(signal.SIGINT)
            if press + 1 < times:  # the next press once the crawl has taken this one
                assert log_until(process, seen, lambda line: "Received SIGINT" in line, 60), "".join(seen)[-3000:]
        _, rest = process.communicate(timeout=180)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    log = "".join(seen) + (rest or "")
    pids = [int(pid) for pid in re.findall(r"(?:Embedded Redis server started|Indexer started) \(pid (\d+)", log)]
    return process.returncode, log, pids


def _nothing_left_behind(pids: list[int]) -> None:
    deadline = time.monotonic() + 10  # a process the crawl signalled may take a moment to go
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in pids if _alive(pid)], "a process of the crawl outlived it"


def test_ctrl_c_twice_while_fetching_loses_nothing_and_leaves_nothing(tmp_path: Path) -> None:
    with serve() as web:
        status, log, pids = _interrupted(web, tmp_path, None, times=2)
        assert len(pids) == 2, log[-3000:]
        _nothing_left_behind(pids)
        resumed = crawl(web, tmp_path, *LEASES)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        assert "Resuming the crawl" in resumed.stderr
        # Every page in the end; a page fetched twice only if it was in flight at the second Ctrl-C.
        assert len(fetched(web)) >= web.page_count
        assert sum(1 for count in fetched(web).values() if count > 1) <= 16
    assert (
        search(tmp_path, web.facts["chinese_title"]["title"])["results"][0]["url"] == web.facts["chinese_title"]["url"]
    )


def test_ctrl_c_while_the_index_is_finalized_leaves_a_searchable_index(tmp_path: Path) -> None:
    with serve() as web:
        status, log, pids = _interrupted(
            web, tmp_path, lambda line: "the indexer indexes what is left and finalizes" in line, times=1
        )
        _nothing_left_behind(pids)
        assert "Traceback" not in log, log[-3000:]
        done = subprocess.run(
            [sys.executable, "-m", "indexer", "finalize", "--data", str(tmp_path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        again = crawl(web, tmp_path)  # nothing left to fetch: every page was seen
        assert again.returncode == 0, again.stderr[-3000:]
        assert max(fetched(web).values()) == 1
    assert (
        search(tmp_path, web.facts["chinese_title"]["title"])["results"][0]["url"] == web.facts["chinese_title"]["url"]
    )
    assert os.path.isdir(index_dir(tmp_path))


def test_ctrl_c_twice_while_the_index_is_finalized_leaves_nothing_running(tmp_path: Path) -> None:
    with serve() as web:
        status, log, pids = _interrupted(
            web, tmp_path, lambda line: "the indexer indexes what is left and finalizes" in line, times=2
        )
        _nothing_left_behind(pids)
        done = subprocess.run(
            [sys.executable, "-m", "indexer", "finalize", "--data", str(tmp_path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        again = crawl(web, tmp_path)
        assert again.returncode == 0, again.stderr[-3000:]
        assert max(fetched(web).values()) == 1  # every page was fetched, once
    assert (
        search(tmp_path, web.facts["chinese_title"]["title"])["results"][0]["url"] == web.facts["chinese_title"]["url"]
    )

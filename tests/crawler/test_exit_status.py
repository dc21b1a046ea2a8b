"""`scrapy crawl web` that cannot do its work: one clear line and a non-zero status."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from crawler.embedded import EmbeddedRedis
from tests.commands import ROOT


def scrapy_crawl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "web", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if re.search(r"\b(ERROR|CRITICAL)\b|error:", line)]


def test_no_seeds_and_no_crawl_to_resume_is_a_usage_error(tmp_path: Path) -> None:
    done = scrapy_crawl("-s", f"DATA_DIR={tmp_path / 'data'}")
    assert done.returncode == 2
    (line,) = errors(done.stderr)
    assert line.endswith(
        f"error: nothing to crawl: give seeds (-a seeds=URL[,URL...] or -a seeds_file=FILE); "
        f"{tmp_path / 'data'} holds no crawl to resume"
    )
    assert not (tmp_path / "data").exists()  # nothing was started


def test_an_empty_seeds_file_is_nothing_to_crawl_too(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("# none yet\n")
    done = scrapy_crawl("-a", f"seeds_file={seeds}", "-s", f"DATA_DIR={tmp_path / 'data'}")
    assert done.returncode == 2
    assert "error: nothing to crawl" in done.stderr


def test_no_seeds_and_an_empty_frontier_ends_at_once_with_status_1(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path):  # a data directory whose crawl left nothing queued
        pass
    done = scrapy_crawl("-s", f"DATA_DIR={tmp_path}")
    assert done.returncode == 1, done.stderr[-3000:]
    (line,) = errors(done.stderr)
    assert line.endswith(
        "ERROR: Nothing to crawl: give seeds (-a seeds=URL[,URL...] or -a seeds_file=FILE), "
        "or resume a crawl that still has queued requests"
    )
    assert "Spider closed (nothing_to_crawl)" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_second_crawl_on_a_busy_data_directory_is_refused_in_one_line(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as running:  # what a running crawl holds
        done = scrapy_crawl("-a", "seeds=http://127.0.0.1:9/", "-s", f"DATA_DIR={tmp_path}")
        assert running.running
    assert done.returncode == 1, done.stderr[-3000:]
    (line,) = errors(done.stderr)
    assert line.endswith(
        f"ERROR: {tmp_path} is in use by another crawl (process {os.getpid()}); stop it first, or use another DATA_DIR"
    )
    assert "Traceback" not in done.stderr

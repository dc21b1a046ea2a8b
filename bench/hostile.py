"""Hostile sites: does the crawl end on its own, and what does a trap cost it?

The site of ``tests/calendar_site.py``, on 127.0.0.1: a calendar whose months
read differently, each linking the months either side and one of a dozen
event pages; an agenda whose months each link one recurring page; and an
archive of 84 months, each listing two new articles. Ours meets it as a
crawl would over time: a first run finds the event pages, a second is given
the calendar, the agenda and the archive, and a third revisits every page
it knows (``-a recrawl=all``). The baseline is a plain Scrapy CrawlSpider
(:mod:`bench.plain_spider`) given the same three, which never ends there:
both are capped at ``BENCH_HOSTILE_CAP`` pages (``CLOSESPIDER_PAGECOUNT``,
default 1000), and a crawl that reaches its cap did not end on its own.

Figures per run: requests to each calendar, against the bar of
``TRAPS_CHAIN_MAX`` + 10; the archive's months and articles fetched, of
those there are; whether the crawl ended on its own (exit status 0 and
finish reason ``finished``); seconds of the whole command.

    python -m bench.hostile
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from crawler import settings as defaults
from tests.calendar_site import ARCHIVE, START, articles, months, serve_calendars
from tests.webserver import Site

ROOT = Path(__file__).resolve().parents[1]
SCRAPY = [sys.executable, "-m", "scrapy"]
SAME = ["-s", "DOWNLOAD_DELAY=0", "-s", "LOG_LEVEL=INFO"]


@dataclass
class Outcome:
    paths: list[str]
    seconds: float
    ended: bool  # by itself, not at its page cap

    def row(self, label: str) -> str:
        calendar, agenda = len(months(self.paths, "calendar")), len(months(self.paths, "agenda"))
        archive = len(months(self.paths, "archive") & {f"/archive/{y}-{m:02d}" for y, m in ARCHIVE})
        return (
            f"  {label:26s} {calendar:9d} {agenda:7d} {archive:5d}/{len(ARCHIVE)} "
            f"{len(articles(self.paths)):5d}/{2 * len(ARCHIVE)} {'yes' if self.ended else 'no':>6s} {self.seconds:8.1f}"
        )


def _run(site: Site, command: Sequence[str], cwd: Path) -> Outcome:
    before = len(site.paths())
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - started
    ended = done.returncode == 0 and re.search(r"'finish_reason': 'finished'", done.stderr) is not None
    return Outcome(site.paths()[before:], seconds, ended)


def ours(site: Site, data: Path, seeds: list[str], cap: int, *arguments: str) -> Outcome:
    command = [*SCRAPY, "crawl", "web", "-s", f"DATA_DIR={data}", "-s", f"CLOSESPIDER_PAGECOUNT={cap}", *SAME]
    if seeds:
        command += ["-a", f"seeds={','.join(seeds)}"]
    for argument in arguments:
        command += ["-a", argument]
    return _run(site, [*command, "-s", "MONITOR_INTERVAL=0"], ROOT)


def plain(site: Site, seeds: list[str], cap: int) -> Outcome:
    # Outside the project directory: its scrapy.cfg would bring our settings.
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as cwd:
        command = [*SCRAPY, "runspider", str(ROOT / "bench" / "plain_spider.py"), "-a", f"start={','.join(seeds)}"]
        return _run(site, [*command, "-s", f"CLOSESPIDER_PAGECOUNT={cap}", *SAME], Path(cwd))


def compare(cap: int) -> list[str]:
    bar = defaults.TRAPS_CHAIN_MAX + 10
    rows = [
        f"hostile site: endless calendars and an archive (requests to each; bar {bar}; runs capped at {cap} pages)",
        f"  {'run':26s} {'calendar':>9s} {'agenda':>7s} {'archive':>8s} {'articles':>9s} {'ended':>6s} {'seconds':>8s}",
    ]
    with serve_calendars() as site, tempfile.TemporaryDirectory(prefix="bench-hostile-") as data:
        calendars = [site.url(path) for path in START.values()]
        ours(site, Path(data), [site.url("/events.html")], cap)
        rows.append(ours(site, Path(data), calendars, cap).row("ours, given the three"))
        rows.append(ours(site, Path(data), [], cap, "recrawl=all").row("ours, recrawl=all"))
        rows.append(plain(site, calendars, cap).row("plain CrawlSpider"))
    return rows


def main(argv: list[str] | None = None) -> None:
    del argv
    print("\n".join(compare(int(os.environ.get("BENCH_HOSTILE_CAP", "1000")))), flush=True)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])

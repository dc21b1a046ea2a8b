"""``make demo``: serve the bundled demo web, crawl it, index it, search it.

Everything runs on this machine: the demo web listens on 127.0.0.1 only, the
frontier is the embedded Redis in ``data/demo/redis``, and the index lands in
``data/demo``, where ``python -m search --data data/demo ...`` finds it after
the demo has ended.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from search.__main__ import render
from search.engine import SearchEngine
from tests.demoweb import serve

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "demo"
# Stable addresses when they are free, so the URLs in the index keep working
# with `python -m tests.demoweb --port 8301`; any free ports otherwise.
PORTS = {"docs": 8301, "news": 8302, "zh": 8303, "wiki": 8304}
# The local demo web can take more than a public site: 50 ms between two
# requests to one site (the default is 1 s), still two at a time per site.
CRAWL_SETTINGS = ["DOWNLOAD_DELAY=0.05", "MONITOR_INTERVAL=3"]
# Log lines a newcomer wants to see; the full log is in data/demo/crawl.log.
_SHOWN = re.compile(
    r"\[(crawler\.[\w.]+|indexer|scrapy\.core\.engine)\]"
    r"|\b(WARNING|ERROR|CRITICAL)\b"
)
_STAMP = re.compile(r"^\d{4}-\d\d-\d\d (\d\d:\d\d:\d\d)(?:,\d+)? ")
_STAT = re.compile(r"'([\w/.]+)': (\d+)[,}]?$")


def _ports_free(ports: dict[str, int]) -> bool:
    for port in ports.values():
        with socket.socket() as probe:
            # As the server binds: a port in TIME_WAIT after an earlier demo is free.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                return False
    return True


def _crawl(seed: str) -> dict[str, int]:
    """Run ``scrapy crawl web`` as a user would; show its progress; return its stats."""
    command = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        "web",
        "-a",
        f"seeds={seed}",
        "-s",
        f"DATA_DIR={DATA}",
        *(arg for setting in CRAWL_SETTINGS for arg in ("-s", setting)),
    ]
    print(f"$ scrapy crawl web -a seeds={seed} -s DATA_DIR=data/demo -s DOWNLOAD_DELAY=0.05\n")
    stats: dict[str, int] = {}
    in_stats = shown = False
    with (
        open(DATA / "crawl.log", "w", encoding="utf-8") as log,
        subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as crawl,
    ):
        assert crawl.stdout is not None
        for line in crawl.stdout:
            log.write(line)
            in_stats = in_stats or "Dumping Scrapy stats" in line
            if in_stats and (match := _STAT.search(line.strip())):
                stats[match.group(1)] = int(match.group(2))
            if _STAMP.match(line):
                shown = bool(_SHOWN.search(line)) and "Dumping Scrapy stats" not in line
                if shown:
                    print("  " + _STAMP.sub(r"\1 ", line.rstrip()))
            elif shown and line.startswith("  "):  # the rest of a block shown (the crawl's start)
                print("  " + line.rstrip())
    if crawl.returncode:
        raise SystemExit(f"The crawl failed (status {crawl.returncode}); see {DATA / 'crawl.log'}")
    return stats


def _summary(stats: dict[str, int], seconds: float) -> str:
    traps = sum(value for key, value in stats.items() if key.startswith("traps/"))
    return (
        f"Fetched {stats.get('downloader/response_count', 0)} URLs in {seconds:.0f} s "
        f"(robots.txt and sitemaps included): "
        f"{stats.get('items/page', 0)} pages indexed, "
        f"{stats.get('items/duplicate', 0)} duplicates skipped, "
        f"{stats.get('robots/denied', 0)} URLs refused by robots.txt, "
        f"{traps} trap URLs refused."
    )


def main() -> int:
    print("Lantern demo: crawl a small web of four sites, index it, search it.\n")
    shutil.rmtree(DATA, ignore_errors=True)
    DATA.mkdir(parents=True)
    ports = PORTS if _ports_free(PORTS) else None
    with serve(ports=ports) as web:
        print("Demo web serving on 127.0.0.1:")
        for name, base in web.sites.items():
            print(f"  {name:5s} {base}/")
        print()
        started = time.monotonic()
        stats = _crawl(web.seeds[0])
        print("\n" + _summary(stats, time.monotonic() - started))
        queries = web.facts["demo_queries"]
        stable = web.sites["docs"].endswith(f":{PORTS['docs']}")
    print()
    with SearchEngine(DATA) as engine:
        for query in queries:
            print("=" * 72)
            print(f"$ python -m search --data data/demo -n 3 {query}\n")
            print(render(engine.search(query, n=3), color=sys.stdout.isatty()))
            print()
    print("=" * 72)
    print("Search the demo index yourself:")
    print("  .venv/bin/python -m search --data data/demo 'your words'")
    print("  .venv/bin/python -m search --data data/demo --json --explain json encoder")
    if stable:
        print("Serve the demo web again (same URLs):  .venv/bin/python -m tests.demoweb --port 8301")
    print("Crawl a site of your own:")
    print("  .venv/bin/scrapy crawl web -a seeds=https://example.org/ -s DATA_DIR=data/mysite")
    print(f"The crawl's full log: {DATA.relative_to(ROOT) / 'crawl.log'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

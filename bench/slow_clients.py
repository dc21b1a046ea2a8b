"""Slow clients: how long a search takes to be answered while 200 connections send their requests a line at a time.

    python -m bench.slow_clients [--clients 200] [--workers 1 2]

Against ``python -m search.web --workers W`` on a small synthetic index
(:mod:`bench.synthetic`, 300 pages, in a temporary directory), ``clients``
connections are opened, each sending the start of a request (its request
line and a header) and then one more header line before each probe, never
the blank line that ends the request: what a "slowloris" client does to
hold a server's threads. A probe is a search (``GET /api/search``) on a
connection of its own; its time is from connecting to the whole answer.

Baseline, in the same run on the same server: the same probes with no slow
connection open. Goal (issue): with 200 slow connections open, every probe
answered within 1 s. A server that gives a thread to each connection until
its request is read answers none until the slow ones time out (30 s each).
"""

from __future__ import annotations

import argparse
import http.client
import socket
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit

from bench import synthetic
from bench.query import _web_server
from indexer.builder import IndexBuilder

CLIENTS = 200
PAGES = 300
PROBES = 5
GOAL_S = 1.0
PROBE_TIMEOUT_S = 60.0


def _index(directory: Path) -> Path:
    with IndexBuilder(directory) as builder:
        builder.add(list(synthetic.pages(PAGES)))
        builder.finalize()
    return directory


def probe(url: str) -> float | None:
    """Seconds from connecting to the whole answer of one search (None: no answer)."""
    parts = urlsplit(url)
    started = time.perf_counter()
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=PROBE_TIMEOUT_S)
    try:
        connection.request("GET", "/api/search?q=" + synthetic.title_of(7).split()[0])
        response = connection.getresponse()
        response.read()
        return time.perf_counter() - started if response.status == 200 else None
    except OSError:
        return None
    finally:
        connection.close()


def _probes(url: str, slow: list[socket.socket]) -> list[float | None]:
    """``PROBES`` probes, each after one more header line on every slow
    connection the server has not closed."""
    times = []
    for number in range(PROBES):
        for client in slow:
            try:
                client.sendall(f"X-Slow-{number}: still coming\r\n".encode())
            except OSError:  # the server cut it off: its request took too long
                pass
        times.append(probe(url))
    return times


def measure(data: Path, workers: int, clients: int) -> tuple[list[float | None], list[float | None]]:
    """Probe times on a server of ``workers`` processes: alone, then with ``clients`` slow connections open."""
    with _web_server(data, "--workers", str(workers)) as url:
        parts = urlsplit(url)
        alone = _probes(url, [])
        with ExitStack() as stack:
            slow = []
            for _ in range(clients):
                client = stack.enter_context(socket.create_connection((parts.hostname, parts.port), timeout=30))
                client.sendall(b"GET /api/search?q=slow HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                slow.append(client)
            crowded = _probes(url, slow)
    return alone, crowded


def _cell(times: list[float | None]) -> str:
    answered = [t for t in times if t is not None]
    if not answered:
        return f"{'none answered':>22}"
    missing = f", {len(times) - len(answered)} unanswered" if len(answered) < len(times) else ""
    return f"{statistics.median(answered) * 1000:8.1f} / {max(answered) * 1000:8.1f} ms{missing}"


def compare(clients: int, workers: list[int]) -> list[str]:
    lines = [
        f"Slow clients: a search probe's time, median / max of {PROBES}, with {clients} connections "
        f"sending their requests a line at a time (goal: every probe within {GOAL_S:.0f} s)",
        f"{'workers':>8}  {'none open (baseline)':>26}  {f'{clients} slow connections':>26}  goal met",
    ]
    with tempfile.TemporaryDirectory(prefix="bench-slow-") as directory:
        data = _index(Path(directory))
        for count in workers:
            alone, crowded = measure(data, count, clients)
            met = all(t is not None and t <= GOAL_S for t in crowded)
            lines.append(f"{count:>8}  {_cell(alone):>26}  {_cell(crowded):>26}  {'yes' if met else 'NO'}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.slow_clients", description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=CLIENTS, help=f"slow connections (default: {CLIENTS})")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="server processes (default: 1 2)")
    args = parser.parse_args(argv)
    print("\n".join(compare(args.clients, args.workers)), flush=True)
    print()


if __name__ == "__main__":
    sys.exit(main())

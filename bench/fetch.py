"""The fetch-only limit: a minimal asyncio HTTP client fetching a list of URLs.

No parsing, no politeness, no frontier: GET each URL over 16 kept-alive
connections (the crawl benchmark's concurrency) and read the whole body. What
the crawl benchmark's site and machine allow at most; a crawler's pages/s
over this limit says how much of its time is its own.

    python -m bench.fetch URL [URL...]
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Sequence
from urllib.parse import urlsplit

CONCURRENCY = 16


async def _get(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str, target: str) -> bool:
    """One request on a kept-alive connection; False when the server closed it."""
    writer.write(f"GET {target} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: fetch-limit\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    length = None
    close = head.split(b"\r\n", 1)[0].startswith(b"HTTP/1.0")
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"connection":
            close = value.strip().lower() == b"close"
    if length is None:
        await reader.read()  # until the server closes
        return False
    await reader.readexactly(length)
    return not close


async def _worker(queue: asyncio.Queue[str], done: list[int]) -> None:
    connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
    while not queue.empty():
        url = queue.get_nowait()
        parts = urlsplit(url)
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        for _attempt in range(2):
            if connection is None:
                connection = await asyncio.open_connection(parts.hostname, parts.port or 80)
            try:
                keep = await _get(*connection, parts.netloc, target)
            except (asyncio.IncompleteReadError, ConnectionError):
                connection[1].close()
                connection = None
                continue
            done[0] += 1
            if not keep:
                connection[1].close()
                connection = None
            break
    if connection is not None:
        connection[1].close()


async def _fetch_all(urls: Sequence[str]) -> int:
    queue: asyncio.Queue[str] = asyncio.Queue()
    for url in urls:
        queue.put_nowait(url)
    done = [0]
    await asyncio.gather(*(_worker(queue, done) for _ in range(CONCURRENCY)))
    return done[0]


def fetch_rate(urls: Sequence[str]) -> float:
    """Pages per second fetching ``urls`` (one host:port, plain http)."""
    started = time.perf_counter()
    fetched = asyncio.run(_fetch_all(urls))
    return fetched / (time.perf_counter() - started)


if __name__ == "__main__":
    print(f"{fetch_rate(sys.argv[1:]):.0f} pages/s")

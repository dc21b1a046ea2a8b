"""Slow clients hold no thread of the search server, and each request is read within a bound as a whole.

A client that sends its request a header line at a time, however slowly,
must neither stop the server from answering others nor keep its connection
past the bound on the whole request (a bound on each ``recv`` lets it keep
it for ever).
"""

from __future__ import annotations

import selectors
import socket
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from indexer.builder import IndexBuilder
from search.web import SearchServer, make_server
from tests.items import page
from tests.search.test_web import _get, serving

SLOW_CLIENTS = 48  # three times the threads of a server process


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("slow")
    with IndexBuilder(directory) as builder:
        builder.add([page(f"http://site.test/{k}", f"Tide table {k}", f"High tide at {k} o'clock.") for k in range(5)])
        builder.finalize()
    return directory


def _slow_client(address: tuple[str, int]) -> socket.socket:
    """A connection that has sent the start of a request and will send the rest some day."""
    client = socket.create_connection(address, timeout=30)
    client.sendall(b"GET /api/search?q=tide HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    return client


def test_a_request_is_answered_while_many_slow_clients_hold_connections(
    data: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    served = serving(data, tmp_path_factory, "--workers", "1")
    base = next(served)
    parts = urllib.parse.urlsplit(base)
    try:
        with ExitStack() as stack:
            for _ in range(SLOW_CLIENTS):
                stack.enter_context(_slow_client((parts.hostname or "", parts.port or 0)))
            status, _, body = _get(base + "api/search?q=tide")  # within _get's generous 30 s
            assert status == 200 and b"Tide table" in body
    finally:
        served.close()


@contextmanager
def _in_process(data: Path, request_timeout: float) -> Iterator[SearchServer]:
    """A server of this process on a free port, serving from a thread until the block ends."""
    server = make_server(data, port=0, log_requests=False, request_timeout=request_timeout)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        thread.join(timeout=30)
        server.server_close()
        server.engine.close()


def test_a_request_sent_a_line_at_a_time_is_cut_off_at_the_bound_on_the_whole(data: Path) -> None:
    """Each header line comes well within the bound, the request never
    ends: the server answers 408 once the whole request has taken longer."""
    with _in_process(data, request_timeout=1.0) as server, _slow_client(server.server_address[:2]) as client:
        answer = b""
        with selectors.DefaultSelector() as selector:
            selector.register(client, selectors.EVENT_READ)
            for line in range(200):  # a line every 0.1 s: 20 s at most, the bound is 1 s
                if selector.select(timeout=0.1):
                    answer = client.recv(4096)
                    break
                client.sendall(f"X-Line-{line}: still coming\r\n".encode())
        assert answer.startswith(b"HTTP/1.0 408 Request Timeout\r\n"), answer
        assert 5 <= line < 200  # it sent lines for a while, and was cut off
        client.settimeout(30)
        assert client.recv(4096) == b""  # and the connection is closed


def test_a_head_too_large_is_refused_with_431(data: Path) -> None:
    with _in_process(data, request_timeout=30.0) as server, _slow_client(server.server_address[:2]) as client:
        client.sendall(b"X-Big: " + b"x" * 70_000 + b"\r\n\r\n")
        answer = client.recv(4096)
        assert answer.startswith(b"HTTP/1.0 431 Request Header Fields Too Large\r\n"), answer


def test_the_in_process_server_answers_and_stops(data: Path) -> None:
    with _in_process(data, request_timeout=5.0) as server:
        status, headers, body = _get(server.url + "api/search?q=tide")
        assert status == 200 and b"Tide table" in body and "Content-Security-Policy" in headers

"""The search server's front: connections read on one asyncio loop, each request in bounded time, answered on threads.

A thread a connection, the standard library's way, is held for as long as
its client takes to send the request, and its timeout bounds each ``recv``,
not the request: a client sending a header line every 10 s held a thread
for ever, and 16 such clients stopped a server of 16 threads. Here one
event loop reads the requests of every connection at once, each whole
request head within ``request_timeout`` seconds from the moment the
connection is accepted; only a request read whole is handed to a thread
(``threads`` of them), which returns the whole response. A slow client
costs a socket and a coroutine, not a thread, and is cut off at the bound
(408, or silently if it sent nothing); the others are answered meanwhile.

One request a connection (the server speaks HTTP/1.0 and closes after
each answer), so a connection never waits on a thread for its next request.
The loop runs in a thread of its own; :meth:`Front.serve_forever` waits for
it in the calling thread, where a signal handler (``KeyboardInterrupt``, the
workers' SIGTERM) interrupts the wait and stops the loop on its way out.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from typing import Any

__all__ = ["Front", "HEAD_BYTES"]

logger = logging.getLogger(__name__)

# The most bytes a request head may hold (request line and headers): a
# browser's is under 2 KiB.
HEAD_BYTES = 64 * 1024
_END_OF_HEAD = (b"\r\n", b"\n")
# After a refusal, what the client still sends is read and dropped for at
# most this long, and this much, before the connection closes: closing a
# socket with unread bytes resets it, and a reset can take the refusal
# with it before the client has read it (a "lingering close").
LINGER_SECONDS = 2.0
LINGER_BYTES = 256 * 1024

# What answers a request: its head (request line and headers, the blank
# line included) and the client's address in, the whole response out.
Answer = Callable[[bytes, Any], bytes]
# What answers a request that could not be read: the status and the client's address in.
Refusal = Callable[[HTTPStatus, Any], bytes]


class Front:
    """Connections accepted on ``listener``, each request read within
    ``request_timeout`` seconds and answered by ``answer`` on one of
    ``threads`` threads (``refuse`` for a request too slow or too large);
    up to ``backlog`` connections wait to be accepted."""

    def __init__(
        self,
        listener: socket.socket,
        answer: Answer,
        refuse: Refusal,
        threads: int,
        request_timeout: float,
        backlog: int,
    ) -> None:
        self.listener = listener
        self.backlog = backlog
        self.answer = answer
        self.refuse = refuse
        self.request_timeout = request_timeout
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="search")
        self._loop = asyncio.new_event_loop()
        self._stopping = asyncio.Event()
        self._done = threading.Event()

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown`, or until a signal handler raises in this thread."""
        thread = threading.Thread(target=self._run, name="search-front", daemon=True)
        thread.start()
        try:
            thread.join()
        finally:
            self._stop()
            thread.join()

    def _run(self) -> None:
        try:
            self._loop.run_until_complete(self._serve())
        finally:
            self._done.set()

    def shutdown(self) -> None:
        """Stop :meth:`serve_forever` (called from another thread) and wait until it has."""
        self._stop()
        self._done.wait()

    def _stop(self) -> None:
        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._stopping.set)

    def close(self) -> None:
        """The listening socket closed, the threads stopped once their answers are done."""
        self.listener.close()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._loop.close()

    async def _serve(self) -> None:
        connections: set[asyncio.Task[None]] = set()

        def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.get_running_loop().create_task(self._connection(reader, writer))
            connections.add(task)
            task.add_done_callback(connections.discard)

        # The listening socket stays ours to close (a worker's copy is shared).
        server = await asyncio.start_server(accepted, sock=self.listener.dup(), limit=HEAD_BYTES, backlog=self.backlog)
        try:
            await self._stopping.wait()
        finally:
            server.close()
            for task in list(connections):
                task.cancel()
            await asyncio.gather(*connections, return_exceptions=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Read one request head within the bound, answer it on a thread, close."""
        client = writer.get_extra_info("peername")
        finished = False
        try:
            head = await self._head(reader)
            if isinstance(head, bytes):
                response = await asyncio.get_running_loop().run_in_executor(self._pool, self.answer, head, client)
            else:
                response = b"" if head is None else self.refuse(head, client)
            writer.write(response)
            async with asyncio.timeout(self.request_timeout):  # a client that does not read is not waited for
                await writer.drain()
            if not isinstance(head, bytes):
                await self._linger(reader, writer)
            finished = True
        except (ConnectionError, TimeoutError) as exc:
            logger.debug("Client %s: %s", client, type(exc).__name__)
        finally:
            if finished:
                writer.close()  # once the rest of the answer is sent
            else:
                writer.transport.abort()

    async def _linger(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Say no more is coming, then drop what the client still sends, within bounds."""
        if writer.can_write_eof():
            writer.write_eof()
        dropped = 0
        try:
            async with asyncio.timeout(min(LINGER_SECONDS, self.request_timeout)):
                while dropped < LINGER_BYTES and (chunk := await reader.read(16 * 1024)):
                    dropped += len(chunk)
        except TimeoutError:
            pass

    async def _head(self, reader: asyncio.StreamReader) -> bytes | HTTPStatus | None:
        """The request's head, read whole within the bound; or why not: 408
        (too slow), 431 (too large), None (the client hung up or sent
        nothing: nothing to answer)."""
        lines: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.request_timeout):
                while True:
                    line = await reader.readline()
                    if not line.endswith(b"\n"):  # the client hung up
                        return None
                    size += len(line)
                    if size > HEAD_BYTES:
                        return HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                    if line not in _END_OF_HEAD:
                        lines.append(line)
                    elif lines:  # blank lines before a request line are ignored, as RFC 9112 allows
                        return b"".join([*lines, line])
        except ValueError:  # one line longer than the stream's limit
            return HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
        except TimeoutError:
            return HTTPStatus.REQUEST_TIMEOUT if lines else None

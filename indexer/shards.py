"""Index shards written by several processes: the analysis of documents on several cores.

Whoosh allows one writer per index, and its writer is pure Python: one
process analyses about as fast as one core goes. With ``processes = K``
the shards (:mod:`indexer.layout`: page shard ``i`` and anchor shard ``i``
go together) are divided among K writer processes (shard ``i`` belongs to
writer ``i % K``). The indexer's own process keeps everything else (the
item queue, the page store, the link graph, what each anchor document
says) and sends each document, page or anchor, to the writer of its
shard; a commit is complete when every writer has committed, and only
then are the items acknowledged, so a writer that dies loses nothing: its
items stay queued (:class:`ShardFailed` is raised).

:class:`LocalShards` is the same interface in one process, for K = 1.
"""

from __future__ import annotations

import logging
import multiprocessing
import queue as queue_module
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from whoosh.writing import LockError

from indexer import schema as fields
from indexer.codec import Codec, Writer
from indexer.layout import IndexBusy, Layout, shard_of
from indexer.merges import Merges

logger = logging.getLogger(__name__)

__all__ = ["Writers", "LocalShards", "ProcessShards", "ShardFailed"]

_WRITER_MB = 256
# Operations sent to a writer process at a time (fewer, larger messages).
_CHUNK = 32
# How long a commit may take before the writers are suspected dead, per check.
_WAIT_SECONDS = 1.0


class ShardFailed(RuntimeError):
    """A writer process failed or died: nothing since the last commit is in
    its shard (the items stay queued)."""


class Writers:
    """Pending Whoosh writers of some indexes (by number), opened on first use.

    Whoosh deletes by term only in committed segments: a URL added twice to
    one writer would be indexed twice, so that writer is committed first.
    Each index's segments are merged beside its writer (:mod:`indexer.merges`),
    never in a commit's time.
    """

    def __init__(self, indexes: dict[int, Any], where: str) -> None:
        self.indexes = indexes
        self.where = where
        self._pending: dict[int, Any] = {}
        self._added: dict[int, set[str]] = {}
        self._merges: dict[int, Merges] = {}

    def writer(self, number: int, url: str | None = None) -> Any:
        if url is not None and url in self._added.get(number, ()):
            self._commit(number)
        writer = self._pending.get(number)
        if writer is None:
            try:
                writer = Writer(self.indexes[number], limitmb=_WRITER_MB, codec=Codec())
            except LockError:
                raise IndexBusy(
                    f"{self.where} is being written by another process; only one indexer may run at a time"
                ) from None
            self._pending[number] = writer
            self._added[number] = set()
        if url is not None:
            self._added[number].add(url)
        return writer

    def _commit(self, number: int) -> None:
        writer = self._pending.pop(number, None)
        self._added.pop(number, None)
        if writer is not None:
            merges = self._merges.get(number)
            if merges is None:
                merges = self._merges[number] = Merges(self.indexes[number])
            writer.commit(mergetype=merges.policy)
            merges.start()

    def commit(self) -> None:
        for number in list(self._pending):
            self._commit(number)

    def settle(self) -> None:
        """Wait for the merges running, and commit their segments in place:
        the index merged as far as its merges go (new ones may start at the
        next commit). A crawl's finalize does not wait: the merges running
        when the indexer closes are ended, their segments left as they were."""
        for number, merges in self._merges.items():
            if merges.settle():
                self.writer(number)
                self._commit(number)
            merges.resume()

    def cancel(self) -> None:
        for writer in self._pending.values():
            writer.cancel()
        self._pending.clear()
        self._added.clear()

    def close(self) -> None:
        self.cancel()
        for merges in self._merges.values():
            merges.stop()
        for index in self.indexes.values():
            index.close()

    def update(self, number: int, url: str, document: dict[str, Any]) -> None:
        self.writer(number, url).update_document(**document)

    def delete(self, number: int, url: str) -> None:
        if url in self._added.get(number, ()):
            # Added in this writer: Whoosh deletes committed documents only (a
            # page that became another's copy, or gone, in the batch that wrote it).
            self._commit(number)
        self.writer(number).delete_by_term(fields.URL, url)


class _ShardWriters:
    """The writers of some page shards and of the anchor shards of the same numbers."""

    def __init__(self, pages: dict[int, Any], anchors: dict[int, Any], where: str) -> None:
        self.pages = Writers(pages, where)
        self.anchors = Writers(anchors, where)
        # What a writer process is sent: the operation's name, then its arguments.
        self.operations: dict[str, Callable[..., None]] = {
            "update": self.pages.update,
            "delete": self.pages.delete,
            "update_anchor": self.anchors.update,
            "delete_anchor": self.anchors.delete,
        }

    def commit(self) -> None:
        self.pages.commit()
        self.anchors.commit()

    def cancel(self) -> None:
        self.pages.cancel()
        self.anchors.cancel()

    def close(self) -> None:
        self.pages.close()
        self.anchors.close()


class LocalShards:
    """Every shard written in this process."""

    def __init__(self, pages: list[Any], anchors: list[Any], where: str) -> None:
        self.count = len(pages)
        self.processes = 1
        self._writers = _ShardWriters(dict(enumerate(pages)), dict(enumerate(anchors)), where)

    def update(self, url: str, document: dict[str, Any]) -> None:
        self._writers.pages.update(shard_of(url, self.count), url, document)

    def delete(self, url: str) -> None:
        self._writers.pages.delete(shard_of(url, self.count), url)

    def update_anchor(self, url: str, document: dict[str, Any]) -> None:
        self._writers.anchors.update(shard_of(url, self.count), url, document)

    def delete_anchor(self, url: str) -> None:
        self._writers.anchors.delete(shard_of(url, self.count), url)

    def start_commit(self) -> None:
        pass

    def check(self) -> None:
        pass

    def commit(self) -> None:
        self._writers.commit()

    def cancel(self) -> None:
        self._writers.cancel()

    def close(self) -> None:
        self._writers.close()


class ProcessShards:
    """The shards of ``data_dir`` written by ``processes`` processes."""

    def __init__(self, data_dir: Path, count: int, processes: int) -> None:
        self.data_dir = data_dir
        self.count = count
        self.processes = max(1, min(processes, count))
        # Forked, not spawned: a spawned writer imports Python, Whoosh and
        # numpy again (about a second each, on every start), a forked one
        # has them. The indexer starts its writers from its one thread; they
        # touch nothing of its own (SQLite connections, sockets) and end
        # with os._exit, closing nothing of it.
        self._context = multiprocessing.get_context("fork")
        self._replies: Any = None
        self._inboxes: list[Any] = []
        self._workers: list[Any] = []
        self._buffers: list[list[tuple[Any, ...]]] = [[] for _ in range(self.processes)]
        self._failed: str | None = None
        self._committing = False

    def _start(self) -> None:
        """Start the writers, on the first page to write (a finalize with
        nothing queued starts none)."""
        self._replies = self._context.Queue()
        for number in range(self.processes):
            inbox = self._context.Queue()
            owned = [shard for shard in range(self.count) if shard % self.processes == number]
            worker = self._context.Process(
                target=_serve,
                args=(str(self.data_dir), owned, inbox, self._replies, number),
                name=f"index-writer-{number}",
                daemon=True,
            )
            worker.start()
            self._inboxes.append(inbox)
            self._workers.append(worker)
        logger.info(
            "Page shards written by %d processes (pids %s)",
            self.processes,
            ", ".join(str(worker.pid) for worker in self._workers),
        )

    def _send(self, kind: str, url: str, *document: dict[str, Any]) -> None:
        """Send the writer of ``url``'s shard an operation (see _ShardWriters.operations)."""
        if not self._workers:
            self._start()
        shard = shard_of(url, self.count)
        number = shard % self.processes
        buffer = self._buffers[number]
        buffer.append((kind, shard, url, *document))
        if len(buffer) >= _CHUNK:
            self._flush(number)

    def _flush(self, number: int) -> None:
        if self._buffers[number]:
            self._inboxes[number].put(("ops", self._buffers[number]))
            self._buffers[number] = []

    def update(self, url: str, document: dict[str, Any]) -> None:
        self._send("update", url, document)

    def delete(self, url: str) -> None:
        self._send("delete", url)

    def update_anchor(self, url: str, document: dict[str, Any]) -> None:
        self._send("update_anchor", url, document)

    def delete_anchor(self, url: str) -> None:
        self._send("delete_anchor", url)

    def start_commit(self) -> None:
        """Ask every writer to commit; :meth:`commit` waits for them (the
        caller commits its own files meanwhile)."""
        if not self._workers:
            return
        for number in range(self.processes):
            self._flush(number)
            self._inboxes[number].put(("commit",))
        self._committing = True

    def commit(self) -> None:
        if not self._workers:
            return
        if not self._committing:
            self.start_commit()
        self._committing = False
        self._gather("commit")

    def cancel(self) -> None:
        self._buffers = [[] for _ in range(self.processes)]
        self._committing = False
        if self._failed is not None or not self._workers:
            return
        for inbox in self._inboxes:
            inbox.put(("cancel",))
        try:
            self._gather("cancel")
        except ShardFailed:
            pass

    def check(self) -> None:
        """Raise :class:`ShardFailed` if a writer has died (an idle indexer
        would otherwise learn it only at its next commit)."""
        if self._failed is None:
            dead = [number for number, worker in enumerate(self._workers) if not worker.is_alive()]
            if dead:
                self._failed = self._obituary(dead)
        if self._failed is not None:
            raise ShardFailed(self._failed)

    def _obituary(self, dead: list[int]) -> str:
        return "; ".join(
            f"index writer {number} died (exit status {self._workers[number].exitcode}): "
            "what it had not committed is still queued"
            for number in dead
        )

    def _gather(self, what: str) -> None:
        """Wait for every writer's answer to ``what``; raise :class:`ShardFailed`."""
        if self._failed is not None:
            raise ShardFailed(self._failed)
        waiting = set(range(self.processes))
        errors: list[str] = []
        while waiting:
            try:
                number, answer, error = self._replies.get(timeout=_WAIT_SECONDS)
            except queue_module.Empty:
                dead = [number for number in waiting if not self._workers[number].is_alive()]
                if dead:
                    self._failed = self._obituary(dead)
                    raise ShardFailed(self._failed) from None
                continue
            if answer == what:
                waiting.discard(number)
                if error:
                    errors.append(f"index writer {number}: {error}")
        if errors:
            raise ShardFailed("; ".join(errors))

    def close(self) -> None:
        for number, inbox in enumerate(self._inboxes):
            if self._workers[number].is_alive():
                inbox.put(("close",))
        for number, worker in enumerate(self._workers):
            worker.join(timeout=30)
            if worker.is_alive():
                worker.terminate()
                worker.join(timeout=5)
            if worker.exitcode != 0:
                # What was sent to a dead writer stays unread: do not wait to send it.
                self._inboxes[number].cancel_join_thread()
        for inbox in [*self._inboxes, *([self._replies] if self._replies is not None else [])]:
            inbox.close()
            inbox.join_thread()


def _serve(data_dir: str, owned: list[int], inbox: Any, replies: Any, number: int) -> None:
    """A writer process: apply operations to the shards it owns (page and anchor) until closed."""
    from crawler.processes import die_with_parent

    die_with_parent()  # SIGTERM when the indexer is gone, however it ended
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the indexer decides when to stop
    for handled in (signal.SIGTERM, signal.SIGUSR1):  # the indexer's handlers, forked: not a writer's
        signal.signal(handled, signal.SIG_DFL)
    layout = Layout(Path(data_dir))
    from whoosh import index as whoosh_index

    writers = _ShardWriters(
        {shard: whoosh_index.open_dir(str(layout.shard_dir(shard))) for shard in owned},
        {shard: whoosh_index.open_dir(str(layout.anchor_dir(shard))) for shard in owned},
        str(layout.root),
    )
    error: str | None = None
    handlers = writers.operations
    try:
        while True:
            message = inbox.get()
            kind = message[0]
            if kind == "ops":
                if error is None:
                    try:
                        for operation in message[1]:
                            handlers[operation[0]](*operation[1:])
                    except Exception as exc:  # reported at the commit; the batch stays queued
                        error = f"{type(exc).__name__}: {exc}"
                        logger.exception("Index writer %d failed", number)
                        writers.cancel()
            elif kind == "commit":
                if error is None:
                    try:
                        writers.commit()
                    except Exception as exc:
                        error = f"{type(exc).__name__}: {exc}"
                        writers.cancel()
                replies.put((number, "commit", error))
                error = None
            elif kind == "cancel":
                writers.cancel()
                error = None
                replies.put((number, "cancel", None))
            elif kind == "close":
                break
    finally:
        writers.close()

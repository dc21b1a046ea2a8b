"""``python -m indexer``: drain the crawl's item queue into the index; finalize.

    python -m indexer --data DIR [--redis URL]            drain what is queued, then exit
    python -m indexer --data DIR [--redis URL] --follow   keep draining while the crawl runs; when
                                                           all its nodes have stopped, finalize
    python -m indexer --data DIR [--redis URL] finalize   drain, then merge anchors and
                                                           compute PageRank
    python -m indexer --data DIR [--redis URL] --follow --partitions 0-1
                                                           drain only these partitions of the
                                                           crawl's frontier (kept by DIR)
    python -m indexer finalize --data DIR --data DIR...   anchors and PageRank of several
                                                           directories as one index
    python -m indexer purge --data DIR [--redis URL] URL_OR_SITE...
                                                           remove pages (a site: all of its
                                                           pages) and never fetch them again
    python -m indexer --data DIR rebuild [--shards K] [--force]
                                                           rebuild the index, graph and PageRank
                                                           from DIR/archive (no network, no Redis)
    python -m indexer --data DIR [--data DIR...] stats [--json]
                                                           what the index holds

Without ``--redis`` the indexer reads the URL from the environment variable
``LANTERN_REDIS_URL`` (:data:`crawler.connection.URL_VARIABLE`: a password
kept off the command line), else uses the embedded Redis server of ``DIR``
(:func:`_connect`); the loop that drains the queue, and why stopping it
loses nothing, is :mod:`indexer.drain`.  Each command and option, and the
indexer beside a crawl: docs/indexing.md, "The indexer".
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from pathlib import Path

import redis

from crawler import settings as defaults
from crawler.connection import URL_VARIABLE, RedisUnreachable, client_for, partitions_of
from crawler.console import redacted
from crawler.cores import free_cores
from crawler.datadir import OtherFormat, access_mode, check_format, create_with, index_dir, purged_path
from crawler.disk import FULL_DISK_STATUS, disk_full
from crawler.embedded import DataDirBusy, EmbeddedRedis, has_saved_state, socket_url
from crawler.personalization import parse_personalization
from crawler.version import add_version_option, typed_command
from indexer import stats
from indexer.builder import FinalizeReport, IndexBuilder, IndexBusy
from indexer.drain import Stop, drain
from indexer.federation import finalize_together
from indexer.layout import CORRUPTION, IndexDamaged, IndexMissing, Layout, is_corruption
from indexer.output import emit
from indexer.purge import purge, purge_rule
from indexer.queue import ItemQueue, QueueBusy
from indexer.rebuild import FewerPages, NothingToRebuild, rebuild, skipped_damage
from indexer.shards import ShardFailed
from indexer.share import OtherShare, Share, parse_share, record_share

logger = logging.getLogger("indexer")


@contextmanager
def _connect(data_dir: Path, url: str | None) -> Iterator[redis.Redis | None]:
    """The crawl's Redis: ``url``, or the embedded server of ``data_dir``.

    The embedded server is used as it runs (a crawl is on) or started for the
    time of this command (a stopped crawl may have left items to index); None
    when ``data_dir`` has never had a crawl.
    """
    if url is not None:
        try:
            client = client_for(url)
            client.ping()
        except (redis.RedisError, redis.exceptions.RedisClusterException, OSError, ValueError) as exc:
            raise RedisUnreachable(url, exc) from None
        yield client
        return
    client = redis.Redis.from_url(socket_url(data_dir), socket_timeout=30)
    try:
        client.ping()
    except (redis.ConnectionError, OSError):
        client.close()
        if not has_saved_state(data_dir):
            yield None
            return
        with EmbeddedRedis(data_dir) as server:
            client = redis.Redis.from_url(server.url, socket_timeout=30)
            yield client
            client.close()
        return
    yield client


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """The command; ``prog`` is its name as typed (``lantern index``), else the script's or ``python -m indexer``."""
    parser = _parser(prog or typed_command("indexer"))
    # Intermixed: `purge --data DIR URL...` puts options between the positionals.
    args = parser.parse_intermixed_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(name)s] %(levelname)s: %(message)s")

    data_dirs = [Path(data) for data in dict.fromkeys(args.data or [defaults.DATA_DIR])]
    data_dir = data_dirs[0]
    create_with(args.data_mode)
    _check_combinations(parser, args, len(data_dirs))
    if args.command == "rebuild":  # a directory of any format: that is what it is for
        return _rebuild(data_dir, args.shards, args.processes, args.force)
    try:
        for each in data_dirs:
            check_format(each)
    except OtherFormat as exc:
        print(f"indexer: {exc}", file=sys.stderr)
        return 2
    if args.command == "purge":
        return _purge(data_dir, args)
    if args.command == "stats":
        return _stats(data_dirs, args.json)
    if len(data_dirs) > 1:
        return _finalize_together(data_dirs, args.personalization)
    if args.shards is not None:
        parser.error("--shards is for rebuild (an index keeps the shards it was created with)")
    if args.force:
        parser.error("--force is for rebuild")
    return _drain(data_dir, args)


def _check_combinations(parser: argparse.ArgumentParser, args: argparse.Namespace, directories: int) -> None:
    """Refuse (``parser.error``) options given to a command they are not for."""
    if (args.command == "purge") != bool(args.targets):
        parser.error("purge takes URL_OR_SITE arguments (and only purge does)")
    if directories > 1 and args.command not in ("finalize", "stats"):
        parser.error("--data more than once is for finalize and stats (several directories as one index)")
    if args.partitions is not None and (args.command not in (None, "finalize") or directories > 1):
        parser.error("--partitions is for an indexer that drains the queue into one --data")


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data",
        action="append",
        help=f"data directory (default: {defaults.DATA_DIR}); finalize and stats take several, read as one index",
    )
    parser.add_argument(
        "--redis",
        default=os.environ.get(URL_VARIABLE) or None,
        help=f"Redis URL of the crawl (default: ${URL_VARIABLE}, else the embedded server of --data)",
    )
    parser.add_argument(
        "--data-mode",
        type=_data_mode,
        default=access_mode(defaults.DATA_DIR_MODE),
        metavar="MODE",
        help=f"who may read what is written in --data: its directories' mode, its files' without the "
        f"execute bits (default: DATA_DIR_MODE, {oct(defaults.DATA_DIR_MODE)}: the owner only)",
    )
    parser.add_argument("--queue", default="web:items", help="item queue key (default: web:items)")
    parser.add_argument("--follow", action="store_true", help="keep draining until stopped")
    parser.add_argument(
        "--partitions",
        metavar="SHARE",
        help="drain only these partitions of the crawl's frontier, as 0-1, 0,2, K/N (2/2: the second "
        "half) or all; --data keeps its share (default: every partition, or the share --data holds)",
    )
    parser.add_argument(
        "--beside-crawl",
        action="store_true",
        help=f"run by scrapy crawl, which says what stopped it: a full disk ends this indexer "
        f"with status {FULL_DISK_STATUS} and no message",
    )
    parser.add_argument(
        "--processes",
        type=_positive,
        metavar="K",
        help="write the pages in K processes, one per shard of a new index (default: "
        "one per core; an existing index keeps its shards, at most one process each)",
    )
    parser.add_argument(
        "--shards",
        type=_positive,
        metavar="K",
        help="rebuild: divide the new index into K page shards (default: as it was)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="rebuild: replace the index even when the new one holds fewer pages",
    )
    parser.add_argument("--json", action="store_true", help="stats: print one JSON object")
    parser.add_argument(
        "--personalization",
        metavar="JSON",
        type=_personalization,
        help="PageRank personalization, kept for later finalizes: sites or URL prefixes and "
        'their weights, as {"https://docs.example.org/": 3} (other pages weigh 1; {}: none)',
    )
    add_version_option(parser)
    parser.add_argument(
        "command",
        nargs="?",
        choices=["finalize", "purge", "rebuild", "stats"],
        help="finalize: anchors and PageRank; purge: remove and blacklist pages; "
        "rebuild: everything from DIR/archive; stats: what the index holds",
    )
    parser.add_argument("targets", nargs="*", metavar="URL_OR_SITE", help="purge: what to remove")
    return parser


def _drain(data_dir: Path, args: argparse.Namespace) -> int:
    """Index the crawl's item queue (once, or ``--follow``), or only finalize."""
    stop = Stop()
    try:
        with _connect(data_dir, args.redis) as client:
            if client is None and args.command != "finalize":
                print(
                    f"indexer: {data_dir} has no crawl and no --redis was given: nothing to index",
                    file=sys.stderr,
                )
                return 2
            return _index(data_dir, client, args, stop)
    except CORRUPTION as exc:  # first: bad text in a file is a ValueError too
        if not is_corruption(exc):
            raise
        return _damaged(data_dir, exc)
    except (redis.RedisError, redis.exceptions.RedisClusterException, OSError, ValueError) as exc:
        print(f"indexer: {RedisUnreachable(args.redis or str(data_dir), exc)}", file=sys.stderr)
        return 2
    except (IndexBusy, QueueBusy, DataDirBusy, ShardFailed, RedisUnreachable, OtherShare) as exc:
        print(f"indexer: {exc}", file=sys.stderr)
        return 2


# What a stats or a finalize of several directories may meet, each said in one line (:func:`_refused`).
_STATS_REFUSED: tuple[type[BaseException], ...] = (IndexMissing, IndexDamaged, *CORRUPTION)
_FINALIZE_REFUSED: tuple[type[BaseException], ...] = (IndexBusy, *CORRUPTION)


def _stats(data_dirs: list[Path], as_json: bool) -> int:
    try:
        found = stats.collect(data_dirs)
    except _STATS_REFUSED as exc:
        return _refused(data_dirs[0], exc)
    shown = ", ".join(map(str, data_dirs))
    emit(json.dumps(found.to_json(), ensure_ascii=False) if as_json else stats.render(found, shown))
    return 0


def _finalize_together(data_dirs: list[Path], personalization: dict[str, float] | None) -> int:
    """``finalize`` over several data directories: one index's anchor text and PageRank."""
    for data_dir in data_dirs:
        if not Layout(data_dir).page_dirs():
            print(f"indexer: no index in {data_dir}: each --data must be an indexer's data directory", file=sys.stderr)
            return 2
    try:
        report = finalize_together(data_dirs, personalization)
    except _FINALIZE_REFUSED as exc:
        return _refused(data_dirs[0], exc)
    _ready(report, f" over {len(data_dirs)} directories")
    return 0


def _refused(data_dir: Path, exc: BaseException) -> int:
    """The exit status of a command the index refused, its reason said in
    one line (damage: how to rebuild); an error that is no damage goes on."""
    if isinstance(exc, CORRUPTION) and not isinstance(exc, (IndexMissing, IndexDamaged, IndexBusy)):
        if not is_corruption(exc):
            raise exc
        return _damaged(data_dir, exc)
    print(f"indexer: {exc}", file=sys.stderr)
    return 2


def _ready(report: FinalizeReport, where: str = "") -> None:
    """The line a finalize ends with: what the index holds, and how long it took."""
    logger.info(
        "Index ready%s: %d documents (%d pages, %d known by anchor text only), "
        "%d links, PageRank over %d nodes; finalized in %.2f s",
        where,
        report.documents,
        report.pages,
        report.anchor_only,
        report.links,
        report.documents,
        report.seconds,
    )


def _damaged(data_dir: Path, error: BaseException) -> int:
    """The one line a damaged index or page store gets, naming the repair; status 2."""
    what = "the page store" if isinstance(error, sqlite3.DatabaseError) else "the index"
    print(f"indexer: {IndexDamaged(data_dir, f'{what} ({type(error).__name__}: {error})')}", file=sys.stderr)
    return 2


def _personalization(text: str) -> dict[str, float]:
    try:
        return parse_personalization(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _data_mode(text: str) -> int:
    try:
        return access_mode(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _rebuild(data_dir: Path, shards: int | None, processes: int | None, force: bool) -> int:
    try:
        report = rebuild(data_dir, shards=shards, processes=processes, force=force)
    except (NothingToRebuild, FewerPages, IndexBusy, ShardFailed) as exc:
        print(f"indexer: {exc}", file=sys.stderr)
        return 2
    final = report.final
    if report.damaged:
        logger.warning("%s", skipped_damage(report.damaged))
    logger.info(
        "Index rebuilt from %d responses (%d records, %d skipped): %d documents (%d pages, "
        "%d known by anchor text only), %d links, PageRank over %d nodes, in %.1f s",
        report.fetches,
        report.records,
        report.skipped,
        final.documents,
        final.pages,
        final.anchor_only,
        final.links,
        final.documents,
        report.seconds,
    )
    return 0


def _stops_on_full_disk(index: Callable[..., int]) -> Callable[..., int]:
    """A full disk (Whoosh, SQLite, or Redis's MISCONF) stops the indexer
    at once in one line, with status FULL_DISK_STATUS: the failed commit
    changed nothing (the index is as at its last one) and its items stay queued."""

    @wraps(index)
    def run(data_dir: Path, client: redis.Redis | None, args: argparse.Namespace, stop: Stop) -> int:
        try:
            return index(data_dir, client, args, stop)
        except Exception as exc:
            full = disk_full(exc)
            if full is None:
                raise
            if not args.beside_crawl:
                print(
                    f"indexer: no space left on the disk of {data_dir} ({full}): stopped; the index is as at "
                    "its last commit and what was queued stays queued; free some space and run it again",
                    file=sys.stderr,
                )
            return FULL_DISK_STATUS

    return run


@_stops_on_full_disk
def _index(data_dir: Path, client: redis.Redis | None, args: argparse.Namespace, stop: Stop) -> int:
    processes = args.processes or free_cores(busy=0)
    with IndexBuilder(data_dir, processes=processes) as builder:
        if client is not None:
            share = _share(builder, client, args.queue, args.partitions, data_dir)
            queue = ItemQueue(client, args.queue, None if share is None else share.partitions)
            queue.acquire()
            if share is not None:
                logger.info("Draining partitions %s of the crawl's frontier into %s", share, data_dir)
            if args.follow:
                importlib.import_module("indexer.linkmatrix")  # numpy and scipy now, not in finalize's time
            try:
                drain(builder, queue, args.follow and args.command is None, stop)
            finally:
                queue.release()
        if args.command == "finalize" or stop.crawl_over:
            _ready(builder.finalize(personalization=args.personalization))
    return 0


def _share(builder: IndexBuilder, client: redis.Redis, queue: str, asked: str | None, data_dir: Path) -> Share | None:
    """The partitions this indexer drains (None: every one): ``--partitions``,
    else the share ``data_dir`` holds; recorded there (:mod:`indexer.share`)."""
    prefix = queue.rsplit(":", 1)[0]
    count = partitions_of(client, prefix).count
    share = None
    if asked is not None:
        if client.get(f"{prefix}:partitions") is None:
            raise OtherShare(
                f"--partitions: no crawl has recorded its partitions in this Redis yet ({prefix}:partitions): "
                "start the crawl first"
            )
        try:
            share = parse_share(asked, count)
        except ValueError as exc:
            raise OtherShare(str(exc)) from None
    share = record_share(builder.store, share, count, str(data_dir))
    builder.store.commit()
    return share


def _purge(data_dir: Path, args: argparse.Namespace) -> int:
    """``purge``: remove the targets from the index; blacklist them for every crawl."""
    try:
        rules = [purge_rule(target) for target in args.targets]
    except ValueError as exc:
        print(f"indexer: {exc}", file=sys.stderr)
        return 2
    if not index_dir(data_dir).is_dir():
        print(f"indexer: {data_dir} has no index to purge", file=sys.stderr)
        return 2
    try:
        with IndexBuilder(data_dir) as builder:
            matched = purge(builder, args.targets)
            if any(matched.values()):
                builder.commit()
                builder.finalize()
    except (IndexBusy,) + CORRUPTION as exc:  # busy: the writer's lock, or SQLite's
        if is_corruption(exc):
            return _damaged(data_dir, exc)
        print(f"indexer: {exc}; nothing was purged (is another indexer writing {data_dir}?)", file=sys.stderr)
        return 2
    for target, urls in matched.items():
        print(f"{target}: {len(urls)} purged" if urls else f"{target}: nothing in the index matches")
    if not any(matched.values()):
        print("indexer: nothing matched: nothing was purged or blacklisted", file=sys.stderr)
        return 1
    lines = [line for (_, line, _), urls in zip(rules, matched.values(), strict=False) if urls]
    where = _publish(data_dir, args.redis, args.queue.rsplit(":", 1)[0] + ":purged", lines)
    print(f"Blacklisted in {purged_path(data_dir)}{where}: they will not be fetched again.")
    return 0


def _publish(data_dir: Path, url: str | None, key: str, lines: list[str]) -> str:
    """Tell a running crawl: add ``lines`` to its Redis set ``key`` (its nodes
    reread it every 30 s). Returns where, for the message ("" when no crawl's
    Redis is reachable: the next crawl reads the file)."""
    client = None
    try:
        client = client_for(url or socket_url(data_dir))
        client.sadd(key, *lines)
    except (redis.RedisError, redis.exceptions.RedisClusterException, OSError) as exc:
        if url:
            print(
                f"indexer: cannot tell the crawl at {redacted(url)} ({exc}); its nodes read "
                f"{purged_path(data_dir)} only when they start",
                file=sys.stderr,
            )
        return ""
    finally:
        if client is not None:
            client.close()
    return f" and in the running crawl's Redis ({key})"


if __name__ == "__main__":
    sys.exit(main())

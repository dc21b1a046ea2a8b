"""``python -m crawler``: look after a crawl's frontier from outside the crawl.

    python -m crawler seed   [--data DIR | --redis URL] URL...   add seeds (also to a running crawl)
    python -m crawler status [--data DIR | --redis URL]          queue, seen URLs, items waiting
    python -m crawler reset  [--data DIR | --redis URL] [--all]  forget the crawl (--all: the index too)
    python -m crawler archive-index [--data DIR]                 index the archive's WARC files that have none

Without ``--redis`` these act on the embedded Redis of ``DIR``: the running
crawl's server if there is one, otherwise one started for the command. A
data directory of another format, or a frontier of another format, is
refused (:mod:`crawler.datadir`, :class:`crawler.frontier.OtherFrontier`),
but ``reset`` empties a frontier of any format. ``archive-index`` needs no
Redis: it writes the index beside each WARC file of an older crawl's
archive (:mod:`crawler.archive_index`), which search then starts from.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis
from scrapy import Request

from crawler import settings as defaults
from crawler.archive_index import index_archive
from crawler.connection import client_for
from crawler.datadir import (
    OtherFormat,
    access_mode,
    archive_dir,
    check_format,
    claim_format,
    create_with,
    graph_dir,
    index_dir,
    pages_files,
    redis_dir,
)
from crawler.embedded import DataDirBusy, EmbeddedRedis, socket_url
from crawler.frontier import QUEUED, Frontier, OtherFrontier, encode_request, forget_crawl
from crawler.monitor import last_finish
from crawler.sites import host_name, site_of
from crawler.urls import canonicalize, fingerprint
from crawler.version import add_version_option, typed_command


@contextmanager
def open_redis(data_dir: str, redis_url: str | None) -> Iterator[tuple[Any, EmbeddedRedis | None, bool]]:
    """A client of the crawl's Redis, the embedded server started for this
    command (None: a shared one, or the running crawl's), and whether a
    crawl is running on the embedded server."""
    server = None
    running = False
    if redis_url:
        client = client_for(redis_url)
    else:
        client = redis.Redis.from_url(socket_url(data_dir), socket_timeout=30)
        try:
            client.ping()
            running = True
        except (redis.ConnectionError, OSError):
            client.close()
            server = EmbeddedRedis(data_dir)
            client = redis.Redis.from_url(server.start(), socket_timeout=30)
    try:
        client.ping()
        yield client, server, running
    finally:
        client.close()
        if server is not None:
            server.stop()


def seed(frontier: Frontier, urls: list[str]) -> int:
    entries = []
    hosts = []
    for url in urls:
        canonical = canonicalize(url)
        if not canonical.startswith(("http://", "https://")):
            raise ValueError(f"only http and https URLs can be seeds: {url}")
        request = Request(canonical, meta={"depth": 0, "seed": True})
        entries.append((fingerprint(canonical), 0, encode_request(request), site_of(canonical)))
        hosts.append(host_name(canonical))
    frontier.add_scope(hosts)
    return frontier.push(entries).count(QUEUED)


def _sites(count: int) -> str:
    """How many sites, in words.

    >>> _sites(1), _sites(30)
    ('1 site', '30 sites')
    """
    return f"{count} site{'s' * (count != 1)}"


def crawl_state(nodes: dict[str, dict[str, Any]], finish: dict[str, Any] | None, queued: int = 0) -> str:
    """Whether the crawl runs, and how fast over its nodes' last interval (not
    since it started: idle time would count); or when it finished, or that
    Ctrl-C stopped it with ``queued`` requests left.

    >>> crawl_state({"a": {"rate": 10.0, "rate_seconds": 5.0}, "b": {"rate": 2.5, "rate_seconds": 5.0}}, None)
    'running: 2 nodes, 12.5 requests/s over the last 5 s'
    >>> at = time.mktime((2026, 12, 2, 9, 30, 14, 0, 0, -1))
    >>> crawl_state({"a": {"expired": True}}, {"finished": at, "reason": "finished", "pages": 306})
    'finished at 2026-12-02 09:30:14 (finished), its last node fetched 306 pages'
    >>> crawl_state({}, {"finished": at, "reason": "shutdown", "pages": 306}, 1461)
    'stopped (interrupted), 1,461 queued: its last node fetched 306 pages, until 2026-12-02 09:30:14'
    >>> crawl_state({}, None)
    'not running'
    """
    running = [info for info in nodes.values() if not info.get("expired")]
    if running:
        rate = sum(float(info.get("rate", 0)) for info in running)
        seconds = max(float(info.get("rate_seconds", 0)) for info in running)
        return (
            f"running: {len(running)} node{'s' * (len(running) != 1)}, {rate:,.1f} requests/s over the last "
            f"{seconds:.0f} s"
        )
    if finish:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(finish["finished"])))
        pages = int(finish.get("pages", 0))
        if finish.get("reason") == "shutdown":
            return (
                f"stopped (interrupted), {queued:,} queued: its last node fetched {pages:,} "
                f"page{'s' * (pages != 1)}, until {when}"
            )
        return (
            f"finished at {when} ({finish.get('reason', '?')}), its last node fetched {pages:,} "
            f"page{'s' * (pages != 1)}"
        )
    return "not running"


def status(frontier: Frontier) -> str:
    client = frontier.client
    leases = frontier.leases(node="status")
    nodes = leases.nodes()
    now = time.time()
    queued = len(frontier)
    lines = [
        f"crawl             {crawl_state(nodes, last_finish(client, frontier.name), queued)}",
        f"queued requests   {queued} in {_sites(frontier.sites_with_work())}",
        f"leased requests   {sum(node['leases'] for node in nodes.values())} (taken by crawl nodes, not finished yet)",
        f"URLs seen         {frontier.seen_count()}",
        f"items to index    {frontier.items_waiting()}",
        f"distinct contents {client.hlen(frontier.content_key)}",
        f"hosts in scope    {', '.join(sorted(frontier.scope())) or '-'}",
        f"nodes             {len(nodes) or 'none running'}",
    ]
    for name, info in nodes.items():
        if info.get("expired"):
            lines.append(f"  {name:32s} silent (its {info['leases']} leases go back to the queue soon)")
            continue
        lines.append(
            f"  {name:32s} {info.get('taken', 0):7d} requests, {info.get('rate', 0):6.1f}/s over the last "
            f"{info.get('rate_seconds', 0):.0f} s, {info['leases']} leased, "
            f"seen {now - info.get('seen', now):.0f} s ago"
        )
    sites = frontier.site_counts()
    if sites:
        lines.append("sites             requests taken (every node, every run)")
        for site, count, _ in sites[:20]:
            lines.append(f"  {site:40s} {count:7d}")
        if len(sites) > 20:
            lines.append(f"  ... and {len(sites) - 20} more sites")
    return "\n".join(lines)


def reset(client: Any, data_dir: str, everything: bool) -> str:
    deleted = forget_crawl(client)
    message = f"Forgot the crawl: {deleted} Redis keys deleted."
    if everything:
        root = Path(data_dir)
        for directory in (index_dir(root), graph_dir(root)):
            shutil.rmtree(directory, ignore_errors=True)
        for path in pages_files(root):
            path.unlink(missing_ok=True)
        message += f" Removed the index, graph and page store in {root}."
    else:
        message += " The index was kept (--all removes it too)."
    return message


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """The command; ``prog`` is its name as typed (``lantern``: ``lantern
    status`` and its kin), else the script's or ``python -m crawler``."""
    parser = argparse.ArgumentParser(prog=prog or typed_command("crawler"), description=__doc__.split("\n")[0])
    add_version_option(parser)
    _add_where_options(parser)
    commands = parser.add_subparsers(dest="command", required=True)
    seed_parser = commands.add_parser("seed", help="add seed URLs")
    seed_parser.add_argument("urls", nargs="+")
    status_parser = commands.add_parser("status", help="show the frontier")
    reset_parser = commands.add_parser("reset", help="forget the crawl")
    for command in (seed_parser, status_parser, reset_parser):
        add_version_option(command)
        _add_where_options(command, after_command=True)
    reset_parser.add_argument("--all", action="store_true", help="also remove the index")
    index_parser = commands.add_parser("archive-index", help="index the archive's WARC files that have no index")
    add_version_option(index_parser)
    index_parser.add_argument(
        "--data", default=argparse.SUPPRESS, help=f"data directory (default: {defaults.DATA_DIR})"
    )
    args = parser.parse_args(argv)
    if args.command == "archive-index":
        return _index_archive(args.data)
    if args.command == "status" and not args.redis and not redis_dir(args.data).exists():
        # A misspelt --data must not come back as an idle crawl, nor leave a directory behind.
        print(
            f"crawler: no crawl in {args.data}: check --data, or start one "
            f"(scrapy crawl web -a seeds=URL -s DATA_DIR={args.data})",
            file=sys.stderr,
        )
        return 2
    create_with(access_mode(defaults.DATA_DIR_MODE))
    try:
        _check_data_dir(args)
        with open_redis(args.data, args.redis) as (client, server, running):
            return _command(args, client, server, running)
    except (DataDirBusy, OtherFormat, OtherFrontier) as exc:
        print(f"crawler: {exc}", file=sys.stderr)
        return 2
    except (redis.RedisError, redis.exceptions.RedisClusterException, OSError, ValueError, RuntimeError) as exc:
        print(f"crawler: {exc}", file=sys.stderr)
        return 2


def _index_archive(data_dir: str) -> int:
    """``archive-index``: the missing index of each WARC file of ``data_dir``'s archive written."""
    archive = archive_dir(data_dir)
    if not archive.is_dir():
        print(f"crawler: no archive in {data_dir}: check --data", file=sys.stderr)
        return 2
    try:
        written, responses, had = index_archive(archive)
    except OSError as exc:
        print(f"crawler: cannot index the archive in {archive}: {exc}", file=sys.stderr)
        return 2
    print(f"Indexed {written} WARC file(s) in {archive} ({responses:,} responses); {had} already had their index.")
    return 0


def _add_where_options(parser: argparse.ArgumentParser, after_command: bool = False) -> None:
    """``--data`` and ``--redis``, before the command (``python -m crawler
    --data DIR status``) or after it (``lantern status --data DIR``). After
    it, one not given is left out of the result, so as not to undo the one
    given before."""
    data_default = argparse.SUPPRESS if after_command else defaults.DATA_DIR
    redis_default = argparse.SUPPRESS if after_command else None
    parser.add_argument("--data", default=data_default, help=f"data directory (default: {defaults.DATA_DIR})")
    parser.add_argument(
        "--redis", default=redis_default, help="Redis URL of a shared frontier (default: the embedded one)"
    )


def _check_data_dir(args: argparse.Namespace) -> None:
    """Refuse a data directory of another format where the command uses one:
    the embedded Redis lives in it (a new one is made, of this format), and
    ``reset --all`` empties it."""
    if not args.redis:
        claim_format(args.data)
    elif args.command == "reset" and args.all:
        check_format(args.data)


def _command(args: argparse.Namespace, client: Any, server: EmbeddedRedis | None, running: bool) -> int:
    """Run ``args.command`` on the crawl's Redis; its exit status. ``reset``
    forgets a frontier of any format; the others refuse one of another."""
    if args.command == "reset":
        if running:
            print(f"crawler: a crawl is running on {args.data}; stop it first", file=sys.stderr)
            return 2
        print(reset(client, args.data, args.all))
        return 0
    frontier = Frontier(client, url=args.redis or "", embedded=server)
    if args.command == "seed":
        added = seed(frontier, args.urls)
        where = "the running crawl" if running else "the frontier"
        print(f"Added {added} new seed(s) to {where} ({len(args.urls) - added} already seen).")
        if not running and not args.redis:
            print(f"Start the crawl with: scrapy crawl web -s DATA_DIR={args.data}")
    elif args.command == "status":
        print(status(frontier))
    return 0


if __name__ == "__main__":
    sys.exit(main())

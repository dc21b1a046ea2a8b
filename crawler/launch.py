"""``lantern crawl``: the crawl, from any directory.

    lantern crawl URL... [--data DIR] [-s NAME=VALUE]... [-a NAME=VALUE]...

runs ``scrapy crawl web -a seeds=URL,... -s DATA_DIR=DIR`` with this
project's settings (``SCRAPY_SETTINGS_MODULE=crawler.settings``). A
checkout's ``scrapy.cfg`` gives ``scrapy`` those settings; an installed
Lantern run from another directory has none (``scrapy crawl`` answers
that it is "not available from this location"), and in another Scrapy
project's directory ``scrapy`` would read that project's. The crawl itself
is Scrapy's command line running the project's ``crawl`` command
(:mod:`crawler.commands.crawl`): the same checks, log and exit statuses.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from crawler import settings as defaults
from crawler.version import add_version_option, typed_command

__all__ = ["crawl_options", "main", "scrapy_arguments"]

#: The project's settings, as the checkout's scrapy.cfg names them to ``scrapy``.
SETTINGS_MODULE = "crawler.settings"


def crawl_options(
    urls: Sequence[str], data: str | None, settings: Sequence[str], spider_arguments: Sequence[str]
) -> tuple[dict[str, str], dict[str, str]]:
    """The spider's arguments and the settings of the crawl the command
    line asks for (a name given twice: the last value, as in Scrapy);
    ValueError for what Scrapy would misread. The URLs are seeds before
    those of ``-a seeds=``.

    >>> crawl_options(["https://a.org/"], "data/docs", ["DEPTH_LIMIT=2"], ["seeds=https://b.org/", "scope=domain"])
    ({'seeds': 'https://a.org/,https://b.org/', 'scope': 'domain'}, {'DATA_DIR': 'data/docs', 'DEPTH_LIMIT': '2'})
    >>> crawl_options(["https://a.org/?q=1,2"], None, [], [])
    Traceback (most recent call last):
    ...
    ValueError: a seed URL holding a comma cannot be given here: list it in a file, -a seeds_file=FILE
    """
    for pair in (*settings, *spider_arguments):
        if "=" not in pair:
            raise ValueError(f"{pair!r} is not NAME=VALUE")
    if any("," in url for url in urls):
        raise ValueError("a seed URL holding a comma cannot be given here: list it in a file, -a seeds_file=FILE")
    given = dict(pair.split("=", 1) for pair in settings)
    if data is not None:
        if "DATA_DIR" in given:
            raise ValueError("give the data directory once: --data DIR or -s DATA_DIR=DIR")
        given = {"DATA_DIR": data, **given}
    spider = dict(pair.split("=", 1) for pair in spider_arguments)
    seeds = [*urls, *filter(None, spider.pop("seeds", "").split(","))]
    if seeds:
        spider = {"seeds": ",".join(seeds), **spider}
    return spider, given


def scrapy_arguments(spider: dict[str, str], settings: dict[str, str]) -> list[str]:
    """The arguments of ``scrapy`` that run that crawl.

    >>> scrapy_arguments({"seeds": "https://a.org/"}, {"DATA_DIR": "data/docs"})
    ['crawl', 'web', '-a', 'seeds=https://a.org/', '-s', 'DATA_DIR=data/docs']
    """
    arguments = ["crawl", "web"]
    for option, pairs in (("-a", spider), ("-s", settings)):
        for name, value in pairs.items():
            arguments += [option, f"{name}={value}"]
    return arguments


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """The command; ``prog`` is its name as typed (``lantern crawl``)."""
    parser = _parser(prog or typed_command("crawler.launch"))
    args = parser.parse_args(argv)
    try:
        spider, settings = crawl_options(args.urls, args.data, args.settings, args.spider_arguments)
    except ValueError as exc:
        parser.error(str(exc))
    # Imported here: `lantern --version` and the other commands need no Scrapy.
    from scrapy.cmdline import execute
    from scrapy.exceptions import UsageError
    from scrapy.utils.project import ENVVAR  # SCRAPY_SETTINGS_MODULE

    from crawler.project import project_settings
    from crawler.spiders.web import check_arguments

    try:
        # The crawl checks them too, but a bad seed is said here under this command's name.
        check_arguments(project_settings(settings), **spider)
    except UsageError as exc:
        parser.error(str(exc))
    os.environ[ENVVAR] = SETTINGS_MODULE
    try:
        execute(["scrapy", *scrapy_arguments(spider, settings)])
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else int(exit.code is not None)
    return 0


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        usage="%(prog)s URL... [--data DIR] [-s NAME=VALUE]... [-a NAME=VALUE]...",
        description="Crawl the seeds' sites and index them into the data directory (Scrapy's "
        "`scrapy crawl web` with Lantern's settings, from any directory). Without URLs, resume "
        "the crawl of the data directory.",
    )
    add_version_option(parser)
    parser.add_argument("urls", nargs="*", metavar="URL", help="seed URLs (http or https)")
    parser.add_argument("--data", metavar="DIR", help=f"data directory: -s DATA_DIR=DIR (default: {defaults.DATA_DIR})")
    parser.add_argument(
        "-s",
        dest="settings",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting (docs/settings.md), as Scrapy takes it; repeatable",
    )
    parser.add_argument(
        "-a",
        dest="spider_arguments",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an argument of the web spider (seeds, seeds_file, scope, recrawl), as Scrapy takes it; repeatable",
    )
    return parser

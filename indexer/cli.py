"""``lantern``: the one installed command; each subcommand is one of the programs.

    lantern crawl URL... [--data DIR] [-s NAME=VALUE]... [-a NAME=VALUE]...
    lantern search [--data DIR] QUERY...
    lantern web [--data DIR] [--port PORT]
    lantern index [--data DIR] [finalize|purge|rebuild|stats] ...
    lantern status|seed|reset [--data DIR] ...

Each subcommand hands the rest of its command line to a program that also
runs alone in a checkout (``scrapy crawl web``, ``python -m search``,
``python -m search.web``, ``python -m indexer``, ``python -m crawler``), under
the name typed (``lantern search``), so that its usage and error lines name
what the user ran. A program is imported only when its subcommand runs: a
search starts without Scrapy, a crawl without Whoosh.

It lives in ``indexer/`` because the layers allow it nowhere else: the
crawler imports neither the indexer nor search, and search imports no glue
of the crawl.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from crawler.version import add_version_option, typed_command

__all__ = ["main"]

Program = Callable[[list[str], str], int]


def _crawl(argv: list[str], prog: str) -> int:
    from crawler.launch import main

    return main(argv, prog)


def _search(argv: list[str], prog: str) -> int:
    from search.__main__ import main

    return main(argv, prog)


def _web(argv: list[str], prog: str) -> int:
    from search.web import main

    return main(argv, prog)


def _index(argv: list[str], prog: str) -> int:
    from indexer.__main__ import main

    return main(argv, prog)


def _frontier(command: str) -> Program:
    """``status``, ``seed`` or ``reset``: ``python -m crawler COMMAND``."""

    def run(argv: list[str], prog: str) -> int:
        from crawler.__main__ import main

        return main([command, *argv], prog.rsplit(" ", 1)[0])

    return run


#: Each subcommand: what it does, and the program that does it.
COMMANDS: dict[str, tuple[str, Program]] = {
    "crawl": ("crawl the seeds' sites and index them (scrapy crawl web)", _crawl),
    "search": ("search a data directory from the command line", _search),
    "web": ("serve the search page and its JSON API", _web),
    "index": ("drain the crawl's queue into the index; finalize, purge, rebuild, stats", _index),
    "status": ("show a crawl's frontier: queued, seen, nodes", _frontier("status")),
    "seed": ("add seed URLs, also to a running crawl", _frontier("seed")),
    "reset": ("forget a crawl (--all: its index too)", _frontier("reset")),
}


def main(argv: list[str] | None = None) -> int:
    name = typed_command("indexer.cli")
    parser = argparse.ArgumentParser(
        prog=name,
        usage=f"{name} COMMAND [ARGUMENTS...]",
        description="Lantern: a search engine over the sites you choose.",
        epilog="commands:\n"
        + "\n".join(f"  {command:8s} {summary}" for command, (summary, _) in COMMANDS.items())
        + f"\n\n'{name} COMMAND --help' says a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_version_option(parser)
    parser.add_argument("command", nargs="?", choices=COMMANDS, metavar="COMMAND", help=argparse.SUPPRESS)
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    _, program = COMMANDS[args.command]
    return program(args.arguments, f"{name} {args.command}")


if __name__ == "__main__":
    sys.exit(main())

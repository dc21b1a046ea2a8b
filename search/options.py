"""The options ``python -m search`` and ``python -m search.web`` both take, defined once.

A search from the command line and one from the page must open the same
engine the same way: the data directory (or several, read as one index), how pages known only by links to
them rank, what a members-only page's snippet may show. Their defaults are
read from ``crawler/settings.py`` when a parser is built, never at import,
and an engine given ``None`` reads the same settings itself.
"""

from __future__ import annotations

import argparse
from typing import TypedDict

from crawler import settings as defaults
from search.engine import ANCHOR_POLICIES, MEMBERS_SNIPPETS

__all__ = ["DEFAULT_N", "EngineOptions", "add_data_option", "add_engine_options", "data_dirs", "engine_options"]

# Results per page: the command's ``-n`` and the page's ``n`` when not given.
DEFAULT_N = 10


class EngineOptions(TypedDict):
    """What :class:`~search.engine.SearchEngine` takes from the command line; None: its setting."""

    anchor_only: str | None
    members_snippet: str | None


def add_data_option(parser: argparse.ArgumentParser) -> None:
    """``--data``: the data directory searched (default: ``DATA_DIR``), or
    several, read as one index (:func:`data_dirs`)."""
    parser.add_argument(
        "--data",
        action="append",
        help=f"data directory (default: {defaults.DATA_DIR}); more than once: directories read as one index",
    )


def data_dirs(args: argparse.Namespace) -> list[str]:
    """The directories ``--data`` names, each once, in order (``DATA_DIR`` if none).

    >>> data_dirs(argparse.Namespace(data=["a", "b", "a"])), data_dirs(argparse.Namespace(data=None)) == [
    ...     defaults.DATA_DIR]
    (['a', 'b'], True)
    """
    return list(dict.fromkeys(args.data or [defaults.DATA_DIR]))


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """``--anchor-only`` and ``--members-snippet``: None when not given, so
    that the engine falls back on its settings, which the help names."""
    parser.add_argument(
        "--anchor-only",
        choices=ANCHOR_POLICIES,
        default=None,
        help="pages known only by links to them: rank (among crawled pages when several "
        "pages link to them, else after), last, or hide (default: SEARCH_ANCHOR_ONLY, "
        f"{defaults.SEARCH_ANCHOR_ONLY})",
    )
    parser.add_argument(
        "--members-snippet",
        choices=MEMBERS_SNIPPETS,
        default=None,
        help="the snippet of a page crawled with a site owner's credentials: short (one "
        "sentence holding the query's words) or none (default: SEARCH_MEMBERS_SNIPPET, "
        f"{defaults.SEARCH_MEMBERS_SNIPPET})",
    )


def engine_options(args: argparse.Namespace) -> EngineOptions:
    """The engine's keyword arguments from :func:`add_engine_options`'s options.

    >>> engine_options(argparse.Namespace(anchor_only="last", members_snippet=None))
    {'anchor_only': 'last', 'members_snippet': None}
    """
    return {"anchor_only": args.anchor_only, "members_snippet": args.members_snippet}

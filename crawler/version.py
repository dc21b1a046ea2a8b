"""Lantern's version, and how a command names itself: one home, used by
every command's usage line and ``--version`` and in the crawler's User-Agent.

A command is reached three ways: ``lantern search`` (the one installed
command), ``lantern-search`` (its alias) and ``python -m search`` in a
checkout. Its usage and error lines name the way it was typed, so that a
user can copy them.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

VERSION = "0.1"


def typed_command(module: str, argv0: str | None = None) -> str:
    """The command as the user typed it: the installed script's name, or
    ``python -m module`` when Python ran the module's file (``argv0`` is
    ``sys.argv[0]``).

    >>> typed_command("search", "/home/me/.local/bin/lantern-search")
    'lantern-search'
    >>> typed_command("search", "/work/lantern/search/__main__.py")
    'python -m search'
    >>> typed_command("search.web", "")
    'python -m search.web'
    """
    name = os.path.basename(sys.argv[0] if argv0 is None and sys.argv else argv0 or "")
    if not name or name.endswith(".py") or name == "-c":
        return f"python -m {module}"
    return name


def add_version_option(parser: argparse.ArgumentParser) -> None:
    """``--version``: the command's name and Lantern's version, then exit 0."""
    parser.add_argument("--version", action="version", version=f"%(prog)s (Lantern) {VERSION}")

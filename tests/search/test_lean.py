"""A command-line search imports neither asyncio nor urllib.request, and
everything that does use them still gets the real modules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.items import page
from tests.search.conftest import Build

ROOT = Path(__file__).resolve().parents[2]

_CHECK = """
import sys
from search.lean import start_lean
start_lean()
import whoosh.index, whoosh.qparser, whoosh.reading, whoosh.searching
assert "asyncio" not in sys.modules and "urllib.request" not in sys.modules, sorted(sys.modules)

import cached_property
from search.lean import _iscoroutinefunction
from unittest.mock import AsyncMock
async def coroutine(): pass
def plain(): pass
import asyncio
for function in (coroutine, plain, AsyncMock(), len):
    assert _iscoroutinefunction(function) == asyncio.iscoroutinefunction(function), function

import urllib.request, whoosh.compat
assert type(asyncio) is type(sys) and asyncio.get_event_loop_policy() is not None
assert urllib.request.urlopen and type(urllib.request) is type(sys)
assert whoosh.compat.urlretrieve.__name__ == "urlretrieve"

class Lazy:
    @cached_property.cached_property
    def value(self):
        return 42
assert Lazy().value == 42
print("ok")
"""


def test_whoosh_imports_without_asyncio_or_urllib_request_and_they_still_work() -> None:
    done = subprocess.run([sys.executable, "-c", _CHECK], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


def test_a_search_from_the_command_line_loads_neither(build: Build) -> None:
    """The whole command, a posting list read: ``python -X importtime``
    lists every module it imports."""
    engine = build(page("http://a.test/", "Harbour ferries", "The harbour ferries run daily."))
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "search", "--data", str(engine.data_dir), "harbour ferries"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Harbour ferries" in done.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert not imported & {"asyncio", "urllib.request", "ssl"}, sorted(imported & {"asyncio", "urllib.request", "ssl"})


def test_the_search_engine_imports_none_of_the_crawlers_extractors() -> None:
    """Search reads languages and URLs with the crawler's light modules only:
    the extractors (lxml, pypdf, charset detection) took 160 ms of every
    command-line search's start when a language helper lived among them."""
    check = (
        "import sys, search.engine\n"
        "heavy = sorted(m for m in sys.modules if m.startswith(('crawler.extractors', 'pypdf', 'lxml', 'scrapy')))\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr

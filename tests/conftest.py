"""Shared fixtures: real services on this machine, stopped by the test that starts them;
and the ``system`` marker, put on the tests that start them."""

from __future__ import annotations

import fcntl
import inspect
import os
import subprocess
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from crawler.embedded import EmbeddedRedis
from tests.commands import crawl
from tests.demoweb import DemoWeb, serve

# Politeness off: the demo web is ours and local.
FAST = ("DOWNLOAD_DELAY=0", "CONCURRENT_REQUESTS_PER_DOMAIN=8", "LOG_LEVEL=INFO")


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """The URL of a real redis-server (the embedded one) on a unix socket in tmp_path."""
    server = EmbeddedRedis(tmp_path / "data")
    url = server.start()
    try:
        yield url
    finally:
        server.stop()


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    """A client of that server."""
    client = redis.Redis.from_url(redis_url)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(scope="session")
def demo_crawl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[DemoWeb, Path, str]]:
    """The demo web crawled once by a real ``scrapy crawl`` (embedded Redis,
    inline indexer): the web (stopped once crawled; its request log, sites
    and facts remain), the data directory, and the crawl's log."""
    data = tmp_path_factory.mktemp("demo")
    with serve() as web:
        done = crawl(web.seeds[:1], data, *FAST)
    assert done.returncode == 0, done.stderr[-3000:]
    yield web, data, done.stderr


# --- markers -------------------------------------------------------------------------
# `make check` runs the tests marked neither `system` nor `slow` (pytest.ini says what
# each means). `slow` is written on the tests; `system` is found here.


def _starts_a_process(thing: object, seen: set[int]) -> bool:
    """Whether ``thing`` (a test, a fixture, or what they use) starts a process: itself, or
    through the functions and classes of this package it names, followed to any depth.

    Everything the tests start goes through subprocess (a crawl, the other commands,
    Chromium, a Redis server), but for the embedded Redis, which the project starts
    itself. Written on each test, the marker would be forgotten on the next one."""
    if id(thing) in seen or thing is _starts_a_process:  # (naming subprocess, it starts none)
        return False
    seen.add(id(thing))
    if thing is subprocess or thing is EmbeddedRedis or getattr(thing, "__module__", None) == "subprocess":
        return True
    if not (getattr(thing, "__module__", None) or "").startswith("tests."):
        return False  # the project's own code and the libraries are followed no further
    if isinstance(thing, type):
        return any(_starts_a_process(member, seen) for member in vars(thing).values())
    if isinstance(thing, (staticmethod, classmethod)):
        thing = thing.__func__
    if isinstance(thing, property):
        thing = thing.fget
    thing = inspect.unwrap(thing) if callable(thing) else thing
    if not isinstance(thing, types.FunctionType):
        return False
    names = [name for code in _code_objects(thing.__code__) for name in code.co_names]
    # Its globals, and the attributes it reads of the modules of this package it imports (`browser.chromium`).
    modules = [
        module
        for name in names
        if isinstance(module := thing.__globals__.get(name), types.ModuleType) and module.__name__.startswith("tests.")
    ]
    return any(
        _starts_a_process(namespace.get(name), seen)
        for namespace in [thing.__globals__, *map(vars, modules)]
        for name in names
    )


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """A function's code and that of the functions, lambdas and comprehensions in it."""
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_objects(constant)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    found: dict[object, bool] = {}  # a test function or fixture: whether it starts a process
    for item in items:
        if not isinstance(item, pytest.Function) or item.get_closest_marker("system"):
            continue
        fixtures = [
            definition.func for definitions in item._fixtureinfo.name2fixturedefs.values() for definition in definitions
        ]
        for thing in [item.function, *fixtures]:
            if thing not in found:
                found[thing] = _starts_a_process(thing, set())
            if found[thing]:
                item.add_marker(pytest.mark.system)
                break


# --- tests run side by side -----------------------------------------------------------
# `make test` runs the tests in two processes (pytest-xdist, a file to a process). A test
# marked `alone` measures rates or times: while it runs, with its fixtures' setup and
# teardown, the other process runs no test, and it waits for the one running there to end.
# Two lock files in the run's temporary directory, shared by both processes: a turnstile
# taken by every test on its way in, so that a test waiting to run alone is not passed
# over for ever, and the lock itself, shared by the other tests.


@contextmanager
def _turn(directory: Path, alone: bool) -> Iterator[None]:
    with open(directory / "turnstile.lock", "a") as turnstile, open(directory / "tests.lock", "a") as running:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        fcntl.flock(running, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(running, fcntl.LOCK_UN)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    if "PYTEST_XDIST_WORKER" not in os.environ:  # one process: every test runs alone
        return (yield)
    # Each process's temporary directory is one of the run's: their parent is shared.
    with _turn(Path(item.config.option.basetemp).parent, item.get_closest_marker("alone") is not None):
        return (yield)

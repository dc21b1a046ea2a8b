"""``make check`` leaves out the tests that start a process: tests/conftest.py finds them
from what they call, so a new test that starts one is left out without being marked."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests import browser, commands, items, webserver
from tests.conftest import _starts_a_process
from tests.redis_server import RedisServer


def _opens_the_search_page() -> str:
    return browser.chromium()  # through an attribute of a module of this package


def _serves_a_page() -> None:
    with webserver.serve_site({"/": webserver.page("<p>Tide tables</p>")}):
        pass


@pytest.mark.parametrize("thing", [commands.crawl, commands.run, _opens_the_search_page, RedisServer])
def test_a_crawl_a_command_a_browser_or_a_redis_server_starts_a_process(thing: Callable[..., object]) -> None:
    assert _starts_a_process(thing, set())


@pytest.mark.parametrize("thing", [_serves_a_page, webserver.serve_site, items.page])
def test_a_web_site_served_in_a_thread_or_a_literal_item_starts_none(thing: Callable[..., object]) -> None:
    assert not _starts_a_process(thing, set())

"""The components' coroutines run in the test's own asyncio event loop: a test
written ``async def`` is run by :func:`asyncio.run` (Scrapy without a Twisted
reactor, as tests/crawler/components/crawlers.py builds its crawlers)."""

from __future__ import annotations

import asyncio
import inspect

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    asyncio.run(pyfuncitem.obj(**arguments))
    return True

"""A command-line search starts without what its libraries import and never use.

A search from the command line is a process of its own, and importing is
most of its time. Two standard-library modules are imported at start for
features a search does not touch: ``asyncio`` (the ``cached_property``
package imports it for properties that are coroutines; Whoosh's are not)
and ``urllib.request`` (Whoosh's compatibility module imports its
``urlretrieve``, used only to download word lists). Together about 50 ms
of a 250 ms command on two cores. :func:`start_lean` imports the two
modules that import them while stand-ins take their place: a stand-in
imports the real module when something is asked of it (``urlretrieve``
called, an attribute of asyncio other than ``iscoroutinefunction``, which
it answers as asyncio would), and leaves
``sys.modules`` at once, so any other import gets the real module.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["start_lean"]


def start_lean() -> None:
    """Import Whoosh's two modules that import them with stand-ins for
    those; call before anything imports Whoosh."""
    if "whoosh.compat" in sys.modules or "cached_property" in sys.modules:
        return
    with (
        _standing_in("asyncio", iscoroutinefunction=_iscoroutinefunction),
        _standing_in("urllib.request", urlretrieve=_deferred("urllib.request", "urlretrieve")),
    ):
        importlib.import_module("cached_property")
        importlib.import_module("whoosh.compat")


class _StandIn(types.ModuleType):
    """A module whose attributes are the real module's, imported when one is
    first asked for (once the stand-in has left ``sys.modules``)."""

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__") or sys.modules.get(self.__name__) is self:
            raise AttributeError(attribute)  # the import system's questions, while it stands in
        return getattr(importlib.import_module(self.__name__), attribute)


@contextmanager
def _standing_in(name: str, **functions: Callable[..., Any]) -> Iterator[None]:
    """``name`` imported as a stand-in while in the block, with ``functions``
    of its own (for ``from name import function``, or to answer without the
    real module); after it, anyone who imports ``name`` gets the real module."""
    if name in sys.modules:
        yield
        return
    stand_in = _StandIn(name)
    for function, value in functions.items():
        setattr(stand_in, function, value)
    sys.modules[name] = stand_in
    try:
        yield
    finally:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]


def _iscoroutinefunction(function: Any) -> bool:
    """``asyncio.iscoroutinefunction``, loading asyncio only for what only
    it can tell: a function marked as a coroutine its own way. Whoosh asks
    it of a property the first time a search reads a posting list."""
    if inspect.iscoroutinefunction(function):
        return True
    if getattr(function, "_is_coroutine", None) is None:
        return False
    return bool(importlib.import_module("asyncio").iscoroutinefunction(function))


def _deferred(module: str, function: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), function)(*args, **kwargs)

    call.__name__ = function
    return call

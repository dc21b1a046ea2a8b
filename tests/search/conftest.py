"""Small literal indexes for ranking tests: items in, a real Whoosh index on disk, an engine out."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from indexer.builder import IndexBuilder
from search.engine import SearchEngine

Build = Callable[..., SearchEngine]


@pytest.fixture
def build(tmp_path: Path) -> Iterator[Build]:
    """``build(*items, **engine_options)``: index the items, finalize, open an engine."""
    engines: list[SearchEngine] = []

    def make(*items: dict, **options: Any) -> SearchEngine:
        data = tmp_path / f"data{len(engines)}"
        with IndexBuilder(data) as builder:
            builder.add(list(items))
            builder.finalize()
        engines.append(SearchEngine(data, **options))
        return engines[-1]

    yield make
    for engine in engines:
        engine.close()


def indexed(directory: Path, items: list[dict]) -> Path:
    """``directory`` made a data directory holding ``items``, finalized."""
    with IndexBuilder(directory) as builder:
        builder.add(items)
        builder.finalize()
    return directory


def opened(data: Path) -> Iterator[SearchEngine]:
    """An engine on ``data`` for a module's tests, closed after them."""
    with SearchEngine(data) as engine:
        yield engine

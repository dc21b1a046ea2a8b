"""Shared fixtures: real services on this machine, stopped by the test that starts them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from crawler.embedded import EmbeddedRedis


@pytest.fixture
def redis_client(tmp_path: Path) -> Iterator[redis.Redis]:
    """A real redis-server (the embedded one) on a unix socket in tmp_path."""
    server = EmbeddedRedis(tmp_path / "data")
    client = redis.Redis.from_url(server.start())
    try:
        yield client
    finally:
        client.close()
        server.stop()

"""The embedded Redis server: persistence, one owner per data directory, no orphans."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import redis

from crawler.embedded import (
    DataDirBusy,
    EmbeddedRedis,
    redis_server_binary,
    socket_url,
)
from crawler.processes import wait_for_exit


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it is dead for our purposes.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_data_survives_a_restart(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as server:
        redis.Redis.from_url(server.url).set("k", "v")
    assert (tmp_path / "redis" / "appendonly.aof").exists()
    with EmbeddedRedis(tmp_path) as server:
        assert redis.Redis.from_url(server.url).get("k") == b"v"


def test_listens_on_a_unix_socket_only(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as server:
        client = redis.Redis.from_url(server.url)
        assert client.config_get("port")["port"] == "0"
        assert server.url == socket_url(tmp_path)


def test_one_owner_per_data_directory(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path):
        with pytest.raises(DataDirBusy, match="in use by another crawl"):
            EmbeddedRedis(tmp_path).start()


_OWNER = """
import sys, redis
from crawler.embedded import EmbeddedRedis
server = EmbeddedRedis(sys.argv[1])
client = redis.Redis.from_url(server.start())
client.set("written", "before the crash")
print(server._process.pid, flush=True)
sys.stdin.read()
"""


def test_server_dies_with_its_owner_and_keeps_its_data(tmp_path: Path) -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", _OWNER, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=Path(__file__).parents[2],
    )
    try:
        server_pid = int(owner.stdout.readline())
        owner.kill()  # kill -9: no cleanup code runs in the owner
        owner.wait()
        assert wait_for_exit(server_pid, timeout=20), "the server outlived its owner"
    finally:
        owner.kill()
        owner.wait()
    with EmbeddedRedis(tmp_path) as server:
        assert redis.Redis.from_url(server.url).get("written") == b"before the crash"


@pytest.mark.timeout(60)
def test_an_orphaned_server_is_stopped_and_its_data_kept(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as server:
        redis.Redis.from_url(server.url).set("k", "kept")
        config = server.directory / "redis.conf"
    # A server left running by an owner that is gone (no lock held).
    orphan = subprocess.Popen(
        [redis_server_binary(), str(config), "--logfile", ""],  # log to stdout
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        for line in orphan.stdout:  # wait for the server to say it is ready
            if "ready to accept connections" in line:
                break
        with EmbeddedRedis(tmp_path) as server:
            assert orphan.poll() is not None, "the orphan should have been stopped"
            assert redis.Redis.from_url(server.url).get("k") == b"kept"
    finally:
        if orphan.poll() is None:
            orphan.kill()
        orphan.wait()


def test_a_stale_socket_file_does_not_block_a_start(tmp_path: Path) -> None:
    socket_path = Path(socket_url(tmp_path).removeprefix("unix://").split("?")[0])
    socket_path.parent.mkdir(parents=True)
    socket_path.write_text("stale")
    with EmbeddedRedis(tmp_path) as server:
        assert redis.Redis.from_url(server.url).ping()


def test_stop_leaves_no_process(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path)
    server.start()
    pid = server._process.pid
    server.stop()
    assert not _alive(pid)
    server.stop()  # idempotent
    assert signal.SIGTERM  # the stop path is SIGTERM, redis's clean shutdown


def test_a_long_data_directory_gets_a_private_socket_no_one_can_take_first(tmp_path: Path) -> None:
    data = tmp_path / ("a-data-directory-with-a-long-name-" * 3)
    # The name a long directory's socket had, taken before the crawl starts (by another user, say).
    digest = hashlib.md5(str(data.resolve() / "redis").encode()).hexdigest()[:16]
    taken = Path(tempfile.gettempdir()) / f"lantern-{digest}.sock"
    taken.mkdir()
    try:
        with EmbeddedRedis(data) as server:
            private = server.socket.parent
            assert private != Path(tempfile.gettempdir()) and private.stat().st_mode & 0o777 == 0o700
            assert socket_url(data) == server.url  # what the indexer and `python -m crawler` attach to
            assert redis.Redis.from_url(socket_url(data)).ping()
        assert not private.exists() and not (data / "redis" / "socket").exists()
    finally:
        taken.rmdir()

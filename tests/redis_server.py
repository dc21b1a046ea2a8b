"""Debian's redis-server for the multi-node tests: a shared Redis as users run one.

TCP on 127.0.0.1 and a free port, append-only persistence in a directory of
the test's, stopped (and restartable, keeping its data) by the test. Also a
Redis Cluster of three such servers, created with ``redis-cli --cluster
create`` as its users create one.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import redis

from tests.system import ensure

__all__ = ["RedisServer", "RedisClusterServers"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    def __init__(self, directory: Path, *options: str) -> None:
        ensure("redis-server")
        self.directory = directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.options = options
        self._process: subprocess.Popen[str] | None = None

    def start(self) -> RedisServer:
        self._process = subprocess.Popen(
            [
                shutil.which("redis-server") or "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--appendonly",
                "yes",
                "--save",
                "",
                "--logfile",
                "",
                "--daemonize",
                "no",
                *self.options,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self._process.stdout is not None
        for line in self._process.stdout:  # wait for the server to say it is ready
            if "ready to accept connections" in line.lower():
                # Read the rest of its log as it comes: a full pipe would stop the server.
                threading.Thread(target=self._process.stdout.read, daemon=True).start()
                return self
        raise RuntimeError(f"redis-server exited: {self._process.wait()}")

    def stop(self) -> None:
        """SIGTERM: redis saves its append-only file and exits."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            self._process.wait(timeout=30)
        self._process = None

    def kill(self) -> None:
        """SIGKILL: no chance to save anything beyond what the append-only file holds."""
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=30)
        self._process = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class RedisClusterServers:
    """Three masters (``--cluster-enabled yes``, append-only, no replicas),
    each in its own directory, made one cluster by ``redis-cli --cluster
    create``. ``url`` is the crawl's ``REDIS_URL`` for it."""

    def __init__(self, directory: Path, masters: int = 3) -> None:
        ensure("redis-server", "redis-tools")
        # The cluster bus port is its own free port (by default it is the
        # client port + 10000, which a free port may not leave room for).
        self.servers = [
            RedisServer(
                directory / f"node{n}",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-port",
                str(_free_port()),
                "--cluster-node-timeout",
                "2000",
                "--appendfsync",
                "always",
            )
            for n in range(masters)
        ]
        self.url = "redis+cluster://" + ",".join(f"127.0.0.1:{server.port}" for server in self.servers)

    def start(self) -> RedisClusterServers:
        for server in self.servers:
            server.start()
        addresses = [f"127.0.0.1:{server.port}" for server in self.servers]
        done = subprocess.run(
            [
                shutil.which("redis-cli") or "redis-cli",
                "--cluster",
                "create",
                *addresses,
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if done.returncode != 0:
            self.stop()
            raise RuntimeError(f"redis-cli --cluster create failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")
        self.wait_until_ok()
        return self

    def wait_until_ok(self, seconds: float = 60) -> None:
        """Until every master says ``cluster_state:ok`` (all slots served)."""
        deadline = time.monotonic() + seconds
        for server in self.servers:
            client = redis.Redis(port=server.port, socket_timeout=5)
            try:
                while client.cluster("info").get("cluster_state") != "ok":
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"the cluster is not ok after {seconds} s")
                    time.sleep(0.05)
            finally:
                client.close()

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    def __enter__(self) -> RedisClusterServers:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
